//===- Executor.h - run a partitioned tp program on N ranks -----*- C++ -*-===//
//
// The bridge between MLIR and the runtime: compiles a partitioned SPMD
// function (or an unparallelized model function) once into a flat
// instruction list with a liveness plan (tp/Executor/Instruction.h), which
// the host interpreter runs on any rank with a Communicator (and the device
// one, DeviceExecutor.h, on GPUs).
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_EXECUTOR_H
#define TP_EXECUTOR_EXECUTOR_H

#include "tp/Executor/CostModel.h"
#include "tp/Executor/DataSource.h"
#include "tp/Executor/Instruction.h"
#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/Tensor.h"

#include <array>
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

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::tp::exec {

/// How a function result is laid out across the mesh.
struct ResultLayout {
  std::vector<int64_t> globalShape;
  /// One entry per mesh axis: "R", "S<d>", "I<d>" (an inner shard, split
  /// inside the "S<d>" pieces: runtime::placementBox) or
  /// "P<sum|avg|max|min>".
  std::vector<std::string> placements;
  /// PyTorch would return this result as each rank's local tensor
  /// (use_local_output), not as a DTensor; assembleResult still gives the
  /// global value the pieces stand for.
  bool local = false;
  /// A training step's result: the FQN of the parameter it is the gradient
  /// of, or the updated value of ("" otherwise).
  std::string gradOf, updated;
};

/// The collectives of one run by the phase of a training step they belong
/// to ("forward", "backward", "optimizer"; Instruction::phase), each by
/// collective name as the communicators counted them.
using PhaseCounts = std::map<std::string, std::map<std::string, int64_t>>;

namespace detail {
struct ProgramData;
struct RankStateImpl;
} // namespace detail

struct StateShard;

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
  /// Bytes of the optimizer state (momentum buffers, moments) of a training
  /// step's updates.
  int64_t optimizerBytes() const;
  /// Whether later runs of a training step return the updated parameters
  /// (the results marked tp.updated): on by default. A training loop that
  /// reads them after its last step only turns it off for the others; the
  /// results are then empty tensors, and the step copies no parameter out
  /// (they stay resident here either way).
  void setReturnsUpdated(bool returns);

private:
  friend class Program;
  friend class DeviceProgram;
  std::unique_ptr<detail::RankStateImpl> impl;
};

/// One rank's tensor memory, predicted from a compiled program without
/// running it or allocating its tensors (Program::memoryPlan). Sizes are of
/// one rank's local pieces; values with uneven (rank-dependent) dims are
/// not counted (unevenValues says how many).
struct MemoryPlan {
  /// What the rank holds, in all: its parameter shards, the gradients a
  /// training step returns (results marked tp.grad_of), the optimizer state
  /// (AdamW: exp_avg and exp_avg_sq, SGD with momentum: momentum_buffer,
  /// each of its parameter shard's shape and dtype) and its pieces of the
  /// inputs.
  int64_t parameterBytes = 0;
  int64_t gradientBytes = 0;
  int64_t optimizerBytes = 0;
  int64_t inputBytes = 0;
  /// The predicted peak over the runs (see Program::memoryPlan), and what
  /// is live at that moment by kind: parameters (resident between steps,
  /// or loaded and not yet freed), optimizer state, communication (the
  /// results of collectives and of the packs of buckets, before their
  /// readers free them), workspace (the running instruction's temporaries:
  /// f32 copies of 16-bit operands and results, and its kernel's own), and
  /// activations (everything else: inputs, activations, gradients).
  int64_t peakBytes = 0;
  int64_t peakParameterBytes = 0;
  int64_t peakOptimizerBytes = 0;
  int64_t peakCommunicationBytes = 0;
  int64_t peakWorkspaceBytes = 0;
  int64_t peakActivationBytes = 0;
  /// The instruction running at the peak (-1: before the first, as the
  /// inputs are read; the number of instructions: after the last, as the
  /// results are handed out), and the run it falls in (0: the first; 1: a
  /// later one).
  int64_t peakInstruction = -1;
  int peakRun = 0;
  /// The largest total at each stage of a run: the inputs read, the
  /// forward, the backward and the optimizer's instructions, the results
  /// handed out (peakBytes is their maximum). Each grows linearly with a
  /// model's repeated layers where the peak may move from one to another
  /// (tp-plan extrapolates each).
  std::array<int64_t, 5> stagePeakBytes{};
  /// Values whose size depends on the rank (uneven shards), not counted.
  int64_t unevenValues = 0;
};

/// A compiled program: the instruction list, the types of its slots, the
/// liveness plan and what it needs from a DataSource. Thread-safe to run on
/// several ranks at once.
class Program {
public:
  ~Program();
  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;

