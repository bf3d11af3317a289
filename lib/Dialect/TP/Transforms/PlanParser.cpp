//===- PlanParser.cpp - JSON plan files to #tp.plan -------------*- C++ -*-===//
//
// Reads plan files written like PyTorch plans: a mesh, an optional TP axis,
// and an ordered map from FQN patterns to styles with PyTorch's argument
// names. The order of the plan's keys is kept (JSON objects keep their
// members in document order).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::tp;
namespace json = ::mlir::tp::json;

namespace {

/// "a number", "a list", ... for messages about a JSON value of the wrong
/// kind.
static StringRef jsonKindName(const json::Value &v) {
  switch (v.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "a list";
  case json::Value::Object:
    return "an object";
  }
  return "a value";
}

/// Builds style attributes from one plan entry, reporting errors at `loc`.
class EntryParser {
public:
  EntryParser(MLIRContext *ctx, Location loc, StringRef key)
      : ctx(ctx), loc(loc), key(key) {}

  InFlightDiagnostic error() {
    return emitError(loc) << "plan entry '" << key << "': ";
  }

  /// "Shard(1)", "Shard(-1)", "Replicate()", "Partial()", "Partial(max)".
  FailureOr<Attribute> placement(StringRef text, StringRef arg) {
    StringRef s = text.trim();
    auto inner = [&](StringRef prefix) -> std::optional<StringRef> {
      if (!s.consume_front(prefix))
        return std::nullopt;
      StringRef rest = s.ltrim();
      if (!rest.consume_front("(") || !rest.consume_back(")"))
        return std::nullopt;
      return rest.trim();
    };
    StringRef orig = s;
    if (auto a = inner("Shard")) {
      int64_t dim;
      StringRef digits = *a;
      digits.consume_front("dim=");
      if (!digits.getAsInteger(10, dim))
        return Attribute(ShardAttr::get(ctx, dim));
      error() << arg << ": bad shard dim in '" << text << "'";
      return failure();
    }
    s = orig;
    if (auto a = inner("Replicate")) {
      if (a->empty())
        return Attribute(ReplicateAttr::get(ctx));
    }
    s = orig;
    if (auto a = inner("Partial")) {
      StringRef kind = a->empty() ? "sum" : *a;
      kind.consume_front("reduce_op=");
      kind = kind.trim("\"' ");
      if (auto k = symbolizeReductionKind(kind))
        return Attribute(PartialAttr::get(ctx, *k));
      error() << arg << ": unknown Partial reduction '" << kind
              << "' (expected sum, avg, max or min)";
      return failure();
    }
    error() << arg << ": cannot parse placement '" << text
            << "' (expected Shard(d), Replicate() or Partial(op))";
    return failure();
  }

  /// A layout: null (absent), a placement string, or a list (tuple).
  FailureOr<Attribute> layout(const json::Value &v, StringRef arg,
                              bool noneAsUnit) {
    if (v.kind() == json::Value::Null)
      return noneAsUnit ? Attribute(UnitAttr::get(ctx)) : Attribute();
    if (auto s = v.getAsString())
      return placement(*s, arg);
    if (auto arr = v.getAsArray()) {
      SmallVector<Attribute> items;
      for (const json::Value &item : *arr) {
        auto a = layout(item, arg, /*noneAsUnit=*/true);
        if (failed(a))
          return failure();
        items.push_back(*a);
      }
      return Attribute(ArrayAttr::get(ctx, items));
    }
    error() << arg << " must be a placement string, null or a list";
    return failure();
  }

  FailureOr<DictionaryAttr> kwargLayouts(const json::Value &v, StringRef arg) {
    if (v.kind() == json::Value::Null)
      return DictionaryAttr();
    auto obj = v.getAsObject();
    if (!obj) {
      error() << arg << " must be an object mapping keyword names to layouts";
      return failure();
    }
    SmallVector<NamedAttribute> entries;
    for (auto &kv : *obj) {
      auto a = layout(kv.second, arg, /*noneAsUnit=*/true);
      if (failed(a))
        return failure();
      entries.emplace_back(StringAttr::get(ctx, kv.first), *a);
    }
    return DictionaryAttr::get(ctx, entries);
  }

  FailureOr<bool> boolean(const json::Value &v, StringRef arg) {
    if (auto b = v.getAsBoolean())
      return *b;
    error() << arg << " must be true or false";
    return failure();
  }

