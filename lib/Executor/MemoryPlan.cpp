//===- MemoryPlan.cpp - one rank's tensor memory, before it runs ----------===//
//
// Program::memoryPlan: walks the instruction list as the interpreter
// (Interpreter.h) runs it, counting the bytes of every buffer it would
// allocate and free, from the slot types alone: the liveness plan's frees,
// parameters resident in a RankState, optimizer state, the operands an
// all_reduce or a reshape takes over instead of copying, the f32 copies of
// 16-bit operands and results around a kernel, and each kernel's own
// temporaries (its entry's workspace, KernelTable.h). What runtime::
// MemoryMeter measures of a run is what this predicts. No MLIR here.
//
//===----------------------------------------------------------------------===//

#include "HostBackend.h"
#include "KernelTable.h"
#include "OpcodeTable.h"
#include "ProgramData.h"

#include <algorithm>
#include <map>

using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;

namespace {

/// What a slot holds, for the breakdown of the peak.
enum class Kind : uint8_t { Activation, Parameter, Communication };

bool isCommunication(Opcode op) {
  return isCollective(op) || op == Opcode::Pack || op == Opcode::Unpack;
}

bool is16Bit(rt::DType t) {
  return t == rt::DType::BF16 || t == rt::DType::F16;
}

/// The simulation of one rank's runs.
class Simulation {
public:
  Simulation(const ProgramData &program, int runs)
      : P(program), runs(std::max(runs, 1)), resident(this->runs > 1),
        kind(P.slots.size(), Kind::Activation), counted(P.slots.size(), 0),
        isResident(P.slots.size(), false) {
    for (size_t s = 0; s < P.slots.size(); ++s)
      if (P.slots[s].staticBytes == 0 && !P.slots[s].shape.empty() &&
          std::find(P.slots[s].shape.begin(), P.slots[s].shape.end(), -1) !=
              P.slots[s].shape.end())
        ++plan.unevenValues;
  }

  MemoryPlan run() {
    for (int r = 0; r < std::min(runs, 2); ++r)
      runOnce(r);
    return plan;
  }

private:
  int64_t bytes(int s) const { return P.slots[s].staticBytes; }
  int64_t f32Bytes(int s) const {
    return P.slots[s].staticBytes /
           static_cast<int64_t>(rt::dtypeSize(P.slots[s].dtype)) * 4;
  }

  /// A candidate for the peak: what is live, plus \p workspace bytes of
  /// the running instruction's temporaries.
  void observe(int64_t workspace, int64_t instr) {
    int64_t total =
        activation + parameters + optimizer + communication + workspace;
    size_t stage = instr < 0 ? 0
                   : instr >= static_cast<int64_t>(P.instrs.size())
                       ? 4
                       : 1 + static_cast<size_t>(P.instrs[instr].phase);
    plan.stagePeakBytes[stage] = std::max(plan.stagePeakBytes[stage], total);
    if (total <= plan.peakBytes)
      return;
    plan.peakBytes = total;
    plan.peakParameterBytes = parameters;
    plan.peakOptimizerBytes = optimizer;
    plan.peakCommunicationBytes = communication;
    plan.peakWorkspaceBytes = workspace;
    plan.peakActivationBytes = activation;
    plan.peakInstruction = instr;
    plan.peakRun = currentRun;
  }

  int64_t &sumOf(Kind k) {
    switch (k) {
    case Kind::Parameter:
      return parameters;
    case Kind::Communication:
      return communication;
    case Kind::Activation:
      break;
    }
    return activation;
  }
  void define(int s, Kind k, int64_t n) {
    kind[s] = k;
    counted[s] = n;
    sumOf(k) += n;
  }
  void release(int s) {
    sumOf(kind[s]) -= counted[s];
    counted[s] = 0;
  }

  /// Whether \p in is the last reader of its operand \p i, read once, and
  /// the frame alone holds it (Frame::dyingOperand).
  bool dying(const Instruction &in, size_t i) const {
    int s = in.operands[i];
    return !isResident[s] &&
           std::count(in.operands.begin(), in.operands.end(), s) == 1 &&
           std::find(in.frees.begin(), in.frees.end(), s) != in.frees.end();
  }

