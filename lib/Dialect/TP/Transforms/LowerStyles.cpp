//===- LowerStyles.cpp - styles to DTensor ops ------------------*- C++ -*-===//
//
// tp-lower-styles: turns each module's `tp.style` into parameter placements
// (tp.distribute), input layouts (declared, then redistributed to what the
// style wants) and output redistributions, following DESIGN 4.1. Values
// downstream then get placements from tp-propagate's rules, which this pass
// runs so that its output is well typed.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERSTYLESPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

namespace {

/// Lowers the styles of one module, given the plan's mesh and TP axis.
class StyleLowering {
public:
  StyleLowering(MeshOp mesh, int64_t tpAxis)
      : mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())),
        tpAxis(tpAxis) {}

  LogicalResult lower(Operation *op, Attribute style) {
    // tp-apply-plan checks this too, but tp.style may be written by hand.
    if (!styleSupportsModule(style, op))
      return op->emitError()
             << cast<ParallelStyleAttrInterface>(style).getStyleName()
             << " does not support module '" << m::getModuleFQN(op)
             << "' of type " << m::getModuleTypeName(op);
    if (failed(validateLayouts(op, style)))
      return failure();
    return llvm::TypeSwitch<Attribute, LogicalResult>(style)
        .Case([&](ColwiseAttr s) {
          return lowerColwise(op, s.getInputLayouts(), s.getOutputLayouts());
        })
        .Case([&](RowwiseAttr s) {
          return lowerRowwise(op, s.getInputLayouts(), s.getOutputLayouts());
        })
        .Case([&](PrepareModuleInputAttr s) {
          return prepareInputs(op, s.getInputLayouts(),
                               s.getDesiredInputLayouts(),
                               s.getInputKwargLayouts(),
                               s.getDesiredInputKwargLayouts());
        })
        .Case([&](PrepareModuleOutputAttr s) {
          return prepareOutputs(op, s.getOutputLayouts(),
                                s.getDesiredOutputLayouts());
        })
        .Case([&](PrepareModuleInputOutputAttr s) {
          if (failed(prepareInputs(op, s.getInputLayouts(),
                                   s.getDesiredInputLayouts(),
                                   s.getInputKwargLayouts(),
                                   s.getDesiredInputKwargLayouts())))
            return failure();
          return prepareOutputs(op, s.getOutputLayouts(),
                                s.getDesiredOutputLayouts());
        })
        .Case([&](SequenceParallelAttr s) {
          return lowerSequenceParallel(op, s.getSequenceDim());
        })
        .Case([&](PairwiseParallelAttr s) {
          // The seed's default: input replicated, output replicated.
          Attribute rep = ReplicateAttr::get(op->getContext());
          return lowerPairwise(op, s.getInputLayouts(), rep,
                               orDefault(s.getOutputLayouts(), rep));
        })
        .Case([&](PairwiseSequenceParallelAttr s) {
          // The seed's variant: input resharded Shard(0) -> Replicate,
          // output Shard(0).
          MLIRContext *ctx = op->getContext();
          Attribute shard0 = ShardAttr::get(ctx, 0);
          return lowerPairwise(op, orDefault(s.getInputLayouts(), shard0),
                               ReplicateAttr::get(ctx),
                               orDefault(s.getOutputLayouts(), shard0));
        })
        .Case([&](CustomStyleAttr s) { return lowerCustom(op, s); })
        .Default([&](Attribute) {
          return op->emitError()
                 << cast<ParallelStyleAttrInterface>(style).getStyleName()
                 << " on module '" << m::getModuleFQN(op) << "' of type "
                 << m::getModuleTypeName(op)
                 << " is not lowered by this version of tp-lower-styles";
        });
  }

