//===- Optimizers.cpp - SGD, AdamW, gradient clipping -----------*- C++ -*-===//
//
// Element-wise loops that follow the PyTorch single-tensor implementations
// op by op (torch/optim/sgd.py, torch/optim/adamw.py), so that the f32
// rounding is the same sequence of operations; hyperparameter checks are
// the ones PyTorch's constructors make.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Optimizers.h"

#include "KernelUtils.h"
#include "tp/Runtime/MemoryMeter.h"

#include <cmath>
#include <stdexcept>
#include <string>

using namespace mlir::tp::runtime;

static std::invalid_argument optimizerError(const char *op,
                                            const std::string &message) {
  return std::invalid_argument(std::string(op) + ": " + message);
}

/// Throws unless \p t has \p param's dtype (F32, BF16 or F16) and shape.
static void checkLike(const char *op, const char *what, const Tensor &t,
                      const Tensor &param) {
  DType d = t.dtype();
  if (d != DType::F32 && d != DType::BF16 && d != DType::F16)
    throw optimizerError(op, std::string(what) + " is a " + dtypeName(d) +
                                 " tensor; it takes F32, BF16 or F16");
  if (d != param.dtype())
    throw optimizerError(op, std::string(what) + " is a " + dtypeName(d) +
                                 " tensor but param is " +
                                 dtypeName(param.dtype()));
  if (t.shape() != param.shape())
    throw optimizerError(op, std::string(what) + " " + t.shapeString() +
                                 " does not match param " +
                                 param.shapeString());
}

namespace {
/// Rounds an f32 value to a 16-bit dtype and back, as a PyTorch op on a
/// tensor of that dtype stores its f32 result.
struct Rounding {
  DType dtype;
  explicit Rounding(DType dtype) : dtype(dtype) {}
  float operator()(float x) const {
    return dtype == DType::BF16 ? bf16ToFloat(floatToBF16(x))
                                : f16ToFloat(floatToF16(x));
  }
  /// A Python float as a bf16 tensor op takes it: PyTorch's CPU kernels
  /// (torch 1.13) convert a scalar operand of mul, div, add and add's alpha
  /// to the tensor's dtype first (addcmul's and addcdiv's `value` stays
  /// f32). For f16, which those CPU kernels lack, scalars stay f32 as on
  /// the GPU (rounding eps = 1e-8 to f16 would make it 0).
  float scalar(double x) const {
    float f = static_cast<float>(x);
    return dtype == DType::BF16 ? (*this)(f) : f;
  }
};

/// A 16-bit tensor's values in f32 (exact), written back by storeInto
/// (exact too: every value stored was rounded to the dtype).
class Widened {
public:
  explicit Widened(const Tensor &t, bool read = true)
      : values(read ? static_cast<size_t>(t.numel()) : 0) {
    if (read)
      toFloat(t.raw(), t.dtype(), values.data(), values.size());
  }
  float &operator[](int64_t i) { return values[static_cast<size_t>(i)]; }
  void storeInto(Tensor &t) const {
    fromFloat(values.data(), t.dtype(), t.raw(), values.size());
  }

private:
  ScratchVector<float> values;
};
} // namespace

static void checkStep(const char *op, int64_t step) {
  if (step < 1)
    throw optimizerError(op, "step " + std::to_string(step) +
                                 " must be >= 1 (it counts from 1)");
}

/// Throws unless lo <= value (and value < hi when \p hi is given); NaN fails.
static void checkRange(const char *op, const char *what, float value, float lo,
                       const float *hi = nullptr) {
  if (!(value >= lo) || (hi && !(value < *hi)))
    throw optimizerError(op, std::string("invalid ") + what + " " +
                                 std::to_string(value));
}

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

