//===- BuiltinStyles.cpp - the definitions of the built-in styles -*- C++
//-*-===//
//
// One function per style attribute of TPAttrs.td, `defineStyle<Attr>()`,
// says all tp does with the style (StyleDefinition): its plan-file name and
// arguments, how they build the attribute, the modules it applies to, its
// layout checks, its lowering through a StyleBuilder (PyTorch's semantics,
// modern and 2.1-era)
// and what it says about local outputs. A new style is its TPAttrs.td
// definition and its function here; a style attribute without one is a
// compile error at the end of this file.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

namespace {

/// The definition of style attribute `A`; each style specializes it below.
template <typename A> StyleDefinition defineStyle() {
  static_assert(sizeof(A) == 0, "a style attribute (ParallelStyleAttrTrait) "
                                "needs a defineStyle<> in BuiltinStyles.cpp");
  return {};
}

/// Adapts a function of the style's own attribute class to a definition's.
template <typename A, typename F> auto typed(F f) {
  return [f](Attribute style, auto &&...rest) -> decltype(auto) {
    return f(cast<A>(style), std::forward<decltype(rest)>(rest)...);
  };
}

Attribute orDefault(Attribute layout, Attribute def) {
  return layout ? layout : def;
}

/// Outputs handed on local (use_local_output) unless the flag says not;
/// `def` is the style's default.
StyleLocality outputsLocal(bool local, bool def) {
  StyleLocality l;
  l.outputsLocal = local;
  l.outputsDefault = def;
  return l;
}

/// The inputs a Prepare style lays out handed on local or not, by `flag`.
StyleLocality inputsLocal(bool local, StringRef flag) {
  StyleLocality l;
  l.inputsLocal = local;
  l.inputsDefault = false;
  l.inputsFlag = flag;
  return l;
}

bool isLinearOrEmbedding(Attribute, Operation *op) {
  return isa<m::LinearOp, m::EmbeddingOp>(op);
}

/// The seed applies its pairwise styles to any module with children, the
/// root included.
bool isCompositeOrRoot(Attribute, Operation *op) {
  return isa<m::SubmoduleOp, func::FuncOp>(op);
}

/// Colwise, Rowwise and the pairwise styles take one layout in and one out
/// (the seed's prepare functions too).
SmallVector<StyleArgument> singleLayoutArguments() {
  return {{"input_layouts", StyleArgKind::Layout},
          {"output_layouts", StyleArgKind::Layout},
          {"use_local_output", StyleArgKind::Bool, true},
          {"_prepare_input", StyleArgKind::PrepareInput},
          {"_prepare_output", StyleArgKind::PrepareOutput}};
}

/// Checks input_layouts against the inputs and output_layouts against the
/// outputs of a style `A` with those two.
template <typename A>
LogicalResult checkSingleLayouts(A style, StyleBuilder &b) {
  if (failed(b.checkLayouts("input_layouts", style.getInputLayouts(),
                            /*inputs=*/true)))
    return failure();
  return b.checkLayouts("output_layouts", style.getOutputLayouts(),
                        /*inputs=*/false);
}

//===----------------------------------------------------------------------===//
// Modern PyTorch styles
//===----------------------------------------------------------------------===//

/// ColwiseParallel: the input from its layout to Replicate; linear weight
/// and bias Shard(0), an embedding weight Shard(1); the natural output
/// Shard(-1) redistributed to output_layouts.
template <> StyleDefinition defineStyle<ColwiseAttr>() {
  StyleDefinition s;
  s.name = "ColwiseParallel";
  s.arguments = singleLayoutArguments();
  // tp's own argument, after PyTorch's.
  s.arguments.insert(s.arguments.begin() + 3,
                     {"shard_pieces", StyleArgKind::Bool, false});
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(ColwiseAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("output_layouts"), a.getBool("use_local_output"),
        a.getBool("shard_pieces")));
  };
  s.supports = isLinearOrEmbedding;
  s.verifyLayouts = typed<ColwiseAttr>(checkSingleLayouts<ColwiseAttr>);
  s.lower = typed<ColwiseAttr>([](ColwiseAttr style, StyleBuilder &b) {
    MLIRContext *ctx = style.getContext();
    Attribute rep = ReplicateAttr::get(ctx);
    Attribute shardLast = ShardAttr::get(ctx, -1);
    // Linear: weight [out, in] and bias on dim 0; embedding: weight dim 1.
    bool embedding = isa<m::EmbeddingOp>(b.getModule());
    if (failed(b.takeInput(0, orDefault(style.getInputLayouts(), rep), rep)) ||
        failed(b.placeWeight(ShardAttr::get(ctx, embedding ? 1 : 0))) ||
        failed(b.placeBias(ShardAttr::get(ctx, 0))))
      return failure();
    return b.declareOutput(0, shardLast,
                           orDefault(style.getOutputLayouts(), shardLast));
  });
  s.locality = typed<ColwiseAttr>([](ColwiseAttr style) {
    return outputsLocal(style.getUseLocalOutput(), true);
  });
  return s;
}

