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

/// A kernel's entry in the table: the name its ops give, the static
/// arguments (OpcodeTable.h's Arg flags) it reads, and its function.
template <class B> struct KernelEntry {
  const char *name = nullptr;
  unsigned args = 0;
  KernelFn<B> fn = nullptr;
};

/// The kernels of backend B, by the host's ids.
template <class B> class KernelTable {
public:
  /// Registers kernel \p name; a second kernel of one name is a bug in
  /// the families and fails loudly.
  void add(const char *name, unsigned args, KernelFn<B> fn) {
    if (!byName.try_emplace(name, entries.size()).second)
      throw std::logic_error(std::string("kernel '") + name +
                             "' is registered twice");
    entries.push_back({name, args, fn});
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