  FailureOr<int64_t> integer(const json::Value &v, StringRef arg) {
    if (auto i = v.getAsInteger())
      return *i;
    error() << arg << " must be an integer";
    return failure();
  }

  /// The layouts one of the seed's nine prepare functions stands for.
  struct LegacyLayouts {
    Attribute first, second;
    bool useLocal = true;
  };

  /// Parses `make_input_shard_1d`, `make_input_shard_1d(dim=1)`, ... and
  /// warns that the function is deprecated, naming its replacement.
  FailureOr<LegacyLayouts> legacyFunction(StringRef text, bool isInput) {
    StringRef name = text.trim(), args;
    if (size_t paren = name.find('('); paren != StringRef::npos) {
      args = name.drop_front(paren + 1).rtrim();
      if (!args.consume_back(")")) {
        error() << "cannot parse '" << text << "' (missing ')')";
        return failure();
      }
      args = args.trim();
      name = name.take_front(paren).rtrim();
    }
    // Only the two shard_1d functions take an argument (dim); the device
    // mesh is always the plan's.
    bool takesDim =
        name == "make_input_shard_1d" || name == "make_output_shard_1d";
    int64_t dim = 0;
    if (!args.empty()) {
      StringRef value = args;
      value.consume_front("dim");
      value = value.ltrim();
      bool named = value.consume_front("=");
      if (!named)
        value = args;
      if (!takesDim) {
        error() << name << " takes no arguments, got '" << args << "'";
        return failure();
      }
      if (value.trim().getAsInteger(10, dim)) {
        error() << "cannot parse the arguments of '" << text << "' (expected "
                << name << "(dim=D))";
        return failure();
      }
    }
    Attribute rep = ReplicateAttr::get(ctx);
    Attribute shard = ShardAttr::get(ctx, dim);
    LegacyLayouts l;
    bool input = name.starts_with("make_input_");
    if (name == "make_input_shard_1d")
      l = {shard, shard};
    else if (name == "make_input_shard_1d_last_dim")
      l = {ShardAttr::get(ctx, -1), ShardAttr::get(ctx, -1)};
    else if (name == "make_input_reshard_replicate")
      l = {ShardAttr::get(ctx, 0), rep};
    else if (name == "make_input_replicate_1d")
      l = {rep, rep};
    else if (name == "make_output_shard_1d")
      l = {shard, {}, false};
    else if (name == "make_output_replicate_1d")
      l = {rep, {}, false};
    else if (name == "make_output_tensor")
      l = {rep, {}, true};
    else if (name == "make_sharded_output_tensor")
      l = {{}, {}, true};
    else if (name == "make_output_reshard_tensor")
      l = {ShardAttr::get(ctx, 0), {}, true};
    else {
      error() << "unknown prepare function '" << name
              << "' (expected one of PyTorch 2.1's make_input_* / "
                 "make_output_* functions)";
      return failure();
    }
    if (input != isInput) {
      error() << name << " prepares " << (input ? "inputs" : "outputs")
              << " and cannot be used as "
              << (isInput ? "_prepare_input" : "_prepare_output");
      return failure();
    }
    emitWarning(loc) << "plan entry '" << key << "': " << name
                     << " is deprecated; specify "
                     << (input ? "input_layouts" : "output_layouts")
                     << " instead";
    return l;
  }

  /// Converts a JSON argument of a registered C++ style to an attribute:
  /// placement strings become placements, lists arrays, objects
  /// dictionaries, null a unit.
  FailureOr<Attribute> argument(const json::Value &v, StringRef arg) {
    Builder b(ctx);
    switch (v.kind()) {
    case json::Value::Null:
      return Attribute(UnitAttr::get(ctx));
    case json::Value::Boolean:
      return Attribute(b.getBoolAttr(*v.getAsBoolean()));
    case json::Value::Number:
      if (auto i = v.getAsInteger())
        return Attribute(b.getI64IntegerAttr(*i));
      return Attribute(b.getF64FloatAttr(*v.getAsNumber()));
    case json::Value::String: {
      StringRef text = *v.getAsString();
      if (text.contains('(')) {
        auto p = placement(text, arg);
        if (succeeded(p))
          return p;
        return failure();
      }
      return Attribute(b.getStringAttr(text));
    }
    case json::Value::Array: {
      SmallVector<Attribute> items;
      for (const json::Value &item : *v.getAsArray()) {
        auto a = argument(item, arg);
        if (failed(a))
          return failure();
        items.push_back(*a);
      }
      return Attribute(b.getArrayAttr(items));
    }
    case json::Value::Object: {
      SmallVector<NamedAttribute> entries;
      for (auto &kv : *v.getAsObject()) {
        auto a = argument(kv.second, arg);
        if (failed(a))
          return failure();
        entries.emplace_back(b.getStringAttr(StringRef(kv.first)), *a);
      }
      return Attribute(b.getDictionaryAttr(entries));
    }
    }
    return failure();
  }