  /// The buffers a collective holds besides its operand and result
  /// (runtime/TensorCollectives.h): blocks packed so that a dim other than
  /// 0 is contiguous per rank, or received before they are interleaved;
  /// an uneven one's padded pieces.
  int64_t collectiveWorkspace(const Instruction &in) const {
    int64_t n = P.groupSize(in.axes);
    if (n == 1)
      return 0;
    int64_t x = bytes(in.operands[0]), y = bytes(in.result);
    switch (in.op) {
    case Opcode::AllGather:
      return in.dim != 0 ? y : 0;
    case Opcode::ReduceScatter:
      return in.dim != 0 ? x : 0;
    case Opcode::AllToAll:
      return std::max(in.dim != 0 ? x : 0, in.concatDim != 0 ? y : 0);
    case Opcode::AllGatherUneven:
      // The padded gather, then its pieces cut and concatenated.
      return 2 * y;
    case Opcode::ReduceScatterUneven:
      // The padded operand, then its blocks.
      return 2 * x;
    default:
      return 0;
    }
  }

  void runOnce(int r) {
    currentRun = r;
    std::fill(counted.begin(), counted.end(), 0);
    std::fill(isResident.begin(), isResident.end(), false);
    activation = communication = 0;
    shared.clear();
    if (!resident) {
      parameters = optimizer = 0;
    }
    // Inputs: each generated (token ids as i64, masks and floats as f32)
    // or read whole, converted to its dtype, then cut to this rank's piece.
    for (size_t i = 0; i < P.inputs.size(); ++i) {
      int s = P.inputSlots[i];
      const InputInfo &in = P.inputs[i];
      int64_t numel = rt::shapeNumel(in.shape);
      int64_t global = numel * static_cast<int64_t>(rt::dtypeSize(in.dtype));
      rt::DType made = in.isTokens ? kTokenDType : rt::DType::F32;
      if (made != in.dtype)
        observe(numel * static_cast<int64_t>(rt::dtypeSize(made)) + global, -1);
      bool cut = std::any_of(in.placements.begin(), in.placements.end(),
                             [](const std::string &p) { return p[0] != 'R'; });
      observe(global + (cut ? bytes(s) : 0), -1);
      define(s, Kind::Activation, bytes(s));
      if (r == 0)
        plan.inputBytes += bytes(s);
    }
    observe(0, -1);
    for (size_t i = 0; i < P.instrs.size(); ++i)
      step(P.instrs[i], static_cast<int64_t>(i));
    // The results leave the run: the last run copies out the resident
    // parameters it returns (RankState::setReturnsUpdated).
    int64_t copies = 0;
    if (r == std::min(runs, 2) - 1)
      for (int s : P.resultSlots)
        if (isResident[s])
          copies += bytes(s);
    observe(copies, static_cast<int64_t>(P.instrs.size()));
    parameters -= replaced;
    replaced = 0;
    if (r == 0)
      for (size_t i = 0; i < P.resultSlots.size(); ++i)
        if (!P.results[i].gradOf.empty())
          plan.gradientBytes += bytes(P.resultSlots[i]);
  }

