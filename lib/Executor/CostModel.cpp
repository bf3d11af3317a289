//===- CostModel.cpp - predicted step time of a compiled program ----------===//
//
// Program::estimateCost and the hardware profiles (tp/Executor/CostModel.h):
// walks the instruction list once, as the interpreter runs it, timing each
// instruction from its slot types and its kernel's cost (KernelTable.h's
// KernelCost), and places it on two timelines, the rank's and its
// communication stream's. No MLIR here.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/CostModel.h"

#include "HostBackend.h"
#include "KernelTable.h"
#include "OpcodeTable.h"
#include "ProgramData.h"

#include "tp/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;
namespace json = ::mlir::tp::json;

//===----------------------------------------------------------------------===//
// Profiles
//===----------------------------------------------------------------------===//

namespace {

/// One number of a profile: its key, where it goes, whether it may be 0.
struct NumberKey {
  const char *key;
  double HardwareProfile::*field;
  bool required;
};

constexpr NumberKey kNumbers[] = {
    {"matmul_flops", &HardwareProfile::matmulFlops, true},
    {"matmul_flops_16bit", &HardwareProfile::matmulFlops16, false},
    {"vector_flops", &HardwareProfile::vectorFlops, true},
    {"transcendental_rate", &HardwareProfile::transcendentalRate, false},
    {"memory_bandwidth", &HardwareProfile::memoryBandwidth, true},
    {"instruction_overhead", &HardwareProfile::instructionOverhead, false},
    {"matmul_call_overhead", &HardwareProfile::matmulCallOverhead, false},
};

bool readNumber(const json::Value &v, const std::string &path, double &out,
                bool positive, std::string &error) {
  std::optional<double> d = v.getAsNumber();
  if (!d || !std::isfinite(*d) || *d < 0 || (positive && *d == 0)) {
    error = "'" + path + "' must be a " +
            (positive ? "positive" : "non-negative") + " number";
    return false;
  }
  out = *d;
  return true;
}

bool readLink(const json::Value &v, const std::string &path, LinkProfile &link,
              std::string &error) {
  const json::Object *o = v.getAsObject();
  if (!o) {
    error = "'" + path + "' must be an object with \"latency\" and " +
            "\"bandwidth\"";
    return false;
  }
  bool seenBandwidth = false;
  for (const auto &[key, value] : *o) {
    if (key == "latency") {
      if (!readNumber(value, path + ".latency", link.latency, false, error))
        return false;
    } else if (key == "bandwidth") {
      if (!readNumber(value, path + ".bandwidth", link.bandwidth, true, error))
        return false;
      seenBandwidth = true;
    } else if (key == "call_latency") {
      if (!readNumber(value, path + ".call_latency", link.callLatency, false,
                      error))
        return false;
    } else {
      error = "unknown key '" + path + "." + key +
              "' (expected latency, bandwidth, call_latency)";
      return false;
    }
  }
  if (!seenBandwidth) {
    error = "'" + path + "' has no \"bandwidth\"";
    return false;
  }
  return true;
}

void writeLink(json::Writer &w, const char *key, const LinkProfile &link) {
  w.key(key);
  w.objectBegin();
  w.member("bandwidth", link.bandwidth);
  if (link.callLatency > 0)
    w.member("call_latency", link.callLatency);
  w.member("latency", link.latency);
  w.objectEnd();
}

/// A data-center GPU from its datasheet: \p gemm32 / \p gemm16 dense f32
/// and bf16 FLOP/s, \p vector f32 FLOP/s, \p sms streaming
/// multiprocessors at \p clock Hz (16 special-function units each, as the
/// Ampere and Hopper whitepapers give: one exp per unit and cycle), \p
/// memory bytes/s, \p nvlink bytes/s in one direction, \p nic bytes/s of
/// inter-node bandwidth per GPU. What a step achieves of each is assumed:
/// 70% of the GEMM peaks, 80% of the memory and link bandwidths (NCCL's
/// bus bandwidth on a full node), 1.5 us per ring step within a node and
/// 5 us between nodes, 5 us per instruction (a launch and an allocation).
HardwareProfile datasheetGPU(const char *name, const char *source,
                             double gemm32, double gemm16, double vector,
                             double sms, double clock, double memory,
                             double nvlink, double nic) {
  HardwareProfile p;
  p.name = name;
  p.source = source;
  p.matmulFlops = 0.7 * gemm32;
  p.matmulFlops16 = 0.7 * gemm16;
  p.vectorFlops = vector;
  p.transcendentalRate = 16 * sms * clock;
  p.memoryBandwidth = 0.8 * memory;
  p.instructionOverhead = 5e-6;
  p.intraNode = {1.5e-6, 0.8 * nvlink};
  p.interNode = {5e-6, 0.8 * nic};
  p.ranksPerNode = 8;
  p.overlap = true;
  return p;
}

std::vector<HardwareProfile> builtinProfiles() {
  return {
      datasheetGPU("h100-sxm",
                   "NVIDIA H100 SXM5 datasheet: FP32 67 TFLOP/s, BF16 dense "
                   "989 TFLOP/s, 132 SMs at 1.98 GHz, HBM3 3.35 TB/s, NVLink "
                   "900 GB/s (450 each "
                   "way), 8x 400 Gb/s NDR InfiniBand per 8-GPU node; "
                   "achieved fractions assumed (docs/planner.md)",
                   67e12, 989e12, 67e12, 132, 1.98e9, 3.35e12, 450e9, 50e9),
      datasheetGPU("h200-sxm",
                   "NVIDIA H200 SXM datasheet: FP32 67 TFLOP/s, BF16 dense "
                   "989 TFLOP/s, 132 SMs at 1.98 GHz, HBM3e 4.8 TB/s, NVLink "
                   "900 GB/s (450 each "
                   "way), 8x 400 Gb/s NDR InfiniBand per 8-GPU node; "
                   "achieved fractions assumed (docs/planner.md)",
                   67e12, 989e12, 67e12, 132, 1.98e9, 4.8e12, 450e9, 50e9),
      datasheetGPU("a100-sxm",
                   "NVIDIA A100 SXM4 80GB datasheet: FP32 19.5 TFLOP/s, BF16 "
                   "dense 312 TFLOP/s, 108 SMs at 1.41 GHz, HBM2e 2.039 TB/s, "
                   "NVLink 600 GB/s (300 "
                   "each way), 8x 200 Gb/s HDR InfiniBand per 8-GPU node; "
                   "achieved fractions assumed (docs/planner.md)",
                   19.5e12, 312e12, 19.5e12, 108, 1.41e9, 2.039e12, 300e9,
                   25e9),
  };
}

} // namespace

