//===- GradientBuilder.h - what an op's backward rule builds with -*- C++
//-*-===//
//
// The state of one reverse-mode sweep (tp-differentiate) as an op's
// DifferentiableOpInterface sees it: which values a parameter reaches, the
// gradient each value has received so far, and the parameters' gradients.
// An op's `backward` emits its backward ops with `getBuilder()` and hands
// each operand's gradient to `accumulate`.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_IR_GRADIENTBUILDER_H
#define TP_DIALECT_MODEL_IR_GRADIENTBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tp::model {

class GradientBuilder {
public:
  explicit GradientBuilder(MLIRContext *ctx) : builder(ctx) {}

  /// The builder the backward ops are created with; the sweep sets its
  /// insertion point.
  OpBuilder &getBuilder() { return builder; }

  /// Marks `v` as reached by a parameter: only such values get gradients.
  void markActive(Value v) { active.insert(v); }
  /// Whether a parameter reaches `v` (false for a null value, an absent
  /// optional operand).
  bool isActive(Value v) const { return v && active.contains(v); }

  /// Adds `grad` to the gradient of `v` (nothing for a value no parameter
  /// reaches): the first contribution is the gradient, later ones are
  /// summed with `model.add`.
  void accumulate(Value v, Value grad);
  /// Adds `grad` to the gradient of the parameter `name` (a tied parameter
  /// is one `model.param` used by several modules, or several with one
  /// name: one gradient, the sum).
  void accumulateParam(StringRef name, Value grad);

  /// The gradient `v` has received so far, or null.
  Value lookup(Value v) const { return grads.lookup(v); }
  /// The parameters' gradients by FQN, in the order they were first
  /// received.
  llvm::MapVector<StringRef, Value> &getParamGrads() { return paramGrads; }

  /// `grad` summed back to the shape of `operand` (the adjoint of a
  /// broadcast: `model.sum_to`), or `grad` itself where the shapes agree.
  Value sumTo(Value grad, Value operand);

  /// Derivatives built from model ops (a pointwise op's backward): a
  /// rank-0 `model.full` of `like`'s element type, and broadcasting
  /// element-wise ops typed by their operands' global shapes.
  Value scalar(double value, Value like);
  Value mul(Value a, Value b);
  Value sub(Value a, Value b);
  Value div(Value a, Value b);
  Value neg(Value a);

  /// The type a gradient of `v` is created with: `v`'s global tensor type
  /// (placements are propagated through the backward ops afterwards).
  static RankedTensorType gradType(Value v);

private:
  OpBuilder builder;
  DenseSet<Value> active;
  DenseMap<Value, Value> grads;
  llvm::MapVector<StringRef, Value> paramGrads;
};

} // namespace mlir::tp::model

#endif // TP_DIALECT_MODEL_IR_GRADIENTBUILDER_H
