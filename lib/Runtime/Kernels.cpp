//===- Kernels.cpp - Reference f32 CPU kernels ------------------*- C++ -*-===//
//
// GEMM-based, element-wise, normalization, embedding and layout kernels.
// Rotary, attention and loss live in TransformerKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Kernels.h"

#include "KernelUtils.h"
#include "tp/Runtime/FloatOps.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

using namespace mlir::tp::runtime;

using detail::shapeError;

namespace {

/// OpenBLAS, loaded when a kernel first needs it: a program that never
/// multiplies (tp-opt, tp-run --no-run) neither loads it nor starts its
/// threads. TP_OPENBLAS_SONAME is the library the build found.
struct OpenBLAS {
  decltype(&cblas_sgemm) sgemm = nullptr;
  void (*setThreads)(int) = nullptr;
  int (*getThreads)() = nullptr;

  static const OpenBLAS &get() {
    static const OpenBLAS lib = load();
    return lib;
  }

private:
  static OpenBLAS load() {
    void *handle = dlopen(TP_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw std::runtime_error(std::string("cannot load OpenBLAS (") +
                               TP_OPENBLAS_SONAME + "): " + dlerror());
    OpenBLAS lib;
    auto find = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      if (!fn)
        throw std::runtime_error(std::string(TP_OPENBLAS_SONAME) + " has no " +
                                 name);
    };
    find(lib.sgemm, "cblas_sgemm");
    find(lib.setThreads, "openblas_set_num_threads");
    find(lib.getThreads, "openblas_get_num_threads");
    return lib;
  }
};

} // namespace

void mlir::tp::runtime::setBlasThreads(int n) {
  OpenBLAS::get().setThreads(std::max(1, n));
}

int mlir::tp::runtime::getBlasThreads() { return OpenBLAS::get().getThreads(); }

static int blasInt(int64_t v) {
  if (v > std::numeric_limits<int>::max())
    throw std::invalid_argument("gemm extent " + std::to_string(v) +
                                " exceeds the BLAS integer range");
  return static_cast<int>(v);
}

void mlir::tp::runtime::detail::gemmT(bool transA, bool transB, int64_t m,
                                      int64_t n, int64_t k, float alpha,
                                      const float *a, int64_t lda,
                                      const float *b, int64_t ldb, float beta,
                                      float *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  OpenBLAS::get().sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                        transB ? CblasTrans : CblasNoTrans, blasInt(m),
                        blasInt(n), blasInt(k), alpha, a, blasInt(lda), b,
                        blasInt(ldb), beta, c, blasInt(ldc));
}

int64_t mlir::tp::runtime::detail::integralId(float value, const char *what) {
  if (!(std::floor(value) == value) || std::fabs(value) > 1.0e18f)
    throw std::invalid_argument(std::string(what) + ": id " +
                                std::to_string(value) +
                                " is not an integer id");
  return static_cast<int64_t>(value);
}

void mlir::tp::runtime::detail::checkIdDType(const char *op, const char *what,
                                             DType dtype) {
  if (dtype != DType::I64 && dtype != DType::I32 && dtype != DType::F32)
    throw std::invalid_argument(std::string(op) + ": " + what + " are a " +
                                dtypeName(dtype) +
                                " tensor; they must be I64, I32 or F32 "
                                "holding integers");
}

std::vector<int64_t> mlir::tp::runtime::detail::readIds(const Tensor &ids,
                                                        const char *op,
                                                        const char *what) {
  checkIdDType(op, what, ids.dtype());
  size_t n = static_cast<size_t>(ids.numel());
  if (ids.dtype() == DType::I64)
    return std::vector<int64_t>(ids.dataI64(), ids.dataI64() + n);
  if (ids.dtype() == DType::I32)
    return std::vector<int64_t>(ids.dataI32(), ids.dataI32() + n);
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = integralId(ids.data()[i], op);
  return out;
}

//===----------------------------------------------------------------------===//
// Broadcast iteration
//===----------------------------------------------------------------------===//

using detail::broadcastOrThrow;
using detail::broadcastStrides;

