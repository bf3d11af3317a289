//===- Compare.h - a computed tensor against a reference --------*- C++ -*-===//
//
// What `tp-run --verify` measures: the largest error over the elements
// finite in both tensors, and where NaN or infinities are. Non-finite values
// follow torch.testing.assert_close(equal_nan=True): NaN matches NaN and an
// infinity the same infinity, at the same index; anything else non-finite on
// either side is a mismatch.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_COMPARE_H
#define TP_RUNTIME_COMPARE_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// How \p actual compares with \p reference (see compareWithReference).
struct Comparison {
  /// Largest |actual - reference| over the elements finite in both.
  double maxAbsError = 0;
  /// Largest |reference| over its finite elements.
  double maxReference = 0;
  /// Elements non-finite in either tensor.
  int64_t nonFinite = 0;
  /// The first of those (flat index), or -1.
  int64_t firstNonFinite = -1;
  /// The first non-finite element that does not match, or -1.
  int64_t firstMismatch = -1;
};

/// Compares two tensors of equal shape (any dtype, read as f32); throws
/// std::invalid_argument if the shapes differ.
Comparison compareWithReference(const Tensor &actual, const Tensor &reference);

/// The flat index of the first NaN or infinity of \p t (any dtype), or -1.
int64_t findNonFinite(const Tensor &t);

/// Flat index \p flat of \p shape as "[i, j, ...]" ("[]" for rank 0).
std::string indexString(const std::vector<int64_t> &shape, int64_t flat);

/// \p v as "nan", "inf", "-inf" or printf's %g.
std::string valueString(float v);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_COMPARE_H
