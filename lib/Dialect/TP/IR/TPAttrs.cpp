//===- TPAttrs.cpp - tp placements, styles and plans ------------*- C++ -*-===//
//
// Attribute storage registration, verifiers that reject what PyTorch rejects,
// and the placement helpers.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPAttrs.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;

#include "tp/Dialect/TP/IR/TPAttrInterfaces.cpp.inc"
#include "tp/Dialect/TP/IR/TPEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"

/// Promises ParallelStyleAttrInterface for each style among `Attrs`: its
/// models need the model dialect and come from TPTransforms
/// (registerParallelStyleModels), and a use before they are attached fails
/// saying so instead of finding no interface.
template <typename... Attrs>
static void declareStylePromises(TPDialect &dialect) {
  (
      [&] {
        if constexpr (std::is_base_of_v<ParallelStyleAttrTrait<Attrs>, Attrs>)
          dialect.declarePromisedInterface<ParallelStyleAttrInterface, Attrs>();
      }(),
      ...);
}

void TPDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"
      >();
  declareStylePromises<
#define GET_ATTRDEF_LIST
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"
      >(*this);
}

//===----------------------------------------------------------------------===//
// Placements
//===----------------------------------------------------------------------===//

std::string ShardAttr::toTorchString() const {
  return "Shard(" + std::to_string(getDim()) + ")";
}

std::string InnerShardAttr::toTorchString() const {
  return "InnerShard(" + std::to_string(getDim()) + ")";
}

std::string ReplicateAttr::toTorchString() const { return "Replicate()"; }

std::string PartialAttr::toTorchString() const {
  if (getKind() == ReductionKind::Sum)
    return "Partial()";
  return ("Partial(" + stringifyReductionKind(getKind()) + ")").str();
}

bool mlir::tp::isParallelStyle(Attribute attr) {
  return attr && attr.hasTrait<ParallelStyleAttrTrait>();
}

bool mlir::tp::isPlacement(Attribute attr) {
  return isa_and_nonnull<ShardAttr, InnerShardAttr, ReplicateAttr, PartialAttr>(
      attr);
}

Attribute mlir::tp::normalizePlacement(Attribute placement, int64_t rank) {
  if (auto inner = dyn_cast<InnerShardAttr>(placement))
    return inner.getDim() >= 0 ? placement
                               : InnerShardAttr::get(placement.getContext(),
                                                     inner.getDim() + rank);
  auto shard = dyn_cast<ShardAttr>(placement);
  if (!shard || shard.getDim() >= 0)
    return placement;
  return ShardAttr::get(placement.getContext(), shard.getDim() + rank);
}

std::optional<int64_t> mlir::tp::getSplitDim(Attribute placement) {
  if (auto s = dyn_cast<ShardAttr>(placement))
    return s.getDim();
  if (auto s = dyn_cast<InnerShardAttr>(placement))
    return s.getDim();
  return std::nullopt;
}

SmallVector<int64_t> mlir::tp::getSplitOrder(ArrayRef<Attribute> placements,
                                             int64_t dim) {
  SmallVector<int64_t> order;
  for (bool inner : {false, true})
    for (auto [axis, p] : llvm::enumerate(placements))
      if (getSplitDim(p) == dim && isa<InnerShardAttr>(p) == inner)
        order.push_back(static_cast<int64_t>(axis));
  return order;
}

SmallVector<Attribute>
mlir::tp::canonicalizePlacements(ArrayRef<Attribute> placements) {
  SmallVector<Attribute> out(placements);
  for (Attribute p : placements) {
    auto inner = dyn_cast<InnerShardAttr>(p);
    if (!inner)
      continue;
    // The split order of the dim; its longest prefix in mesh order is
    // written with #tp.shard, the rest (also in mesh order) is inner.
    int64_t dim = inner.getDim();
    SmallVector<int64_t> order = getSplitOrder(placements, dim);
    for (size_t i = 0; i < order.size(); ++i) {
      bool plain = i == 0 || order[i] > order[i - 1];
      for (size_t j = 1; plain && j < i; ++j)
        plain = order[j] > order[j - 1];
      out[order[i]] = plain
                          ? Attribute(ShardAttr::get(p.getContext(), dim))
                          : Attribute(InnerShardAttr::get(p.getContext(), dim));
    }
  }
  return out;
}

