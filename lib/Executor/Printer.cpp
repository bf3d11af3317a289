//===- Printer.cpp - the instruction list as text ---------------*- C++ -*-===//
//
// Program::print, the stable text form that `tp-run --dump-program` shows
// and the tests check:
//
//   program @forward on mesh [2]: 9 slots, peak 1536 bytes per rank
//     %0 = input 'x' {placements = [R]} : f32[4x16]
//     %1 = param_chunk 'fc1.weight' {dim = 0, axes = [0]} : f32[16x16]
//     %3 = linear 'fc1' %0, %1, %2 : f32[4x16]  // frees %0, %1, %2
//     %6 = all_reduce %5 {reduce = sum, axes = [0]} : f32[4x16]  // frees %5
//     %9 = all_gather %7 {dim = 0, axes = [0]} : f32[32]  // async
//     %10 = relu %6 : f32[4x16]  // frees %6
//     %11 = reshape %9 {shape = [4x8]} : f32[4x8]  // awaits %9; frees %7, %9
//     return %8
//
//===----------------------------------------------------------------------===//

#include "OpcodeTable.h"
#include "ProgramData.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace ::mlir::tp::exec;
namespace rt = ::mlir::tp::runtime;

using namespace ::mlir::tp::exec::detail;

namespace {
const char *reduceName(rt::ReduceOp op) {
  switch (op) {
  case rt::ReduceOp::Sum:
    return "sum";
  case rt::ReduceOp::Avg:
    return "avg";
  case rt::ReduceOp::Max:
    return "max";
  case rt::ReduceOp::Min:
    return "min";
  }
  return "?";
}

void printList(llvm::raw_ostream &os, const std::vector<int64_t> &v) {
  os << '[';
  llvm::interleaveComma(v, os, [&](int64_t x) {
    if (x < 0)
      os << '?';
    else
      os << x;
  });
  os << ']';
}

void printType(llvm::raw_ostream &os, const SlotType &t) {
  os << llvm::StringRef(rt::dtypeName(t.dtype)).lower() << '[';
  llvm::interleave(
      t.shape, os,
      [&](int64_t d) {
        if (d < 0)
          os << '?';
        else
          os << d;
      },
      "x");
  os << ']';
}

void printSlots(llvm::raw_ostream &os, const std::vector<int> &slots) {
  llvm::interleaveComma(slots, os, [&](int s) { os << '%' << s; });
}

/// " {dim = 1, axes = [0]}", or nothing without static arguments.
void printArgs(llvm::raw_ostream &os, const Instruction &in,
               const ProgramData &P) {
  unsigned args =
      in.op == Opcode::Kernel ? kernelArgs(in.kernel) : opcodeInfo(in.op).args;
  if (in.op == Opcode::Kernel && (args & kAxes) && in.axes.empty())
    args &= ~(kAxes | kSize); // a kernel's whole form: nothing sharded
  args &= ~(kStaticShape | kOneUneven);
  if ((args & kCount) && in.size == 0)
    args &= ~kCount; // the mean divides by its own operand's count
  if (!args)
    return;
  const char *sep = " {";
  auto key = [&](const char *name) -> llvm::raw_ostream & {
    os << sep << name << " = ";
    sep = ", ";
    return os;
  };
  if (args & kDim)
    key("dim") << in.dim;
  if (args & kConcatDim)
    key("concat_dim") << in.concatDim;
  if (args & (kSize | kExtent))
    key("size") << in.size;
  if (args & kCount)
    key("count") << in.size;
  if (args & kElements)
    key("constant") << in.param;
  if (args & kGeneric)
    key("loops") << '"' << P.generics[in.param].summary() << '"';
  if (args & kOffset)
    key("offset") << in.size;
  if (args & kRoot)
    key("root") << in.root;
  if (args & kShape)
    printList(key("shape"), in.shape);
  if (args & kPerm)
    printList(key("perm"), in.shape);
  if (args & kEps)
    key("eps") << llvm::format("%g", in.value);
  if (args & kTheta)
    key("theta") << llvm::format("%g", in.value);
  if (args & kValue)
    key("value") << llvm::format("%g", in.value);
  if (args & kMaxNorm)
    key("max_norm") << llvm::format("%g", in.value);
  if (args & kExponent)
    key("exponent") << llvm::format("%g", in.value);
  if (args & kPredicate) {
    static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    key("predicate") << (in.size >= 0 && in.size < 6 ? names[in.size] : "?");
  }
  if (args & kStart)
    key("start") << in.start;
  if (args & kStep)
    key("step") << in.step;
  if (args & kHyper) {
    llvm::ArrayRef<const char *> names = hyperNames(in.op);
    for (size_t i = 0; i < in.hyper.size() && i < names.size(); ++i)
      key(names[i]) << llvm::format("%g", in.hyper[i]);
  }
  if (args & kDropout) {
    key("p") << llvm::format("%g", in.value);
    printList(key("global_shape"), in.shape);
    if (!in.shardDims.empty()) {
      // -1 (the axis shards nothing) prints as it is, as in the IR.
      key("shard_dims") << '[';
      llvm::interleaveComma(in.shardDims, os);
      os << ']';
    }
  }
  if (args & kReduce)
    key("reduce") << reduceName(in.reduce);
  if (args & kCausal)
    key("causal") << (in.causal ? "true" : "false");
  if ((args & kOuterAxes) && !in.outerAxes.empty())
    printList(key("outer_axes"), in.outerAxes);
  // A chain of cuts (FSDP's shard of a tensor-parallel shard): the dim each
  // axis cuts, in order.
  if (in.op == Opcode::ParamChunk && in.shardDims.size() > 1)
    printList(key("dims"), in.shardDims);
  if (args & kAxes)
    printList(key("axes"), in.axes);
  os << '}';
}
} // namespace