private:
  /// The module types each style lowers (as tp-apply-plan's check).
  FlatSymbolRefAttr meshSym() { return meshRef; }

  /// ensurePlacements, marking the op it creates (if any) with the TP axis:
  /// a style only decides that axis, so tp-propagate keeps whatever the
  /// value has on the other axes (e.g. a batch shard on a data-parallel
  /// axis).
  Value place(OpBuilder &b, Location loc, Value v,
              ArrayRef<Attribute> placements, StringRef fqn,
              bool explicitLayout = false) {
    Value out = ensurePlacements(b, loc, v, meshSym(), placements, fqn);
    // A plain tensor wanted replicated needs no op, unless the layout is a
    // requirement (a prepared input or output): then record it, so that if
    // the value turns out distributed, propagation redistributes it.
    if (out == v && explicitLayout && isa<RankedTensorType>(v.getType())) {
      auto tensor = cast<RankedTensorType>(v.getType());
      auto type = DTensorType::get(v.getContext(), tensor.getShape(),
                                   tensor.getElementType(), meshSym(),
                                   SmallVector<Attribute>(placements));
      out = DistributeOp::create(
          b, loc, type, v, fqn.empty() ? StringAttr() : b.getStringAttr(fqn));
    }
    if (out != v)
      out.getDefiningOp()->setAttr(kTPAxisAttr, b.getI64IntegerAttr(tpAxis));
    return out;
  }

  /// Placements that are `p` on the TP axis and Replicate elsewhere.
  SmallVector<Attribute> onTPAxis(Attribute p) {
    SmallVector<Attribute> result(mesh.getRank(),
                                  ReplicateAttr::get(mesh.getContext()));
    result[tpAxis] = p;
    return result;
  }

  Attribute orDefault(Attribute layout, Attribute def) {
    return layout ? layout : def;
  }

  /// Points every current use of `v` at the value `make` builds from it.
  static Value replaceUses(Value v, function_ref<Value()> make) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : v.getUses())
      uses.push_back(&use);
    Value out = make();
    for (OpOperand *use : uses)
      use->set(out);
    return out;
  }

  /// Lays `v` out as declared, then as desired (`explicitDesired`: the
  /// desired layout is a requirement even when it is Replicate).
  Value prepare(OpBuilder &b, Location loc, Value v, Attribute declared,
                Attribute desired, StringRef fqn,
                bool explicitDesired = false) {
    Value d = place(b, loc, v, onTPAxis(declared), fqn);
    return place(b, loc, d, onTPAxis(desired), fqn, explicitDesired);
  }

  /// Gives `result` its natural placement and redistributes it to `wanted`
  /// for every later user.
  Value finishOutput(Value result, Attribute natural, Attribute wanted,
                     StringRef fqn) {
    ArrayRef<int64_t> shape = getTensorLikeShape(result.getType());
    SmallVector<Attribute> placements;
    for (Attribute p : onTPAxis(natural))
      placements.push_back(normalizePlacement(p, shape.size()));
    result.setType(DTensorType::get(result.getContext(), shape,
                                    getTensorLikeElementType(result.getType()),
                                    meshSym(), placements));
    OpBuilder b(result.getContext());
    b.setInsertionPointAfterValue(result);
    return replaceUses(result, [&] {
      return place(b, result.getLoc(), result, onTPAxis(wanted), fqn);
    });
  }

  LogicalResult lowerColwise(Operation *op, Attribute inputLayout,
                             Attribute outputLayout) {
    MLIRContext *ctx = op->getContext();
    StringRef fqn = m::getModuleFQN(op);
    OpBuilder b(op);
    Attribute rep = ReplicateAttr::get(ctx);
    Value x = prepare(b, op->getLoc(), op->getOperand(0),
                      orDefault(inputLayout, rep), rep, fqn);
    op->setOperand(0, x);
    // Linear: weight [out, in] and bias on dim 0; embedding: weight dim 1.
    int64_t weightDim = isa<m::EmbeddingOp>(op) ? 1 : 0;
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      op->setOperand(i, place(b, op->getLoc(), op->getOperand(i), onTPAxis(ShardAttr::get(ctx, i == 1 ? weightDim
                                                                : 0)),
                            fqn));
    finishOutput(op->getResult(0), ShardAttr::get(ctx, -1),
                 orDefault(outputLayout, ShardAttr::get(ctx, -1)), fqn);
    return success();
  }

  LogicalResult lowerRowwise(Operation *op, Attribute inputLayout,
                             Attribute outputLayout) {
    MLIRContext *ctx = op->getContext();
    StringRef fqn = m::getModuleFQN(op);
    if (auto emb = dyn_cast<m::EmbeddingOp>(op)) {
      // Vocabulary-sharded embedding: ids replicated, weight rows sharded;
      // ids outside this rank's rows give zeros, so the sum over ranks is
      // the lookup (Partial(sum)).
      OpBuilder b(op);
      Attribute rep = ReplicateAttr::get(ctx);
      emb.getIdsMutable().set(prepare(b, op->getLoc(), emb.getIds(),
                                      orDefault(inputLayout, rep), rep, fqn));
      emb.getWeightMutable().set(
          place(b, op->getLoc(), emb.getWeight(), onTPAxis(ShardAttr::get(ctx, 0)), fqn));
      finishOutput(emb.getResult(), PartialAttr::get(ctx, ReductionKind::Sum),
                   orDefault(outputLayout, rep), fqn);
      return success();
    }
    auto linear = cast<m::LinearOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Attribute shardLast = ShardAttr::get(ctx, -1);
    Value x = prepare(b, op->getLoc(), linear.getInput(),
                      orDefault(inputLayout, shardLast), shardLast, fqn);
    Value w = place(b, op->getLoc(), linear.getWeight(), onTPAxis(ShardAttr::get(ctx, 1)), fqn);
    // The bias is added once, after the reduction: split it off.
    Value bias = linear.getBias();
    auto bare = m::LinearOp::create(b, op->getLoc(),
                                    linear.getResult().getType(),
                                    linear.getFqnAttr(), x, w, Value());
    bare->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    bare->removeAttr("tp.style");
    Value result = bare.getResult();
    linear.getResult().replaceAllUsesWith(result);
    op->erase();
    Value out =
        finishOutput(result, PartialAttr::get(ctx, ReductionKind::Sum),
                     orDefault(outputLayout, ReplicateAttr::get(ctx)), fqn);
    if (!bias)
      return success();
    // Add the bias once, after the output redistribution.
    OpBuilder after(ctx);
    after.setInsertionPointAfterValue(out);
    replaceUses(out, [&]() -> Value {
      return m::AddOp::create(after, loc, out.getType(), out, bias);
    });
    return success();
  }

  /// SequenceParallel: parameters replicated, input and output sharded on
  /// the sequence dim.
  LogicalResult lowerSequenceParallel(Operation *op, int64_t sequenceDim) {
    MLIRContext *ctx = op->getContext();
    StringRef fqn = m::getModuleFQN(op);
    int64_t rank = getTensorLikeShape(op->getOperand(0).getType()).size();
    int64_t dim = sequenceDim < 0 ? sequenceDim + rank : sequenceDim;
    if (dim < 0 || dim >= rank - (isa<m::DropoutOp>(op) ? 0 : 1))
      return op->emitError() << "SequenceParallel on '" << fqn
                             << "': sequence_dim " << sequenceDim
                             << " is out of range (or the normalized dim) "
                                "for an input of rank "
                             << rank;
    OpBuilder b(op);
    Attribute seq = ShardAttr::get(ctx, dim);
    op->setOperand(0, prepare(b, op->getLoc(), op->getOperand(0), seq, seq,
                              fqn));
    finishOutput(op->getResult(0), seq, seq, fqn);
    return success();
  }

  /// The seed's PairwiseParallel: the module's first linear colwise, its
  /// second rowwise, with the given input and output layouts.
  LogicalResult lowerPairwise(Operation *op, Attribute inputLayout,
                              Attribute desiredInput, Attribute outputLayout) {
    StringRef fqn = m::getModuleFQN(op);
    SmallVector<m::LinearOp> linears;
    cast<m::SubmoduleOp>(op).getBody().walk(
        [&](m::LinearOp l) { linears.push_back(l); });
    if (linears.size() != 2)
      return op->emitError() << "PairwiseParallel on '" << fqn
                             << "' needs a module holding exactly two "
                                "linears, found "
                             << linears.size();
    MLIRContext *ctx = op->getContext();
    if (inputLayout) {
      OpBuilder b(op);
      op->setOperand(0, prepare(b, op->getLoc(), op->getOperand(0),
                                inputLayout, desiredInput, fqn));
    }
    if (failed(lowerColwise(linears[0], nullptr, nullptr)))
      return failure();
    return lowerRowwise(linears[1], ShardAttr::get(ctx, -1), outputLayout);
  }

  /// Ranks of a module's inputs and outputs (a function's arguments and
  /// results for the root module; a leaf's first operand and its result).
  static SmallVector<int64_t> ioRanks(Operation *op, bool inputs) {
    SmallVector<int64_t> ranks;
    auto rankOf = [](Type t) {
      return (int64_t)getTensorLikeShape(t).size();
    };
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (Type t : inputs ? func.getArgumentTypes() : func.getResultTypes())
        ranks.push_back(rankOf(t));
    } else if (isa<m::SubmoduleOp>(op)) {
      if (inputs)
        for (Type t : op->getOperandTypes())
          ranks.push_back(rankOf(t));
      else
        for (Type t : op->getResultTypes())
          ranks.push_back(rankOf(t));
    } else {
      ranks.push_back(rankOf(inputs ? op->getOperand(0).getType()
                                    : op->getResult(0).getType()));
    }
    return ranks;
  }

  /// Rejects layouts PyTorch would reject or that cannot be applied: a
  /// shard dim out of range for the tensor it applies to, and a Partial
  /// target requested by the user (DTensor cannot redistribute to Partial;
  /// only a Rowwise output, which is naturally Partial, may stay Partial).
  LogicalResult validateLayouts(Operation *op, Attribute style) {
    StringRef styleName = cast<ParallelStyleAttrInterface>(style).getStyleName();
    StringRef fqn = m::getModuleFQN(op);
    SmallVector<int64_t> inRanks = ioRanks(op, true);
    SmallVector<int64_t> outRanks = ioRanks(op, false);
    auto check = [&](Attribute layouts, StringRef arg, bool isInput,
                     bool target, bool partialAllowed) -> LogicalResult {
      if (!layouts)
        return success();
      SmallVector<Attribute> entries;
      if (auto array = dyn_cast<ArrayAttr>(layouts))
        entries.append(array.begin(), array.end());
      else
        entries.push_back(layouts);
      ArrayRef<int64_t> ranks = isInput ? inRanks : outRanks;
      for (auto [i, p] : llvm::enumerate(entries)) {
        if (i >= ranks.size())
          break; // Count mismatches are reported by the lowering.
        if (auto shard = dyn_cast<ShardAttr>(p)) {
          int64_t r = ranks[i];
          if (shard.getDim() < -r || shard.getDim() >= r)
            return op->emitError()
                   << styleName << " on '" << fqn << "': " << arg << " "
                   << shard.toTorchString() << " is out of range for "
                   << (isInput ? "input " : "output ") << i << " of rank "
                   << r;
        }
        if (auto partial = dyn_cast<PartialAttr>(p); partial && target &&
                                                      !partialAllowed)
          return op->emitError()
                 << styleName << " on '" << fqn << "': " << arg << " "
                 << partial.toTorchString()
                 << " requests a Partial layout, which cannot be "
                    "redistributed to (DTensor only produces Partial)";
        if (auto partial = dyn_cast<PartialAttr>(p); partial && !target)
          return op->emitError()
                 << styleName << " on '" << fqn << "': " << arg << " "
                 << partial.toTorchString()
                 << " declares a Partial "
                 << (isInput ? "input" : "output")
                 << ", which tp does not support";
      }
      return success();
    };
    return llvm::TypeSwitch<Attribute, LogicalResult>(style)
        .Case<ColwiseAttr, PairwiseParallelAttr,
              PairwiseSequenceParallelAttr>([&](auto s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false,
                           false)))
            return failure();
          return check(s.getOutputLayouts(), "output_layouts", false, true,
                       false);
        })
        .Case([&](RowwiseAttr s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false,
                           false)))
            return failure();
          return check(s.getOutputLayouts(), "output_layouts", false, true,
                       isa_and_nonnull<PartialAttr>(s.getOutputLayouts()) &&
                           cast<PartialAttr>(s.getOutputLayouts()).getKind() ==
                               ReductionKind::Sum);
        })
        .Case([&](SequenceParallelAttr) { return success(); })
        .Case([&](PrepareModuleInputAttr s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false,
                           false)))
            return failure();
          return check(s.getDesiredInputLayouts(), "desired_input_layouts",
                       true, true, false);
        })
        .Case([&](PrepareModuleOutputAttr s) {
          if (failed(check(s.getOutputLayouts(), "output_layouts", false,
                           false, false)))
            return failure();
          return check(s.getDesiredOutputLayouts(), "desired_output_layouts",
                       false, true, false);
        })
        .Case([&](PrepareModuleInputOutputAttr s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false,
                           false)) ||
              failed(check(s.getDesiredInputLayouts(),
                           "desired_input_layouts", true, true, false)) ||
              failed(check(s.getOutputLayouts(), "output_layouts", false,
                           false, false)))
            return failure();
          return check(s.getDesiredOutputLayouts(), "desired_output_layouts",
                       false, true, false);
        })
        .Default([](Attribute) { return success(); });
  }

  /// The inputs of a module op: a composite's operands, a leaf's first one.
  static SmallVector<OpOperand *> moduleInputs(Operation *op) {
    SmallVector<OpOperand *> inputs;
    if (isa<m::SubmoduleOp>(op))
      for (OpOperand &o : op->getOpOperands())
        inputs.push_back(&o);
    else
      inputs.push_back(&op->getOpOperand(0));
    return inputs;
  }

  static Attribute layoutAt(Attribute layouts, size_t i) {
    if (auto array = dyn_cast<ArrayAttr>(layouts))
      return i < array.size() ? array[i] : Attribute();
    return i == 0 ? layouts : Attribute();
  }

  LogicalResult prepareInputs(Operation *op, Attribute layouts,
                              Attribute desired, DictionaryAttr kwLayouts,
                              DictionaryAttr kwDesired) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      return prepareRootInputs(func, layouts, desired, kwLayouts);
    StringRef fqn = m::getModuleFQN(op);
    SmallVector<OpOperand *> inputs = moduleInputs(op);
    size_t count = layouts ? (isa<ArrayAttr>(layouts)
                                  ? cast<ArrayAttr>(layouts).size()
                                  : 1)
                           : 0;
    if (count > inputs.size())
      return op->emitError() << "PrepareModuleInput on '" << fqn << "' has "
                             << count << " input layouts but the module takes "
                             << inputs.size() << " inputs";
    OpBuilder b(op);
    for (size_t i = 0; i < count; ++i) {
      Attribute from = layoutAt(layouts, i), to = layoutAt(desired, i);
      if (!from || isa<UnitAttr>(from))
        continue;
      inputs[i]->set(prepare(b, op->getLoc(), inputs[i]->get(), from, to,
                             fqn, /*explicitDesired=*/true));
    }
    if (!kwLayouts)
      return success();
    auto sub = dyn_cast<m::SubmoduleOp>(op);
    ArrayAttr names = sub ? sub.getArgNamesAttr() : ArrayAttr();
    for (NamedAttribute kw : kwLayouts) {
      auto it = names ? llvm::find_if(names,
                                      [&](Attribute n) {
                                        return cast<StringAttr>(n) ==
                                               kw.getName();
                                      })
                      : nullptr;
      if (!names || it == names.end())
        return op->emitError() << "PrepareModuleInput on '" << fqn
                               << "': the module has no keyword input '"
                               << kw.getName().getValue() << "'";
      size_t i = it - names.begin();
      inputs[i]->set(prepare(b, op->getLoc(), inputs[i]->get(),
                             kw.getValue(), kwDesired.get(kw.getName()), fqn,
                             /*explicitDesired=*/true));
    }
    return success();
  }

  /// The root module (the model function, plan key ""): its inputs are the
  /// function arguments.
  LogicalResult prepareRootInputs(func::FuncOp func, Attribute layouts,
                                  Attribute desired, DictionaryAttr kwLayouts) {
    size_t count = layouts ? (isa<ArrayAttr>(layouts)
                                  ? cast<ArrayAttr>(layouts).size()
                                  : 1)
                           : 0;
    if (count > func.getNumArguments())
      return func.emitError() << "PrepareModuleInput on the root module has "
                              << count << " input layouts but the model takes "
                              << func.getNumArguments() << " inputs";
    if (kwLayouts && !kwLayouts.empty())
      return func.emitError() << "PrepareModuleInput on the root module: the "
                                 "model function has no keyword inputs";
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    for (size_t i = 0; i < count; ++i) {
      Attribute from = layoutAt(layouts, i), to = layoutAt(desired, i);
      if (!from || isa<UnitAttr>(from))
        continue;
      Value arg = func.getArgument(i);
      replaceUses(arg, [&] {
        return prepare(b, func.getLoc(), arg, from, to, StringRef(),
                       /*explicitDesired=*/true);
      });
    }
    return success();
  }

  LogicalResult prepareOutputs(Operation *op, Attribute layouts,
                               Attribute desired) {
    StringRef fqn = m::getModuleFQN(op);
    size_t count = isa<ArrayAttr>(layouts) ? cast<ArrayAttr>(layouts).size()
                                           : (layouts ? 1 : 0);
    // A composite module's outputs are what it yields, the root module's
    // (the model function's) what it returns.
    Operation *terminator = nullptr;
    if (auto sub = dyn_cast<m::SubmoduleOp>(op))
      terminator = sub.getBody().front().getTerminator();
    else if (auto func = dyn_cast<func::FuncOp>(op))
      terminator = func.getBody().front().getTerminator();
    if (terminator) {
      if (count > terminator->getNumOperands())
        return op->emitError()
               << "PrepareModuleOutput on '" << fqn << "' has " << count
               << " output layouts but the module has "
               << terminator->getNumOperands() << " outputs";
      OpBuilder b(terminator);
      for (size_t i = 0; i < count; ++i) {
        Attribute from = layoutAt(layouts, i), to = layoutAt(desired, i);
        if (!from || isa<UnitAttr>(from))
          continue;
        terminator->setOperand(i, prepare(b, terminator->getLoc(),
                                          terminator->getOperand(i), from, to,
                                          fqn, /*explicitDesired=*/true));
      }
      return success();
    }
    if (count != 1)
      return op->emitError() << "PrepareModuleOutput on '" << fqn
                             << "' needs exactly one output layout";
    Value result = op->getResult(0);
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    replaceUses(result, [&] {
      return prepare(b, op->getLoc(), result, layoutAt(layouts, 0),
                     layoutAt(desired, 0), fqn, /*explicitDesired=*/true);
    });
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Custom styles
  //===--------------------------------------------------------------------===//

  /// The StyleBuilder a custom style lowers one module with.
  class Builder : public StyleBuilder {
  public:
    Builder(StyleLowering &lowering, Operation *op)
        : lowering(lowering), op(op) {}

    Operation *getModule() override { return op; }

    LogicalResult placeParam(StringRef name, Attribute placement) override {
      StringRef fqn = m::getModuleFQN(op);
      std::string full = fqn.empty() ? name.str() : (fqn + "." + name).str();
      SmallVector<m::ParamOp> params;
      auto match = [&](m::ParamOp p) {
        if (p.getName() == full)
          params.push_back(p);
      };
      if (m::isLeafModule(op)) {
        for (Value v : op->getOperands())
          if (auto p = v.getDefiningOp<m::ParamOp>())
            match(p);
      } else {
        op->walk(match);
      }
      if (params.empty())
        return op->emitError() << "custom style on '" << fqn
                               << "': the module has no parameter '" << full
                               << "'";
      for (m::ParamOp p : params) {
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(p);
        Value placed = p.getResult();
        if (m::isLeafModule(op)) {
          OpBuilder before(op);
          for (OpOperand &use : op->getOpOperands())
            if (use.get() == p.getResult())
              use.set(lowering.place(before, op->getLoc(), p.getResult(),
                                     lowering.onTPAxis(placement), fqn));
          continue;
        }
        replaceUses(placed, [&] {
          return lowering.place(b, p.getLoc(), placed,
                                lowering.onTPAxis(placement), fqn);
        });
      }
      return success();
    }

    LogicalResult prepareInput(unsigned index, Attribute declared,
                               Attribute desired) override {
      MLIRContext *ctx = op->getContext();
      SmallVector<Attribute> from(index + 1, UnitAttr::get(ctx)),
          to(index + 1, UnitAttr::get(ctx));
      from[index] = declared;
      to[index] = desired ? desired : declared;
      return lowering.prepareInputs(op, ArrayAttr::get(ctx, from),
                                    ArrayAttr::get(ctx, to), {}, {});
    }

    LogicalResult placeOutput(unsigned index, Attribute placement) override {
      MLIRContext *ctx = op->getContext();
      SmallVector<Attribute> out(index + 1, UnitAttr::get(ctx));
      out[index] = placement;
      // Declared and desired alike: propagation supplies the real placement
      // and redistributes from it.
      return lowering.prepareOutputs(op, ArrayAttr::get(ctx, out),
                                     ArrayAttr::get(ctx, out));
    }

  private:
    StyleLowering &lowering;
    Operation *op;
  };

  /// A registered C++ style lowers the module itself; otherwise the
  /// attribute's explicit layouts are applied.
  LogicalResult lowerCustom(Operation *op, CustomStyleAttr style) {
    Builder builder(*this, op);
    if (const CustomStyle *registered =
            lookupParallelStyle(style.getName().getValue()))
      return registered->lower(style, builder);
    if (DictionaryAttr params = style.getParams())
      for (NamedAttribute p : params)
        if (failed(builder.placeParam(p.getName().getValue(), p.getValue())))
          return failure();
    if (ArrayAttr in = style.getInputLayouts()) {
      ArrayAttr desired = style.getDesiredInputLayouts();
      for (auto [i, from] : llvm::enumerate(in)) {
        if (isa<UnitAttr>(from))
          continue;
        Attribute to = desired ? desired[i] : from;
        if (failed(builder.prepareInput(i, from, to)))
          return failure();
      }
    }
    if (ArrayAttr out = style.getOutputLayouts())
      for (auto [i, p] : llvm::enumerate(out))
        if (!isa<UnitAttr>(p) && failed(builder.placeOutput(i, p)))
          return failure();
    return success();
  }

  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
  int64_t tpAxis;
};

} // namespace

