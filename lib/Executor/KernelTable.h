//===- KernelTable.h - the kernels a backend runs, by name ------*- C++ -*-===//
//
// A model op names its kernel (KernelOpInterface); each backend of the
// interpreter keeps a table of the kernels it has, filled by the kernel
// families under Kernels/ (one `add` per kernel: its name, the static
// arguments it reads, what it computes), so no list of kernels is kept
// anywhere else. The host table has every kernel and numbers them (an
// Instruction's `kernel`); a backend without a kernel for an instruction
// (the device's table lacks the host-only ones) runs it on the host.
// Private to lib/Executor; no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELTABLE_H
#define TP_LIB_EXECUTOR_KERNELTABLE_H

#include "Frame.h"
#include "OpcodeTable.h"

#include "llvm/ADT/StringMap.h"

#include <stdexcept>

namespace mlir::tp::exec::detail {

/// What a kernel sees: its instruction and the rank's frame.
template <class B> struct KernelCall {
  const Instruction &in;
  Frame<B> &f;

  /// Operand \p i's buffer (16-bit floats widened to f32).
  const typename B::Buffer &arg(size_t i) const { return f.at(in.operands[i]); }
  size_t numOperands() const { return in.operands.size(); }
};

/// A kernel of backend B: the value of its instruction.
template <class B>
using KernelFn = typename B::Buffer (*)(const KernelCall<B> &);

struct ProgramData;

/// What a kernel allocates besides its result, for the memory plan
/// (MemoryPlan.cpp): the bytes of the temporaries it holds at once while it
/// runs (of \p in's slots in \p program; null: none), and whether it takes
/// over its operand 0's buffer when that operand dies with it (no result
/// is allocated then).
struct KernelMemory {
  int64_t (*workspace)(const Instruction &in,
                       const ProgramData &program) = nullptr;
  bool reusesDyingOperand = false;
  /// Kernels of one pass that computes several results and keeps the ones
  /// not taken yet (Frame::sharedGrad): the pass's key for \p in (null: not
  /// such a kernel), the member \p in takes, and the f32 bytes of each
  /// member the pass computes when \p in runs it (-1: a member it does not
  /// compute).
  std::vector<int> (*sharedKey)(const Instruction &in) = nullptr;
  size_t sharedMember = 0;
  std::vector<int64_t> (*sharedBytes)(const Instruction &in,
                                      const ProgramData &program) = nullptr;
};

/// What a kernel computes, for the cost model (CostModel.cpp): its
/// floating-point operations on \p in's slots (null: one per element of
/// the result), whether they are matrix products (timed at the hardware's
/// GEMM rate; the others at its vector rate), its calls of exp, log,
/// tanh or erf (null: none), timed at the hardware's transcendental rate,
/// and for matrix products the library GEMM calls that make them (null:
/// one), each at the hardware's cost per call; the bytes it reads and
/// writes bound it from below (null: its operands and its result, whole).
struct KernelCost {
  using Count = double (*)(const Instruction &in, const ProgramData &program);
  Count flops = nullptr;
  bool matrix = false;
  Count transcendentals = nullptr;
  Count products = nullptr;
  Count bytes = nullptr;
};

/// Elements of slot \p s of \p program (an uneven value: its largest
/// rank's).
inline double elementsOf(const ProgramData &program, int s) {
  const SlotType &t = program.slots[s];
  return static_cast<double>(t.staticBytes) /
         static_cast<double>(rt::dtypeSize(t.dtype));
}
/// Dim \p d of slot \p s (from the back when negative; 1 when it is uneven
/// or the slot has no such dim).
inline double dimOf(const ProgramData &program, int s, int64_t d) {
  const std::vector<int64_t> &shape = program.slots[s].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  if (d < 0)
    d += rank;
  return d >= 0 && d < rank && shape[d] > 0 ? static_cast<double>(shape[d])
                                            : 1.0;
}

/// Bytes of \p in's result and of its operands but operand \p skipped.
inline double bytesBut(const Instruction &in, const ProgramData &p,
                       size_t skipped) {
  double b = static_cast<double>(p.slots[in.result].staticBytes);
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (i != skipped)
      b += static_cast<double>(p.slots[in.operands[i]].staticBytes);
  return b;
}
/// The bytes of a kernel that reads of operand \p Part only what it
/// writes (a slice of it, the rows of a table it looks up), and its other
/// operands whole.
template <size_t Part>
double readsPartOf(const Instruction &in, const ProgramData &p) {
  return bytesBut(in, p, Part) +
         static_cast<double>(p.slots[in.result].staticBytes);
}
/// The bytes of a kernel that reads only the shape of operand \p Shape.
template <size_t Shape>
double readsShapeOf(const Instruction &in, const ProgramData &p) {
  return bytesBut(in, p, Shape);
}

/// One exp (or log, tanh, erf) per element of the result, or of operand 0
/// when that is larger (a loss over logits).
inline double oneCallPerElement(const Instruction &in, const ProgramData &p) {
  double n = elementsOf(p, in.result);
  if (!in.operands.empty())
    n = std::max(n, elementsOf(p, in.operands[0]));
  return n;
}
/// A kernel calling the C library's exp, log, tanh or erf per element.
inline const KernelCost kTranscendental{nullptr, false, oneCallPerElement};
/// The flops of the runtime's vectorized exp and erf (runtime::detail::
/// expApprox, erfApprox: a range reduction and a polynomial), which GELU,
/// SiLU, their gradients, attention and the cross-entropy use instead.
constexpr double kApproxExpFlops = 12;
inline double approxExpFlops(const Instruction &in, const ProgramData &p) {
  return (1 + kApproxExpFlops) * oneCallPerElement(in, p);
}
inline const KernelCost kApproxExp{approxExpFlops, false, nullptr};

/// A kernel's entry in the table: the name its ops give, the static
/// arguments (OpcodeTable.h's Arg flags) it reads, its function, what it
/// allocates besides its result and what it computes.
template <class B> struct KernelEntry {
  const char *name = nullptr;
  unsigned args = 0;
  KernelFn<B> fn = nullptr;
  KernelMemory memory;
  KernelCost cost;
};

/// The kernels of backend B, by the host's ids.
template <class B> class KernelTable {
public:
  /// Registers kernel \p name; a second kernel of one name is a bug in
  /// the families and fails loudly.
  void add(const char *name, unsigned args, KernelFn<B> fn,
           KernelMemory memory = {}, KernelCost cost = {}) {
    if (!byName.try_emplace(name, entries.size()).second)
      throw std::logic_error(std::string("kernel '") + name +
                             "' is registered twice");
    entries.push_back({name, args, fn, std::move(memory), cost});
  }
  /// The entry of kernel \p name, or null.
  const KernelEntry<B> *find(llvm::StringRef name) const {
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : &entries[it->second];
  }
  const std::vector<KernelEntry<B>> &all() const { return entries; }

private:
  std::vector<KernelEntry<B>> entries;
  llvm::StringMap<size_t> byName;
};

/// Backend B's kernels indexed by the host's ids (null where B has none).
template <class B> struct KernelsById {
  std::vector<const KernelEntry<B> *> byId;

  explicit KernelsById(const KernelTable<B> &table) : byId(kernelCount()) {
    for (const KernelEntry<B> &e : table.all()) {
      int id = kernelNamed(e.name);
      if (id < 0 || kernelArgs(id) != e.args)
        throw std::logic_error(std::string(B::kName) + " kernel '" + e.name +
                               "' differs from the host's");
      byId[id] = &e;
    }
  }
  const KernelEntry<B> *operator[](int id) const {
    return id >= 0 && id < static_cast<int>(byId.size()) ? byId[id] : nullptr;
  }
};

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELTABLE_H
