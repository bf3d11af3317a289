//===- LowerStyles.cpp - styles to DTensor ops ------------------*- C++ -*-===//
//
// tp-lower-styles: turns each module's `tp.style` into parameter placements
// (tp.distribute), input layouts (declared, then redistributed to what the
// style wants) and output redistributions, as the style table of
// docs/guide.md says (PyTorch's semantics). Values downstream then get
// placements from tp-propagate's rules, which this pass runs so that its
// output is well typed.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "llvm/ADT/MapVector.h"
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

  /// Applies `style` to `op` through ParallelStyleAttrInterface: the
  /// built-in styles and those registered from C++ alike.
  LogicalResult lower(Operation *op, Attribute style) {
    auto iface = cast<ParallelStyleAttrInterface>(style);
    // tp-apply-plan checks this too, but tp.style may be written by hand.
    if (!iface.supportsModule(op))
      return op->emitError()
             << iface.getStyleName() << " does not support module '"
             << m::getModuleFQN(op) << "' of type " << m::getModuleTypeName(op);
    Builder builder(*this, op, iface);
    if (failed(iface.verifyLayouts(builder)) || failed(iface.lower(builder)))
      return failure();
    return builder.finish();
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
  /// shard dim out of range for the input (`isInput`) or output it
  /// describes. Partial targets are checked where they are lowered: from
  /// Replicate or Partial they are possible, from Shard
  /// tp-lower-redistribute says why not.
  static LogicalResult checkLayouts(Operation *op, StringRef styleName,
                                    StringRef arg, Attribute layouts,
                                    bool isInput) {
    if (!layouts)
      return success();
    SmallVector<int64_t> ranks = ioRanks(op, isInput);
    for (size_t i = 0, e = std::min(layoutCount(layouts), ranks.size()); i < e;
         ++i) {
      // Count mismatches are reported by the lowering.
      auto shard = dyn_cast<ShardAttr>(layoutAt(layouts, i));
      if (!shard)
        continue;
      int64_t r = ranks[i];
      if (shard.getDim() < -r || shard.getDim() >= r)
        return op->emitError()
               << styleName << " on '" << m::getModuleFQN(op) << "': " << arg
               << " " << shard.toTorchString() << " is out of range for "
               << (isInput ? "input " : "output ") << i << " of rank " << r;
    }
    return success();
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

  /// PrepareModuleOutput's semantics; on a leaf module, `leafOutput` (if
  /// given) receives the prepared output.
  LogicalResult prepareOutputs(Operation *op, Attribute layouts,
                               Attribute desired, bool sameLength,
                               Value *leafOutput = nullptr) {
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
    Value out = replaceUses(result, [&] {
      return prepare(b, op->getLoc(), result, layoutAt(layouts, 0),
                     layoutAt(desired, 0), fqn, /*explicitDesired=*/true);
    });
    if (leafOutput)
      *leafOutput = out;
    return success();
  }

  //===--------------------------------------------------------------------===//
  // StyleBuilder
  //===--------------------------------------------------------------------===//

  /// The StyleBuilder every style lowers one module with.
  class Builder : public StyleBuilder {
  public:
    Builder(StyleLowering &lowering, Operation *op,
            ParallelStyleAttrInterface style)
        : lowering(lowering), op(op), style(style) {}

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
      Value leafOutput;
      if (failed(lowering.prepareOutputs(op, ArrayAttr::get(ctx, out),
                                         ArrayAttr::get(ctx, out),
                                         /*sameLength=*/false, &leafOutput)))
        return failure();
      addSeparatedBias(leafOutput);
      return success();
    }

    SmallVector<int64_t> getInputRanks() override {
      return ioRanks(op, /*inputs=*/true);
    }

    SmallVector<int64_t> getOutputRanks() override {
      return ioRanks(op, /*inputs=*/false);
    }

    LogicalResult checkLayouts(StringRef arg, Attribute layouts,
                               bool inputs) override {
      return StyleLowering::checkLayouts(op, style.getStyleName(), arg, layouts,
                                         inputs);
    }

    LogicalResult placeWeight(Attribute placement) override {
      return placeOperand("weight", 1, placement);
    }

    LogicalResult placeBias(Attribute placement) override {
      if (m::isLeafModule(op) && op->getNumOperands() < 3)
        return success();
      return placeOperand("bias", 2, placement);
    }

    LogicalResult separateBias() override {
      auto linear = dyn_cast<m::LinearOp>(op);
      if (!linear)
        return op->emitError()
               << style.getStyleName() << " on '" << m::getModuleFQN(op)
               << "': only a linear's bias can be separated, not a "
               << m::getModuleTypeName(op) << "'s";
      if (!linear.getBias())
        return success();
      bias = linear.getBias();
      OpBuilder b(op);
      auto bare = m::LinearOp::create(
          b, op->getLoc(), linear.getResult().getType(), linear.getFqnAttr(),
          linear.getInput(), linear.getWeight(), Value());
      // tp-lower-styles has taken the op's style off before lowering it.
      bare->setDiscardableAttrs(op->getDiscardableAttrDictionary());
      linear.getResult().replaceAllUsesWith(bare.getResult());
      op->erase();
      op = bare;
      return success();
    }

    LogicalResult takeInput(unsigned index, Attribute declared,
                            Attribute wanted) override {
      StringRef fqn = m::getModuleFQN(op);
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        if (index >= func.getNumArguments())
          return noSuchInput(index, func.getNumArguments());
        OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
        Value arg = func.getArgument(index);
        replaceUses(arg, [&] {
          return lowering.prepare(b, func.getLoc(), arg, declared, wanted,
                                  StringRef());
        });
        return success();
      }
      SmallVector<OpOperand *> inputs = moduleInputs(op);
      if (index >= inputs.size())
        return noSuchInput(index, inputs.size());
      OpBuilder b(op);
      inputs[index]->set(lowering.prepare(b, op->getLoc(), inputs[index]->get(),
                                          declared, wanted, fqn));
      return success();
    }

    LogicalResult prepareInputs(Attribute layouts, Attribute desired,
                                DictionaryAttr kwargLayouts,
                                DictionaryAttr kwargDesired,
                                bool sameLength) override {
      return lowering.prepareInputs(op, layouts, desired, kwargLayouts,
                                    kwargDesired, sameLength);
    }

    LogicalResult prepareOutputs(Attribute layouts, Attribute desired,
                                 bool sameLength) override {
      Value leafOutput;
      if (failed(lowering.prepareOutputs(op, layouts, desired, sameLength,
                                         &leafOutput)))
        return failure();
      addSeparatedBias(leafOutput);
      return success();
    }

    LogicalResult declareOutput(unsigned index, Attribute natural,
                                Attribute desired) override {
      if (!m::isLeafModule(op) || index >= op->getNumResults())
        return op->emitError()
               << style.getStyleName() << " on '" << m::getModuleFQN(op)
               << "': declareOutput needs a leaf module's output, not output "
               << index << " of a " << m::getModuleTypeName(op);
      addSeparatedBias(lowering.finishOutput(op->getResult(index), natural,
                                             desired, m::getModuleFQN(op)));
      return success();
    }

    LogicalResult applyStyle(Operation *module, Attribute nested) override {
      if (!isParallelStyle(nested))
        return op->emitError()
               << style.getStyleName() << " on '" << m::getModuleFQN(op)
               << "': applyStyle needs a parallel style, got " << nested;
      return lowering.lower(module, nested);
    }

    /// After the style's lowering: a separated bias no output took is
    /// added to the module's result where it is.
    LogicalResult finish() {
      if (bias)
        addSeparatedBias(op->getResult(0));
      return success();
    }

  private:
    LogicalResult noSuchInput(unsigned index, size_t count) {
      return op->emitError()
             << style.getStyleName() << " on '" << m::getModuleFQN(op)
             << "': the module has no input " << index << " (it has " << count
             << ")";
    }

    /// Places the leaf module's operand `index`, its parameter `role`.
    LogicalResult placeOperand(StringRef role, unsigned index,
                               Attribute placement) {
      if (!m::isLeafModule(op) || op->getNumOperands() <= index)
        return op->emitError()
               << style.getStyleName() << " on '" << m::getModuleFQN(op)
               << "': a " << m::getModuleTypeName(op) << " has no " << role;
      OpBuilder b(op);
      op->setOperand(index,
                     lowering.place(b, op->getLoc(), op->getOperand(index),
                                    lowering.onTPAxis(placement),
                                    m::getModuleFQN(op)));
      return success();
    }

    /// Adds the bias separateBias took out to `out`, once, for every later
    /// user of `out`.
    void addSeparatedBias(Value out) {
      if (!bias || !out)
        return;
      OpBuilder after(out.getContext());
      after.setInsertionPointAfterValue(out);
      Location loc = op->getLoc();
      Value b = bias;
      bias = Value();
      replaceUses(out, [&]() -> Value {
        return m::AddOp::create(after, loc, out.getType(), out, b);
      });
    }

    StyleLowering &lowering;
    Operation *op;
    ParallelStyleAttrInterface style;
    /// The bias separateBias took out, until an output takes it.
    Value bias;
  };

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