namespace {
/// Whether \p small, less its leading 1s, is the trailing dims of \p full:
/// it broadcasts over full's rows (a bias, a table of positions).
bool isTrailing(const std::vector<int64_t> &small,
                const std::vector<int64_t> &full) {
  size_t lead = 0;
  while (lead < small.size() && small[lead] == 1)
    ++lead;
  size_t n = small.size() - lead;
  return n <= full.size() &&
         std::equal(small.begin() + lead, small.end(), full.end() - n);
}

template <typename F>
Tensor binary(const char *op, const Tensor &a, const Tensor &b, F f) {
  const float *pa = a.data(), *pb = b.data();
  if (a.shape() == b.shape()) {
    Tensor out = Tensor::uninitialized(a.shape());
    float *po = out.data();
    for (int64_t i = 0, e = a.numel(); i < e; ++i)
      po[i] = f(pa[i], pb[i]);
    return out;
  }
  std::vector<int64_t> shape = broadcastOrThrow(op, a.shape(), b.shape());
  Tensor out = Tensor::uninitialized(shape);
  float *po = out.data();
  // One operand repeated over the other's rows: a loop per row.
  int64_t n = b.numel();
  if (a.shape() == shape && n > 0 && isTrailing(b.shape(), shape)) {
    for (int64_t r = 0, rows = a.numel() / n; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j)
        po[r * n + j] = f(pa[r * n + j], pb[j]);
    return out;
  }
  n = a.numel();
  if (b.shape() == shape && n > 0 && isTrailing(a.shape(), shape)) {
    for (int64_t r = 0, rows = b.numel() / n; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j)
        po[r * n + j] = f(pa[j], pb[r * n + j]);
    return out;
  }
  detail::forEachStrided(
      shape, broadcastStrides(a.shape(), shape),
      broadcastStrides(b.shape(), shape),
      [&](int64_t ia, int64_t ib, int64_t io) { po[io] = f(pa[ia], pb[ib]); });
  return out;
}

template <typename F> Tensor unary(const Tensor &x, F f) {
  Tensor out = Tensor::uninitialized(x.shape());
  const float *src = x.data();
  float *dst = out.data();
  for (int64_t i = 0, e = x.numel(); i < e; ++i)
    dst[i] = f(src[i]);
  return out;
}

} // namespace