std::string mlir::tp::placementsToString(ArrayRef<Attribute> placements) {
  std::string s = "[";
  for (auto [i, p] : llvm::enumerate(placements)) {
    if (i)
      s += ", ";
    if (auto iface = dyn_cast<PlacementAttrInterface>(p))
      s += iface.toTorchString();
    else
      s += "?";
  }
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Style verifiers
//===----------------------------------------------------------------------===//

/// A placement a style may ask for: an inner shard is a layout of FSDP's
/// parameters across two axes, not one a style gives on its axis.
static bool isStyleLayout(Attribute attr) {
  return isPlacement(attr) && !isa<InnerShardAttr>(attr);
}

/// A single layout: absent, or one placement. PyTorch's Colwise/Rowwise raise
/// NotImplementedError for tuples; we reject them the same way.
static LogicalResult
verifySingleLayout(function_ref<InFlightDiagnostic()> emitError,
                   StringRef style, StringRef arg, Attribute layout) {
  if (!layout)
    return success();
  if (isa<ArrayAttr>(layout))
    return emitError() << style << " only supports a single " << arg
                       << ", not a tuple of layouts";
  if (!isStyleLayout(layout))
    return emitError() << style << " " << arg
                       << " must be a placement (#tp.shard, #tp.replicate or "
                          "#tp.partial), got "
                       << layout;
  return success();
}

/// A layout list: one placement, `unit` (None), or an array of those.
static LogicalResult
verifyLayoutList(function_ref<InFlightDiagnostic()> emitError, StringRef style,
                 StringRef arg, Attribute layouts) {
  if (!layouts)
    return success();
  auto check = [&](Attribute a) -> LogicalResult {
    if (isa<UnitAttr>(a) || isStyleLayout(a))
      return success();
    return emitError() << style << " " << arg
                       << " entries must be placements or unit (None), got "
                       << a;
  };
  if (auto array = dyn_cast<ArrayAttr>(layouts)) {
    for (Attribute a : array)
      if (failed(check(a)))
        return failure();
    return success();
  }
  return check(layouts);
}

static size_t layoutCount(Attribute layouts) {
  if (auto array = dyn_cast<ArrayAttr>(layouts))
    return array.size();
  return 1;
}

/// PyTorch asserts both lists have the same length.
static LogicalResult
verifyLayoutPair(function_ref<InFlightDiagnostic()> emitError, StringRef style,
                 StringRef fromName, Attribute from, StringRef toName,
                 Attribute to) {
  if (failed(verifyLayoutList(emitError, style, fromName, from)) ||
      failed(verifyLayoutList(emitError, style, toName, to)))
    return failure();
  if (!from && !to)
    return success();
  if (!from || !to)
    return emitError() << style << " requires both " << fromName << " and "
                       << toName << " when either is given";
  if (layoutCount(from) != layoutCount(to))
    return emitError() << style << " " << fromName << " and " << toName
                       << " should have same length, got " << layoutCount(from)
                       << " and " << layoutCount(to);
  auto fromArray = dyn_cast<ArrayAttr>(from);
  auto toArray = dyn_cast<ArrayAttr>(to);
  for (size_t i = 0, e = layoutCount(from); i < e; ++i) {
    Attribute f = fromArray ? fromArray[i] : from;
    Attribute t = toArray ? toArray[i] : to;
    if (isa<UnitAttr>(f) && !isa<UnitAttr>(t))
      return emitError() << style << " " << toName << " entry " << i
                         << " is set but " << fromName << " entry " << i
                         << " is None";
  }
  return success();
}

static LogicalResult
verifyKwargPair(function_ref<InFlightDiagnostic()> emitError, StringRef style,
                DictionaryAttr from, DictionaryAttr to) {
  if (!from && !to)
    return success();
  if (!from || !to)
    return emitError() << style
                       << " requires both input_kwarg_layouts and "
                          "desired_input_kwarg_layouts when either is given";
  for (NamedAttribute entry : from) {
    if (!isStyleLayout(entry.getValue()))
      return emitError() << style << " input_kwarg_layouts['"
                         << entry.getName().getValue()
                         << "'] must be a placement";
    Attribute desired = to.get(entry.getName());
    if (!desired)
      return emitError() << style << " desired_input_kwarg_layouts has no "
                         << "entry for keyword input '"
                         << entry.getName().getValue() << "'";
    if (!isStyleLayout(desired))
      return emitError() << style << " desired_input_kwarg_layouts['"
                         << entry.getName().getValue()
                         << "'] must be a placement";
  }
  for (NamedAttribute entry : to)
    if (!from.get(entry.getName()))
      return emitError() << style << " desired_input_kwarg_layouts names '"
                         << entry.getName().getValue()
                         << "', which input_kwarg_layouts does not";
  return success();
}

LogicalResult ColwiseAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Attribute inputLayouts,
                                  Attribute outputLayouts, bool, bool) {
  if (failed(verifySingleLayout(emitError, "ColwiseParallel", "input_layouts",
                                inputLayouts)))
    return failure();
  return verifySingleLayout(emitError, "ColwiseParallel", "output_layouts",
                            outputLayouts);
}