  /// Compiles `func`. Throws std::runtime_error naming the op that cannot
  /// be executed.
  static Program compile(mlir::func::FuncOp func);

  /// Runs the program as rank `comm.rank()` of a mesh of `meshShape`
  /// (row-major rank numbering). Returns this rank's local results and, if
  /// asked, the peak bytes of live tensors this rank held (resident
  /// parameters included) and the program's collectives in this run on this
  /// rank (on `comm` and on the per-axis sub-communicators; the splits
  /// themselves not counted), and the same calls by phase (`byPhase`,
  /// every phase present). With a `state`, parameters and sub-communicators
  /// are kept between runs (see RankState). With `instructionSeconds`, the
  /// wall time of each instruction on this rank (from its start to the
  /// next one's, waits for the collectives it reads included; the last
  /// one's includes the wait for the async collectives nobody read) is
  /// added to its entry (the vector is sized to the instructions first),
  /// so that a caller may sum several runs.
  std::vector<Tensor>
  run(runtime::Communicator &comm, const DataSource &data,
      int64_t *measuredPeakBytes = nullptr,
      runtime::CollectiveStats *stats = nullptr, RankState *state = nullptr,
      PhaseCounts *byPhase = nullptr,
      std::vector<double> *instructionSeconds = nullptr) const;

  const std::vector<int64_t> &meshShape() const;
  /// The number of ranks of the mesh (the product of meshShape(), which
  /// the mesh verifier keeps within int64_t).
  int64_t numRanks() const;
  const std::vector<ParamInfo> &params() const;
  const std::vector<InputInfo> &inputs() const;
  const std::vector<ResultLayout> &results() const;
  /// Peak bytes of live tensors on one rank, from the static shapes and the
  /// liveness plan, before running (parameters included while they are
  /// live). Uneven (dynamic) dims count as zero here; `run` measures them.
  int64_t peakBytes() const;
  /// The predicted tensor memory of one rank running the program `runs`
  /// times with one RankState, as tp-run and the Launcher run it (the
  /// parameters and optimizer state stay resident between runs; one run
  /// keeps neither): every buffer the interpreter allocates, kernel
  /// temporaries included, what runtime::MemoryMeter measures of a run.
  /// Costs one pass over the instructions; allocates nothing of the
  /// program's sizes.
  MemoryPlan memoryPlan(int runs = 1) const;
  /// The predicted time of one run on one rank of \p hardware
  /// (tp/Executor/CostModel.h): a training loop's steady state, with the
  /// parameters resident. Costs one pass over the instructions.
  CostEstimate estimateCost(const HardwareProfile &hardware) const;
  /// Number of instructions.
  size_t size() const;
  const std::vector<Instruction> &instructions() const;
  /// The type of each value slot, indexed by slot.
  const std::vector<SlotType> &slotTypes() const;
  /// The slots of the inputs and of the results, in argument and result
  /// order.
  const std::vector<int> &inputSlots() const;
  const std::vector<int> &resultSlots() const;

  /// Prints the program, one instruction per line, in a stable text form:
  /// a header line (function, mesh, slots, static peak bytes), the inputs
  /// (`%0 = input 'x' : f32[4x8] {placements = [R]}`), the instructions
  /// (`%3 = linear 'net1' %0, %1, %2 : f32[4x8] // frees %0, %1`, static
  /// arguments in braces) and `return %5`.
  void print(llvm::raw_ostream &os) const;

  /// The full (global) value of a parameter or input, from `data`, in the
  /// program's dtype for it.
  static Tensor globalParam(const ParamInfo &p, const DataSource &data);
  static Tensor globalInput(const InputInfo &in, const DataSource &data);

  /// The training state rank \p rank holds, as checkpoints save it
  /// (tp/Executor/Checkpoint.h): its piece of every parameter the program
  /// loads and of each optimizer update's state, where each lies in the
  /// global tensor and whether this rank writes it. With \p state (a host
  /// rank's, after a training step), their current values too; without,
  /// only where they lie (any rank's, for the checkpoint's metadata).
  /// Throws std::runtime_error when the state does not hold them.
  std::vector<StateShard> stateShards(int64_t rank,
                                      const RankState *state = nullptr) const;

  /// Reassembles the global value of result `i` from every rank's local
  /// result (indexed by rank), in the results' dtype (partial sums of 16-bit
  /// results are added in f32 and rounded once; integer results are
  /// assembled exactly).
  Tensor assembleResult(size_t i, const std::vector<Tensor> &perRank) const;

private:
  friend class DeviceProgram;
  explicit Program(std::shared_ptr<const detail::ProgramData> data);
  /// Shared with the DevicePrograms made from this program.
  std::shared_ptr<const detail::ProgramData> data;
};

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_EXECUTOR_H