/// RowwiseParallel: a linear takes its input Shard(-1) with its weight
/// Shard(1) and adds its bias once, after the reduction; an embedding takes
/// its ids replicated with its weight rows sharded (ids outside a rank's
/// rows give zeros). Either way the natural output is Partial(sum).
template <> StyleDefinition defineStyle<RowwiseAttr>() {
  StyleDefinition s;
  s.name = "RowwiseParallel";
  s.arguments = singleLayoutArguments();
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(RowwiseAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("output_layouts"), a.getBool("use_local_output")));
  };
  s.supports = isLinearOrEmbedding;
  s.verifyLayouts = typed<RowwiseAttr>(checkSingleLayouts<RowwiseAttr>);
  s.lower = typed<RowwiseAttr>([](RowwiseAttr style, StyleBuilder &b) {
    MLIRContext *ctx = style.getContext();
    Attribute rep = ReplicateAttr::get(ctx);
    Attribute partial = PartialAttr::get(ctx, ReductionKind::Sum);
    Attribute output = orDefault(style.getOutputLayouts(), rep);
    if (isa<m::EmbeddingOp>(b.getModule())) {
      if (failed(
              b.takeInput(0, orDefault(style.getInputLayouts(), rep), rep)) ||
          failed(b.placeWeight(ShardAttr::get(ctx, 0))))
        return failure();
      return b.declareOutput(0, partial, output);
    }
    Attribute shardLast = ShardAttr::get(ctx, -1);
    if (failed(b.takeInput(0, orDefault(style.getInputLayouts(), shardLast),
                           shardLast)) ||
        failed(b.placeWeight(ShardAttr::get(ctx, 1))) ||
        failed(b.separateBias()))
      return failure();
    return b.declareOutput(0, partial, output);
  });
  s.locality = typed<RowwiseAttr>([](RowwiseAttr style) {
    return outputsLocal(style.getUseLocalOutput(), true);
  });
  return s;
}