/// FSDP: each trainable parameter with a dim 0 is held sharded on dim 0
/// over `fsdpAxis`, inside the shard its style gives it on the other axes
/// (`#tp.inner_shard<0>` where a later axis splits dim 0 too), and is
/// redistributed to that style's placement where it is read: one all_gather
/// over the axis once lowered. Its gradient, reduced to the parameter's
/// placement by the optimizer's update, is then reduce-scattered, and the
/// update and its state are of the shard. A frozen parameter is sharded
/// and gathered the same way (FSDP2 shards frozen parameters too: a frozen
/// base model is what fine-tuning with adapters keeps in memory); it just
/// has no gradient to scatter.
static void shardParametersFully(ModuleOp module, MeshOp mesh,
                                 int64_t fsdpAxis) {
  MLIRContext *ctx = module.getContext();
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  SmallVector<m::ParamOp> params;
  module.walk([&](m::ParamOp p) {
    if (!getTensorLikeShape(p.getType()).empty() &&
        mesh.getShape()[fsdpAxis] > 1)
      params.push_back(p);
  });
  for (m::ParamOp p : params) {
    // The placements it is read in: each style's tp.distribute, and
    // replicated where an op reads the parameter itself.
    SmallVector<DistributeOp> reads;
    bool plainRead = false;
    for (Operation *user : p->getUsers()) {
      if (auto d = dyn_cast<DistributeOp>(user))
        reads.push_back(d);
      else
        plainRead = true;
    }
    auto tensor = cast<RankedTensorType>(p.getType());
    auto fullyShard = [&](ArrayRef<Attribute> placements) {
      SmallVector<Attribute> sharded(placements);
      sharded[fsdpAxis] = InnerShardAttr::get(ctx, 0);
      return DTensorType::get(ctx, tensor.getShape(), tensor.getElementType(),
                              meshRef, canonicalizePlacements(sharded));
    };
    OpBuilder b(ctx);
    b.setInsertionPointAfter(p);
    auto shardAndGather = [&](DTensorType read, StringAttr fqn) -> Value {
      Value shard = DistributeOp::create(
          b, p.getLoc(), fullyShard(read.getPlacements()), p, fqn);
      return RedistributeOp::create(b, p.getLoc(), read, shard, fqn);
    };
    for (DistributeOp d : reads) {
      b.setInsertionPoint(d);
      if (d.getResult().getType().getPlacements()[fsdpAxis] !=
          ReplicateAttr::get(ctx))
        continue; // a style that placed it on this axis itself
      d.getResult().replaceAllUsesWith(
          shardAndGather(d.getResult().getType(), d.getModuleAttr()));
      d.erase();
    }
    if (plainRead) {
      b.setInsertionPointAfter(p);
      SmallVector<Attribute> replicated(mesh.getRank(),
                                        ReplicateAttr::get(ctx));
      auto read = DTensorType::get(
          ctx, tensor.getShape(), tensor.getElementType(), meshRef, replicated);
      // Read whole by the module that owns it (a norm weight by its norm).
      StringRef owner = getParameterOwner(p.getName());
      Value gathered = shardAndGather(
          read, owner.empty() ? StringAttr() : b.getStringAttr(owner));
      p.getResult().replaceUsesWithIf(gathered, [&](OpOperand &use) {
        return use.getOwner() !=
               gathered.getDefiningOp()->getOperand(0).getDefiningOp();
      });
    }
  }
}

