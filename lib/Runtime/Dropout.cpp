//===- Dropout.cpp - The mask of dropout in training ------------*- C++ -*-===//
//
// A counter-based mask (GradKernels.h, DropoutKey): each element's keep bit
// comes from the seeded counter stream of Init.h, keyed by (seed, step) and
// the module's FQN and indexed by the element's global index, so a shard
// draws its slice of the mask without the rest of the tensor.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/GradKernels.h"

#include "KernelUtils.h"
#include "tp/Runtime/Init.h"

#include <cmath>
#include <string>

using namespace mlir::tp::runtime;

using detail::Shape;
using detail::shapeError;

/// The stream of \p key's FQN under a seed that mixes the run's seed with
/// the step (itself an element of a stream of its own, so that steps and
/// seeds do not alias each other or the parameter generator's streams).
static InitStream maskStream(const DropoutKey &key) {
  uint64_t stepSeed = initBits(key.seed, "dropout step", key.step);
  return InitStream(stepSeed, key.fqn);
}

/// Keep when a uniform double in [0, 1) made of 53 random bits is >= p.
static bool keeps(const InitStream &stream, float p, int64_t globalIndex) {
  double u = static_cast<double>(stream.bits(globalIndex) >> 11) * 0x1p-53;
  return u >= static_cast<double>(p);
}

static void checkProbability(float p) {
  if (!(p >= 0.0f && p < 1.0f))
    throw shapeError("dropout",
                     "probability " + std::to_string(p) + " is not in [0, 1)");
}

bool mlir::tp::runtime::dropoutKeeps(const DropoutKey &key,
                                     int64_t globalIndex) {
  checkProbability(key.p);
  return keeps(maskStream(key), key.p, globalIndex);
}

Tensor mlir::tp::runtime::dropout(const Tensor &x, const DropoutKey &key,
                                  const Shape &globalShape,
                                  const Shape &offsets) {
  checkProbability(key.p);
  const Shape &shape = x.shape();
  if (globalShape.size() != shape.size() || offsets.size() != shape.size())
    throw shapeError("dropout", "a slice " + shapeToString(shape) + " at " +
                                    shapeToString(offsets) + " of " +
                                    shapeToString(globalShape) +
                                    " needs one offset and extent per dim");
  for (size_t d = 0; d < shape.size(); ++d)
    if (offsets[d] < 0 || offsets[d] > globalShape[d] ||
        shape[d] > globalShape[d] - offsets[d])
      throw shapeError("dropout", "a slice " + shapeToString(shape) + " at " +
                                      shapeToString(offsets) +
                                      " does not fit in " +
                                      shapeToString(globalShape));
  // Row-major strides of the global tensor, and the global index of the
  // slice's first element.
  Shape strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * globalShape[d];
  int64_t base = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    base += offsets[d] * strides[d];

  InitStream stream = maskStream(key);
  float scale = 1.0f / (1.0f - key.p);
  Tensor y(shape);
  const float *in = x.data();
  float *out = y.data();
  detail::forEachStrided(shape, strides, strides,
                         [&](int64_t global, int64_t, int64_t n) {
                           bool keep = keeps(stream, key.p, base + global);
                           out[n] = in[n] * (keep ? scale : 0.0f);
                         });
  return y;
}