/// SequenceParallel: parameters replicated, input and output sharded on
/// the sequence dim.
template <> StyleDefinition defineStyle<SequenceParallelAttr>() {
  StyleDefinition s;
  s.name = "SequenceParallel";
  // The modern signature unless an argument only the seed's has is given.
  s.isDefault = true;
  s.arguments = {{"sequence_dim", StyleArgKind::Int, 1},
                 {"use_local_output", StyleArgKind::Bool, false}};
  // Nothing to reject: the attribute has no verifier.
  s.build = [](const StyleArguments &a, auto) {
    return Attribute(SequenceParallelAttr::get(a.getContext(),
                                               a.getInt("sequence_dim"),
                                               a.getBool("use_local_output")));
  };
  s.supports = [](Attribute, Operation *op) {
    return isa<m::LayerNormOp, m::RMSNormOp, m::DropoutOp>(op);
  };
  s.unsupportedNote = [](Operation *op) -> std::string {
    if (!isa<m::SubmoduleOp>(op))
      return "";
    return "the modern SequenceParallel applies to LayerNorm, RMSNorm and "
           "Dropout, while PyTorch 2.1's SequenceParallel (the "
           "PairwiseParallel "
           "variant for a module of linears) is chosen by giving one of its "
           "arguments: input_layouts, output_layouts, _prepare_input or "
           "_prepare_output";
  };
  s.lower = typed<SequenceParallelAttr>([](SequenceParallelAttr style,
                                           StyleBuilder &b) -> LogicalResult {
    Operation *op = b.getModule();
    int64_t sequenceDim = style.getSequenceDim();
    int64_t rank = b.getInputRanks().front();
    int64_t dim = sequenceDim < 0 ? sequenceDim + rank : sequenceDim;
    // A norm normalizes its last dim: that one cannot be the sequence's.
    if (dim < 0 || dim >= rank - (isa<m::DropoutOp>(op) ? 0 : 1))
      return op->emitError() << "SequenceParallel on '" << m::getModuleFQN(op)
                             << "': sequence_dim " << sequenceDim
                             << " is out of range (or the normalized dim) "
                                "for an input of rank "
                             << rank;
    Attribute seq = ShardAttr::get(style.getContext(), dim);
    if (failed(b.takeInput(0, seq, seq)))
      return failure();
    return b.declareOutput(0, seq, seq);
  });
  s.locality = typed<SequenceParallelAttr>([](SequenceParallelAttr style) {
    return outputsLocal(style.getUseLocalOutput(), false);
  });
  return s;
}

/// The arguments of the modern PrepareModuleInput, which PrepareModule-
/// InputOutput shares.
SmallVector<StyleArgument> modernInputArguments() {
  return {{"input_layouts", StyleArgKind::LayoutOrNone},
          {"desired_input_layouts", StyleArgKind::LayoutOrNone},
          {"input_kwarg_layouts", StyleArgKind::KwargLayouts},
          {"desired_input_kwarg_layouts", StyleArgKind::KwargLayouts}};
}

template <> StyleDefinition defineStyle<PrepareModuleInputAttr>() {
  StyleDefinition s;
  s.name = "PrepareModuleInput";
  // Against the seed's signature (LegacyPrepareModuleInputAttr).
  s.selectors = {"desired_input_layouts", "input_kwarg_layouts",
                 "desired_input_kwarg_layouts"};
  s.isDefault = false;
  s.arguments = modernInputArguments();
  s.arguments.push_back({"use_local_output", StyleArgKind::Bool, false});
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(PrepareModuleInputAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("desired_input_layouts"), a.getDictionary("input_kwarg_layouts"),
        a.getDictionary("desired_input_kwarg_layouts"),
        a.getBool("use_local_output")));
  };
  s.verifyLayouts = typed<PrepareModuleInputAttr>(
      [](PrepareModuleInputAttr style, StyleBuilder &b) {
        if (failed(
                b.checkLayouts("input_layouts", style.getInputLayouts(), true)))
          return failure();
        return b.checkLayouts("desired_input_layouts",
                              style.getDesiredInputLayouts(), true);
      });
  s.lower = typed<PrepareModuleInputAttr>(
      [](PrepareModuleInputAttr style, StyleBuilder &b) {
        return b.prepareInputs(
            style.getInputLayouts(), style.getDesiredInputLayouts(),
            style.getInputKwargLayouts(), style.getDesiredInputKwargLayouts(),
            /*sameLength=*/true);
      });
  s.locality = typed<PrepareModuleInputAttr>([](PrepareModuleInputAttr style) {
    return inputsLocal(style.getUseLocalOutput(), "use_local_output");
  });
  return s;
}

