//===- Executor.h - run a partitioned tp program on N ranks -----*- C++ -*-===//
//
// The bridge between MLIR and the runtime: compiles a partitioned SPMD
// function (or an unparallelized model function) into a flat instruction
// list once, then runs it on any rank with a Communicator.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_EXECUTOR_H
#define TP_EXECUTOR_EXECUTOR_H

#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/Tensor.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace tp::exec {

using runtime::Tensor;

/// Where parameters and inputs come from. The default is the seeded
/// generator, whose values depend only on (seed, name, global index), so a
/// rank can produce its shard without the whole tensor.
struct DataSource {
  uint64_t seed = 0;
  /// Optional safetensors files with global tensors under their FQNs
  /// (parameters) and function argument names (inputs).
  std::string weightsFile;
  std::string inputsFile;
};

/// A slice of a global tensor along one dim (torch.chunk piece).
struct Slice {
  int64_t dim = 0, offset = 0, size = 0;
};

/// Description of one parameter of a program.
struct ParamInfo {
  std::string name;
  std::vector<int64_t> globalShape;
  /// The init scale of the seeded generator, and whether the value is
  /// centred on one (norm weights) instead of zero.
  float scale = 1.0f;
  bool onesCentred = false;
  /// The element type the program holds the parameter in (the model's
  /// dtype); generated and loaded values are rounded to it.
  runtime::DType dtype = runtime::DType::F32;
};

/// Description of one input (function argument).
struct InputInfo {
  std::string name;
  /// The global shape: files and the generator hold the whole input, and
  /// each rank receives its piece of it (see `placements`).
  std::vector<int64_t> shape;
  /// How the input arrives, one entry per mesh axis as in ResultLayout: "R"
  /// (every rank gets it whole), "S<d>" (this rank's torch.chunk of dim d)
  /// or "P<kind>" (a partial value: for sum the axis' first rank holds it
  /// and the others zeros; avg, max and min hold it everywhere).
  std::vector<std::string> placements;
  /// For integer token inputs: ids are uniform in [0, vocab).
  bool isTokens = false;
  int64_t vocab = 0;
  /// The element type the program holds the input in (token ids: F32).
  runtime::DType dtype = runtime::DType::F32;
};

/// How a function result is laid out across the mesh.
struct ResultLayout {
  std::vector<int64_t> globalShape;
  /// One entry per mesh axis: "R", "S<d>" or "P<sum|avg|max|min>".
  std::vector<std::string> placements;
  /// PyTorch would return this result as each rank's local tensor
  /// (use_local_output), not as a DTensor; assembleResult still gives the
  /// global value the pieces stand for.
  bool local = false;
};

namespace detail {
struct RankStateImpl;
} // namespace detail

/// What one rank keeps between runs of one program, for serving-style use:
/// the communicators of its mesh axis groups (split once) and its parameter
/// shards (loaded by the first run, reused by later ones, so later runs
/// neither regenerate nor re-read them). Bound to the program and the
/// communicator of its first run; parameters come from that run's DataSource.
class RankState {
public:
  RankState();
  ~RankState();
  RankState(RankState &&) noexcept;
  RankState &operator=(RankState &&) noexcept;

  /// Bytes of the resident parameters.
  int64_t paramBytes() const;

private:
  friend class Program;
  friend class DeviceProgram;
  std::unique_ptr<detail::RankStateImpl> impl;
};

/// A compiled program. Thread-safe to run on several ranks at once.
class Program {
public:
  ~Program();
  Program(Program &&) noexcept;

  /// Compiles `func`. Throws std::runtime_error naming the op that cannot
  /// be executed.
  static Program compile(mlir::func::FuncOp func);

  /// Runs the program as rank `comm.rank()` of a mesh of `meshShape`
  /// (row-major rank numbering). Returns this rank's local results and, if
  /// asked, the peak bytes of live tensors this rank held (resident
  /// parameters included) and the program's collectives in this run on this
  /// rank (on `comm` and on the per-axis sub-communicators; the splits
  /// themselves not counted). With a `state`, parameters and
  /// sub-communicators are kept between runs (see RankState).
  std::vector<Tensor> run(runtime::Communicator &comm, const DataSource &data,
                          int64_t *measuredPeakBytes = nullptr,
                          runtime::CollectiveStats *stats = nullptr,
                          RankState *state = nullptr) const;

  const std::vector<int64_t> &meshShape() const;
  const std::vector<ParamInfo> &params() const;
  const std::vector<InputInfo> &inputs() const;
  const std::vector<ResultLayout> &results() const;
  /// Peak bytes of live tensors on one rank, from the static shapes and the
  /// liveness plan, before running (parameters included while they are
  /// live). Uneven (dynamic) dims count as zero here; `run` measures them.
  int64_t peakBytes() const;
  /// Number of instructions.
  size_t size() const;

  /// The full (global) value of a parameter or input, from `data`, in the
  /// program's dtype for it.
  static Tensor globalParam(const ParamInfo &p, const DataSource &data);
  static Tensor globalInput(const InputInfo &in, const DataSource &data);

  /// Reassembles the global value of result `i` from every rank's local
  /// result (indexed by rank), in the results' dtype (partial sums of 16-bit
  /// results are added in f32 and rounded once).
  Tensor assembleResult(size_t i, const std::vector<Tensor> &perRank) const;

  /// Implementation details (shared with the compiler in Executor.cpp).
  struct Impl;

private:
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace tp::exec

#endif // TP_EXECUTOR_EXECUTOR_H