  /// Which of the definitions sharing a style name an entry takes (the
  /// seed's 2.1 signatures beside the modern ones, StyleDefinition): the one
  /// whose selecting arguments it gives, else the default one, which may
  /// warn that it was chosen that way.
  FailureOr<const StyleDefinition *>
  signature(StringRef styleName, ArrayRef<const StyleDefinition *> candidates,
            const json::Object &obj) {
    if (candidates.size() == 1)
      return candidates.front();
    const StyleDefinition *chosen = nullptr;
    StringRef chosenBy;
    for (const StyleDefinition *d : candidates) {
      auto given = llvm::find_if(
          d->selectors, [&](StringRef k) { return obj.get(k) != nullptr; });
      if (given == d->selectors.end())
        continue;
      if (chosen) {
        // Name the seed's signature first.
        bool seedFirst = !chosen->signature.empty();
        const StyleDefinition *seed = seedFirst ? chosen : d;
        error() << styleName << " mixes the " << seed->signature
                << " signature (" << (seedFirst ? chosenBy : *given)
                << ") with the modern one (" << (seedFirst ? *given : chosenBy)
                << ")";
        return failure();
      }
      chosen = d;
      chosenBy = *given;
    }
    if (chosen)
      return chosen;
    for (const StyleDefinition *d : candidates)
      if (d->isDefault) {
        if (!d->defaultWarning.empty())
          emitWarning(loc) << "plan entry '" << key
                           << "': " << d->defaultWarning;
        return d;
      }
    return candidates.front();
  }

  /// Reads argument `arg` of kind `kind` into `args`. The seed's prepare
  /// functions go to `prepareInput` / `prepareOutput`, applied after every
  /// other argument since they take precedence over the layouts.
  LogicalResult readArgument(const StyleArgument &arg, const json::Value &v,
                             StyleArguments &args,
                             std::optional<LegacyLayouts> &prepareInput,
                             std::optional<LegacyLayouts> &prepareOutput) {
    StringRef name = arg.name;
    switch (arg.kind) {
    case StyleArgKind::Layout:
    case StyleArgKind::LayoutOrNone:
    case StyleArgKind::LayoutList: {
      auto l = layout(v, name, arg.kind != StyleArgKind::Layout);
      if (failed(l))
        return failure();
      Attribute value = *l;
      if (arg.kind == StyleArgKind::LayoutList && !isa<ArrayAttr>(value))
        value = ArrayAttr::get(ctx, {value});
      args.set(name, value);
      return success();
    }
    case StyleArgKind::KwargLayouts: {
      auto d = kwargLayouts(v, name);
      if (failed(d))
        return failure();
      args.set(name, *d);
      return success();
    }
    case StyleArgKind::Bool: {
      auto b = boolean(v, name);
      if (failed(b))
        return failure();
      args.set(name, BoolAttr::get(ctx, *b));
      return success();
    }
    case StyleArgKind::Int: {
      auto i = integer(v, name);
      if (failed(i))
        return failure();
      args.set(name, Builder(ctx).getI64IntegerAttr(*i));
      return success();
    }
    case StyleArgKind::Name: {
      auto s = v.getAsString();
      if (!s || s->empty()) {
        error() << name << " must be a non-empty string";
        return failure();
      }
      args.set(name, StringAttr::get(ctx, *s));
      return success();
    }
    case StyleArgKind::PrepareInput:
    case StyleArgKind::PrepareOutput: {
      // None: the style's own preparation, as in the seed.
      if (v.kind() == json::Value::Null)
        return success();
      auto fn = v.getAsString();
      if (!fn) {
        error() << name
                << " must name one of PyTorch 2.1's make_input_* / "
                   "make_output_* functions, or be null";
        return failure();
      }
      bool input = arg.kind == StyleArgKind::PrepareInput;
      auto layouts = legacyFunction(*fn, input);
      if (failed(layouts))
        return failure();
      (input ? prepareInput : prepareOutput) = *layouts;
      return success();
    }
    }
    return failure();
  }

