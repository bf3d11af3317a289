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
/// negative shard dims. The built-in styles lower through this class too
/// (lib/Dialect/TP/Transforms/BuiltinStyles.cpp), so a C++ style can do
/// whatever one of them does.
class StyleBuilder {
public:
  virtual ~StyleBuilder() = default;
  /// The module op the style is applied to (after separateBias, the linear
  /// that replaced it).
  virtual Operation *getModule() = 0;
  /// Places the parameter `name` (relative to the module: `weight`,
  /// `wq.weight`); fails with a diagnostic if the module has no such one.
  virtual LogicalResult placeParam(StringRef name, Attribute placement) = 0;
  /// Lays input `index` out as `declared`, then redistributes it to
  /// `desired` (PrepareModuleInput's semantics: `desired` is a requirement
  /// the value keeps, even where it is Replicate).
  virtual LogicalResult prepareInput(unsigned index, Attribute declared,
                                     Attribute desired) = 0;
  /// Redistributes output `index` to `placement` (from whatever placement
  /// propagation gives it).
  virtual LogicalResult placeOutput(unsigned index, Attribute placement) = 0;

  // What the built-in styles need beyond the above.

  /// The ranks of the module's positional inputs and of its outputs (the
  /// model function's arguments and results for the root module; a leaf
  /// module's first operand and its result).
  virtual SmallVector<int64_t> getInputRanks() = 0;
  virtual SmallVector<int64_t> getOutputRanks() = 0;
  /// Checks that every Shard(d) of `layouts` (one placement or a list, one
  /// entry per input or output) is in range for the input (`inputs`) or
  /// output it describes; the diagnostic names the style, the module and
  /// `arg`. Entries past the last input or output are left to the lowering.
  virtual LogicalResult checkLayouts(StringRef arg, Attribute layouts,
                                     bool inputs) = 0;
  /// Places the weight (`placeWeight`) or the bias (`placeBias`) operand of
  /// a leaf module, whatever value feeds it: its own parameter or one tied
  /// to another module's. placeBias does nothing on a module without one.
  virtual LogicalResult placeWeight(Attribute placement) = 0;
  virtual LogicalResult placeBias(Attribute placement) = 0;
  /// Takes a linear's bias out of it (the linear is replaced by one without
  /// it, see getModule) and adds it to the output once the output has been
  /// redistributed: a row-sharded linear's partial sums must not each add
  /// it. Call it after placing the input and the weight.
  virtual LogicalResult separateBias() = 0;
  /// Lays input `index` out as `declared`, then redistributes it to
  /// `wanted`, the layout the module's own computation takes (Colwise's
  /// Replicate, Rowwise's Shard(-1)): unlike prepareInput, a plain tensor
  /// wanted Replicate is left as it is.
  virtual LogicalResult takeInput(unsigned index, Attribute declared,
                                  Attribute wanted) = 0;
  /// PrepareModuleInput over a whole list: `layouts` and `desired` are one
  /// placement, `unit` (None: the input passes through) or an array of
  /// them, one per positional input; `kwargLayouts` / `kwargDesired` map
  /// keyword input names to placements. With `sameLength`, a list of
  /// another length than the inputs is an error; without (the seed's zip),
  /// inputs past the last layout pass through.
  virtual LogicalResult prepareInputs(Attribute layouts, Attribute desired,
                                      DictionaryAttr kwargLayouts,
                                      DictionaryAttr kwargDesired,
                                      bool sameLength) = 0;
  /// PrepareModuleOutput over a whole list, as prepareInputs.
  virtual LogicalResult prepareOutputs(Attribute layouts, Attribute desired,
                                       bool sameLength) = 0;
  /// Declares that output `index` of a leaf module comes out laid out as
  /// `natural` (what its computation on the placed operands gives: Shard(-1)
  /// for a column-sharded linear, Partial(sum) for a row-sharded one), then
  /// redistributes it to `desired` for every later user.
  virtual LogicalResult declareOutput(unsigned index, Attribute natural,
                                      Attribute desired) = 0;
  /// Applies `style` to `module`, a module inside this one, as a plan entry
  /// would (support and layouts checked, then lowered): how
  /// PairwiseParallel makes its linears colwise and rowwise.
  virtual LogicalResult applyStyle(Operation *module, Attribute style) = 0;
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
