//===- CustomStyles.h - user-defined parallel styles ------------*- C++ -*-===//
//
// The C++ extension point for parallel styles (the seed's ParallelStyle with
// custom input/output preparation): register a style under a name, and
// plans can use it like a built-in one.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_CUSTOMSTYLES_H
#define TP_DIALECT_TP_TRANSFORMS_CUSTOMSTYLES_H

#include "mlir/IR/Operation.h"
#include "tp/Dialect/TP/IR/TPAttrs.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace mlir::tp {

/// What a style may do to one module, all on the plan's TP axis (other mesh
/// axes keep whatever placement the values have). Placements may use
/// negative shard dims.
class StyleBuilder {
public:
  virtual ~StyleBuilder() = default;
  /// The module op the style is applied to.
  virtual Operation *getModule() = 0;
  /// Places the parameter `name` (relative to the module: `weight`,
  /// `wq.weight`); fails with a diagnostic if the module has no such one.
  virtual LogicalResult placeParam(StringRef name, Attribute placement) = 0;
  /// Lays input `index` out as `declared`, then redistributes it to
  /// `desired` (PrepareModuleInput's semantics).
  virtual LogicalResult prepareInput(unsigned index, Attribute declared,
                                     Attribute desired) = 0;
  /// Redistributes output `index` to `placement` (from whatever placement
  /// propagation gives it).
  virtual LogicalResult placeOutput(unsigned index, Attribute placement) = 0;
};

/// A registered style: which modules it applies to, and how it lowers one.
struct CustomStyle {
  /// Returns true if the style can be applied to `module` (default: any).
  std::function<bool(Operation *module)> supports;
  /// Lowers the style on one module; `style.getArgs()` holds the plan
  /// entry's arguments.
  std::function<LogicalResult(CustomStyleAttr style, StyleBuilder &builder)>
      lower;
};

/// Registers `style` under `name` (a plan entry `{"style": name, ...}`).
/// Replaces an earlier registration of the same name. Not thread-safe with
/// concurrent lowering; register at start-up.
void registerParallelStyle(StringRef name, CustomStyle style);

/// The style registered under `name`, or nullptr.
const CustomStyle *lookupParallelStyle(StringRef name);

/// The entry point a style plugin exports (`extern "C"`): it registers its
/// styles with registerParallelStyle.
constexpr const char *kStylePluginEntryPoint = "tpRegisterParallelStyles";

/// Loads the shared library `path` (a style plugin, see
/// examples/style-plugin) and calls its kStylePluginEntryPoint, so that plans
/// can name the styles it registers. The plugin resolves tp's and MLIR's
/// symbols against the tool that loads it (tp-opt and tp-run export them);
/// it links neither. Fails naming the file and the reason.
llvm::Error loadStylePlugin(StringRef path);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_CUSTOMSTYLES_H
