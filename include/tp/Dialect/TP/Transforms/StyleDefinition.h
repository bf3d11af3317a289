//===- StyleDefinition.h - what a parallel style is ------------*- C++ -*-===//
//
// One StyleDefinition per style says everything tp does with it: the name
// and arguments a plan file gives it, how those build its attribute, the
// modules it applies to, its layout checks, its lowering and what it says
// about local outputs. The plan parser reads the definitions by name, and
// ParallelStyleAttrInterface's external models (registerParallelStyleModels)
// forward to the definition of each attribute; built-in styles
// (BuiltinStyles.cpp) and styles registered from C++ (CustomStyles.h) take
// the same path.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_STYLEDEFINITION_H
#define TP_DIALECT_TP_TRANSFORMS_STYLEDEFINITION_H

#include "tp/Dialect/TP/IR/TPAttrs.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

#include <functional>
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tp {

/// How the plan parser reads one argument of a plan entry.
enum class StyleArgKind {
  /// A placement string, a list (tuple) of placements and nulls, or null:
  /// absent, the style's default.
  Layout,
  /// The same, but null is None (the input passes through), as the
  /// Prepare* styles take it.
  LayoutOrNone,
  /// As LayoutOrNone, always a list: one placement is a one-entry list.
  LayoutList,
  /// An object from keyword names (or parameter names) to layouts.
  KwargLayouts,
  /// true or false.
  Bool,
  /// An integer.
  Int,
  /// A non-empty string.
  Name,
  /// One of the seed's make_input_* functions, or null (the style's own
  /// preparation). It sets `input_layouts` and `desired_input_layouts`,
  /// taking precedence over them.
  PrepareInput,
  /// One of the seed's make_output_* functions, or null. It sets
  /// `output_layouts` and `use_local_output`, taking precedence.
  PrepareOutput,
};

/// One argument a plan entry may give a style.
struct StyleArgument {
  StringRef name;
  StyleArgKind kind;
  /// Bool and Int: the value when the entry does not give it.
  int64_t defaultValue = 0;
};

/// The arguments of one plan entry, read as its style's definition says:
/// layouts as placements / arrays / `unit`, keyword layouts as
/// dictionaries, Bool as BoolAttr and Int as an i64 IntegerAttr (both with
/// their default when absent), Name as StringAttr.
class StyleArguments {
public:
  explicit StyleArguments(MLIRContext *ctx) : ctx(ctx) {}
  MLIRContext *getContext() const { return ctx; }

  /// The value of `name`, or null where the entry does not give it.
  Attribute get(StringRef name) const;
  void set(StringRef name, Attribute value);

  DictionaryAttr getDictionary(StringRef name) const {
    return dyn_cast_or_null<DictionaryAttr>(get(name));
  }
  ArrayAttr getArray(StringRef name) const {
    return dyn_cast_or_null<ArrayAttr>(get(name));
  }
  StringAttr getString(StringRef name) const {
    return dyn_cast_or_null<StringAttr>(get(name));
  }
  bool getBool(StringRef name) const;
  int64_t getInt(StringRef name) const;

  /// The entry's keys a definition with `openArguments` does not list, as
  /// the plan parser converted them (see StyleDefinition::openArguments).
  SmallVector<NamedAttribute> &getOpen() { return open; }
  const SmallVector<NamedAttribute> &getOpen() const { return open; }

private:
  MLIRContext *ctx;
  SmallVector<std::pair<StringRef, Attribute>> values;
  SmallVector<NamedAttribute> open;
};

/// Everything tp does with one style (see the file comment).
struct StyleDefinition {
  /// The name plan files use (PyTorch's class name).
  std::string name;

  /// Where several definitions share a name (the seed's 2.1 signatures
  /// beside the modern ones), which one an entry takes: the one whose
  /// `selectors` it gives; if none, the one marked `isDefault` (warning
  /// `defaultWarning`, if set, that it was chosen that way); if two, an
  /// error naming both. `signature` names this one in diagnostics ("2.1").
  std::string signature;
  SmallVector<StringRef> selectors;
  bool isDefault = true;
  std::string defaultWarning;

  /// The arguments an entry may give, in the order diagnostics list them.
  SmallVector<StyleArgument> arguments;
  /// Whether keys not in `arguments` are accepted too: each becomes an
  /// attribute in StyleArguments::getOpen() (placement strings placements,
  /// other strings strings, numbers, booleans, lists arrays, objects
  /// dictionaries, null unit). A style registered from C++ takes its
  /// arguments this way.
  bool openArguments = false;

  /// Builds the style's attribute from an entry's arguments; returns null
  /// after reporting through `emitError` (the attribute's verifier).
  std::function<Attribute(const StyleArguments &args,
                          function_ref<InFlightDiagnostic()> emitError)>
      build;

  /// Whether the style applies to `module` (null: any module).
  std::function<bool(Attribute style, Operation *module)> supports;
  /// Appended to the "does not support module" error when it returns a
  /// non-empty text (null: nothing).
  std::function<std::string(Operation *module)> unsupportedNote;
  /// Checks the style's layouts against a module (null: nothing to check).
  std::function<LogicalResult(Attribute style, StyleBuilder &builder)>
      verifyLayouts;
  /// Lowers the style on one module.
  std::function<LogicalResult(Attribute style, StyleBuilder &builder)> lower;
  /// What the style says about the values it hands on (null: nothing).
  std::function<StyleLocality(Attribute style)> locality;

  /// How diagnostics name the style where its PyTorch name is ambiguous
  /// ("the seed's SequenceParallel (the PairwiseParallel variant)"); empty:
  /// the name.
  std::string title;
};

/// The definitions plan entries naming `name` may take: a style registered
/// from C++ under that name, else the built-in ones (several where the seed
/// had another signature); empty for an unknown name.
ArrayRef<const StyleDefinition *> lookupStyleDefinitions(StringRef name);

/// The definition of a style attribute: a `#tp.custom` whose name was
/// registered from C++ has that style's, any other the built-in one of its
/// attribute class. Null for an attribute that is not a style.
const StyleDefinition *getStyleDefinition(Attribute style);

/// The names of the built-in styles, in the order they are defined.
ArrayRef<std::string> getBuiltinStyleNames();

/// Attaches ParallelStyleAttrInterface to every style attribute of the tp
/// dialect (the interface TPDialect promises), forwarding to its
/// definition. registerAllDialects calls it.
void registerParallelStyleModels(DialectRegistry &registry);

/// The same for a context already created: what parsePlan, applyPlan and
/// lowerStyles call, so an embedder that loaded TPDialect alone still gets
/// the models. Cheap when they are already there.
void ensureParallelStyleModels(MLIRContext *ctx);

namespace detail {
/// Defines the built-in styles (BuiltinStyles.cpp): calls `add` with the
/// TypeID of each style attribute and its definition, in the order of
/// TPAttrs.td.
void defineBuiltinStyles(
    function_ref<void(TypeID attr, StyleDefinition definition)> add);
} // namespace detail

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_STYLEDEFINITION_H