/// Data parallelism: every model input is sharded on its first (batch) dim
/// over `dpAxis`.
static void shardInputsOnBatch(ModuleOp module, MeshOp mesh, int64_t dpAxis) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Attribute> placements(mesh.getRank(), ReplicateAttr::get(ctx));
  placements[dpAxis] = ShardAttr::get(ctx, 0);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    for (BlockArgument arg : func.getArguments()) {
      if (cast<RankedTensorType>(arg.getType()).getRank() == 0)
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : arg.getUses())
        uses.push_back(&use);
      Value sharded =
          ensurePlacements(b, arg.getLoc(), arg,
                           FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                           placements);
      for (OpOperand *use : uses)
        use->set(sharded);
    }
  }
}

/// loss_parallel: rewrites each cross entropy into the steps that work on
/// class-sharded logits, `mean(log(sum(exp(l - max(l)))) - (l - max(l))[t])`.
/// The max, the sum and the target logit are each reduced over the class
/// shards by one small all-reduce once placements are propagated; the logits
/// are never gathered.
static void decomposeCrossEntropy(ModuleOp module) {
  SmallVector<m::CrossEntropyOp> losses;
  module.walk([&](m::CrossEntropyOp op) { losses.push_back(op); });
  for (m::CrossEntropyOp op : losses) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value logits = op.getLogits();
    ArrayRef<int64_t> shape = getTensorLikeShape(logits.getType());
    Type elt = getTensorLikeElementType(logits.getType());
    auto column = RankedTensorType::get({shape[0], 1}, elt);
    auto full = RankedTensorType::get(shape, elt);
    Value mx = m::ReduceMaxOp::create(b, loc, column, logits,
                                      b.getI64IntegerAttr(1));
    Value shifted = m::SubOp::create(b, loc, full, logits, mx);
    Value e = m::ExpOp::create(b, loc, full, shifted);
    Value sum = m::ReduceSumOp::create(b, loc, column, e,
                                       b.getI64IntegerAttr(1));
    Value lse = m::LogOp::create(b, loc, column, sum);
    Value target =
        m::TargetLogitOp::create(b, loc, column, shifted, op.getTargets());
    Value perRow = m::SubOp::create(b, loc, column, lse, target);
    Value loss = m::MeanOp::create(b, loc, op.getType(), perRow);
    op.getResult().replaceAllUsesWith(loss);
    op.erase();
  }
}