template <> StyleDefinition defineStyle<PrepareModuleOutputAttr>() {
  StyleDefinition s;
  s.name = "PrepareModuleOutput";
  // Against the seed's signature (LegacyPrepareModuleOutputAttr).
  s.selectors = {"desired_output_layouts"};
  s.isDefault = false;
  s.arguments = {{"output_layouts", StyleArgKind::LayoutOrNone},
                 {"desired_output_layouts", StyleArgKind::LayoutOrNone},
                 {"use_local_output", StyleArgKind::Bool, true}};
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(PrepareModuleOutputAttr::getChecked(
        emitError, a.getContext(), a.get("output_layouts"),
        a.get("desired_output_layouts"), a.getBool("use_local_output")));
  };
  s.verifyLayouts = typed<PrepareModuleOutputAttr>(
      [](PrepareModuleOutputAttr style, StyleBuilder &b) {
        if (failed(b.checkLayouts("output_layouts", style.getOutputLayouts(),
                                  false)))
          return failure();
        return b.checkLayouts("desired_output_layouts",
                              style.getDesiredOutputLayouts(), false);
      });
  s.lower = typed<PrepareModuleOutputAttr>(
      [](PrepareModuleOutputAttr style, StyleBuilder &b) {
        return b.prepareOutputs(style.getOutputLayouts(),
                                style.getDesiredOutputLayouts(),
                                /*sameLength=*/true);
      });
  s.locality =
      typed<PrepareModuleOutputAttr>([](PrepareModuleOutputAttr style) {
        return outputsLocal(style.getUseLocalOutput(), true);
      });
  return s;
}

template <> StyleDefinition defineStyle<PrepareModuleInputOutputAttr>() {
  StyleDefinition s;
  s.name = "PrepareModuleInputOutput";
  s.arguments = modernInputArguments();
  s.arguments.append({{"use_local_input", StyleArgKind::Bool, false},
                      {"output_layouts", StyleArgKind::LayoutOrNone},
                      {"desired_output_layouts", StyleArgKind::LayoutOrNone},
                      {"use_local_output", StyleArgKind::Bool, true}});
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(PrepareModuleInputOutputAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("desired_input_layouts"), a.getDictionary("input_kwarg_layouts"),
        a.getDictionary("desired_input_kwarg_layouts"),
        a.getBool("use_local_input"), a.get("output_layouts"),
        a.get("desired_output_layouts"), a.getBool("use_local_output")));
  };
  s.verifyLayouts = typed<PrepareModuleInputOutputAttr>(
      [](PrepareModuleInputOutputAttr style, StyleBuilder &b) {
        if (failed(b.checkLayouts("input_layouts", style.getInputLayouts(),
                                  true)) ||
            failed(b.checkLayouts("desired_input_layouts",
                                  style.getDesiredInputLayouts(), true)) ||
            failed(b.checkLayouts("output_layouts", style.getOutputLayouts(),
                                  false)))
          return failure();
        return b.checkLayouts("desired_output_layouts",
                              style.getDesiredOutputLayouts(), false);
      });
  s.lower = typed<PrepareModuleInputOutputAttr>(
      [](PrepareModuleInputOutputAttr style, StyleBuilder &b) {
        if (failed(b.prepareInputs(style.getInputLayouts(),
                                   style.getDesiredInputLayouts(),
                                   style.getInputKwargLayouts(),
                                   style.getDesiredInputKwargLayouts(),
                                   /*sameLength=*/true)))
          return failure();
        return b.prepareOutputs(style.getOutputLayouts(),
                                style.getDesiredOutputLayouts(),
                                /*sameLength=*/true);
      });
  s.locality = typed<PrepareModuleInputOutputAttr>(
      [](PrepareModuleInputOutputAttr style) {
        StyleLocality l =
            inputsLocal(style.getUseLocalInput(), "use_local_input");
        l.outputsLocal = style.getUseLocalOutput();
        l.outputsDefault = true;
        return l;
      });
  return s;
}

//===----------------------------------------------------------------------===//
// The seed's legacy styles
//===----------------------------------------------------------------------===//