/// p += negLr * (g + wd * p) over \p n elements, SGD without momentum (the
/// weight decay term only when \p wd is not 0, as PyTorch adds it); a
/// memory-bound loop over every parameter, with vectorized clones.
TP_VECTOR_CLONES static void sgdPlain(float *p, const float *g, int64_t n,
                                      float wd, float negLr) {
  if (wd == 0) {
    for (int64_t i = 0; i < n; ++i)
      p[i] = p[i] + negLr * g[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    p[i] = p[i] + negLr * (g[i] + wd * p[i]);
}

void mlir::tp::runtime::sgdStep(Tensor &param, const Tensor &grad,
                                Tensor *momentumBuffer, int64_t step,
                                const SGDOptions &options) {
  const char *op = "sgdStep";
  checkLike(op, "param", param, param);
  checkLike(op, "grad", grad, param);
  checkStep(op, step);
  checkRange(op, "lr", options.lr, 0.0f);
  checkRange(op, "momentum", options.momentum, 0.0f);
  checkRange(op, "weightDecay", options.weightDecay, 0.0f);
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
    throw optimizerError(op, "nesterov needs a positive momentum and zero "
                             "dampening");
  bool useMomentum = options.momentum != 0;
  if (useMomentum) {
    if (!momentumBuffer)
      throw optimizerError(op, "momentum " + std::to_string(options.momentum) +
                                   " needs a momentum buffer");
    checkLike(op, "momentumBuffer", *momentumBuffer, param);
  }
  float wd = options.weightDecay, momentum = options.momentum;
  float keep = static_cast<float>(1.0 - static_cast<double>(options.dampening));
  float negLr = -options.lr;
  if (param.dtype() != DType::F32) {
    // PyTorch's ops on 16-bit tensors, each computed in f32 and rounded to
    // the tensor's dtype: d_p.add(param, alpha=wd), buf.mul_(momentum)
    // .add_(d_p, alpha=1 - dampening), d_p.add(buf, alpha=momentum) and
    // param.add_(d_p, alpha=-lr).
    Rounding r(param.dtype());
    wd = r.scalar(options.weightDecay);
    momentum = r.scalar(options.momentum);
    keep = r.scalar(1.0 - static_cast<double>(options.dampening));
    negLr = r.scalar(-static_cast<double>(options.lr));
    Widened p(param), g(grad),
        buf(useMomentum ? *momentumBuffer : param, useMomentum);
    for (int64_t i = 0, n = param.numel(); i < n; ++i) {
      float gi = g[i];
      if (wd != 0)
        gi = r(gi + wd * p[i]);
      if (useMomentum) {
        buf[i] = step == 1 ? gi : r(r(buf[i] * momentum) + keep * gi);
        gi = options.nesterov ? r(gi + momentum * buf[i]) : buf[i];
      }
      p[i] = r(p[i] + negLr * gi);
    }
    p.storeInto(param);
    if (useMomentum)
      buf.storeInto(*momentumBuffer);
    return;
  }
  float *p = param.data();
  const float *gr = grad.data();
  float *buf = useMomentum ? momentumBuffer->data() : nullptr;
  if (!useMomentum) {
    sgdPlain(p, gr, param.numel(), wd, negLr);
    return;
  }
  for (int64_t i = 0, n = param.numel(); i < n; ++i) {
    float g = gr[i];
    if (wd != 0)
      g = g + wd * p[i];
    if (useMomentum) {
      // PyTorch starts the buffer as a copy of the first gradient, undamped.
      buf[i] = step == 1 ? g : buf[i] * momentum + keep * g;
      g = options.nesterov ? g + momentum * buf[i] : buf[i];
    }
    p[i] = p[i] + negLr * g;
  }
}

//===----------------------------------------------------------------------===//
// AdamW
//===----------------------------------------------------------------------===//

namespace {
/// AdamW's per-step scalars, rounded to f32 where PyTorch's tensor ops take
/// them.
struct AdamWScalars {
  float decay, avgWeight, beta2, sqWeight, biasCorrection2Sqrt, eps,
      negStepSize;
};
} // namespace

/// AdamW's update of \p n elements; torch.lerp(m, g, w) in its form for
/// weights below 0.5 (\p SmallWeight) or the other.
template <bool SmallWeight>
static inline void adamwElements(float *p, const float *gr, float *m, float *v,
                                 int64_t n, AdamWScalars k) {
  // Locals, which the stores below cannot alias.
  const float decay = k.decay, w = k.avgWeight, beta2 = k.beta2,
              sqWeight = k.sqWeight, bc2 = k.biasCorrection2Sqrt, eps = k.eps,
              negStepSize = k.negStepSize;
  for (int64_t i = 0; i < n; ++i) {
    float g = gr[i];
    float pi = p[i] * decay;
    float mi =
        SmallWeight ? m[i] + w * (g - m[i]) : g - (g - m[i]) * (1.0f - w);
    float vi = v[i] * beta2 + sqWeight * g * g;
    float denom = std::sqrt(vi) / bc2 + eps;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi + negStepSize * mi / denom;
  }
}

/// AdamW's update of \p n elements (vectorized clones).
TP_VECTOR_CLONES static void adamwLoop(float *p, const float *gr, float *m,
                                       float *v, int64_t n,
                                       const AdamWScalars &k) {
  if (k.avgWeight < 0.5f)
    adamwElements<true>(p, gr, m, v, n, k);
  else
    adamwElements<false>(p, gr, m, v, n, k);
}

void mlir::tp::runtime::adamwStep(Tensor &param, const Tensor &grad,
                                  Tensor &expAvg, Tensor &expAvgSq,
                                  int64_t step, const AdamWOptions &options) {
  const char *op = "adamwStep";
  checkLike(op, "param", param, param);
  checkLike(op, "grad", grad, param);
  checkLike(op, "expAvg", expAvg, param);
  checkLike(op, "expAvgSq", expAvgSq, param);
  checkStep(op, step);
  const float one = 1.0f;
  checkRange(op, "lr", options.lr, 0.0f);
  checkRange(op, "beta1", options.beta1, 0.0f, &one);
  checkRange(op, "beta2", options.beta2, 0.0f, &one);
  checkRange(op, "eps", options.eps, 0.0f);
  checkRange(op, "weightDecay", options.weightDecay, 0.0f);

  // The scalars as PyTorch computes them in Python (double), rounded to f32
  // once where the tensor op takes them.
  double lr = options.lr, beta1 = options.beta1, beta2 = options.beta2;
  double steps = static_cast<double>(step);
  float decay = static_cast<float>(1.0 - lr * options.weightDecay);
  float avgWeight = static_cast<float>(1.0 - beta1);
  float beta2F = options.beta2;
  float sqWeight = static_cast<float>(1.0 - beta2);
  double biasCorrection1 = 1.0 - std::pow(beta1, steps);
  double biasCorrection2 = 1.0 - std::pow(beta2, steps);
  float negStepSize = static_cast<float>(-(lr / biasCorrection1));
  float biasCorrection2Sqrt = static_cast<float>(std::sqrt(biasCorrection2));
  float eps = options.eps;

  AdamWScalars k{decay, avgWeight,  beta2F, sqWeight, biasCorrection2Sqrt,
                 eps,   negStepSize};
  if (param.dtype() != DType::F32) {
    // torch 1.13's single-tensor AdamW on 16-bit tensors, each op computed
    // in f32 and rounded to the tensor's dtype: param.mul_(decay),
    // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1),
    // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2), sqrt,
    // the division by the bias correction's root, add_(eps), and
    // param.addcdiv_(exp_avg, denom, value=-step_size).
    Rounding r(param.dtype());
    const float decayS = r.scalar(1.0 - lr * options.weightDecay),
                beta1S = r.scalar(beta1), avgWeightS = r.scalar(1.0 - beta1),
                beta2S = r.scalar(beta2),
                bc2S = r.scalar(std::sqrt(biasCorrection2)),
                epsS = r.scalar(options.eps);
    Widened p(param), g(grad), m(expAvg), v(expAvgSq);
    for (int64_t i = 0, n = param.numel(); i < n; ++i) {
      float gi = g[i];
      float pi = r(p[i] * decayS);
      float mi = r(r(m[i] * beta1S) + avgWeightS * gi);
      float vi = r(r(v[i] * beta2S) + sqWeight * gi * gi);
      float denom = r(r(r(std::sqrt(vi)) / bc2S) + epsS);
      m[i] = mi;
      v[i] = vi;
      p[i] = r(pi + negStepSize * mi / denom);
    }
    p.storeInto(param);
    m.storeInto(expAvg);
    v.storeInto(expAvgSq);
    return;
  }
  adamwLoop(param.data(), grad.data(), expAvg.data(), expAvgSq.data(),
            param.numel(), k);
}

//===----------------------------------------------------------------------===//
// Gradient clipping
//===----------------------------------------------------------------------===//

float mlir::tp::runtime::clipCoefficient(double totalNormSquared,
                                         float maxNorm) {
  if (totalNormSquared < 0)
    throw std::invalid_argument("clipCoefficient: negative sum of squares " +
                                std::to_string(totalNormSquared));
  double coef = maxNorm / (std::sqrt(totalNormSquared) + 1e-6);
  // clamp(max=1) keeps a NaN coefficient NaN, as torch.clamp does.
  return static_cast<float>(coef > 1.0 ? 1.0 : coef);
}

void mlir::tp::runtime::scaleInPlace(Tensor &t, float factor) {
  if (t.dtype() != DType::F32)
    throw std::invalid_argument(std::string("scaleInPlace: a ") +
                                dtypeName(t.dtype()) + " tensor; it takes F32");
  float *x = t.data();
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    x[i] *= factor;
}
