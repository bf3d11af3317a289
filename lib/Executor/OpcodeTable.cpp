//===- OpcodeTable.cpp - the opcode table of Opcodes.def --------*- C++ -*-===//

#include "OpcodeTable.h"

#include "llvm/ADT/StringMap.h"

using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;

namespace {
/// Indexed by Opcode: both are made from Opcodes.def.
const OpcodeInfo kOpcodes[] = {
#define TP_OPCODE(Name, Printed, Args, Kernel, HostOnly)                       \
  {Printed, Args, Kernel, HostOnly},
#include "tp/Executor/Opcodes.def"
};
} // namespace

const OpcodeInfo &mlir::tp::exec::detail::opcodeInfo(Opcode op) {
  return kOpcodes[static_cast<size_t>(op)];
}

std::optional<Opcode>
mlir::tp::exec::detail::opcodeNamed(llvm::StringRef name) {
  static const llvm::StringMap<Opcode> byName = [] {
    llvm::StringMap<Opcode> m;
    for (size_t i = 0; i < std::size(kOpcodes); ++i)
      m[kOpcodes[i].name] = static_cast<Opcode>(i);
    return m;
  }();
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

llvm::ArrayRef<const char *> mlir::tp::exec::detail::hyperNames(Opcode op) {
  static const char *const sgd[] = {"lr", "momentum", "dampening",
                                    "weight_decay", "nesterov"};
  static const char *const adamw[] = {"lr", "beta1", "beta2", "eps",
                                      "weight_decay"};
  switch (op) {
  case Opcode::SGDUpdate:
    return sgd;
  case Opcode::AdamWUpdate:
    return adamw;
  default:
    return {};
  }
}

const char *mlir::tp::exec::opcodeName(Opcode op) {
  return opcodeInfo(op).name;
}
bool mlir::tp::exec::isKernel(Opcode op) { return opcodeInfo(op).kernel; }

bool mlir::tp::exec::isCollective(Opcode op) {
  switch (op) {
  case Opcode::AllGather:
  case Opcode::AllGatherUneven:
  case Opcode::AllReduce:
  case Opcode::ReduceScatter:
  case Opcode::ReduceScatterUneven:
  case Opcode::AllToAll:
  case Opcode::Broadcast:
    return true;
  default:
    return false;
  }
}
const char *mlir::tp::exec::instructionName(const Instruction &in) {
  return in.op == Opcode::Kernel ? kernelName(in.kernel) : opcodeName(in.op);
}