std::vector<int64_t>
mlir::tp::runtime::broadcastShapes(const std::vector<int64_t> &a,
                                   const std::vector<int64_t> &b) {
  return broadcastOrThrow("broadcast", a, b);
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::linear(const Tensor &x, const Tensor &w,
                                 const Tensor *bias) {
  detail::LinearDims l = detail::checkLinear(x.shape(), w.shape(),
                                             bias ? &bias->shape() : nullptr);
  Tensor out = Tensor::uninitialized(l.shape);
  detail::gemm(/*transB=*/true, l.rows, l.out, l.in, 1.0f, x.data(), l.in,
               w.data(), l.in, 0.0f, out.data(), l.out);
  if (bias) {
    float *o = out.data();
    const float *b = bias->data();
    for (int64_t r = 0; r < l.rows; ++r)
      for (int64_t j = 0; j < l.out; ++j)
        o[r * l.out + j] += b[j];
  }
  return out;
}

Tensor mlir::tp::runtime::matmul(const Tensor &a, const Tensor &b) {
  detail::MatmulDims d = detail::checkMatmul(a.shape(), b.shape());
  int64_t m = d.m, k = d.k, n = d.n;
  Tensor out = Tensor::uninitialized(d.shape);
  if (d.batchB.empty()) {
    // Every batch of a shares b: one GEMM over all rows.
    detail::gemm(false, shapeNumel(d.batchA) * m, n, k, 1.0f, a.data(), k,
                 b.data(), n, 0.0f, out.data(), n);
    return out;
  }
  const float *pa = a.data(), *pb = b.data();
  float *po = out.data();
  detail::forEachStrided(d.batch, broadcastStrides(d.batchA, d.batch),
                         broadcastStrides(d.batchB, d.batch),
                         [&](int64_t ia, int64_t ib, int64_t io) {
                           detail::gemm(false, m, n, k, 1.0f, pa + ia * m * k,
                                        k, pb + ib * k * n, n, 0.0f,
                                        po + io * m * n, n);
                         });
  return out;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::add(const Tensor &a, const Tensor &b) {
  return binary("add", a, b, [](float x, float y) { return x + y; });
}

Tensor mlir::tp::runtime::sub(const Tensor &a, const Tensor &b) {
  return binary("sub", a, b, [](float x, float y) { return x - y; });
}

Tensor mlir::tp::runtime::mul(const Tensor &a, const Tensor &b) {
  return binary("mul", a, b, [](float x, float y) { return x * y; });
}

Tensor mlir::tp::runtime::div(const Tensor &a, const Tensor &b) {
  return binary("div", a, b, [](float x, float y) { return x / y; });
}

Tensor mlir::tp::runtime::relu(const Tensor &x) {
  // relu(NaN) = NaN, as in PyTorch; relu(-0) = 0.
  return unary(x, [](float v) { return !(v <= 0.0f) ? v : 0.0f; });
}

Tensor mlir::tp::runtime::erf(const Tensor &x) {
  return unary(x, detail::erfApprox);
}

/// y = gelu(x) over \p n elements (vectorized clones).
TP_VECTOR_CLONES static void geluLoop(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] =
        0.5f * x[i] * (1.0f + detail::erfApprox(x[i] * 0.70710678118654752f));
}

Tensor mlir::tp::runtime::gelu(const Tensor &x) {
  Tensor out = Tensor::uninitialized(x.shape());
  geluLoop(x.data(), out.data(), x.numel());
  return out;
}

Tensor mlir::tp::runtime::geluTanh(const Tensor &x) {
  return unary(x, [](float v) {
    const float c = 0.79788456080286536f; // sqrt(2 / pi)
    return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
  });
}

/// y = silu(x) over \p n elements (vectorized clones).
TP_VECTOR_CLONES static void siluLoop(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i] / (1.0f + detail::expApprox(-x[i]));
}

Tensor mlir::tp::runtime::silu(const Tensor &x) {
  Tensor out = Tensor::uninitialized(x.shape());
  siluLoop(x.data(), out.data(), x.numel());
  return out;
}

Tensor mlir::tp::runtime::neg(const Tensor &x) {
  return unary(x, [](float v) { return -v; });
}

Tensor mlir::tp::runtime::exp(const Tensor &x) {
  return unary(x, [](float v) { return std::exp(v); });
}

Tensor mlir::tp::runtime::tanh(const Tensor &x) {
  return unary(x, [](float v) { return std::tanh(v); });
}

Tensor mlir::tp::runtime::sigmoid(const Tensor &x) {
  // 1 / (1 + e^-x) overflows e^-x to inf for x < -88: the quotient is 0
  // then, as it should be.
  return unary(x, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}

Tensor mlir::tp::runtime::sqrt(const Tensor &x) {
  return unary(x, [](float v) { return std::sqrt(v); });
}

Tensor mlir::tp::runtime::rsqrt(const Tensor &x) {
  return unary(x, [](float v) { return 1.0f / std::sqrt(v); });
}

Tensor mlir::tp::runtime::reciprocal(const Tensor &x) {
  return unary(x, [](float v) { return 1.0f / v; });
}

Tensor mlir::tp::runtime::abs(const Tensor &x) {
  return unary(x, [](float v) { return std::fabs(v); });
}

Tensor mlir::tp::runtime::pow(const Tensor &x, float exponent) {
  if (exponent == 2.0f)
    return unary(x, [](float v) { return v * v; });
  return unary(x, [exponent](float v) { return std::pow(v, exponent); });
}

Tensor mlir::tp::runtime::scale(const Tensor &x, float factor) {
  return unary(x, [factor](float v) { return v * factor; });
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::softmax(const Tensor &x, int64_t dim) {
  auto [outer, extent, inner] =
      splitAround(x.shape(), normalizeDim(dim, x.rank()));
  Tensor out = Tensor::uninitialized(x.shape());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const float *src = x.data() + o * extent * inner + in;
      float *dst = out.data() + o * extent * inner + in;
      float maxV = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < extent; ++j)
        maxV = maxKeepNaN(maxV, src[j * inner]);
      // A row of -inf (fully masked), or with a NaN or +inf, yields NaN like
      // PyTorch.
      double sum = 0.0;
      for (int64_t j = 0; j < extent; ++j) {
        float e = std::exp(src[j * inner] - maxV);
        dst[j * inner] = e;
        sum += e;
      }
      float invSum = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < extent; ++j)
        dst[j * inner] *= invSum;
    }
  }
  return out;
}