LogicalResult RowwiseAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Attribute inputLayouts,
                                  Attribute outputLayouts, bool) {
  if (failed(verifySingleLayout(emitError, "RowwiseParallel", "input_layouts",
                                inputLayouts)))
    return failure();
  return verifySingleLayout(emitError, "RowwiseParallel", "output_layouts",
                            outputLayouts);
}

LogicalResult PrepareModuleInputAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Attribute inputLayouts,
    Attribute desiredInputLayouts, DictionaryAttr inputKwargLayouts,
    DictionaryAttr desiredInputKwargLayouts, bool) {
  if (failed(verifyLayoutPair(emitError, "PrepareModuleInput", "input_layouts",
                              inputLayouts, "desired_input_layouts",
                              desiredInputLayouts)))
    return failure();
  return verifyKwargPair(emitError, "PrepareModuleInput", inputKwargLayouts,
                         desiredInputKwargLayouts);
}

LogicalResult
PrepareModuleOutputAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                Attribute outputLayouts,
                                Attribute desiredOutputLayouts, bool) {
  // Both are required keyword arguments of the modern PrepareModuleOutput.
  if (!outputLayouts && !desiredOutputLayouts)
    return emitError() << "PrepareModuleOutput requires output_layouts and "
                          "desired_output_layouts";
  return verifyLayoutPair(emitError, "PrepareModuleOutput", "output_layouts",
                          outputLayouts, "desired_output_layouts",
                          desiredOutputLayouts);
}

LogicalResult PrepareModuleInputOutputAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Attribute inputLayouts,
    Attribute desiredInputLayouts, DictionaryAttr inputKwargLayouts,
    DictionaryAttr desiredInputKwargLayouts, bool, Attribute outputLayouts,
    Attribute desiredOutputLayouts, bool) {
  if (failed(verifyLayoutPair(emitError, "PrepareModuleInputOutput",
                              "input_layouts", inputLayouts,
                              "desired_input_layouts", desiredInputLayouts)) ||
      failed(verifyKwargPair(emitError, "PrepareModuleInputOutput",
                             inputKwargLayouts, desiredInputKwargLayouts)))
    return failure();
  if (!outputLayouts && !desiredOutputLayouts)
    return emitError() << "PrepareModuleInputOutput requires output_layouts "
                          "and desired_output_layouts";
  return verifyLayoutPair(emitError, "PrepareModuleInputOutput",
                          "output_layouts", outputLayouts,
                          "desired_output_layouts", desiredOutputLayouts);
}