/// The seed's PairwiseParallel and its SequenceParallel variant: in each
/// module getPairwiseGroups finds, the paired linears alternate colwise and
/// rowwise; the first takes the style's input layout (the seed's
/// _prepare_input), the last rowwise one its output layout
/// (_prepare_output); the rowwise linears in between make their output
/// whole for the next pair.
LogicalResult lowerPairwise(Attribute style, StyleBuilder &b,
                            Attribute inputLayout, Attribute outputLayout) {
  Operation *op = b.getModule();
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
      Attribute pairStyle =
          i % 2 == 0
              ? Attribute(
                    ColwiseAttr::get(ctx, i == 0 ? inputLayout : Attribute(),
                                     Attribute(), /*use_local_output=*/true))
              : Attribute(RowwiseAttr::get(ctx, ShardAttr::get(ctx, -1),
                                           i + 1 == n ? outputLayout : rep,
                                           /*use_local_output=*/true));
      if (failed(b.applyStyle(group.linears[i], pairStyle)))
        return failure();
    }
  }
  return success();
}

template <> StyleDefinition defineStyle<PairwiseParallelAttr>() {
  StyleDefinition s;
  s.name = "PairwiseParallel";
  s.arguments = singleLayoutArguments();
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(PairwiseParallelAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("output_layouts"), a.getBool("use_local_output")));
  };
  s.supports = isCompositeOrRoot;
  s.verifyLayouts =
      typed<PairwiseParallelAttr>(checkSingleLayouts<PairwiseParallelAttr>);
  s.lower = typed<PairwiseParallelAttr>(
      [](PairwiseParallelAttr style, StyleBuilder &b) {
        // The seed's default: input replicated, output replicated.
        Attribute rep = ReplicateAttr::get(style.getContext());
        return lowerPairwise(style, b, style.getInputLayouts(),
                             orDefault(style.getOutputLayouts(), rep));
      });
  // The seed's pairwise styles end in make_output_tensor (to_local).
  s.locality = typed<PairwiseParallelAttr>([](PairwiseParallelAttr style) {
    return outputsLocal(style.getUseLocalOutput(), true);
  });
  return s;
}

template <> StyleDefinition defineStyle<PairwiseSequenceParallelAttr>() {
  StyleDefinition s;
  s.name = "SequenceParallel";
  s.title = "PyTorch 2.1's SequenceParallel (the PairwiseParallel variant)";
  // Only an argument the modern SequenceParallel lacks selects this one.
  s.selectors = {"input_layouts", "output_layouts", "_prepare_input",
                 "_prepare_output"};
  s.isDefault = false;
  s.arguments = singleLayoutArguments();
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(PairwiseSequenceParallelAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("output_layouts"), a.getBool("use_local_output")));
  };
  s.supports = isCompositeOrRoot;
  s.verifyLayouts = typed<PairwiseSequenceParallelAttr>(
      checkSingleLayouts<PairwiseSequenceParallelAttr>);
  s.lower = typed<PairwiseSequenceParallelAttr>(
      [](PairwiseSequenceParallelAttr style, StyleBuilder &b) {
        // Input resharded Shard(0) -> Replicate, output Shard(0).
        Attribute shard0 = ShardAttr::get(style.getContext(), 0);
        return lowerPairwise(style, b,
                             orDefault(style.getInputLayouts(), shard0),
                             orDefault(style.getOutputLayouts(), shard0));
      });
  s.locality = typed<PairwiseSequenceParallelAttr>(
      [](PairwiseSequenceParallelAttr style) {
        return outputsLocal(style.getUseLocalOutput(), true);
      });
  return s;
}

