//===- OpcodeTable.h - what each opcode reads -------------------*- C++ -*-===//
//
// The table made from Opcodes.def, shared by the printer (which arguments an
// instruction prints) and the compiler (which attributes of an op become
// which arguments), and the static argument kinds a kernel of
// KernelTable.h declares. Private to lib/Executor; no MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_OPCODETABLE_H
#define TP_LIB_EXECUTOR_OPCODETABLE_H

#include "tp/Executor/Instruction.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::tp::exec::detail {

/// The static arguments an opcode reads, in the order they print.
enum Arg : unsigned {
  kDim = 1 << 0,
  kConcatDim = 1 << 1,
  kSize = 1 << 2,
  kRoot = 1 << 3,
  kShape = 1 << 4,
  kPerm = 1 << 5, // `shape` holds a permutation
  kEps = 1 << 6,
  kTheta = 1 << 7,
  kReduce = 1 << 8,
  kCausal = 1 << 9,
  kOuterAxes = 1 << 10,
  kAxes = 1 << 11,
  kValue = 1 << 12,
  kHyper = 1 << 13,
  kCount = 1 << 14,    // `size` as a mean's global divisor, shown when set
  kOffset = 1 << 15,   // `size` as an offset
  kMaxNorm = 1 << 16,  // `value` as clipping's max_norm
  kDropout = 1 << 17,  // p, the global shape, shard dims when sharded
  kExponent = 1 << 18, // `value` as pow's exponent
  kStart = 1 << 19,
  kStep = 1 << 20,
  kElements = 1 << 21,  // `param` as the index of a constant tensor
  kPredicate = 1 << 22, // `size` as a comparison's runtime::Predicate
  kGeneric = 1 << 23,   // `param` as the index of a generic's loop nest
  // Read from the result's type by the compiler (a model op's kernel):
  kExtent = 1 << 24,      // `size`: the result's static extent on `dim`
  kStaticShape = 1 << 25, // `shape` may not hold an uneven (-1) dim
  kOneUneven = 1 << 26,   // `shape` may hold one uneven dim, not more
};

struct OpcodeInfo {
  const char *name;
  unsigned args;
  bool kernel;
  bool hostOnly;
};

/// The entry of \p op in Opcodes.def.
const OpcodeInfo &opcodeInfo(Opcode op);

/// The opcode printed as \p name ("layer_norm"), if there is one.
std::optional<Opcode> opcodeNamed(llvm::StringRef name);

/// The kernels are numbered by the host's table, which has every kernel
/// (kernelNamed, kernelName; HostKernels.cpp): how many there are, and
/// the argument kinds kernel \p id reads.
int kernelCount();
unsigned kernelArgs(int id);

/// The names of the `hyper` arguments of an optimizer update, in their
/// order (the update op's attributes of those names; empty for opcodes
/// without kHyper).
llvm::ArrayRef<const char *> hyperNames(Opcode op);

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_OPCODETABLE_H
