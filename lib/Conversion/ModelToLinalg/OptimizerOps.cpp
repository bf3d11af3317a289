//===- OptimizerOps.cpp - the optimizer updates as linalg -----------------===//
//
// sgd_update and adamw_update with the numerics of lib/Runtime/Optimizers.cpp
// (PyTorch's single-tensor algorithms, f32 element updates with the
// per-step scalars computed in double and rounded once). The state tp's
// executor keeps between steps (momentum buffer, exp_avg, exp_avg_sq) and
// the step number are explicit here: the driver passes them in as function
// arguments and returns the updated state.
//
//===----------------------------------------------------------------------===//

#include "LinalgEmitter.h"

#include "tp/Dialect/Model/IR/ModelOps.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::linalg_export;
namespace m = mlir::tp::model;

bool mlir::tp::linalg_export::isOptimizerUpdate(Operation *op) {
  return isa<m::SGDUpdateOp, m::AdamWUpdateOp>(op);
}

SmallVector<StringRef>
mlir::tp::linalg_export::optimizerStateNames(Operation *op) {
  if (isa<m::AdamWUpdateOp>(op))
    return {"exp_avg", "exp_avg_sq"};
  if (auto sgd = dyn_cast<m::SGDUpdateOp>(op))
    if (sgd.getMomentum().convertToDouble() != 0.0)
      return {"momentum_buffer"};
  return {};
}

/// The f32 scalar `v` inside a body (the optimizer's hyperparameters).
static Value f32Const(OpBuilder &b, Location l, float v) {
  return Emitter(b, l).scalar(b.getF32Type(), v);
}

static SmallVector<Value> sgdUpdate(Emitter &e, m::SGDUpdateOp u, Value p,
                                    Value g, ValueRange state, Value step) {
  // The runtime's SGDOptions hold floats.
  float lr = static_cast<float>(u.getLr().convertToDouble());
  float momentum = static_cast<float>(u.getMomentum().convertToDouble());
  float dampening = static_cast<float>(u.getDampening().convertToDouble());
  float wd = static_cast<float>(u.getWeightDecay().convertToDouble());
  bool nesterov = u.getNesterov();
  float negLr = -lr;
  float keep = static_cast<float>(1.0 - static_cast<double>(dampening));
  ArrayRef<int64_t> shape = shapeOf(p);
  unsigned n = shape.size();
  AffineMap id = identityMap(e.ctx(), n);
  if (state.empty()) {
    // p + (-lr) * (g + wd * p); the weight decay term only when wd != 0.
    return {e.elementwise(
        shape, e.f32(), {p, g}, [&](OpBuilder &b, Location l, ValueRange a) {
          Value d = a[1];
          if (wd != 0)
            d = arith::AddFOp::create(
                b, l, d, arith::MulFOp::create(b, l, f32Const(b, l, wd), a[0]));
          Value s = arith::MulFOp::create(b, l, f32Const(b, l, negLr), d);
          return SmallVector<Value>{arith::AddFOp::create(b, l, a[0], s)};
        })};
  }
  // PyTorch starts the buffer as the first step's gradient, undamped.
  OpBuilder &bld = e.builder();
  Value stepValue =
      tensor::ExtractOp::create(bld, e.location(), step, ValueRange{});
  Value first =
      arith::CmpIOp::create(bld, e.location(), arith::CmpIPredicate::eq,
                            stepValue, e.scalar(bld.getI64Type(), 1));
  return e.generic(
      n, {p, g, state[0]}, {id, id, id},
      {e.empty(shape, e.f32()), e.empty(shape, e.f32())}, {id, id},
      iterators(n), [&](OpBuilder &b, Location l, ValueRange a) {
        Value d = a[1];
        if (wd != 0)
          d = arith::AddFOp::create(
              b, l, d, arith::MulFOp::create(b, l, f32Const(b, l, wd), a[0]));
        Value later = arith::AddFOp::create(
            b, l, arith::MulFOp::create(b, l, a[2], f32Const(b, l, momentum)),
            arith::MulFOp::create(b, l, f32Const(b, l, keep), d));
        Value buf = arith::SelectOp::create(b, l, first, d, later);
        Value dir = nesterov ? arith::AddFOp::create(
                                   b, l, d,
                                   arith::MulFOp::create(
                                       b, l, f32Const(b, l, momentum), buf))
                                   .getResult()
                             : buf;
        Value s = arith::MulFOp::create(b, l, f32Const(b, l, negLr), dir);
        return SmallVector<Value>{arith::AddFOp::create(b, l, a[0], s), buf};
      });
}