/// The optional operand's shape, for the checks.
static const std::vector<int64_t> *shapeOf(const Tensor *t) {
  return t ? &t->shape() : nullptr;
}

/// A tensor of x's shape whose `rows` rows of `d` elements are
/// fn(row of x, row of the result).
template <typename Fn>
static Tensor mapRows(const Tensor &x, int64_t rows, int64_t d, Fn fn) {
  Tensor out = Tensor::uninitialized(x.shape());
  for (int64_t r = 0; r < rows; ++r)
    fn(x.data() + r * d, out.data() + r * d);
  return out;
}

TP_VECTOR_CLONES detail::RowMoments
mlir::tp::runtime::detail::rowMoments(const float *row, int64_t d) {
  // Each sum in kSumLanes interleaved partial sums, so that it vectorizes.
  constexpr int L = kSumLanes;
  double part[L] = {};
  int64_t j = 0;
  for (; j + L <= d; j += L)
    for (int l = 0; l < L; ++l)
      part[l] += row[j + l];
  for (; j < d; ++j)
    part[0] += row[j];
  double mean = 0.0;
  for (int l = 0; l < L; ++l)
    mean += part[l];
  mean /= d;
  double sq[L] = {};
  for (j = 0; j + L <= d; j += L)
    for (int l = 0; l < L; ++l)
      sq[l] += (row[j + l] - mean) * (row[j + l] - mean);
  for (; j < d; ++j)
    sq[0] += (row[j] - mean) * (row[j] - mean);
  double var = 0.0;
  for (int l = 0; l < L; ++l)
    var += sq[l];
  return {mean, var / d};
}

/// One row of layerNorm with the weight and bias it has (the multiply and
/// add only where PyTorch makes them, so that a missing one changes no
/// rounding).
template <bool Weight, bool Bias>
static inline void layerNormRow(const float *src, float *dst, const float *w,
                                const float *b, int64_t d, float meanF,
                                float inv) {
  for (int64_t j = 0; j < d; ++j) {
    float v = (src[j] - meanF) * inv;
    if (Weight)
      v *= w[j];
    if (Bias)
      v += b[j];
    dst[j] = v;
  }
}

/// layerNorm over \p rows rows of \p d (vectorized clones).
TP_VECTOR_CLONES static void layerNormRows(const float *x, float *y,
                                           const float *w, const float *b,
                                           int64_t rows, int64_t d, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *src = x + r * d;
    float *dst = y + r * d;
    auto [mean, var] = detail::rowMoments(src, d);
    float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    float meanF = static_cast<float>(mean);
    if (w && b)
      layerNormRow<true, true>(src, dst, w, b, d, meanF, inv);
    else if (w)
      layerNormRow<true, false>(src, dst, w, b, d, meanF, inv);
    else if (b)
      layerNormRow<false, true>(src, dst, w, b, d, meanF, inv);
    else
      layerNormRow<false, false>(src, dst, w, b, d, meanF, inv);
  }
}

Tensor mlir::tp::runtime::layerNorm(const Tensor &x, const Tensor *weight,
                                    const Tensor *bias, float eps) {
  detail::RowDims rowDims =
      detail::checkNorm("layerNorm", x.shape(), shapeOf(weight), shapeOf(bias));
  Tensor out = Tensor::uninitialized(x.shape());
  layerNormRows(x.data(), out.data(), weight ? weight->data() : nullptr,
                bias ? bias->data() : nullptr, rowDims.rows, rowDims.d, eps);
  return out;
}

