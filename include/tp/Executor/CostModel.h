//===- CostModel.h - predicted step time of a compiled program --*- C++ -*-===//
//
// The cost model of tp-plan: what one run of a compiled program (a forward
// pass, a training step) costs on one rank of some hardware, predicted from
// the instruction list alone, without running it.
//
//   compute      each kernel's time on a roofline: its floating-point
//                operations at the hardware's GEMM rate (matrix products)
//                or vector rate (the rest) and its exps at the
//                transcendental rate, or the bytes it reads and writes at
//                the memory bandwidth, whichever is slower, plus a fixed
//                cost per instruction (dispatch and allocation);
//   collectives  the alpha-beta model NCCL's tests use: steps * latency +
//                bus bytes / bus bandwidth, with the ring's steps and bus
//                bytes per collective (all_reduce 2(n-1) steps and
//                2(n-1)/n of its bytes; all_gather and reduce_scatter n-1
//                and (n-1)/n of the full tensor's; all_to_all n-1 and
//                (n-1)/n; broadcast ceil(log2 n) and all of it), on the
//                intra-node link or, for a group whose ranks span nodes,
//                the inter-node one;
//   overlap      the executor's own schedule: an async collective
//                (Instruction::async) runs on the rank's communication
//                stream while the instructions before its first reader
//                compute, one at a time in program order; a reader waits
//                for it.
//
// Profiles of hardware are JSON (HardwareProfile::fromJSON); tp-plan ships
// built-in ones with their sources and measures this machine's. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_COSTMODEL_H
#define TP_EXECUTOR_COSTMODEL_H

#include "tp/Executor/Instruction.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::tp::exec {

/// A link's alpha-beta parameters.
struct LinkProfile {
  /// Seconds per step of a collective's algorithm (alpha).
  double latency = 0;
  /// Bus bandwidth in bytes per second (1 / beta), as NCCL's tests define
  /// it: what a collective achieves, whatever its algorithm moves.
  double bandwidth = 0;
  /// Seconds every collective of a group smaller than the program's ranks
  /// costs besides its steps (a 2-D mesh's axis groups): where ranks sleep
  /// at a collective's rendezvous instead of spinning (more rank threads
  /// than cores), the ranks outside the group take the cores in turn with
  /// the group's, and each call waits for them.
  double callLatency = 0;
};

/// What one rank of some hardware achieves. Rates are per rank, in units
/// per second.
struct HardwareProfile {
  std::string name;
  /// Where the numbers come from (a datasheet, a calibration run).
  std::string source;
  /// FLOP/s of matrix products computed in f32 (every host kernel
  /// computes in f32), and in 16 bits (0: as f32).
  double matmulFlops = 0;
  double matmulFlops16 = 0;
  /// FLOP/s of the other kernels.
  double vectorFlops = 0;
  /// Calls per second of exp, log, tanh and erf (softmax's, attention's,
  /// the activations'); 0: one flop each, at vectorFlops.
  double transcendentalRate = 0;
  /// Bytes per second a kernel reads and writes memory at.
  double memoryBandwidth = 0;
  /// Seconds every instruction costs besides its work.
  double instructionOverhead = 0;
  /// Seconds every library matrix product (a GEMM call) costs besides its
  /// flops: a kernel of many small products (attention's, per head) pays
  /// it per product.
  double matmulCallOverhead = 0;
  /// Ranks running on the cores of one machine (the threads backend): with
  /// more ranks than this many cores, each computes at cores / ranks of
  /// the rates above. 0: every rank has its own processor.
  int64_t sharedCores = 0;
  /// The link between the ranks of a node, and between nodes.
  LinkProfile intraNode;
  LinkProfile interNode;
  /// The link when more ranks than sharedCores run (threads that block on
  /// each other instead of spinning); unset (bandwidth 0): intraNode.
  LinkProfile oversubscribed;
  /// Ranks per node (consecutive rank numbers); 0: one node holds them all.
  int64_t ranksPerNode = 0;
  /// Whether an async collective runs while the rank computes (a
  /// communication stream, or the communication thread): with sharedCores,
  /// only for a program whose ranks each have a second core for it (2 x
  /// ranks <= sharedCores), where the executor gives them one.
  bool overlap = true;

  /// Parses a profile from JSON text; on failure returns false and sets
  /// \p error to what is wrong and where (a key's path).
  static bool fromJSON(std::string_view text, HardwareProfile &profile,
                       std::string &error);
  /// The profile as JSON (keys sorted), which fromJSON reads back.
  std::string toJSON() const;
  /// The built-in profile named \p name, or false. builtinNames() lists
  /// them.
  static bool builtin(std::string_view name, HardwareProfile &profile);
  static std::vector<std::string> builtinNames();
};

/// The predicted cost of one part of a run.
struct CostBreakdown {
  /// Seconds of the rank's own compute (kernels, copies, updates).
  double computeSeconds = 0;
  /// Seconds the collectives take, wherever they run.
  double communicationSeconds = 0;
  /// Seconds the rank waits on collectives: the synchronous ones, and
  /// what is left of an async one when its reader needs it.
  double exposedSeconds = 0;
  double flops = 0;
  /// Bytes each rank feeds into collectives (their operands).
  int64_t communicationBytes = 0;
  int64_t collectives = 0;
};

/// One instruction's predicted cost.
struct InstructionCost {
  double seconds = 0;
  double flops = 0;
  /// Bytes read and written (kernels, copies) or fed into the collective.
  double bytes = 0;
  bool communication = false;
  /// Where it ran on the predicted timeline (seconds from the start).
  double start = 0, end = 0;
};

/// The predicted cost of one run of a program on one rank.
struct CostEstimate {
  /// The run's predicted wall time: when the rank's last instruction ends
  /// and every collective it started has finished.
  double stepSeconds = 0;
  CostBreakdown total;
  /// By phase ("forward", "backward", "optimizer"), those that occur.
  std::map<std::string, CostBreakdown> phases;
  /// By module, in the order the program first reaches them (moduleGroup).
  std::vector<std::pair<std::string, CostBreakdown>> modules;
  /// By instruction, indexed like Program::instructions().
  std::vector<InstructionCost> instructions;
  /// The compute rate factor applied for ranks sharing cores (1: none).
  double coreShare = 1;
  /// Whether the program's async collectives overlap its compute on this
  /// hardware (HardwareProfile::overlap).
  bool overlap = false;
};

/// The group a module's costs are reported under: its FQN cut after the
/// component that follows the first number ("layers.0.attention.wq" ->
/// "layers.0.attention"), so that one layer's sub-modules report
/// together; a name without a number is its own group. "" stays "".
std::string moduleGroup(std::string_view fqn);

/// The module each of \p instrs (a program's instructions) is reported
/// under, in CostEstimate::modules and in tp-run --profile: its module's
/// group (moduleGroup; an optimizer update, its parameter's module), else
/// the one before's in its phase (a reshape between a module's ops), else
/// "<root>".
std::vector<std::string>
instructionModules(const std::vector<Instruction> &instrs);

/// Seconds in the unit that suits them: "1.234 ms", "12.500 us", "2.000 s".
std::string formatSeconds(double seconds);

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_COSTMODEL_H
