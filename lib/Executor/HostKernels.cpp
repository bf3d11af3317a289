//===- HostKernels.cpp - the host's kernel table ----------------*- C++ -*-===//
//
// The host backend's kernels: every family's (Kernels/All.h). Its table
// numbers the kernels for all backends (Instruction::kernel).
//
//===----------------------------------------------------------------------===//

#include "HostBackend.h"
#include "Kernels/All.h"

using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;

static const KernelTable<HostBackend> &hostTable() {
  static const KernelTable<HostBackend> table = allKernels<HostBackend>();
  return table;
}

int mlir::tp::exec::detail::kernelCount() {
  return static_cast<int>(hostTable().all().size());
}

unsigned mlir::tp::exec::detail::kernelArgs(int id) {
  return hostTable().all().at(id).args;
}

int mlir::tp::exec::kernelNamed(std::string_view name) {
  const KernelEntry<HostBackend> *e =
      hostTable().find(llvm::StringRef(name.data(), name.size()));
  return e ? static_cast<int>(e - hostTable().all().data()) : -1;
}

const char *mlir::tp::exec::kernelName(int id) {
  return id >= 0 && id < kernelCount() ? hostTable().all()[id].name
                                       : "<no kernel>";
}

const KernelsById<HostBackend> &HostBackend::kernels() {
  static const KernelsById<HostBackend> byId(hostTable());
  return byId;
}