bool HardwareProfile::fromJSON(std::string_view text, HardwareProfile &profile,
                               std::string &error) {
  json::ParseResult parsed = json::parse(text);
  if (!parsed) {
    error = parsed.error->message;
    return false;
  }
  const json::Object *o = parsed.value.getAsObject();
  if (!o) {
    error = "a hardware profile is a JSON object";
    return false;
  }
  HardwareProfile p;
  std::map<std::string, bool> seen;
  for (const auto &[key, value] : *o) {
    seen[key] = true;
    const NumberKey *number = nullptr;
    for (const NumberKey &n : kNumbers)
      if (key == n.key)
        number = &n;
    if (number) {
      if (!readNumber(value, key, p.*(number->field), number->required, error))
        return false;
    } else if (key == "name" || key == "source") {
      const std::string *s = value.getAsString();
      if (!s) {
        error = "'" + key + "' must be a string";
        return false;
      }
      (key == "name" ? p.name : p.source) = *s;
    } else if (key == "shared_cores" || key == "ranks_per_node") {
      std::optional<int64_t> i = value.getAsInteger();
      if (!i || *i < 0) {
        error = "'" + key + "' must be a non-negative integer";
        return false;
      }
      (key == "shared_cores" ? p.sharedCores : p.ranksPerNode) = *i;
    } else if (key == "intra_node") {
      if (!readLink(value, key, p.intraNode, error))
        return false;
    } else if (key == "inter_node") {
      if (!readLink(value, key, p.interNode, error))
        return false;
    } else if (key == "oversubscribed") {
      if (!readLink(value, key, p.oversubscribed, error))
        return false;
    } else if (key == "overlap") {
      std::optional<bool> b = value.getAsBoolean();
      if (!b) {
        error = "'overlap' must be true or false";
        return false;
      }
      p.overlap = *b;
    } else {
      error = "unknown key '" + key +
              "' (expected name, source, matmul_flops, matmul_flops_16bit, "
              "vector_flops, transcendental_rate, memory_bandwidth, "
              "instruction_overhead, shared_cores, intra_node, inter_node, "
              "oversubscribed, ranks_per_node, overlap)";
      return false;
    }
  }
  for (const char *key :
       {"matmul_flops", "vector_flops", "memory_bandwidth", "intra_node"})
    if (!seen.count(key)) {
      error = std::string("missing key '") + key + "'";
      return false;
    }
  if (p.ranksPerNode > 0 && !seen.count("inter_node")) {
    error = "'ranks_per_node' needs 'inter_node', the link between nodes";
    return false;
  }
  profile = std::move(p);
  return true;
}