  void step(const Instruction &in, int64_t index) {
    int out = in.result;
    int64_t workspace = 0;
    switch (in.op) {
    case Opcode::Param:
    case Opcode::ParamChunk: {
      if (currentRun == 0)
        plan.parameterBytes += bytes(out);
      if (resident && currentRun > 0) {
        isResident[out] = true; // loaded by the first run
        break;
      }
      // Generated in f32 (or read in the file's dtype, as large or smaller),
      // then rounded to the parameter's dtype.
      if (P.params[in.param].dtype != rt::DType::F32)
        observe(f32Bytes(out) + bytes(out), index);
      define(out, Kind::Parameter, bytes(out));
      isResident[out] = resident;
      break;
    }
    case Opcode::SGDUpdate:
    case Opcode::AdamWUpdate: {
      int p = in.operands[0];
      bool inPlace =
          dying(in, 0) ||
          (isResident[p] &&
           std::count(in.operands.begin(), in.operands.end(), p) == 1 &&
           std::find(in.frees.begin(), in.frees.end(), p) != in.frees.end());
      bool momentum = in.hyper.size() > 1 && in.hyper[1] != 0;
      // A 16-bit parameter is stepped in f32 copies of it, its gradient and
      // its state (runtime/Optimizers.cpp).
      if (is16Bit(P.slots[p].dtype))
        workspace = f32Bytes(p) * (in.op == Opcode::AdamWUpdate ? 4
                                   : momentum                   ? 3
                                                                : 2);
      if (currentRun == 0 || !resident) {
        int64_t state = in.op == Opcode::AdamWUpdate ? 2 * bytes(p)
                        : momentum                   ? bytes(p)
                                                     : 0;
        optimizer += state;
        if (currentRun == 0)
          plan.optimizerBytes += state;
      }
      if (inPlace) {
        kind[out] = Kind::Parameter;
        isResident[out] = isResident[p];
        // The parameter's bytes move to the result.
        counted[out] = counted[p];
        counted[p] = 0;
      } else {
        define(out, Kind::Parameter, bytes(p));
        isResident[out] = resident;
        if (isResident[p])
          replaced += bytes(p);
      }
      break;
    }
    case Opcode::AllReduce:
      if (dying(in, 0)) {
        // In place on the operand's buffer.
        int s = in.operands[0];
        kind[out] = Kind::Communication;
        counted[out] = counted[s];
        sumOf(kind[s]) -= counted[s];
        counted[s] = 0;
        communication += counted[out];
        break;
      }
      define(out, Kind::Communication, bytes(out));
      break;
    case Opcode::Kernel: {
      const KernelEntry<HostBackend> *entry = HostBackend::kernels()[in.kernel];
      const KernelMemory *memory = entry ? &entry->memory : nullptr;
      if (memory && memory->reusesDyingOperand && in.widen.empty() &&
          dying(in, 0)) {
        int s = in.operands[0];
        kind[out] = kind[s];
        counted[out] = counted[s];
        counted[s] = 0;
        break;
      }
      // f32 copies of the 16-bit operands while the kernel runs, its own
      // temporaries, then its f32 result rounded to a 16-bit one.
      for (int s : in.widen)
        workspace += f32Bytes(s);
      bool rounds = is16Bit(P.slots[out].dtype);
      if (memory && memory->sharedKey) {
        // One pass computes its group's results; the others wait in the
        // frame for the instructions that take them.
        std::vector<int64_t> &held = shared[memory->sharedKey(in)];
        size_t m = memory->sharedMember;
        if (held.size() <= m || held[m] < 0) {
          for (int64_t b : held)
            activation -= std::max<int64_t>(b, 0);
          held = memory->sharedBytes(in, P);
          for (int64_t b : held)
            activation += std::max<int64_t>(b, 0);
          if (memory->workspace)
            workspace += memory->workspace(in, P);
        }
        observe(workspace, index);
        // The member taken becomes the result below.
        activation -= held[m];
        int64_t taken = held[m];
        held[m] = -1;
        workspace = 0;
        if (rounds) {
          observe(taken + bytes(out), index);
        }
        define(out, Kind::Activation, bytes(out));
        break;
      }
      if (memory && memory->workspace)
        workspace += memory->workspace(in, P);
      if (rounds) {
        observe(workspace + f32Bytes(out), index);
        workspace = f32Bytes(out);
      }
      define(out, Kind::Activation, bytes(out));
      break;
    }
    default:
      workspace = collectiveWorkspace(in);
      define(out,
             isCommunication(in.op) ? Kind::Communication : Kind::Activation,
             bytes(out));
      break;
    }
    observe(workspace, index);
    for (int s : in.frees)
      if (!isResident[s])
        release(s);
  }

  const ProgramData &P;
  int runs;
  bool resident;
  std::vector<Kind> kind;
  /// The bytes each live slot adds (0: resident, or taken over).
  std::vector<int64_t> counted;
  std::vector<bool> isResident;
  /// Resident parameters an update replaced by a copy: dropped when the
  /// run ends.
  int64_t replaced = 0;
  int64_t activation = 0, parameters = 0, optimizer = 0, communication = 0;
  /// The results of shared passes not taken yet, by the pass's key (bytes;
  /// -1: taken or not computed).
  std::map<std::vector<int>, std::vector<int64_t>> shared;
  int currentRun = 0;
  MemoryPlan plan;
};

} // namespace

MemoryPlan Program::memoryPlan(int runs) const {
  return Simulation(*data, runs).run();
}