/// loss_parallel: rewrites each cross entropy into the steps that work on
/// class-sharded logits, `mean(log(sum(exp(l - m))) - (l - m)[t])` with `m`
/// the detached row maximum `max(l)`.
/// The max, the sum and the target logit are each reduced over the class
/// shards by one small all-reduce once placements are propagated; the logits
/// are never gathered.
/// PyTorch's ignore_index in the class-parallel cross entropy: the rows
/// of \p perRow (`[N, 1]`) whose target is -100 count neither in the sum
/// nor in the divisor, `model.valid_rows` of the targets (where the rows
/// are split over ranks each counts its own, and propagation sums them
/// with one scalar all_reduce, as for an unsplit loss). The division is in
/// f32 (the count is one), and by at least 1: with every row ignored the
/// gradient is zero, as PyTorch's, and the loss NaN, as PyTorch's, from a
/// term `(n - n) / n` no gradient flows through.
static Value meanOverKeptRows(OpBuilder &b, Location loc, m::CrossEntropyOp op,
                              Value perRow) {
  Value targets = op.getTargets();
  ArrayRef<int64_t> rows = getTensorLikeShape(targets.getType());
  auto idType = cast<IntegerType>(getTensorLikeElementType(targets.getType()));
  Type elt = getTensorLikeElementType(perRow.getType());
  auto scalarOf = [](Type t) { return RankedTensorType::get({}, t); };
  auto f32 = scalarOf(b.getF32Type());
  Value ignoreIndex = m::ConstantOp::create(
      b, loc, scalarOf(idType),
      DenseElementsAttr::get(
          scalarOf(idType), APInt(idType.getWidth(), -100, /*isSigned=*/true)));
  Value kept =
      m::CompareOp::create(b, loc, RankedTensorType::get(rows, b.getI1Type()),
                           targets, ignoreIndex, b.getStringAttr("ne"));
  Value keep = m::ReshapeOp::create(
      b, loc, RankedTensorType::get({rows[0], 1}, elt),
      m::CastOp::create(b, loc, RankedTensorType::get(rows, elt), kept));
  Value total = m::ReshapeOp::create(
      b, loc, scalarOf(elt),
      m::ReduceSumOp::create(
          b, loc, RankedTensorType::get({1, 1}, elt),
          m::MulOp::create(b, loc, perRow.getType(), perRow, keep),
          b.getI64IntegerAttr(0)));
  if (elt != f32.getElementType())
    total = m::CastOp::create(b, loc, f32, total);
  Value valid = m::ValidRowsOp::create(b, loc, f32, targets);
  Value zero = m::ConstantOp::create(
      b, loc, f32, DenseElementsAttr::get(f32, b.getF32FloatAttr(0.0f)));
  Value none = m::CastOp::create(
      b, loc, f32,
      m::CompareOp::create(b, loc, scalarOf(b.getI1Type()), valid, zero,
                           b.getStringAttr("eq")));
  Value mean = m::DivOp::create(b, loc, f32, total,
                                m::AddOp::create(b, loc, f32, valid, none));
  Value nanIfNone = m::DivOp::create(
      b, loc, f32, m::SubOp::create(b, loc, f32, valid, valid), valid);
  Value loss = m::AddOp::create(b, loc, f32, mean, nanIfNone);
  if (op.getType() != f32)
    loss = m::CastOp::create(b, loc, op.getType(), loss);
  return loss;
}

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
    // The shift by the row maximum is for range only: the loss does not
    // depend on it, so no gradient flows through it (as in PyTorch's
    // loss_parallel and Megatron's vocab-parallel cross entropy).
    Value mx = m::DetachOp::create(
        b, loc, column,
        m::ReduceMaxOp::create(b, loc, column, logits, b.getI64IntegerAttr(1)));
    Value shifted = m::SubOp::create(b, loc, full, logits, mx);
    Value e = m::ExpOp::create(b, loc, full, shifted);
    Value sum =
        m::ReduceSumOp::create(b, loc, column, e, b.getI64IntegerAttr(1));
    Value lse = m::LogOp::create(b, loc, column, sum);
    Value target =
        m::TargetLogitOp::create(b, loc, column, shifted, op.getTargets());
    Value perRow = m::SubOp::create(b, loc, column, lse, target);
    Value loss;
    if (m::mayHoldIgnoreIndex(op.getTargets()))
      loss = meanOverKeptRows(b, loc, op, perRow);
    else
      loss = m::MeanOp::create(b, loc, op.getType(), perRow, /*count=*/nullptr);
    op.getResult().replaceAllUsesWith(loss);
    op.erase();
  }
}