const char *mlir::tp::exec::phaseName(Phase phase) {
  switch (phase) {
  case Phase::Forward:
    return "forward";
  case Phase::Backward:
    return "backward";
  case Phase::Optimizer:
    return "optimizer";
  }
  return "forward";
}

void Program::print(llvm::raw_ostream &os) const {
  const detail::ProgramData &p = *data;
  os << "program @" << p.name << " on mesh ";
  printList(os, p.meshShape);
  os << ": " << p.slots.size() << " slots, peak " << p.peak
     << " bytes per rank\n";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputInfo &in = p.inputs[i];
    int slot = p.inputSlots[i];
    os << "  %" << slot << " = input '" << in.name << "' {placements = [";
    llvm::interleaveComma(in.placements, os);
    os << ']';
    if (in.isTokens)
      os << ", tokens = " << in.vocab
         << (in.ignoreIndex ? ", ignore_index = -100" : "");
    os << "} : ";
    printType(os, p.slots[slot]);
    os << '\n';
  }
  // A training step's instructions are grouped by phase (forward, backward,
  // optimizer): a comment line opens each group, as the phases interleave
  // where tp-cse shares an op or tp-merge-collectives moves a bucket.
  bool training = llvm::any_of(p.instrs, [](const Instruction &in) {
    return in.phase != Phase::Forward;
  });
  std::optional<Phase> phase;
  for (const Instruction &in : p.instrs) {
    if (training && in.phase != phase) {
      phase = in.phase;
      os << "  // " << phaseName(in.phase) << '\n';
    }
    os << "  %" << in.result << " = " << instructionName(in);
    if (!in.name.empty())
      os << " '" << in.name << "'";
    if (!in.operands.empty()) {
      os << ' ';
      printSlots(os, in.operands);
    }
    printArgs(os, in, p);
    os << " : ";
    printType(os, p.slots[in.result]);
    // Notes: an async collective (run while the instructions up to its
    // first reader run), what an instruction waits for, what it frees.
    const char *sep = "  // ";
    if (in.async) {
      os << sep << "async";
      sep = "; ";
    }
    if (!in.awaits.empty()) {
      os << sep << "awaits ";
      printSlots(os, in.awaits);
      sep = "; ";
    }
    if (!in.frees.empty()) {
      os << sep << "frees ";
      printSlots(os, in.frees);
    }
    os << '\n';
  }
  os << "  return ";
  printSlots(os, p.resultSlots);
  os << '\n';
}