static SmallVector<Value> adamwUpdate(Emitter &e, m::AdamWUpdateOp u, Value p,
                                      Value g, ValueRange state, Value step) {
  OpBuilder &bld = e.builder();
  Location loc = e.location();
  // The runtime's AdamWOptions hold floats; the scalars are computed from
  // them in double as PyTorch does in Python, rounded to f32 once.
  double lr = static_cast<float>(u.getLr().convertToDouble());
  double beta1 = static_cast<float>(u.getBeta1().convertToDouble());
  double beta2 = static_cast<float>(u.getBeta2().convertToDouble());
  float eps = static_cast<float>(u.getEps().convertToDouble());
  double wd = static_cast<float>(u.getWeightDecay().convertToDouble());
  float decay = static_cast<float>(1.0 - lr * wd);
  float avgWeight = static_cast<float>(1.0 - beta1);
  float beta2F = static_cast<float>(beta2);
  float sqWeight = static_cast<float>(1.0 - beta2);
  // The bias corrections depend on the step, an argument.
  Value steps = arith::SIToFPOp::create(
      bld, loc, e.f64(),
      tensor::ExtractOp::create(bld, loc, step, ValueRange{}));
  Value one = e.scalar(e.f64(), 1.0);
  Value bc1 = arith::SubFOp::create(
      bld, loc, one,
      math::PowFOp::create(bld, loc, e.scalar(e.f64(), beta1), steps));
  Value bc2 = arith::SubFOp::create(
      bld, loc, one,
      math::PowFOp::create(bld, loc, e.scalar(e.f64(), beta2), steps));
  Value negStepSize = e.truncF32(arith::NegFOp::create(
      bld, loc, arith::DivFOp::create(bld, loc, e.scalar(e.f64(), lr), bc1)));
  Value bc2Sqrt = e.truncF32(math::SqrtOp::create(bld, loc, bc2));
  ArrayRef<int64_t> shape = shapeOf(p);
  unsigned n = shape.size();
  AffineMap id = identityMap(e.ctx(), n);
  return e.generic(
      n, {p, g, state[0], state[1]}, {id, id, id, id},
      {e.empty(shape, e.f32()), e.empty(shape, e.f32()),
       e.empty(shape, e.f32())},
      {id, id, id}, iterators(n), [&](OpBuilder &b, Location l, ValueRange a) {
        Value pv = a[0], gv = a[1], mv = a[2], vv = a[3];
        Value pi = arith::MulFOp::create(b, l, pv, f32Const(b, l, decay));
        // torch.lerp(m, g, w) in the form the runtime picks for w.
        Value diff = arith::SubFOp::create(b, l, gv, mv);
        Value mi = avgWeight < 0.5f
                       ? arith::AddFOp::create(
                             b, l, mv,
                             arith::MulFOp::create(
                                 b, l, f32Const(b, l, avgWeight), diff))
                             .getResult()
                       : arith::SubFOp::create(
                             b, l, gv,
                             arith::MulFOp::create(
                                 b, l, diff, f32Const(b, l, 1.0f - avgWeight)))
                             .getResult();
        Value vi = arith::AddFOp::create(
            b, l, arith::MulFOp::create(b, l, vv, f32Const(b, l, beta2F)),
            arith::MulFOp::create(
                b, l, arith::MulFOp::create(b, l, f32Const(b, l, sqWeight), gv),
                gv));
        Value denom = arith::AddFOp::create(
            b, l,
            arith::DivFOp::create(b, l, math::SqrtOp::create(b, l, vi),
                                  bc2Sqrt),
            f32Const(b, l, eps));
        Value stepV = arith::DivFOp::create(
            b, l, arith::MulFOp::create(b, l, negStepSize, mi), denom);
        return SmallVector<Value>{arith::AddFOp::create(b, l, pi, stepV), mi,
                                  vi};
      });
}

SmallVector<Value> mlir::tp::linalg_export::convertOptimizerUpdate(
    Operation *op, ValueRange operands, ValueRange state, Value step,
    Emitter &e) {
  if (auto sgd = dyn_cast<m::SGDUpdateOp>(op))
    return sgdUpdate(e, sgd, operands[0], operands[1], state, step);
  return adamwUpdate(e, cast<m::AdamWUpdateOp>(op), operands[0], operands[1],
                     state, step);
}