/// A ColwiseParallel linear with `shard_pieces` whose output features are
/// only read as contiguous pieces (GPT-2's fused c_attn split into q, k and
/// v) becomes one linear per piece, on that piece's rows of the weight and
/// bias, each with the style: every rank then holds its part of every piece
/// (its heads of q, k and v) and the split needs no gather, where the fused
/// weight's contiguous chunk would give a rank q and half of k. Returns
/// the ops that carry the style instead of \p op; where the option cannot
/// apply, a warning says why (the fused weight is then chunked whole).
static SmallVector<Operation *> splitFusedColwise(Operation *op,
                                                  Attribute style) {
  auto colwise = dyn_cast<ColwiseAttr>(style);
  if (!colwise || !colwise.getShardPieces())
    return {op};
  auto noEffect = [&](const Twine &why) -> SmallVector<Operation *> {
    op->emitWarning() << "\"shard_pieces\" on '" << m::getModuleFQN(op) << "'"
                      << " has no effect: " << why
                      << "; its weight is chunked whole";
    return {op};
  };
  auto linear = dyn_cast<m::LinearOp>(op);
  if (!linear)
    return noEffect("it applies to a linear's output features");
  auto outShape = getTensorLikeShape(linear.getResult().getType());
  int64_t last = static_cast<int64_t>(outShape.size()) - 1;
  SmallVector<m::SliceOp> pieces;
  for (Operation *user : linear.getResult().getUsers()) {
    auto slice = dyn_cast<m::SliceOp>(user);
    int64_t dim = slice ? static_cast<int64_t>(slice.getDim()) : 0;
    if (!slice || (dim != last && dim != -1) || slice.getStep() != 1)
      return noEffect("its output is read other than as contiguous slices "
                      "of the features ('" +
                      user->getName().getStringRef() + "')");
    pieces.push_back(slice);
  }
  llvm::sort(pieces, [](m::SliceOp a, m::SliceOp b) {
    return a.getStart() < b.getStart();
  });
  // Disjoint pieces, at least two, covering the features in order.
  int64_t next = 0;
  for (m::SliceOp s : pieces) {
    if (static_cast<int64_t>(s.getStart()) != next)
      return noEffect("its slices overlap or leave features out");
    next += getTensorLikeShape(s.getResult().getType())[last];
  }
  if (pieces.size() < 2 || next != outShape[last])
    return noEffect("its slices are not two or more pieces covering the "
                    "features");
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto rowsOf = [&](Value v, int64_t start, int64_t count) -> Value {
    if (!v)
      return v;
    SmallVector<int64_t> shape(getTensorLikeShape(v.getType()));
    shape[0] = count;
    auto type =
        RankedTensorType::get(shape, getTensorLikeElementType(v.getType()));
    return m::SliceOp::create(b, loc, type, v, /*dim=*/0, start, /*step=*/1);
  };
  SmallVector<Operation *> replaced;
  for (m::SliceOp s : pieces) {
    int64_t start = s.getStart();
    int64_t count = getTensorLikeShape(s.getResult().getType())[last];
    // The weight's rows, then the bias's (in this order, not as
    // arguments evaluated in an unspecified one).
    Value weight = rowsOf(linear.getWeight(), start, count);
    Value bias = rowsOf(linear.getBias(), start, count);
    auto piece = m::LinearOp::create(b, loc, s.getResult().getType(),
                                     linear.getFqnAttr(), linear.getInput(),
                                     weight, bias);
    piece->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    s.getResult().replaceAllUsesWith(piece.getResult());
    s.erase();
    replaced.push_back(piece);
  }
  op->erase();
  return replaced;
}