/// The seed's PrepareModuleInput signature (`input_layouts` ->
/// `output_layouts`): what an entry with neither signature's own argument
/// takes, saying so.
template <> StyleDefinition defineStyle<LegacyPrepareModuleInputAttr>() {
  StyleDefinition s;
  s.name = "PrepareModuleInput";
  s.signature = "2.1";
  s.selectors = {"output_layouts"};
  s.isDefault = true;
  s.defaultWarning =
      "PrepareModuleInput without desired_input_layouts takes the 2.1 "
      "signature: inputs laid out as input_layouts (default Shard(0)) are "
      "redistributed to output_layouts (default Replicate()); give "
      "desired_input_layouts for the modern one";
  s.arguments = {{"input_layouts", StyleArgKind::LayoutOrNone},
                 {"output_layouts", StyleArgKind::LayoutOrNone},
                 {"use_local_output", StyleArgKind::Bool, false}};
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(LegacyPrepareModuleInputAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("output_layouts"), a.getBool("use_local_output")));
  };
  s.verifyLayouts = typed<LegacyPrepareModuleInputAttr>(
      [](LegacyPrepareModuleInputAttr style, StyleBuilder &b) {
        if (failed(
                b.checkLayouts("input_layouts", style.getInputLayouts(), true)))
          return failure();
        return b.checkLayouts("output_layouts", style.getOutputLayouts(), true);
      });
  s.lower = typed<LegacyPrepareModuleInputAttr>(
      [](LegacyPrepareModuleInputAttr style, StyleBuilder &b) {
        // The seed zips the layouts with the inputs: inputs past the last
        // layout pass through.
        MLIRContext *ctx = style.getContext();
        return b.prepareInputs(
            orDefault(style.getInputLayouts(), ShardAttr::get(ctx, 0)),
            orDefault(style.getOutputLayouts(), ReplicateAttr::get(ctx)), {},
            {}, /*sameLength=*/false);
      });
  s.locality = typed<LegacyPrepareModuleInputAttr>(
      [](LegacyPrepareModuleInputAttr style) {
        return inputsLocal(style.getUseLocalOutput(), "use_local_output");
      });
  return s;
}

/// The seed's PrepareModuleOutput signature (`input_layouts` ->
/// `output_layouts`, one output only).
template <> StyleDefinition defineStyle<LegacyPrepareModuleOutputAttr>() {
  StyleDefinition s;
  s.name = "PrepareModuleOutput";
  s.signature = "2.1";
  s.selectors = {"input_layouts"};
  s.isDefault = true;
  s.defaultWarning =
      "PrepareModuleOutput without desired_output_layouts takes the 2.1 "
      "signature: the output is redistributed to output_layouts (default "
      "Shard(0)) from input_layouts (default Replicate()); give "
      "desired_output_layouts for the modern one";
  s.arguments = {{"input_layouts", StyleArgKind::LayoutOrNone},
                 {"output_layouts", StyleArgKind::LayoutOrNone},
                 {"use_local_output", StyleArgKind::Bool, true}};
  s.build = [](const StyleArguments &a, auto emitError) {
    return Attribute(LegacyPrepareModuleOutputAttr::getChecked(
        emitError, a.getContext(), a.get("input_layouts"),
        a.get("output_layouts"), a.getBool("use_local_output")));
  };
  s.verifyLayouts = typed<LegacyPrepareModuleOutputAttr>(
      [](LegacyPrepareModuleOutputAttr style, StyleBuilder &b) {
        if (failed(b.checkLayouts("input_layouts", style.getInputLayouts(),
                                  false)))
          return failure();
        return b.checkLayouts("output_layouts", style.getOutputLayouts(),
                              false);
      });
  s.lower = typed<LegacyPrepareModuleOutputAttr>(
      [](LegacyPrepareModuleOutputAttr style,
         StyleBuilder &b) -> LogicalResult {
        MLIRContext *ctx = style.getContext();
        Attribute to =
            orDefault(style.getOutputLayouts(), ShardAttr::get(ctx, 0));
        if (auto array = dyn_cast<ArrayAttr>(to))
          to = array[0];
        size_t outputs = b.getOutputRanks().size();
        if (outputs != 1)
          return b.getModule()->emitError()
                 << "PrepareModuleOutput (the 2.1 signature) on '"
                 << m::getModuleFQN(b.getModule())
                 << "' supports a single output, "
                 << "but the module has " << outputs
                 << "; use output_layouts with desired_output_layouts";
        return b.prepareOutputs(
            orDefault(style.getInputLayouts(), ReplicateAttr::get(ctx)), to,
            /*sameLength=*/true);
      });
  s.locality = typed<LegacyPrepareModuleOutputAttr>(
      [](LegacyPrepareModuleOutputAttr style) {
        return outputsLocal(style.getUseLocalOutput(), true);
      });
  return s;
}

