//===- Verify.h - compare a parallel run with one rank ----------*- C++ -*-===//
//
// The numerical oracle of a run: the global outputs that N ranks computed
// against those of the unparallelized model on one rank, as the largest
// relative error within a tolerance, and NaN or infinities reported where
// they are (and where the data they come from has them). What tp-run
// --verify prints; usable by any embedder that runs both programs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LAUNCH_VERIFY_H
#define TP_LAUNCH_VERIFY_H

#include "tp/Executor/Executor.h"
#include "tp/Runtime/Compare.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tp::json {
class Writer;
} // namespace mlir::tp::json

namespace mlir::tp::exec {

/// The first non-finite value found in the outputs. NaN and infinities
/// where the reference has the same are not an error, like
/// torch.testing.assert_close(equal_nan=True).
struct NonFinite {
  /// Non-finite elements in either run, over all outputs.
  int64_t count = 0;
  /// Whether one does not match the reference.
  bool mismatch = false;
  /// Where the reported one is: the first mismatch, else the first one.
  size_t output = 0;
  std::string index;
  float parallel = 0, reference = 0;
  /// The first input or weight that is not finite ("" if none).
  std::string source;

  /// Takes in output \p i, \p a of the parallel run against \p b of the
  /// reference, as \p c compared them.
  void add(size_t i, const Tensor &a, const Tensor &b,
           const runtime::Comparison &c);
  /// "output 0 is not finite at [1, 2]: ...; <source>".
  std::string describe() const;
  /// An object with the fields above, keys in sorted order.
  void writeJSON(json::Writer &w) const;
};

/// How a run compared with the reference.
struct Verification {
  double maxAbsError = 0, maxRelError = 0;
  /// The largest relative error accepted.
  double tolerance = 0;
  NonFinite nonFinite;
  /// Whether the run matches: within the tolerance, and any non-finite
  /// value where the reference has it.
  bool passed = false;
  /// The reference's loss of every step (a run of several steps).
  std::vector<double> referenceLosses;

  /// Why it did not pass ("" when it did).
  std::string failure() const;
};

/// The dtype a program computes in: that of its parameters (f32 without
/// any).
runtime::DType programDType(const Program &program);

/// The tolerance of a model computed in \p dtype: 1e-5 for f32, 4e-2 for
/// bf16, 5e-3 for f16 (the 16-bit ones against the model in f32).
double defaultTolerance(runtime::DType dtype);

/// Runs \p reference on one rank with \p data, \p steps times as the
/// program ran (parameters and optimizer state resident between steps), and
/// compares \p outputs (the global outputs of \p program's last step,
/// assembled from its ranks) with its results, and \p losses (each step's,
/// if given) with its losses, within \p rtol (unset: defaultTolerance of
/// the program's dtype). Throws LaunchError when the reference returns
/// other results (their number or shapes).
Verification verifyOutputs(const Program &program,
                           const std::vector<Tensor> &outputs,
                           const Program &reference, const DataSource &data,
                           std::optional<double> rtol, int steps = 1,
                           const std::vector<double> *losses = nullptr);

/// Names the first input or weight of \p program holding a NaN or
/// infinity, and where ("" when all are finite).
std::string findNonFiniteSource(const Program &program, const DataSource &data);

} // namespace mlir::tp::exec

#endif // TP_LAUNCH_VERIFY_H