  /// Builds the style of one entry, as the definitions of its style name
  /// say (StyleDefinition.h): the built-in styles, CustomStyle and the
  /// styles registered from C++ alike.
  FailureOr<Attribute> style(const json::Object &obj) {
    const json::Value *nameValue = obj.get("style");
    if (!nameValue) {
      error() << "missing \"style\" (e.g. \"ColwiseParallel\")";
      return failure();
    }
    const std::string *name = nameValue->getAsString();
    if (!name) {
      error() << "\"style\" must be a string naming a style (e.g. "
                 "\"ColwiseParallel\"), got "
              << jsonKindName(*nameValue);
      return failure();
    }
    StringRef styleName = *name;
    ArrayRef<const StyleDefinition *> candidates =
        lookupStyleDefinitions(styleName);
    if (candidates.empty()) {
      auto diag = error() << "unknown style '" << styleName << "' (expected ";
      llvm::interleaveComma(getBuiltinStyleNames(), diag);
      diag << " or a style registered from C++: --load-style-plugin)";
      return failure();
    }
    FailureOr<const StyleDefinition *> chosen =
        signature(styleName, candidates, obj);
    if (failed(chosen))
      return failure();
    const StyleDefinition &def = **chosen;
    auto find = [&](StringRef arg) {
      return llvm::find_if(
          def.arguments, [&](const StyleArgument &a) { return a.name == arg; });
    };
    if (!def.openArguments)
      for (auto &kv : obj) {
        StringRef arg = kv.first;
        if (arg == "style" || find(arg) != def.arguments.end())
          continue;
        auto diag = error()
                    << "unknown argument '" << arg << "' for " << styleName;
        if (!def.signature.empty())
          diag << " (" << def.signature << " signature)";
        diag << " (accepted: ";
        llvm::interleaveComma(
            llvm::map_range(def.arguments,
                            [](const StyleArgument &a) { return a.name; }),
            diag);
        diag << ")";
        return failure();
      }

    StyleArguments args(ctx);
    Builder b(ctx);
    for (const StyleArgument &arg : def.arguments) {
      if (arg.kind == StyleArgKind::Bool)
        args.set(arg.name, b.getBoolAttr(arg.defaultValue != 0));
      else if (arg.kind == StyleArgKind::Int)
        args.set(arg.name, b.getI64IntegerAttr(arg.defaultValue));
    }
    std::optional<LegacyLayouts> prepareInput, prepareOutput;
    for (auto &kv : obj) {
      StringRef arg = kv.first;
      if (arg == "style")
        continue;
      if (auto known = find(arg); known != def.arguments.end()) {
        if (failed(readArgument(*known, kv.second, args, prepareInput,
                                prepareOutput)))
          return failure();
        continue;
      }
      auto a = argument(kv.second, arg);
      if (failed(a))
        return failure();
      args.getOpen().emplace_back(StringAttr::get(ctx, arg), *a);
    }
    if (prepareInput) {
      args.set("input_layouts", prepareInput->first);
      args.set("desired_input_layouts", prepareInput->second);
    }
    if (prepareOutput) {
      args.set("output_layouts", prepareOutput->first);
      args.set("use_local_output", b.getBoolAttr(prepareOutput->useLocal));
    }
    Attribute result = def.build(args, [&]() { return error(); });
    if (!result)
      return failure();
    return result;
  }

private:
  MLIRContext *ctx;
  Location loc;
  StringRef key;
};

} // namespace

