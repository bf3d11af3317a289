//===- CustomStyles.cpp - the registry of parallel styles -------*- C++ -*-===//
//
// Name -> StyleDefinition for every style plans can name: the built-in ones
// (BuiltinStyles.cpp) and those registered from C++ by embedders at
// start-up or by the style plugins the tools load; and the external models
// of ParallelStyleAttrInterface, which forward to the definitions.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/DynamicLibrary.h"

#include <memory>

using namespace mlir;
using namespace mlir::tp;

//===----------------------------------------------------------------------===//
// StyleArguments
//===----------------------------------------------------------------------===//

Attribute StyleArguments::get(StringRef name) const {
  for (const auto &[key, value] : values)
    if (key == name)
      return value;
  return {};
}

void StyleArguments::set(StringRef name, Attribute value) {
  for (auto &[key, old] : values)
    if (key == name) {
      old = value;
      return;
    }
  values.emplace_back(name, value);
}

bool StyleArguments::getBool(StringRef name) const {
  auto b = dyn_cast_or_null<BoolAttr>(get(name));
  return b && b.getValue();
}

int64_t StyleArguments::getInt(StringRef name) const {
  auto i = dyn_cast_or_null<IntegerAttr>(get(name));
  return i ? i.getInt() : 0;
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

namespace {
struct StyleRegistry {
  StyleRegistry() {
    tp::detail::defineBuiltinStyles(
        [&](TypeID attr, StyleDefinition definition) {
          const StyleDefinition *d = own(std::move(definition));
          byType[attr] = d;
          SmallVector<const StyleDefinition *, 2> &named = builtins[d->name];
          if (named.empty())
            builtinNames.push_back(d->name);
          named.push_back(d);
        });
  }

  const StyleDefinition *own(StyleDefinition definition) {
    owned.push_back(std::make_unique<StyleDefinition>(std::move(definition)));
    return owned.back().get();
  }

  // Definitions never move or die: attributes' models point at them. A
  // replaced registration stays owned.
  std::vector<std::unique_ptr<StyleDefinition>> owned;
  llvm::DenseMap<TypeID, const StyleDefinition *> byType;
  llvm::StringMap<SmallVector<const StyleDefinition *, 2>> builtins;
  std::vector<std::string> builtinNames;
  /// Styles registered from C++: what registerParallelStyle was given, and
  /// the definition made of it.
  llvm::StringMap<CustomStyle> custom;
  llvm::StringMap<const StyleDefinition *> registered;
};
} // namespace

static StyleRegistry &registry() {
  static StyleRegistry styles;
  return styles;
}

/// The definition of a style registered from C++: its plan arguments are
/// open (they become the `#tp.custom` attribute's `args`), its lowering the
/// registered one; its layout checks those of an explicit CustomStyle (a
/// hand-written `#tp.custom` may carry input_layouts).
static StyleDefinition definitionOf(StringRef name, const CustomStyle &style) {
  const StyleDefinition *explicitCustom =
      registry().byType.lookup(TypeID::get<CustomStyleAttr>());
  StyleDefinition d;
  d.name = name.str();
  d.openArguments = true;
  d.build = [name = d.name](const StyleArguments &args,
                            function_ref<InFlightDiagnostic()> emitError) {
    MLIRContext *ctx = args.getContext();
    return Attribute(CustomStyleAttr::getChecked(
        emitError, ctx, StringAttr::get(ctx, name), DictionaryAttr(),
        ArrayAttr(), ArrayAttr(), ArrayAttr(),
        DictionaryAttr::get(ctx, args.getOpen())));
  };
  if (style.supports)
    d.supports = [supports = style.supports](Attribute, Operation *op) {
      return supports(op);
    };
  d.verifyLayouts = explicitCustom->verifyLayouts;
  d.lower = [lower = style.lower](Attribute attr, StyleBuilder &b) {
    return lower(cast<CustomStyleAttr>(attr), b);
  };
  return d;
}

void mlir::tp::registerParallelStyle(StringRef name, CustomStyle style) {
  StyleRegistry &r = registry();
  r.registered[name] = r.own(definitionOf(name, style));
  r.custom[name] = std::move(style);
}

const CustomStyle *mlir::tp::lookupParallelStyle(StringRef name) {
  auto it = registry().custom.find(name);
  return it == registry().custom.end() ? nullptr : &it->second;
}

ArrayRef<const StyleDefinition *>
mlir::tp::lookupStyleDefinitions(StringRef name) {
  StyleRegistry &r = registry();
  if (auto it = r.registered.find(name); it != r.registered.end())
    return ArrayRef<const StyleDefinition *>(it->second);
  if (auto it = r.builtins.find(name); it != r.builtins.end())
    return it->second;
  return {};
}

const StyleDefinition *mlir::tp::getStyleDefinition(Attribute style) {
  if (!style)
    return nullptr;
  StyleRegistry &r = registry();
  if (auto custom = dyn_cast<CustomStyleAttr>(style))
    if (const StyleDefinition *d =
            r.registered.lookup(custom.getName().getValue()))
      return d;
  return r.byType.lookup(style.getTypeID());
}

ArrayRef<std::string> mlir::tp::getBuiltinStyleNames() {
  return registry().builtinNames;
}

//===----------------------------------------------------------------------===//
// ParallelStyleAttrInterface models
//===----------------------------------------------------------------------===//

namespace {
/// The interface of style attribute `A`: its name from the attribute, the
/// rest from its definition.
template <typename A>
struct StyleModel
    : public ParallelStyleAttrInterface::ExternalModel<StyleModel<A>, A> {
  StringRef getStyleName(Attribute style) const {
    return cast<A>(style).getStyleName();
  }
  bool isDeprecated(Attribute style, std::string &replacement) const {
    return cast<A>(style).isDeprecated(replacement);
  }
  bool supportsModule(Attribute style, Operation *module) const {
    const StyleDefinition *d = getStyleDefinition(style);
    return !d->supports || d->supports(style, module);
  }
  LogicalResult verifyLayouts(Attribute style, StyleBuilder &builder) const {
    const StyleDefinition *d = getStyleDefinition(style);
    return d->verifyLayouts ? d->verifyLayouts(style, builder) : success();
  }
  LogicalResult lower(Attribute style, StyleBuilder &builder) const {
    return getStyleDefinition(style)->lower(style, builder);
  }
};
} // namespace

/// Attaches StyleModel to each style attribute among `Attrs` (all of the
/// dialect's attributes: the trait picks the styles).
template <typename... Attrs> static void attachStyleModels(MLIRContext *ctx) {
  (
      [&] {
        if constexpr (std::is_base_of_v<ParallelStyleAttrTrait<Attrs>, Attrs>)
          Attrs::template attachInterface<StyleModel<Attrs>>(*ctx);
      }(),
      ...);
}

void mlir::tp::registerParallelStyleModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TPDialect *) {
    attachStyleModels<
#define GET_ATTRDEF_LIST
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"
        >(ctx);
  });
}

void mlir::tp::ensureParallelStyleModels(MLIRContext *ctx) {
  DialectRegistry registry;
  registry.insert<TPDialect>();
  registerParallelStyleModels(registry);
  ctx->appendDialectRegistry(registry);
}

//===----------------------------------------------------------------------===//
// Plugins
//===----------------------------------------------------------------------===//

llvm::Error mlir::tp::loadStylePlugin(StringRef path) {
  std::string error;
  llvm::sys::DynamicLibrary library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path.str().c_str(),
                                                     &error);
  if (!library.isValid())
    return llvm::createStringError("cannot load style plugin '" + path +
                                   "': " + error);
  void *entry = library.getAddressOfSymbol(kStylePluginEntryPoint);
  if (!entry)
    return llvm::createStringError(
        "style plugin '" + path + "' has no " + kStylePluginEntryPoint +
        " (declare it extern \"C\" void " + kStylePluginEntryPoint + "())");
  reinterpret_cast<void (*)()>(entry)();
  return llvm::Error::success();
}
