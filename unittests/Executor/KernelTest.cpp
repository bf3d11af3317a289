//===- KernelTest.cpp - model ops and the kernels that run them -*- C++ -*-===//
//
// The executor keeps no list of model ops: each op names its kernel
// (KernelOpInterface) and the kernel's argument kinds say which attributes
// become arguments. These checks hold every registered model op to that:
// it names a kernel some family registers (lib/Executor/Kernels/), or an
// optimizer update, and that kernel reads every attribute the op declares.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"
#include "OpcodeTable.h"

#include <optional>

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/InitAll.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::exec;
using namespace mlir::tp::exec::detail;

namespace {

TEST(KernelOps, EveryModelOpNamesAKernelThatReadsItsAttributes) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  int count = 0;
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    StringRef name = op.getStringRef();
    // Parameters are loaded, modules inlined before a program is compiled;
    // terminators (a generic's body yield) run with their op.
    if (op.getDialectNamespace() != "model" ||
        op.hasTrait<OpTrait::IsTerminator>() ||
        llvm::is_contained({"model.param", "model.module", "model.yield"},
                           name))
      continue;
    ++count;
    auto *kernel = op.getInterface<model::KernelOpInterface>();
    ASSERT_TRUE(kernel) << name.str() << " names no kernel";
    StringRef kernelName = kernel->getKernelName();
    std::optional<KernelRef> k = kernelRef(kernelName);
    ASSERT_TRUE(k) << name.str() << " names kernel '" << kernelName.str()
                   << "', which no kernel family registers";
    llvm::SmallVector<StringRef> read = kernelAttributes(*k);
    for (StringAttr attr : op.getAttributeNames())
      EXPECT_TRUE(llvm::is_contained(read, attr.getValue()))
          << name.str() << "'s attribute '" << attr.getValue().str()
          << "' is not read by kernel '" << kernelName.str() << "'";
  }
  EXPECT_GT(count, 40);
}

TEST(KernelOps, KernelNamesDefaultToTheMnemonic) {
  EXPECT_EQ(model::LayerNormOp::getKernelName(), "layer_norm");
  EXPECT_EQ(model::AttentionGradQOp::getKernelName(), "attention_grad_q");
  // The identity runs the copy kernel.
  EXPECT_EQ(model::DetachOp::getKernelName(), "copy");
}

TEST(KernelOps, UpdatesReadTheirHyperparametersByName) {
  std::optional<KernelRef> update = kernelRef("sgd_update");
  ASSERT_TRUE(update);
  EXPECT_EQ(update->op, Opcode::SGDUpdate);
  llvm::SmallVector<StringRef> sgd = kernelAttributes(*update);
  for (StringRef h :
       {"lr", "momentum", "dampening", "weight_decay", "nesterov"})
    EXPECT_TRUE(llvm::is_contained(sgd, h)) << h.str();
  EXPECT_FALSE(llvm::is_contained(sgd, "beta1"));
}

} // namespace
