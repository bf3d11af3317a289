//===- DropoutOps.cpp - a training dropout's mask as linalg ---------------===//
//
// model.dropout with `train` and model.dropout_grad draw the mask tp's
// runtime draws (lib/Runtime/Dropout.cpp, Init.cpp): element i of the
// tensor is kept when 53 bits of splitmix64(key + i) are at least p, the
// key made of the run's seed, the step and the FNV-1a hash of the FQN. The
// seed and the step are function arguments; the hashing is i64 arithmetic
// (wrapping, as the runtime's uint64_t).
//
//===----------------------------------------------------------------------===//

#include "LinalgEmitter.h"

#include "tp/Dialect/Model/IR/ModelOps.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::linalg_export;
namespace m = mlir::tp::model;

bool mlir::tp::linalg_export::isTrainingDropout(Operation *op) {
  if (auto d = dyn_cast<m::DropoutOp>(op))
    return d.getTrain() && d.getP().convertToDouble() > 0.0;
  return isa<m::DropoutGradOp>(op);
}

/// The runtime's FNV-1a hash of a name.
static uint64_t fnv1a(StringRef s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

static Value i64Const(OpBuilder &b, Location l, uint64_t v) {
  return arith::ConstantOp::create(
      b, l, b.getIntegerAttr(b.getI64Type(), APInt(64, v)));
}

/// splitmix64 on an i64 value.
static Value splitmix64(OpBuilder &b, Location l, Value x) {
  auto xorShift = [&](Value v, uint64_t s) {
    return arith::XOrIOp::create(
        b, l, v, arith::ShRUIOp::create(b, l, v, i64Const(b, l, s)));
  };
  x = arith::AddIOp::create(b, l, x, i64Const(b, l, 0x9E3779B97F4A7C15ull));
  x = arith::MulIOp::create(b, l, xorShift(x, 30),
                            i64Const(b, l, 0xBF58476D1CE4E5B9ull));
  x = arith::MulIOp::create(b, l, xorShift(x, 27),
                            i64Const(b, l, 0x94D049BB133111EBull));
  return xorShift(x, 31);
}

/// The runtime's streamKey(seed, name).
static Value streamKey(OpBuilder &b, Location l, Value seed, StringRef name) {
  Value h = arith::XOrIOp::create(b, l, splitmix64(b, l, seed),
                                  i64Const(b, l, fnv1a(name)));
  return splitmix64(b, l, h);
}

Value mlir::tp::linalg_export::convertTrainingDropout(Operation *op, Value x,
                                                      Value seed, Value step,
                                                      Emitter &e) {
  OpBuilder &bld = e.builder();
  Location loc = e.location();
  auto d = dyn_cast<m::DropoutOp>(op);
  auto g = dyn_cast<m::DropoutGradOp>(op);
  StringRef fqn = d ? d.getFqn() : g.getFqn();
  float p = static_cast<float>(d ? d.getP().convertToDouble()
                                 : g.getP().convertToDouble());
  float scale = 1.0f / (1.0f - p);
  // stepSeed = InitStream(seed, "dropout step").bits(step), then the mask's
  // stream of the FQN under it.
  Value seedV = tensor::ExtractOp::create(bld, loc, seed, ValueRange{});
  Value stepV = tensor::ExtractOp::create(bld, loc, step, ValueRange{});
  Value stepSeed = splitmix64(
      bld, loc,
      arith::AddIOp::create(bld, loc,
                            streamKey(bld, loc, seedV, "dropout step"), stepV));
  Value key = streamKey(bld, loc, stepSeed, fqn);
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  return e.elementwise(
      shape, e.f32(), {x}, [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        // The element's row-major index in the (one-rank, global) tensor.
        Value index = i64Const(b, l, 0);
        for (unsigned d = 0; d < n; ++d) {
          Value i = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, d));
          index = arith::AddIOp::create(
              b, l,
              arith::MulIOp::create(b, l, index, i64Const(b, l, shape[d])), i);
        }
        Value bits = splitmix64(b, l, arith::AddIOp::create(b, l, key, index));
        Value top = arith::ShRUIOp::create(b, l, bits, i64Const(b, l, 11));
        Value u = arith::MulFOp::create(
            b, l, arith::UIToFPOp::create(b, l, be.f64(), top),
            be.scalar(be.f64(), 0x1p-53));
        Value keep = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, u,
                                           be.scalar(be.f64(), p));
        Value factor = arith::SelectOp::create(
            b, l, keep, be.scalar(be.f32(), scale), be.scalar(be.f32(), 0.0));
        return SmallVector<Value>{arith::MulFOp::create(b, l, a[0], factor)};
      });
}
