//===- KernelUtils.h - Helpers shared by the CPU kernels --------*- C++ -*-===//
//
// Private to lib/Runtime: the checked GEMM entry point and id validation.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_KERNELUTILS_H
#define TP_LIB_RUNTIME_KERNELUTILS_H

#include <cstdint>
#include <string>

namespace tp {
namespace runtime {
namespace detail {

/// Row-major C[m, n] = alpha * A[m, k] @ op(B) + beta * C with leading
/// dimensions lda, ldb, ldc; op(B) is B[k, n], or B[n, k] transposed when
/// \p transB. Handles empty extents (which BLAS rejects) and checks that
/// every extent fits BLAS's int.
void gemm(bool transB, int64_t m, int64_t n, int64_t k, float alpha,
          const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
          float *c, int64_t ldc);

/// Converts the f32-encoded integer \p value to an int64; throws
/// std::invalid_argument mentioning \p what if it is not integral.
int64_t integralId(float value, const char *what);

} // namespace detail
} // namespace runtime
} // namespace tp

#endif // TP_LIB_RUNTIME_KERNELUTILS_H
