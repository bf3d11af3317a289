//===- LowerStyles.cpp - styles to DTensor ops ------------------*- C++ -*-===//
//
// tp-lower-styles: turns each module's `tp.style` into parameter placements
// (tp.distribute), input layouts (declared, then redistributed to what the
// style wants) and output redistributions, following DESIGN 4.1. Values
// downstream then get placements from tp-propagate's rules, which this pass
// runs so that its output is well typed.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include <limits>

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERSTYLESPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

/// The values a model input passes through unchanged into nested modules:
/// `v` itself if it is an argument of a model function (a value each rank
/// receives from outside), or a composite module's block argument fed by
/// one, with every block argument on the way; empty otherwise.
static SmallVector<BlockArgument> modelInputChain(Value v) {
  SmallVector<BlockArgument> chain;
  while (auto arg = dyn_cast<BlockArgument>(v)) {
    chain.push_back(arg);
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner) && arg.getOwner()->isEntryBlock())
      return chain;
    auto sub = dyn_cast<m::SubmoduleOp>(owner);
    if (!sub)
      break;
    v = sub.getInputs()[arg.getArgNumber()];
  }
  return {};
}

/// Declares that a model input arrives laid out as `placement` on mesh axis
/// `axis` (as DTensor.from_local: each rank receives its shard, not the
/// whole tensor): the input and the block arguments it feeds (`chain`, see
/// modelInputChain) become dtensors, keeping what is declared on the other
/// axes, and the function's signature follows.
static void declareInputPlacement(ArrayRef<BlockArgument> chain, MeshOp mesh,
                                  int64_t axis, Attribute placement) {
  BlockArgument input = chain.back();
  MLIRContext *ctx = input.getContext();
  ArrayRef<int64_t> shape = getTensorLikeShape(input.getType());
  Type element = getTensorLikeElementType(input.getType());
  SmallVector<Attribute> placements = getPlacements(input, mesh.getRank());
  placements[axis] = normalizePlacement(placement, shape.size());
  Type type = RankedTensorType::get(shape, element);
  if (!llvm::all_of(placements,
                    [](Attribute p) { return isa<ReplicateAttr>(p); }))
    type = DTensorType::get(ctx, shape, element,
                            FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                            placements);
  for (BlockArgument arg : chain)
    arg.setType(type);
  auto func = cast<func::FuncOp>(input.getOwner()->getParentOp());
  func.setType(FunctionType::get(ctx, input.getOwner()->getArgumentTypes(),
                                 func.getResultTypes()));
}

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
          return prepareInputs(
              op, s.getInputLayouts(), s.getDesiredInputLayouts(),
              s.getInputKwargLayouts(), s.getDesiredInputKwargLayouts(),
              /*sameLength=*/true);
        })
        .Case([&](PrepareModuleOutputAttr s) {
          return prepareOutputs(op, s.getOutputLayouts(),
                                s.getDesiredOutputLayouts(),
                                /*sameLength=*/true);
        })
        .Case([&](PrepareModuleInputOutputAttr s) {
          if (failed(prepareInputs(
                  op, s.getInputLayouts(), s.getDesiredInputLayouts(),
                  s.getInputKwargLayouts(), s.getDesiredInputKwargLayouts(),
                  /*sameLength=*/true)))
            return failure();
          return prepareOutputs(op, s.getOutputLayouts(),
                                s.getDesiredOutputLayouts(),
                                /*sameLength=*/true);
        })
        .Case([&](LegacyPrepareModuleInputAttr s) {
          // The seed zips the layouts with the inputs: inputs past the
          // last layout pass through.
          MLIRContext *ctx = op->getContext();
          return prepareInputs(
              op, orDefault(s.getInputLayouts(), ShardAttr::get(ctx, 0)),
              orDefault(s.getOutputLayouts(), ReplicateAttr::get(ctx)), {}, {},
              /*sameLength=*/false);
        })
        .Case([&](LegacyPrepareModuleOutputAttr s) -> LogicalResult {
          MLIRContext *ctx = op->getContext();
          Attribute to =
              orDefault(s.getOutputLayouts(), ShardAttr::get(ctx, 0));
          if (auto array = dyn_cast<ArrayAttr>(to))
            to = array[0];
          if (ioRanks(op, /*inputs=*/false).size() != 1)
            return op->emitError()
                   << "PrepareModuleOutput (the 2.1 signature) on '"
                   << m::getModuleFQN(op) << "' supports a single output, "
                   << "but the module has " << ioRanks(op, false).size()
                   << "; use output_layouts with desired_output_layouts";
          return prepareOutputs(
              op, orDefault(s.getInputLayouts(), ReplicateAttr::get(ctx)), to,
              /*sameLength=*/true);
        })
        .Case([&](SequenceParallelAttr s) {
          return lowerSequenceParallel(op, s.getSequenceDim());
        })
        .Case([&](PairwiseParallelAttr s) {
          // The seed's default: input replicated, output replicated.
          Attribute rep = ReplicateAttr::get(op->getContext());
          return lowerPairwise(op, s, s.getInputLayouts(),
                               orDefault(s.getOutputLayouts(), rep));
        })
        .Case([&](PairwiseSequenceParallelAttr s) {
          // The seed's variant: input resharded Shard(0) -> Replicate,
          // output Shard(0).
          Attribute shard0 = ShardAttr::get(op->getContext(), 0);
          return lowerPairwise(op, s, orDefault(s.getInputLayouts(), shard0),
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
      TPDialect::TpAxisAttrHelper(b.getContext())
          .setAttr(out.getDefiningOp(), b.getI64IntegerAttr(tpAxis));
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
  /// A model input's declared layout is how it arrives (its type); any
  /// other value is laid out as declared where it is.
  Value prepare(OpBuilder &b, Location loc, Value v, Attribute declared,
                Attribute desired, StringRef fqn,
                bool explicitDesired = false) {
    Value d = v;
    if (SmallVector<BlockArgument> chain = modelInputChain(v); !chain.empty())
      declareInputPlacement(chain, mesh, tpAxis, declared);
    else
      d = place(b, loc, v, onTPAxis(declared), fqn);
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
      op->setOperand(
          i, place(b, op->getLoc(), op->getOperand(i),
                   onTPAxis(ShardAttr::get(ctx, i == 1 ? weightDim : 0)), fqn));
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
      emb.getWeightMutable().set(place(b, op->getLoc(), emb.getWeight(),
                                       onTPAxis(ShardAttr::get(ctx, 0)), fqn));
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
    Value w = place(b, op->getLoc(), linear.getWeight(),
                    onTPAxis(ShardAttr::get(ctx, 1)), fqn);
    // The bias is added once, after the reduction: split it off.
    Value bias = linear.getBias();
    auto bare =
        m::LinearOp::create(b, op->getLoc(), linear.getResult().getType(),
                            linear.getFqnAttr(), x, w, Value());
    // tp-lower-styles has taken the op's style off before lowering it.
    bare->setDiscardableAttrs(op->getDiscardableAttrDictionary());
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
    op->setOperand(0,
                   prepare(b, op->getLoc(), op->getOperand(0), seq, seq, fqn));
    finishOutput(op->getResult(0), seq, seq, fqn);
    return success();
  }

  /// The seed's PairwiseParallel: in each module getPairwiseGroups finds,
  /// the paired linears alternate colwise and rowwise; the first takes the
  /// style's input layout (the seed's _prepare_input), the last rowwise one
  /// its output layout (_prepare_output); the rowwise linears in between
  /// make their output whole for the next pair.
  LogicalResult lowerPairwise(Operation *op, Attribute style,
                              Attribute inputLayout, Attribute outputLayout) {
    MLIRContext *ctx = op->getContext();
    SmallVector<PairwiseGroup> groups = getPairwiseGroups(op);
    if (groups.empty())
      emitWarning(op->getLoc())
          << cast<ParallelStyleAttrInterface>(style).getStyleName() << " on '"
          << m::getModuleFQN(op)
          << "' parallelizes nothing: neither it nor any module under it "
             "has two direct Linear children";
    Attribute rep = ReplicateAttr::get(ctx);
    for (const PairwiseGroup &group : groups) {
      size_t n = group.linears.size();
      for (size_t i = 0; i < n; ++i) {
        Operation *linear = group.linears[i];
        LogicalResult lowered =
            i % 2 == 0
                ? lowerColwise(linear, i == 0 ? inputLayout : Attribute(),
                               Attribute())
                : lowerRowwise(linear, ShardAttr::get(ctx, -1),
                               i + 1 == n ? outputLayout : rep);
        if (failed(lowered))
          return failure();
      }
    }
    return success();
  }

  /// Ranks of a module's inputs and outputs (a function's arguments and
  /// results for the root module; a leaf's first operand and its result).
  static SmallVector<int64_t> ioRanks(Operation *op, bool inputs) {
    SmallVector<int64_t> ranks;
    auto rankOf = [](Type t) { return (int64_t)getTensorLikeShape(t).size(); };
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
  /// shard dim out of range for the tensor it applies to. Partial targets
  /// are checked where they are lowered: from Replicate or Partial they are
  /// possible, from Shard tp-lower-redistribute says why not.
  LogicalResult validateLayouts(Operation *op, Attribute style) {
    StringRef styleName =
        cast<ParallelStyleAttrInterface>(style).getStyleName();
    StringRef fqn = m::getModuleFQN(op);
    SmallVector<int64_t> inRanks = ioRanks(op, true);
    SmallVector<int64_t> outRanks = ioRanks(op, false);
    auto check = [&](Attribute layouts, StringRef arg, bool isInput,
                     bool target) -> LogicalResult {
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
                   << (isInput ? "input " : "output ") << i << " of rank " << r;
        }
      }
      return success();
    };
    return llvm::TypeSwitch<Attribute, LogicalResult>(style)
        .Case<ColwiseAttr, RowwiseAttr, PairwiseParallelAttr,
              PairwiseSequenceParallelAttr>([&](auto s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false)))
            return failure();
          return check(s.getOutputLayouts(), "output_layouts", false, true);
        })
        .Case([&](SequenceParallelAttr) { return success(); })
        .Case([&](PrepareModuleInputAttr s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false)))
            return failure();
          return check(s.getDesiredInputLayouts(), "desired_input_layouts",
                       true, true);
        })
        .Case([&](PrepareModuleOutputAttr s) {
          if (failed(
                  check(s.getOutputLayouts(), "output_layouts", false, false)))
            return failure();
          return check(s.getDesiredOutputLayouts(), "desired_output_layouts",
                       false, true);
        })
        .Case([&](LegacyPrepareModuleInputAttr s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", true, false)))
            return failure();
          return check(s.getOutputLayouts(), "output_layouts", true, true);
        })
        .Case([&](LegacyPrepareModuleOutputAttr s) {
          if (failed(check(s.getInputLayouts(), "input_layouts", false, false)))
            return failure();
          return check(s.getOutputLayouts(), "output_layouts", false, true);
        })
        .Case([&](PrepareModuleInputOutputAttr s) {
          if (failed(
                  check(s.getInputLayouts(), "input_layouts", true, false)) ||
              failed(check(s.getDesiredInputLayouts(), "desired_input_layouts",
                           true, true)) ||
              failed(
                  check(s.getOutputLayouts(), "output_layouts", false, false)))
            return failure();
          return check(s.getDesiredOutputLayouts(), "desired_output_layouts",
                       false, true);
        })
        .Case([&](CustomStyleAttr s) {
          return check(s.getInputLayouts(), "input_layouts", true, false);
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

  static size_t layoutCount(Attribute layouts) {
    if (!layouts)
      return 0;
    auto array = dyn_cast<ArrayAttr>(layouts);
    return array ? array.size() : 1;
  }

  /// PyTorch's "module inputs and input_layouts should have same length":
  /// `count` layouts for `inputs` positional inputs. With `sameLength`
  /// false (the seed's zip) only more layouts than inputs is an error.
  static LogicalResult checkLayoutCount(Operation *op, StringRef what,
                                        size_t count, size_t inputs,
                                        bool sameLength) {
    if (count == inputs || (!sameLength && count < inputs))
      return success();
    StringRef fqn = m::getModuleFQN(op);
    InFlightDiagnostic diag = op->emitError()
                              << "PrepareModule" << what << " on ";
    if (fqn.empty())
      diag << "the root module";
    else
      diag << "'" << fqn << "'";
    return diag << ": module " << what.lower() << "s and " << what.lower()
                << "_layouts should have same length, got " << inputs << " "
                << what.lower() << (inputs == 1 ? "" : "s") << " and " << count
                << " layout" << (count == 1 ? "" : "s");
  }

  LogicalResult prepareInputs(Operation *op, Attribute layouts,
                              Attribute desired, DictionaryAttr kwLayouts,
                              DictionaryAttr kwDesired, bool sameLength) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      return prepareRootInputs(func, layouts, desired, kwLayouts, sameLength);
    StringRef fqn = m::getModuleFQN(op);
    SmallVector<OpOperand *> inputs = moduleInputs(op);
    size_t count = layoutCount(layouts);
    // Keyword inputs are not positional.
    size_t positional = inputs.size() - (kwLayouts ? kwLayouts.size() : 0);
    if (layouts &&
        failed(checkLayoutCount(op, "Input", count, positional, sameLength)))
      return failure();
    OpBuilder b(op);
    for (size_t i = 0; i < count; ++i) {
      Attribute from = layoutAt(layouts, i), to = layoutAt(desired, i);
      if (!from || isa<UnitAttr>(from))
        continue;
      inputs[i]->set(prepare(b, op->getLoc(), inputs[i]->get(), from, to, fqn,
                             /*explicitDesired=*/true));
    }
    if (!kwLayouts)
      return success();
    auto sub = dyn_cast<m::SubmoduleOp>(op);
    ArrayAttr names = sub ? sub.getArgNamesAttr() : ArrayAttr();
    for (NamedAttribute kw : kwLayouts) {
      auto it =
          names ? llvm::find_if(names,
                                [&](Attribute n) {
                                  return cast<StringAttr>(n) == kw.getName();
                                })
                : nullptr;
      if (!names || it == names.end())
        return op->emitError() << "PrepareModuleInput on '" << fqn
                               << "': the module has no keyword input '"
                               << kw.getName().getValue() << "'";
      size_t i = it - names.begin();
      inputs[i]->set(prepare(b, op->getLoc(), inputs[i]->get(), kw.getValue(),
                             kwDesired.get(kw.getName()), fqn,
                             /*explicitDesired=*/true));
    }
    return success();
  }

  /// The root module (the model function, plan key ""): its inputs are the
  /// function arguments.
  LogicalResult prepareRootInputs(func::FuncOp func, Attribute layouts,
                                  Attribute desired, DictionaryAttr kwLayouts,
                                  bool sameLength) {
    size_t count = layoutCount(layouts);
    if (layouts && failed(checkLayoutCount(func, "Input", count,
                                           func.getNumArguments(), sameLength)))
      return failure();
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
                               Attribute desired, bool sameLength) {
    StringRef fqn = m::getModuleFQN(op);
    size_t count = layoutCount(layouts);
    if (!layouts)
      return op->emitError()
             << "PrepareModuleOutput on '" << fqn << "' has no output_layouts";
    if (failed(checkLayoutCount(op, "Output", count,
                                ioRanks(op, /*inputs=*/false).size(),
                                sameLength)))
      return failure();
    // A composite module's outputs are what it yields, the root module's
    // (the model function's) what it returns.
    Operation *terminator = nullptr;
    if (auto sub = dyn_cast<m::SubmoduleOp>(op))
      terminator = sub.getBody().front().getTerminator();
    else if (auto func = dyn_cast<func::FuncOp>(op))
      terminator = func.getBody().front().getTerminator();
    if (terminator) {
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
        return op->emitError()
               << "custom style on '" << fqn
               << "': the module has no parameter '" << full << "'";
      // A parameter is loaded whole on every rank and then chunked: only
      // Shard(d) of one of its dims or Replicate() describe it.
      if (auto partial = dyn_cast<PartialAttr>(placement))
        return op->emitError()
               << "custom style on '" << fqn << "': parameter '" << full
               << "' cannot be " << partial.toTorchString()
               << " (a parameter is a whole tensor: use Shard(d) or "
                  "Replicate())";
      if (auto shard = dyn_cast<ShardAttr>(placement)) {
        int64_t rank = getTensorLikeShape(params.front().getType()).size();
        if (shard.getDim() < -rank || shard.getDim() >= rank)
          return op->emitError()
                 << "custom style on '" << fqn << "': " << shard.toTorchString()
                 << " is out of range for parameter '" << full << "' of rank "
                 << rank;
      }
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
                                    ArrayAttr::get(ctx, to), {}, {},
                                    /*sameLength=*/false);
    }

    LogicalResult placeOutput(unsigned index, Attribute placement) override {
      MLIRContext *ctx = op->getContext();
      SmallVector<Attribute> out(index + 1, UnitAttr::get(ctx));
      out[index] = placement;
      // Declared and desired alike: propagation supplies the real placement
      // and redistributes from it.
      return lowering.prepareOutputs(op, ArrayAttr::get(ctx, out),
                                     ArrayAttr::get(ctx, out),
                                     /*sameLength=*/false);
    }

  private:
    StyleLowering &lowering;
    Operation *op;
  };

  /// A custom style that shards a linear's weight on its output dim but
  /// leaves its bias out keeps the whole bias on every rank, where only a
  /// chunk is used: worth a warning.
  static void warnReplicatedBias(Operation *op, CustomStyleAttr style) {
    auto linear = dyn_cast<m::LinearOp>(op);
    DictionaryAttr params = style.getParams();
    if (!linear || !linear.getBias() || params.get("bias"))
      return;
    auto weight = dyn_cast_or_null<ShardAttr>(params.get("weight"));
    if (!weight || (weight.getDim() != 0 && weight.getDim() != -2))
      return;
    emitWarning(op->getLoc())
        << style.getStyleName() << " on '" << linear.getFqn()
        << "': the weight is " << weight.toTorchString()
        << " but the bias stays replicated, so every rank holds the whole "
           "bias and uses one chunk of it; give params \"bias\": \"Shard(0)\"";
  }

  /// A registered C++ style lowers the module itself; otherwise the
  /// attribute's explicit layouts are applied.
  LogicalResult lowerCustom(Operation *op, CustomStyleAttr style) {
    Builder builder(*this, op);
    if (const CustomStyle *registered =
            lookupParallelStyle(style.getName().getValue()))
      return registered->lower(style, builder);
    if (DictionaryAttr params = style.getParams()) {
      for (NamedAttribute p : params)
        if (failed(builder.placeParam(p.getName().getValue(), p.getValue())))
          return failure();
      warnReplicatedBias(op, style);
    }
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

/// The bytes one rank holds of `type` (its largest chunk on uneven dims).
static int64_t bytesPerRank(DTensorType type, MeshOp mesh) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [axis, p] : llvm::enumerate(type.getPlacements()))
    if (auto shard = dyn_cast<ShardAttr>(p)) {
      int64_t d = shard.getDim() < 0 ? shard.getDim() + (int64_t)shape.size()
                                     : shard.getDim();
      shape[d] = chunkSize(shape[d], mesh.getShape()[axis], 0);
    }
  int64_t elements = 1;
  for (int64_t n : shape)
    elements *= n;
  return elements * ((type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

/// A parameter several styles place differently (a tied embedding and
/// output projection, one Shard(1), the other Shard(0)) is loaded once per
/// placement: each rank holds every chunk. Legal, but rarely meant.
static void warnTiedParameters(ModuleOp module, MeshOp mesh) {
  // Per model function: functions are separate programs.
  llvm::MapVector<std::pair<Operation *, StringRef>, SmallVector<DistributeOp>>
      byName;
  module.walk([&](DistributeOp op) {
    if (auto param = op.getInput().getDefiningOp<m::ParamOp>())
      byName[{op->getParentOfType<func::FuncOp>(), param.getName()}].push_back(
          op);
  });
  for (auto &[key, ops] : byName) {
    StringRef name = key.second;
    SmallVector<DistributeOp> distinct;
    for (DistributeOp op : ops)
      if (llvm::none_of(distinct, [&](DistributeOp d) {
            return d.getType() == op.getType();
          }))
        distinct.push_back(op);
    if (distinct.size() < 2)
      continue;
    InFlightDiagnostic diag = emitWarning(distinct.front().getLoc())
                              << "parameter '" << name << "' is placed "
                              << distinct.size() << " ways:";
    int64_t total = 0, smallest = std::numeric_limits<int64_t>::max();
    for (auto [i, op] : llvm::enumerate(distinct)) {
      auto type = cast<DTensorType>(op.getType());
      int64_t bytes = bytesPerRank(type, mesh);
      total += bytes;
      smallest = std::min(smallest, bytes);
      diag << (i ? "," : "") << " " << placementsToString(type.getPlacements())
           << " by '" << op.getModule().value_or("") << "'";
    }
    diag << "; each rank holds every one of these chunks (" << total
         << " bytes instead of " << smallest << ")";
  }
}

/// Data parallelism: every model input arrives sharded on its first
/// (batch) dim over `dpAxis`: each rank receives its samples.
static void shardInputsOnBatch(ModuleOp module, MeshOp mesh, int64_t dpAxis) {
  Attribute batch = ShardAttr::get(module.getContext(), 0);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (BlockArgument arg : func.getArguments())
      if (!getTensorLikeShape(arg.getType()).empty())
        declareInputPlacement({arg}, mesh, dpAxis, batch);
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
    Value mx =
        m::ReduceMaxOp::create(b, loc, column, logits, b.getI64IntegerAttr(1));
    Value shifted = m::SubOp::create(b, loc, full, logits, mx);
    Value e = m::ExpOp::create(b, loc, full, shifted);
    Value sum =
        m::ReduceSumOp::create(b, loc, column, e, b.getI64IntegerAttr(1));
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
  MLIRContext *ctx = module.getContext();
  PlanAttr plan = TPDialect::PlanAttrHelper(ctx).getAttr(module);
  TPDialect::StyleAttrHelper styleAttr(ctx);
  SmallVector<std::pair<Operation *, Attribute>> styled;
  module.walk([&](Operation *op) {
    if (Attribute style = styleAttr.getAttr(op))
      styled.push_back({op, style});
  });
  // Propagation ends this pass even without styles (hand-placed dtensors):
  // tp-pipeline relies on it and runs no tp-propagate of its own.
  if (styled.empty())
    return propagatePlacements(module);
  if (!plan)
    return module.emitError()
           << "modules carry " << TPDialect::StyleAttrHelper::getNameStr()
           << " but the module has no "
           << TPDialect::PlanAttrHelper::getNameStr()
           << " naming the mesh; run tp-apply-plan";
  MeshOp mesh = lookupMesh(module, plan.getMesh());
  if (!mesh)
    return failure();
  int64_t tpAxis = 0;
  if (StringAttr axis = plan.getTpAxis()) {
    tpAxis = mesh.getAxisIndex(axis.getValue());
    if (tpAxis < 0)
      return module.emitError()
             << "plan tp_axis '" << axis.getValue()
             << "' is not an axis of mesh @" << mesh.getSymName();
  } else if (mesh.getRank() > 1) {
    return module.emitError()
           << "the plan's mesh @" << mesh.getSymName() << " has "
           << mesh.getRank() << " axes but the plan names no tp_axis";
  }
  if (plan.getLossParallel())
    decomposeCrossEntropy(module);
  if (StringAttr dp = plan.getDpAxis()) {
    int64_t dpAxis = mesh.getAxisIndex(dp.getValue());
    if (dpAxis < 0)
      return module.emitError()
             << "plan dp_axis '" << dp.getValue()
             << "' is not an axis of mesh @" << mesh.getSymName();
    shardInputsOnBatch(module, mesh, dpAxis);
  }
  if (llvm::any_of(
          styled,
          [](auto &entry) {
            return isa<PairwiseParallelAttr, PairwiseSequenceParallelAttr>(
                entry.second);
          }) &&
      failed(checkPairwiseOverlaps(
          module, [](Operation *) { return std::string("a tp.style"); })))
    return failure();
  // By FQN: lowering replaces some module ops (a Rowwise linear's bias).
  SmallVector<StyledModule> byName;
  for (auto [op, style] : styled) {
    Operation *func = isa<func::FuncOp>(op)
                          ? op
                          : op->getParentOfType<func::FuncOp>().getOperation();
    byName.push_back({func, m::getModuleFQN(op).str(), style, op->getLoc()});
  }
  StyleLowering lowering(mesh, tpAxis);
  for (auto [op, style] : styled) {
    styleAttr.removeAttr(op);
    if (failed(lowering.lower(op, style)))
      return failure();
  }
  warnTiedParameters(module, mesh);
  // The styles are all lowered: nothing for propagation's check to find.
  if (failed(propagatePlacements(module, /*checkPrecondition=*/false)))
    return failure();
  markLocalResults(module, byName);
  return success();
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
