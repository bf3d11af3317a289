//===- DeviceProgramTest.cpp - the device form of a Program -----*- C++ -*-===//
//
// Built with CUDA (TP_HAVE_CUDA): a DeviceProgram shares the host Program's
// instructions; the ops without device kernels run on the host.
// Making one needs no GPU; running one does (test/tp-run/gpu-e2e.test).
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/DeviceExecutor.h"

#include "tp/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using ::mlir::tp::exec::DeviceProgram;
using ::mlir::tp::exec::Program;

namespace {

class DeviceProgramTest : public ::testing::Test {
protected:
  DeviceProgramTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  Program compile(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    return Program::compile(entry);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(DeviceProgramTest, SharesTheHostProgramsInstructions) {
  Program host = compile(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = model.relu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = tp.all_reduce %r on @mesh mesh_axes = [0] reduction = sum : tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}
)");
  DeviceProgram device(host);
  EXPECT_EQ(device.size(), host.size());
  EXPECT_EQ(device.meshShape(), host.meshShape());
  // The device program keeps the instructions alive on its own.
  Program moved = std::move(host);
  {
    Program gone = std::move(moved);
  }
  EXPECT_EQ(device.size(), 2u);
}

TEST_F(DeviceProgramTest, AcceptsOpsWithoutDeviceKernels) {
  // Transpose has no device kernel: the device runs it on the host (its
  // operand copied there, the result back); running needs a GPU
  // (test/tp-run/gpu-e2e.test).
  Program host = compile(R"(
func.func @forward(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %t = model.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}
)");
  ASSERT_TRUE(::mlir::tp::exec::runsOnHost(host.instructions()[0]));
  DeviceProgram device(host);
  EXPECT_EQ(device.size(), 1u);
}

} // namespace

namespace {

/// Dropout in training, its backward and the optimizer's update have no
/// device kernels yet: a training step is accepted and runs them on the host.
TEST_F(DeviceProgramTest, AcceptsTrainingSteps) {
  Program train = compile(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @forward(%x: tensor<2x4xf32>, %g: tensor<1x4xf32>) -> (tensor<2x4xf32>, tensor<1x4xf32>) {
  %d = model.dropout "drop"(%x) {p = 0.1 : f64, train} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %e = tp.sharded_dropout_grad "drop"(%g) on @mesh shard_dims = [0] global_shape = [2, 4] {p = 0.1 : f64} : tensor<1x4xf32>
  return %d, %e : tensor<2x4xf32>, tensor<1x4xf32>
}
)");
  DeviceProgram device(train);
  EXPECT_EQ(device.size(), train.size());
}

} // namespace