LogicalResult
PairwiseParallelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             Attribute inputLayouts, Attribute outputLayouts,
                             bool) {
  if (failed(verifySingleLayout(emitError, "PairwiseParallel", "input_layouts",
                                inputLayouts)))
    return failure();
  return verifySingleLayout(emitError, "PairwiseParallel", "output_layouts",
                            outputLayouts);
}

LogicalResult PairwiseSequenceParallelAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Attribute inputLayouts,
    Attribute outputLayouts, bool) {
  if (failed(verifySingleLayout(emitError, "SequenceParallel", "input_layouts",
                                inputLayouts)))
    return failure();
  return verifySingleLayout(emitError, "SequenceParallel", "output_layouts",
                            outputLayouts);
}

LogicalResult LegacyPrepareModuleInputAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Attribute inputLayouts,
    Attribute outputLayouts, bool) {
  if (failed(verifyLayoutList(emitError, "PrepareModuleInput", "input_layouts",
                              inputLayouts)) ||
      failed(verifyLayoutList(emitError, "PrepareModuleInput", "output_layouts",
                              outputLayouts)))
    return failure();
  // The seed zips the two lists; a longer one would be silently cut.
  if (inputLayouts && outputLayouts &&
      layoutCount(inputLayouts) != layoutCount(outputLayouts))
    return emitError() << "PrepareModuleInput input_layouts and "
                          "output_layouts should have same length, got "
                       << layoutCount(inputLayouts) << " and "
                       << layoutCount(outputLayouts);
  return success();
}

LogicalResult LegacyPrepareModuleOutputAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Attribute inputLayouts,
    Attribute outputLayouts, bool) {
  // The seed: "Only support single output redistribute now."
  if (failed(verifySingleLayout(emitError, "PrepareModuleOutput",
                                "input_layouts", inputLayouts)))
    return failure();
  if (auto array = dyn_cast_or_null<ArrayAttr>(outputLayouts)) {
    if (array.size() != 1)
      return emitError() << "PrepareModuleOutput (the 2.1 signature) "
                            "supports a single output only, got "
                         << array.size()
                         << " output_layouts; use output_layouts with "
                            "desired_output_layouts for several outputs";
    outputLayouts = array[0];
  }
  return verifySingleLayout(emitError, "PrepareModuleOutput", "output_layouts",
                            outputLayouts);
}