Tensor mlir::tp::runtime::rmsNorm(const Tensor &x, const Tensor *weight,
                                  float eps) {
  detail::RowDims rowDims =
      detail::checkNorm("rmsNorm", x.shape(), shapeOf(weight), nullptr);
  int64_t d = rowDims.d;
  return mapRows(x, rowDims.rows, d, [&](const float *src, float *dst) {
    double sumSq = 0.0;
    for (int64_t j = 0; j < d; ++j)
      sumSq += static_cast<double>(src[j]) * src[j];
    float inv = static_cast<float>(1.0 / std::sqrt(sumSq / d + eps));
    for (int64_t j = 0; j < d; ++j)
      dst[j] = src[j] * inv * (weight ? weight->data()[j] : 1.0f);
  });
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

static Tensor gatherRows(const char *op, const Tensor &ids,
                         const Tensor &weight, int64_t offset, bool mask) {
  auto [rows, d] = detail::checkEmbeddingWeight(op, weight.shape());
  std::vector<int64_t> shape = ids.shape();
  shape.push_back(d);
  Tensor out(shape);
  std::vector<int64_t> values = detail::readIds(ids, op, "ids");
  for (int64_t i = 0, e = ids.numel(); i < e; ++i) {
    int64_t row = detail::tableRow(op, values[i], offset, rows, mask);
    if (row < 0)
      continue;
    std::copy_n(weight.data() + row * d, d, out.data() + i * d);
  }
  return out;
}

Tensor mlir::tp::runtime::embedding(const Tensor &ids, const Tensor &weight) {
  return gatherRows("embedding", ids, weight, 0, /*mask=*/false);
}

Tensor mlir::tp::runtime::embeddingMasked(const Tensor &ids,
                                          const Tensor &weightShard,
                                          int64_t vocabOffset) {
  return gatherRows("embeddingMasked", ids, weightShard, vocabOffset,
                    /*mask=*/true);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::reshape(const Tensor &x, std::vector<int64_t> shape) {
  return x.reshaped(std::move(shape));
}

namespace {
/// A tensor of \p shape whose element at each index is \p x's at the
/// offset \p strides give (elements): a permutation or a broadcast. Any
/// dtype (ids and masks move too), copied as elements of its size.
Tensor stridedCopy(const Tensor &x, const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &strides) {
  Tensor out = Tensor::uninitialized(shape, x.dtype());
  auto copy = [&](auto element) {
    using E = decltype(element);
    const E *src = static_cast<const E *>(x.raw());
    E *dst = static_cast<E *>(out.raw());
    detail::forEachStrided(
        shape, strides, strides,
        [&](int64_t in, int64_t, int64_t o) { dst[o] = src[in]; });
  };
  switch (dtypeSize(x.dtype())) {
  case 8:
    copy(int64_t{});
    break;
  case 4:
    copy(float{});
    break;
  case 2:
    copy(uint16_t{});
    break;
  default:
    copy(uint8_t{});
    break;
  }
  return out;
}
} // namespace

Tensor mlir::tp::runtime::permute(const Tensor &x,
                                  const std::vector<int64_t> &perm) {
  int64_t rank = x.rank();
  std::vector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  std::vector<int64_t> dims(perm.size());
  for (size_t i = 0; valid && i < perm.size(); ++i) {
    valid = perm[i] >= -rank && perm[i] < rank;
    if (valid) {
      dims[i] = perm[i] < 0 ? perm[i] + rank : perm[i];
      valid = !seen[dims[i]];
      seen[dims[i]] = true;
    }
  }
  if (!valid) {
    std::string p;
    for (size_t i = 0; i < perm.size(); ++i)
      p += (i ? "," : "") + std::to_string(perm[i]);
    throw shapeError("permute", "[" + p + "] is not a permutation of the " +
                                    std::to_string(rank) +
                                    " dimensions of shape " + x.shapeString());
  }
  std::vector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    inStrides[d - 1] = inStrides[d] * x.shape()[d];
  std::vector<int64_t> shape(rank), strides(rank);
  for (int64_t i = 0; i < rank; ++i) {
    shape[i] = x.shape()[dims[i]];
    strides[i] = inStrides[dims[i]];
  }
  return stridedCopy(x, shape, strides);
}

Tensor mlir::tp::runtime::expand(const Tensor &x,
                                 const std::vector<int64_t> &shape) {
  std::vector<int64_t> out =
      detail::broadcastOrThrow("expand", x.shape(), shape);
  if (out != shape)
    throw shapeError("expand", "cannot broadcast " + x.shapeString() + " to " +
                                   shapeToString(shape));
  return stridedCopy(x, shape, detail::broadcastStrides(x.shape(), shape));
}

namespace {
/// \p count elements from \p start by \p step fit in \p size.
void checkSlice(const char *op, const Tensor &whole, int64_t dim, int64_t start,
                int64_t step, int64_t count) {
  int64_t size = whole.shape()[dim];
  if (start < 0 || step < 1 || count < 0 ||
      (count > 0 && start + (count - 1) * step >= size))
    throw shapeError(
        op, std::to_string(count) + " elements from " + std::to_string(start) +
                " by " + std::to_string(step) + " do not fit in dim " +
                std::to_string(dim) + " of shape " + whole.shapeString());
}
} // namespace

Tensor mlir::tp::runtime::slice(const Tensor &x, int64_t dim, int64_t start,
                                int64_t step, int64_t count) {
  dim = normalizeDim(dim, x.rank());
  checkSlice("slice", x, dim, start, step, count);
  std::vector<int64_t> shape = x.shape();
  shape[dim] = count;
  Tensor out = Tensor::uninitialized(shape, x.dtype());
  DimSplit rows = splitAround(x.shape(), dim);
  size_t bytes = rows.inner * dtypeSize(x.dtype());
  const char *src = static_cast<const char *>(x.raw());
  char *dst = static_cast<char *>(out.raw());
  for (int64_t o = 0; o < rows.outer; ++o)
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(dst + (o * count + i) * bytes,
                  src + (o * rows.extent + start + i * step) * bytes, bytes);
  return out;
}

Tensor mlir::tp::runtime::sliceGrad(const Tensor &g, int64_t dim, int64_t start,
                                    int64_t step, int64_t size) {
  dim = normalizeDim(dim, g.rank());
  std::vector<int64_t> shape = g.shape();
  shape[dim] = size;
  Tensor out(shape, g.dtype());
  checkSlice("slice_grad", out, dim, start, step, g.shape()[dim]);
  DimSplit rows = splitAround(g.shape(), dim);
  size_t bytes = rows.inner * dtypeSize(g.dtype());
  const char *src = static_cast<const char *>(g.raw());
  char *dst = static_cast<char *>(out.raw());
  for (int64_t o = 0; o < rows.outer; ++o)
    for (int64_t i = 0; i < rows.extent; ++i)
      std::memcpy(dst + (o * size + start + i * step) * bytes,
                  src + (o * rows.extent + i) * bytes, bytes);
  return out;
}

Tensor mlir::tp::runtime::transpose(const Tensor &x, int64_t d0, int64_t d1) {
  d0 = normalizeDim(d0, x.rank());
  d1 = normalizeDim(d1, x.rank());
  std::vector<int64_t> perm(x.rank());
  for (int64_t i = 0; i < x.rank(); ++i)
    perm[i] = i;
  std::swap(perm[d0], perm[d1]);
  return permute(x, perm);
}

Tensor mlir::tp::runtime::chunkDim(const Tensor &x, int64_t dim, int64_t k,
                                   int64_t i) {
  dim = normalizeDim(dim, x.rank());
  Chunk c = chunkOf(x.shape()[dim], k, i);
  return sliceDim(x, dim, c.offset, c.size);
}