LogicalResult mlir::tp::lowerStyles(ModuleOp module) {
  if (failed(checkPassPrecondition(module, TPPass::LowerStyles)))
    return failure();
  auto plan = module->getAttrOfType<PlanAttr>("tp.plan");
  SmallVector<std::pair<Operation *, Attribute>> styled;
  module.walk([&](Operation *op) {
    if (Attribute style = op->getAttr("tp.style"))
      styled.push_back({op, style});
  });
  // Propagation ends this pass even without styles (hand-placed dtensors):
  // tp-pipeline relies on it and runs no tp-propagate of its own.
  if (styled.empty())
    return propagatePlacements(module);
  if (!plan)
    return module.emitError("modules carry tp.style but the module has no "
                            "tp.plan naming the mesh; run tp-apply-plan");
  MeshOp mesh = lookupMesh(module, plan.getMesh());
  if (!mesh)
    return failure();
  int64_t tpAxis = 0;
  if (StringAttr axis = plan.getTpAxis()) {
    tpAxis = mesh.getAxisIndex(axis.getValue());
    if (tpAxis < 0)
      return module.emitError() << "plan tp_axis '" << axis.getValue()
                                << "' is not an axis of mesh @"
                                << mesh.getSymName();
  } else if (mesh.getRank() > 1) {
    return module.emitError() << "the plan's mesh @" << mesh.getSymName()
                              << " has " << mesh.getRank()
                              << " axes but the plan names no tp_axis";
  }
  if (plan.getLossParallel())
    decomposeCrossEntropy(module);
  if (StringAttr dp = plan.getDpAxis()) {
    int64_t dpAxis = mesh.getAxisIndex(dp.getValue());
    if (dpAxis < 0)
      return module.emitError() << "plan dp_axis '" << dp.getValue()
                                << "' is not an axis of mesh @"
                                << mesh.getSymName();
    shardInputsOnBatch(module, mesh, dpAxis);
  }
  StyleLowering lowering(mesh, tpAxis);
  for (auto [op, style] : styled) {
    op->removeAttr("tp.style");
    if (failed(lowering.lower(op, style)))
      return failure();
  }
  return propagatePlacements(module);
}

namespace {
struct LowerStylesPass
    : public tp::impl::TPLowerStylesPassBase<LowerStylesPass> {
  void runOnOperation() override {
    if (failed(lowerStyles(getOperation())))
      signalPassFailure();
  }
};
} // namespace