LogicalResult
CustomStyleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        StringAttr name, DictionaryAttr params,
                        ArrayAttr inputLayouts, ArrayAttr desiredInputLayouts,
                        ArrayAttr outputLayouts, DictionaryAttr) {
  if (!name || name.getValue().empty())
    return emitError() << "custom style needs a name";
  StringRef style = name.getValue();
  if (params)
    for (NamedAttribute p : params)
      if (!isStyleLayout(p.getValue()))
        return emitError() << style << " params['" << p.getName().getValue()
                           << "'] must be a placement";
  // Without desired layouts, inputs keep their declared layouts.
  if (inputLayouts && desiredInputLayouts) {
    if (failed(verifyLayoutPair(emitError, style, "input_layouts", inputLayouts,
                                "desired_input_layouts", desiredInputLayouts)))
      return failure();
  } else if (desiredInputLayouts) {
    return emitError() << style
                       << " has desired_input_layouts but no input_layouts";
  } else if (failed(verifyLayoutList(emitError, style, "input_layouts",
                                     inputLayouts))) {
    return failure();
  }
  return verifyLayoutList(emitError, style, "output_layouts", outputLayouts);
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

std::string mlir::tp::checkPlanAxes(ArrayRef<int64_t> meshShape,
                                    ArrayRef<StringRef> axisNames,
                                    StringRef tpAxis, StringRef dpAxis,
                                    StringRef fsdpAxis) {
  std::string problem;
  llvm::raw_string_ostream os(problem);
  auto checkAxis = [&](StringRef option, StringRef axis) {
    if (axis.empty() || llvm::is_contained(axisNames, axis))
      return true;
    os << option << " '" << axis << "' is not an axis of the mesh";
    if (axisNames.empty())
      os << " (its axes have no names)";
    else
      os << " (its axes: " << llvm::join(axisNames, ", ") << ")";
    return false;
  };
  if (!checkAxis("tp_axis", tpAxis) || !checkAxis("dp_axis", dpAxis) ||
      !checkAxis("fsdp_axis", fsdpAxis))
    return problem;
  if (tpAxis.empty() && meshShape.size() > 1)
    os << "the mesh has " << meshShape.size()
       << " axes: name the tensor-parallel one with tp_axis";
  else if (!dpAxis.empty() && dpAxis == tpAxis)
    os << "dp_axis and tp_axis are both '" << dpAxis << "'";
  else if (!fsdpAxis.empty() && fsdpAxis == tpAxis)
    os << "fsdp_axis and tp_axis are both '" << fsdpAxis << "'";
  else if (!fsdpAxis.empty() && fsdpAxis == dpAxis)
    os << "fsdp_axis and dp_axis are both '" << fsdpAxis
       << "' (for HSDP, dp_axis names the axis the shards are replicated "
          "over and fsdp_axis the one they are sharded over)";
  return problem;
}

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               FlatSymbolRefAttr, StringAttr tpAxis,
                               ArrayAttr keys, ArrayAttr styles,
                               StringAttr dpAxis, bool, ArrayAttr frozen,
                               ArrayAttr recompute, StringAttr fsdpAxis,
                               bool reshardAfterForward, ArrayAttr fsdpUnits) {
  if (fsdpUnits && !fsdpAxis)
    return emitError() << "plan fsdp_units needs an fsdp_axis";
  if (fsdpUnits)
    for (Attribute pattern : fsdpUnits)
      if (!isa<StringAttr>(pattern))
        return emitError() << "plan fsdp_units patterns must be strings, got "
                           << pattern;
  if (!reshardAfterForward && !fsdpAxis)
    return emitError() << "plan reshard_after_forward = false needs an "
                          "fsdp_axis (only FSDP's parameters are gathered "
                          "and freed)";
  if (dpAxis && tpAxis && dpAxis == tpAxis)
    return emitError() << "plan dp_axis and tp_axis are both '"
                       << dpAxis.getValue() << "'";
  for (StringAttr other : {tpAxis, dpAxis})
    if (fsdpAxis && other && fsdpAxis == other)
      return emitError() << "plan fsdp_axis and "
                         << (other == tpAxis ? "tp_axis" : "dp_axis")
                         << " are both '" << fsdpAxis.getValue() << "'";
  if (keys.size() != styles.size())
    return emitError() << "plan has " << keys.size() << " keys but "
                       << styles.size() << " styles";
  for (Attribute key : keys)
    if (!isa<StringAttr>(key))
      return emitError() << "plan keys must be strings, got " << key;
  for (Attribute style : styles)
    if (!isParallelStyle(style))
      return emitError() << "plan styles must be parallel-style attributes, "
                            "got "
                         << style;
  if (frozen)
    for (Attribute pattern : frozen)
      if (!isa<StringAttr>(pattern))
        return emitError() << "plan frozen patterns must be strings, got "
                           << pattern;
  if (recompute)
    for (Attribute pattern : recompute)
      if (!isa<StringAttr>(pattern))
        return emitError() << "plan recompute patterns must be strings, got "
                           << pattern;
  return success();
}