//===----------------------------------------------------------------------===//
// CustomStyle: explicit layouts
//===----------------------------------------------------------------------===//

/// A custom style that shards a linear's weight on its output dim but
/// leaves its bias out keeps the whole bias on every rank, where only a
/// chunk is used: worth a warning.
void warnReplicatedBias(Operation *op, CustomStyleAttr style) {
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

/// `{"style": "CustomStyle", ...}` / `#tp.custom` without a style
/// registered under its name: the layouts are applied as written. (A name
/// registered from C++ has the registered style's definition instead.)
template <> StyleDefinition defineStyle<CustomStyleAttr>() {
  StyleDefinition s;
  s.name = "CustomStyle";
  s.arguments = {{"name", StyleArgKind::Name},
                 {"params", StyleArgKind::KwargLayouts},
                 {"input_layouts", StyleArgKind::LayoutList},
                 {"desired_input_layouts", StyleArgKind::LayoutList},
                 {"output_layouts", StyleArgKind::LayoutList}};
  s.build = [](const StyleArguments &a, auto emitError) {
    MLIRContext *ctx = a.getContext();
    StringAttr name = a.getString("name");
    return Attribute(CustomStyleAttr::getChecked(
        emitError, ctx, name ? name : StringAttr::get(ctx, "CustomStyle"),
        a.getDictionary("params"), a.getArray("input_layouts"),
        a.getArray("desired_input_layouts"), a.getArray("output_layouts"),
        DictionaryAttr()));
  };
  s.verifyLayouts = [](Attribute style, StyleBuilder &b) {
    return b.checkLayouts("input_layouts",
                          cast<CustomStyleAttr>(style).getInputLayouts(),
                          /*inputs=*/true);
  };
  s.lower = typed<CustomStyleAttr>([](CustomStyleAttr style, StyleBuilder &b) {
    if (DictionaryAttr params = style.getParams()) {
      for (NamedAttribute p : params)
        if (failed(b.placeParam(p.getName().getValue(), p.getValue())))
          return failure();
      warnReplicatedBias(b.getModule(), style);
    }
    if (ArrayAttr in = style.getInputLayouts()) {
      ArrayAttr desired = style.getDesiredInputLayouts();
      for (auto [i, from] : llvm::enumerate(in)) {
        if (isa<UnitAttr>(from))
          continue;
        Attribute to = desired ? desired[i] : from;
        if (failed(b.prepareInput(i, from, to)))
          return failure();
      }
    }
    if (ArrayAttr out = style.getOutputLayouts())
      for (auto [i, p] : llvm::enumerate(out))
        if (!isa<UnitAttr>(p) && failed(b.placeOutput(i, p)))
          return failure();
    return success();
  });
  return s;
}

/// Defines each style among `Attrs` (all of the dialect's attributes: the
/// trait picks the styles).
template <typename... Attrs>
void defineAll(function_ref<void(TypeID, StyleDefinition)> add) {
  (
      [&] {
        if constexpr (std::is_base_of_v<ParallelStyleAttrTrait<Attrs>, Attrs>)
          add(TypeID::get<Attrs>(), defineStyle<Attrs>());
      }(),
      ...);
}

} // namespace

void mlir::tp::detail::defineBuiltinStyles(
    function_ref<void(TypeID, StyleDefinition)> add) {
  defineAll<
#define GET_ATTRDEF_LIST
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"
      >(add);
}