LogicalResult mlir::tp::lowerStyles(ModuleOp module) {
  if (failed(checkPassPrecondition(module, TPPass::LowerStyles)))
    return failure();
  MLIRContext *ctx = module.getContext();
  ensureParallelStyleModels(ctx);
  PlanAttr plan = TPDialect::PlanAttrHelper(ctx).getAttr(module);
  TPDialect::StyleAttrHelper styleAttr(ctx);
  SmallVector<std::pair<Operation *, Attribute>> styled;
  module.walk([&](Operation *op) {
    if (Attribute style = styleAttr.getAttr(op))
      styled.push_back({op, style});
  });
  // Propagation ends this pass even without styles (hand-placed dtensors):
  // tp-pipeline relies on it and runs no tp-propagate of its own. A plan of
  // data parallelism alone (a dp_axis or fsdp_axis and no styles) still
  // shards the batch and the parameters below.
  if (styled.empty() && (!plan || (!plan.getDpAxis() && !plan.getFsdpAxis())))
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
  SmallVector<StringRef> names;
  if (std::optional<ArrayAttr> meshNames = mesh.getAxisNames())
    for (Attribute n : *meshNames)
      names.push_back(cast<StringAttr>(n).getValue());
  StringRef tpName = plan.getTpAxis() ? plan.getTpAxis().getValue() : "";
  if (std::string problem = checkPlanAxes(
          mesh.getShape(), names, tpName,
          plan.getDpAxis() ? plan.getDpAxis().getValue() : "",
          plan.getFsdpAxis() ? plan.getFsdpAxis().getValue() : "");
      !problem.empty())
    return module.emitError()
           << "plan on mesh @" << mesh.getSymName() << ": " << problem;
  int64_t tpAxis = tpName.empty() ? 0 : mesh.getAxisIndex(tpName);
  if (plan.getLossParallel())
    decomposeCrossEntropy(module);
  // The batch is split over both data-parallel axes (with HSDP, over the
  // replicating one first: mesh order).
  for (StringAttr dp : {plan.getDpAxis(), plan.getFsdpAxis()})
    if (dp)
      shardInputsOnBatch(module, mesh, mesh.getAxisIndex(dp.getValue()));
  if (llvm::any_of(
          styled,
          [](auto &entry) {
            return isa<PairwiseParallelAttr, PairwiseSequenceParallelAttr>(
                entry.second);
          }) &&
      failed(checkPairwiseOverlaps(
          module, [](Operation *) { return std::string("a tp.style"); })))
    return failure();
  SmallVector<std::pair<Operation *, Attribute>> split;
  for (auto [op, style] : styled)
    for (Operation *piece : splitFusedColwise(op, style))
      split.push_back({piece, style});
  styled = std::move(split);
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
  if (StringAttr fsdp = plan.getFsdpAxis())
    shardParametersFully(module, mesh, mesh.getAxisIndex(fsdp.getValue()));
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
