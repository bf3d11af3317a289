//===- DeviceProgramTest.cpp - the device form of a Program -----*- C++ -*-===//
//
// Built with CUDA (TP_HAVE_CUDA): a DeviceProgram shares the host Program's
// instructions, and refuses ops without device kernels before anything runs.
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

TEST_F(DeviceProgramTest, RefusesOpsWithoutDeviceKernels) {
  Program host = compile(R"(
func.func @forward(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %t = model.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}
)");
  try {
    DeviceProgram device(host);
    FAIL() << "the device program accepted a transpose";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "the device backend has no kernel for model.transpose"),
              std::string::npos)
        << e.what();
  }
}

} // namespace

namespace {

/// Dropout in training is host-only for now; in eval it is a copy, which the
/// device runs.
TEST_F(DeviceProgramTest, RefusesTrainingDropoutButNotEval) {
  Program eval = compile(R"(
func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %d = model.dropout "drop"(%x) {p = 0.1 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}
)");
  EXPECT_NO_THROW(DeviceProgram{eval});
  for (const char *op : {"model.dropout", "tp.sharded_dropout_grad"}) {
    Program train = compile(std::string(op) == "model.dropout" ? R"(
func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %d = model.dropout "drop"(%x) {p = 0.1 : f64, train} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}
)"
                                                               : R"(
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @forward(%g: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %d = tp.sharded_dropout_grad "drop"(%g) on @mesh shard_dims = [0] global_shape = [2, 4] {p = 0.1 : f64} : tensor<1x4xf32>
  return %d : tensor<1x4xf32>
}
)");
    try {
      DeviceProgram device(train);
      FAIL() << "the device program accepted " << op;
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find(
                    std::string("the device backend has no kernel for ") + op),
                std::string::npos)
          << e.what();
    }
  }
}

} // namespace