FailureOr<MeshOp>
mlir::tp::getOrCreatePlanMesh(ModuleOp module, ArrayRef<int64_t> shape,
                              ArrayRef<StringRef> axisNames,
                              function_ref<InFlightDiagnostic()> fail) {
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  StringRef meshName = "mesh";
  if (Operation *other = module.lookupSymbol(meshName);
      other && !isa<MeshOp>(other)) {
    fail() << "the module already has a symbol @mesh that is not a tp.mesh ('"
           << other->getName() << "')";
    return failure();
  }
  if (auto existing = module.lookupSymbol<MeshOp>(meshName)) {
    if (existing.getShape() != shape) {
      fail() << "the module already has a mesh @mesh of a different shape";
      return failure();
    }
    // Axes named otherwise would make tp_axis and dp_axis name other axes.
    if (!axisNames.empty() && existing.getAxisNames() &&
        *existing.getAxisNames() != builder.getStrArrayAttr(axisNames)) {
      fail() << "the module already has a mesh @mesh with other axis names";
      return failure();
    }
    return existing;
  }
  ArrayAttr namesAttr =
      axisNames.empty() ? ArrayAttr() : builder.getStrArrayAttr(axisNames);
  auto mesh = MeshOp::create(builder, module.getLoc(), meshName,
                             builder.getDenseI64ArrayAttr(shape), namesAttr);
  // The mesh's own checks (axis names unique and not empty, a rank count
  // that fits in 64 bits), so that no invalid mesh is left behind.
  if (failed(verify(mesh))) {
    mesh.erase();
    return failure();
  }
  return mesh;
}