std::string HardwareProfile::toJSON() const {
  std::string out;
  json::Writer w(out, 2);
  w.objectBegin();
  w.member("instruction_overhead", instructionOverhead);
  if (ranksPerNode > 0)
    writeLink(w, "inter_node", interNode);
  writeLink(w, "intra_node", intraNode);
  if (matmulCallOverhead > 0)
    w.member("matmul_call_overhead", matmulCallOverhead);
  w.member("matmul_flops", matmulFlops);
  if (matmulFlops16 > 0)
    w.member("matmul_flops_16bit", matmulFlops16);
  w.member("memory_bandwidth", memoryBandwidth);
  w.member("name", name);
  w.member("overlap", overlap);
  if (oversubscribed.bandwidth > 0)
    writeLink(w, "oversubscribed", oversubscribed);
  if (ranksPerNode > 0)
    w.member("ranks_per_node", ranksPerNode);
  w.member("shared_cores", sharedCores);
  w.member("source", source);
  if (transcendentalRate > 0)
    w.member("transcendental_rate", transcendentalRate);
  w.member("vector_flops", vectorFlops);
  w.objectEnd();
  out += "\n";
  return out;
}

bool HardwareProfile::builtin(std::string_view name, HardwareProfile &profile) {
  for (HardwareProfile &p : builtinProfiles())
    if (p.name == name) {
      profile = std::move(p);
      return true;
    }
  return false;
}

std::vector<std::string> HardwareProfile::builtinNames() {
  std::vector<std::string> names;
  for (const HardwareProfile &p : builtinProfiles())
    names.push_back(p.name);
  return names;
}

std::vector<std::string>
mlir::tp::exec::instructionModules(const std::vector<Instruction> &instrs) {
  std::vector<std::string> out(instrs.size());
  std::string module = "<root>";
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Instruction &in = instrs[i];
    // Its module: the IR's (an optimizer update: its parameter's), else
    // the one before in its phase (a reshape or an add between a module's
    // ops belongs to it; a gradient bucket's pack and all_reduce, before
    // any update, to the root).
    std::string own = in.module;
    if (in.op == Opcode::SGDUpdate || in.op == Opcode::AdamWUpdate) {
      size_t dot = in.name.rfind('.');
      own = dot == std::string::npos ? in.name : in.name.substr(0, dot);
    }
    if (!own.empty())
      module = moduleGroup(own);
    else if (i > 0 && instrs[i - 1].phase != in.phase)
      module = "<root>";
    out[i] = module;
  }
  return out;
}

std::string mlir::tp::exec::formatSeconds(double s) {
  char text[64];
  if (s >= 1)
    std::snprintf(text, sizeof text, "%.3f s", s);
  else if (s >= 1e-3)
    std::snprintf(text, sizeof text, "%.3f ms", s * 1e3);
  else
    std::snprintf(text, sizeof text, "%.3f us", s * 1e6);
  return text;
}