FailureOr<PlanAttr> mlir::tp::parsePlan(ModuleOp module, StringRef text,
                                        StringRef source) {
  MLIRContext *ctx = module.getContext();
  ensureParallelStyleModels(ctx);
  ctx->getOrLoadDialect<TPDialect>();
  Location loc = FileLineColLoc::get(ctx, source, 1, 1);
  auto fail = [&]() { return emitError(loc) << "plan " << source << ": "; };

  // A key twice is an error: the later style would silently win.
  json::ParseResult parsed = json::parse(std::string_view(text));
  if (!parsed) {
    fail() << "malformed JSON: " << parsed.error->message;
    return failure();
  }
  const json::Object *root = parsed.value.getAsObject();
  if (!root) {
    fail() << "the top level must be an object with \"mesh\" and \"plan\"";
    return failure();
  }
  for (auto &kv : *root)
    if (kv.first != "mesh" && kv.first != "plan" && kv.first != "tp_axis" &&
        kv.first != "dp_axis" && kv.first != "loss_parallel" &&
        kv.first != "frozen" && kv.first != "recompute" &&
        kv.first != "fsdp_axis" && kv.first != "reshard_after_forward" &&
        kv.first != "fsdp_units") {
      fail() << "unknown top-level key '" << StringRef(kv.first)
             << "' (expected mesh, plan, tp_axis, dp_axis, fsdp_axis, "
                "reshard_after_forward, fsdp_units, loss_parallel, frozen, "
                "recompute)";
      return failure();
    }

  // Mesh.
  const json::Object *meshObj = root->getObject("mesh");
  if (!meshObj) {
    fail() << "missing \"mesh\": {\"shape\": [N], \"axis_names\": [...]}";
    return failure();
  }
  SmallVector<int64_t> shape;
  const json::Array *shapeArr = meshObj->getArray("shape");
  if (!shapeArr || shapeArr->empty()) {
    fail() << "mesh.shape must be a non-empty list of positive integers";
    return failure();
  }
  for (const json::Value &v : *shapeArr) {
    auto i = v.getAsInteger();
    if (!i || *i <= 0) {
      fail() << "mesh.shape must be a non-empty list of positive integers";
      return failure();
    }
    shape.push_back(*i);
  }
  SmallVector<StringRef> names;
  if (const json::Array *namesArr = meshObj->getArray("axis_names")) {
    for (const json::Value &v : *namesArr) {
      auto s = v.getAsString();
      if (!s) {
        fail() << "mesh.axis_names must be a list of strings";
        return failure();
      }
      names.push_back(*s);
    }
    if (names.size() != shape.size()) {
      fail() << "mesh.axis_names has " << names.size()
             << " names for a mesh of rank " << shape.size();
      return failure();
    }
  }
  for (auto &kv : *meshObj)
    if (kv.first != "shape" && kv.first != "axis_names") {
      fail() << "unknown mesh key '" << StringRef(kv.first)
             << "' (expected shape, axis_names)";
      return failure();
    }

  // The tensor-parallel axis, and the data-parallel ones: model inputs are
  // sharded on their batch dim over them, and the parameters over the
  // fully sharded one.
  StringAttr tpAxis, dpAxis, fsdpAxis;
  for (auto [key, axis] :
       {std::pair{"tp_axis", &tpAxis}, std::pair{"dp_axis", &dpAxis},
        std::pair{"fsdp_axis", &fsdpAxis}}) {
    const json::Value *value = root->get(key);
    if (!value)
      continue;
    auto s = value->getAsString();
    if (!s) {
      fail() << key << " must be a mesh axis name";
      return failure();
    }
    *axis = StringAttr::get(ctx, *s);
  }
  if (std::string problem = checkPlanAxes(
          shape, names, tpAxis ? tpAxis.getValue() : "",
          dpAxis ? dpAxis.getValue() : "", fsdpAxis ? fsdpAxis.getValue() : "");
      !problem.empty()) {
    fail() << problem;
    return failure();
  }

  bool lossParallel = false, reshardAfterForward = true;
  for (auto [key, flag] :
       {std::pair{"loss_parallel", &lossParallel},
        std::pair{"reshard_after_forward", &reshardAfterForward}}) {
    const json::Value *v = root->get(key);
    if (!v)
      continue;
    auto b = v->getAsBoolean();
    if (!b) {
      fail() << key << " must be true or false";
      return failure();
    }
    *flag = *b;
  }
  if (!reshardAfterForward && !fsdpAxis) {
    fail() << "reshard_after_forward is false but there is no fsdp_axis "
              "(only FSDP's parameters are gathered and freed)";
    return failure();
  }

  // A list of FQN patterns under `key`, or null when the key is absent.
  auto patternList = [&](const char *key, const char *what,
                         ArrayAttr &out) -> LogicalResult {
    const json::Value *v = root->get(key);
    if (!v)
      return success();
    const json::Array *list = v->getAsArray();
    SmallVector<Attribute> patterns;
    for (size_t i = 0; list && i < list->size(); ++i) {
      auto s = (*list)[i].getAsString();
      if (!s || s->empty()) {
        list = nullptr;
        break;
      }
      patterns.push_back(StringAttr::get(ctx, *s));
    }
    if (!list) {
      fail() << key << " must be a list of " << what;
      return failure();
    }
    out = ArrayAttr::get(ctx, patterns);
    return success();
  };
  // Parameters not to train: FQN patterns (of parameters or modules).
  ArrayAttr frozen;
  if (failed(patternList("frozen",
                         "parameter or module FQN patterns, like "
                         "[\"tok_embeddings\", \"layers.0.*\"]",
                         frozen)))
    return failure();
  // Modules whose forward the backward recomputes.
  ArrayAttr recompute;
  if (failed(patternList(
          "recompute", "module FQN patterns, like [\"layers.*\"]", recompute)))
    return failure();

  // FSDP's units: module patterns whose parameters communicate together.
  ArrayAttr fsdpUnits;
  if (failed(patternList(
          "fsdp_units", "module FQN patterns, like [\"layers.*\"]", fsdpUnits)))
    return failure();
  if (fsdpUnits && !fsdpAxis) {
    fail() << "fsdp_units needs an fsdp_axis";
    return failure();
  }

  // Create (or check) the mesh op.
  FailureOr<MeshOp> mesh = getOrCreatePlanMesh(module, shape, names, fail);
  if (failed(mesh))
    return failure();

  // Entries, in file order.
  const json::Object *planObj = root->getObject("plan");
  if (!planObj) {
    fail() << "missing \"plan\": an object from FQN patterns to styles";
    return failure();
  }
  SmallVector<Attribute> keys, styles;
  for (const auto &[key, v] : *planObj) {
    EntryParser entry(ctx, loc, key);
    const json::Object *obj = v.getAsObject();
    if (!obj) {
      entry.error()
          << "must be an object like {\"style\": \"ColwiseParallel\"}";
      return failure();
    }
    FailureOr<Attribute> style = entry.style(*obj);
    if (failed(style))
      return failure();
    keys.push_back(StringAttr::get(ctx, key));
    styles.push_back(*style);
  }
  return PlanAttr::get(ctx, FlatSymbolRefAttr::get(mesh->getSymNameAttr()),
                       tpAxis, ArrayAttr::get(ctx, keys),
                       ArrayAttr::get(ctx, styles), dpAxis, lossParallel,
                       frozen, recompute, fsdpAxis, reshardAfterForward,
                       fsdpUnits);
}

FailureOr<PlanAttr> mlir::tp::loadPlanFile(ModuleOp module, StringRef path) {
  auto buffer = readFileBounded(path, kMaxJSONFileBytes);
  if (!buffer) {
    emitError(module.getLoc()) << "cannot read plan file '" << path
                               << "': " << llvm::toString(buffer.takeError());
    return failure();
  }
  return parsePlan(module, (*buffer)->getBuffer(), path);
}