std::string mlir::tp::exec::moduleGroup(std::string_view fqn) {
  size_t start = 0;
  bool afterNumber = false;
  while (start <= fqn.size()) {
    size_t dot = fqn.find('.', start);
    size_t end = dot == std::string_view::npos ? fqn.size() : dot;
    std::string_view part = fqn.substr(start, end - start);
    if (afterNumber)
      return std::string(fqn.substr(0, end));
    afterNumber = !part.empty() &&
                  std::all_of(part.begin(), part.end(),
                              [](char c) { return c >= '0' && c <= '9'; });
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  return std::string(fqn);
}

//===----------------------------------------------------------------------===//
// The estimate
//===----------------------------------------------------------------------===//

namespace {

bool is16Bit(rt::DType t) {
  return t == rt::DType::BF16 || t == rt::DType::F16;
}

class Estimator {
public:
  Estimator(const ProgramData &program, const HardwareProfile &hw)
      : P(program), hw(hw) {
    int64_t ranks = P.numRanks();
    if (hw.sharedCores > 0 && ranks > hw.sharedCores)
      share = static_cast<double>(hw.sharedCores) / static_cast<double>(ranks);
    // Ranks sharing cores overlap only where each has a second core for
    // its communication thread, as the executor decides.
    overlap =
        hw.overlap && (hw.sharedCores <= 0 || 2 * ranks <= hw.sharedCores);
  }

  CostEstimate run() {
    CostEstimate est;
    est.coreShare = share;
    est.overlap = overlap;
    est.instructions.resize(P.instrs.size());
    // When each slot's async collective ends.
    std::map<int, double> ready;
    double now = 0, stream = 0;
    std::vector<std::string> modules = instructionModules(P.instrs);
    std::map<std::string, size_t> moduleIndex;
    for (size_t i = 0; i < P.instrs.size(); ++i) {
      const Instruction &in = P.instrs[i];
      InstructionCost &c = est.instructions[i];
      const std::string &module = modules[i];
      auto [it, inserted] = moduleIndex.try_emplace(module, est.modules.size());
      if (inserted)
        est.modules.push_back({module, {}});
      CostBreakdown &ofModule = est.modules[it->second].second;
      CostBreakdown &ofPhase = est.phases[phaseName(in.phase)];

      double waited = 0;
      for (int s : in.awaits) {
        auto r = ready.find(s);
        if (r != ready.end() && r->second > now) {
          waited += r->second - now;
          now = r->second;
        }
      }
      cost(in, c);
      for (CostBreakdown *b : {&est.total, &ofPhase, &ofModule}) {
        b->exposedSeconds += waited;
        b->flops += c.flops;
        if (c.communication) {
          b->communicationSeconds += c.seconds;
          b->communicationBytes += static_cast<int64_t>(c.bytes);
          ++b->collectives;
        } else {
          b->computeSeconds += c.seconds;
        }
      }
      if (c.communication && in.async && overlap) {
        // On the stream: after the rank reaches it and after the stream's
        // earlier collectives.
        c.start = std::max(now, stream);
        c.end = c.start + c.seconds;
        stream = c.end;
        ready[in.result] = c.end;
        continue;
      }
      c.start = now;
      c.end = now + c.seconds;
      now = c.end;
      if (c.communication)
        for (CostBreakdown *b : {&est.total, &ofPhase, &ofModule})
          b->exposedSeconds += c.seconds;
    }
    // The run ends when the stream does too; what is left is exposed in
    // the last instruction's phase and module.
    if (stream > now && !P.instrs.empty()) {
      double tail = stream - now;
      est.total.exposedSeconds += tail;
      est.phases[phaseName(P.instrs.back().phase)].exposedSeconds += tail;
      est.modules.back().second.exposedSeconds += tail;
      now = stream;
    }
    est.stepSeconds = now;
    return est;
  }

private:
  double bytesOf(int s) const {
    return static_cast<double>(P.slots[s].staticBytes);
  }
  double elementsOf(int s) const {
    return bytesOf(s) / static_cast<double>(rt::dtypeSize(P.slots[s].dtype));
  }
  /// Bytes the instruction reads and writes.
  double movedBytes(const Instruction &in) const {
    double b = bytesOf(in.result);
    for (int s : in.operands)
      b += bytesOf(s);
    return b;
  }
  /// A roofline: the slower of the flops at \p rate (and the
  /// transcendental calls at theirs) and the bytes at the memory
  /// bandwidth, on this rank's share of the cores.
  double roofline(double flops, double rate, double bytes,
                  double transcendentals = 0) const {
    double compute = flops / rate;
    if (transcendentals > 0)
      compute +=
          transcendentals /
          (hw.transcendentalRate > 0 ? hw.transcendentalRate : hw.vectorFlops);
    return std::max(compute, bytes / hw.memoryBandwidth) / share;
  }

  void cost(const Instruction &in, InstructionCost &c) const {
    c.seconds = hw.instructionOverhead;
    if (isCollective(in.op)) {
      collective(in, c);
      return;
    }
    switch (in.op) {
    case Opcode::Param:
    case Opcode::ParamChunk:
      // Resident after the first run (a training loop's steady state).
      return;
    case Opcode::SGDUpdate:
    case Opcode::AdamWUpdate: {
      // Elementwise over the parameter: SGD reads the parameter and the
      // gradient and writes the parameter (with momentum, its buffer too);
      // AdamW reads and writes the parameter and both moments and reads
      // the gradient, in f32, about 12 flops an element.
      double n = elementsOf(in.result);
      bool momentum = in.op == Opcode::SGDUpdate && !in.hyper.empty() &&
                      in.hyper.size() > 1 && in.hyper[1] != 0;
      double flops = in.op == Opcode::AdamWUpdate ? 12 * n
                     : momentum                   ? 4 * n
                                                  : 2 * n;
      double bytes = 4 * n *
                     (in.op == Opcode::AdamWUpdate ? 7
                      : momentum                   ? 5
                                                   : 3);
      c.flops = flops;
      c.bytes = bytes;
      c.seconds += roofline(flops, hw.vectorFlops, bytes);
      return;
    }
    case Opcode::Kernel: {
      const KernelEntry<HostBackend> *k = HostBackend::kernels()[in.kernel];
      KernelCost kc = k ? k->cost : KernelCost{};
      c.flops = kc.flops ? kc.flops(in, P) : elementsOf(in.result);
      c.bytes = kc.bytes ? kc.bytes(in, P) : movedBytes(in);
      double rate = hw.vectorFlops;
      if (kc.matrix) {
        bool half = !in.operands.empty() &&
                    is16Bit(P.slots[in.operands[0]].dtype) &&
                    hw.matmulFlops16 > 0;
        rate = half ? hw.matmulFlops16 : hw.matmulFlops;
      }
      double calls = kc.transcendentals ? kc.transcendentals(in, P) : 0;
      c.seconds += roofline(c.flops, rate, c.bytes, calls);
      if (kc.matrix)
        // Each library product's own cost (dispatch, packing), on this
        // rank's share of the cores.
        c.seconds += (kc.products ? kc.products(in, P) : 1.0) *
                     hw.matmulCallOverhead / share;
      return;
    }
    case Opcode::Chunk:
    case Opcode::Unpack:
      // A copy of the piece.
      c.bytes = 2 * bytesOf(in.result);
      c.seconds += c.bytes / (hw.memoryBandwidth * share);
      return;
    default:
      // Packs, partial_from_replicate: copies of the operands.
      c.bytes = movedBytes(in);
      c.seconds += c.bytes / (hw.memoryBandwidth * share);
      return;
    }
  }

  /// Whether the group of \p axes spans nodes: the ranks of rank 0's group
  /// reach past the first node.
  bool spansNodes(const std::vector<int64_t> &axes) const {
    if (hw.ranksPerNode <= 0)
      return false;
    // Rank 0's group: coordinates 0 off the axes; its last rank has every
    // axis at its end.
    int64_t last = 0;
    for (size_t a = 0; a < P.meshShape.size(); ++a) {
      bool in = std::find(axes.begin(), axes.end(), static_cast<int64_t>(a)) !=
                axes.end();
      last = last * P.meshShape[a] + (in ? P.meshShape[a] - 1 : 0);
    }
    return last >= hw.ranksPerNode;
  }

  void collective(const Instruction &in, InstructionCost &c) const {
    c.communication = true;
    double n = static_cast<double>(P.groupSize(in.axes));
    double operand = in.operands.empty() ? 0 : bytesOf(in.operands[0]);
    c.bytes = operand;
    if (n <= 1)
      return;
    // The ring's steps and bus bytes (NCCL tests' busBw definitions).
    double steps = n - 1, bus = operand * (n - 1) / n;
    switch (in.op) {
    case Opcode::AllReduce:
      steps = 2 * (n - 1);
      bus = 2 * operand * (n - 1) / n;
      break;
    case Opcode::AllGather:
    case Opcode::AllGatherUneven:
      bus = bytesOf(in.result) * (n - 1) / n;
      break;
    case Opcode::Broadcast:
      steps = std::ceil(std::log2(n));
      bus = operand;
      break;
    default: // reduce_scatter (its operand is the full tensor), all_to_all
      break;
    }
    const LinkProfile &link = spansNodes(in.axes) ? hw.interNode
                              : share < 1 && hw.oversubscribed.bandwidth > 0
                                  ? hw.oversubscribed
                                  : hw.intraNode;
    // A group with ranks outside it pays the link's cost per call: those
    // ranks take the cores in turn with the group's sleeping ones.
    double call = n < static_cast<double>(P.numRanks()) ? link.callLatency : 0;
    c.seconds += call + steps * link.latency + bus / link.bandwidth;
  }

  const ProgramData &P;
  const HardwareProfile &hw;
  double share = 1;
  bool overlap = true;
};

} // namespace

CostEstimate Program::estimateCost(const HardwareProfile &hardware) const {
  return Estimator(*data, hardware).run();
}
