//===- GradientTest.cpp - tp-differentiate against finite differences ----===//
//
// The training step tp-differentiate builds, run by the executor on one
// rank, against central finite differences of the forward program: every
// element of every parameter is perturbed (through a weights file) and the
// loss's change compared with the gradient the backward program computed.
// This checks the backward rules composed (broadcast sums, accumulation of
// a value read twice, tied parameters), on top of the kernels' own
// finite-difference tests (GradKernelsTest).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace mlir;
namespace rt = ::mlir::tp::runtime;
using ::mlir::tp::exec::DataSource;
using ::mlir::tp::exec::Program;

namespace {

/// A small MLP with smooth activations (finite differences need them), a
/// broadcast scale and shift, a parameter read twice (`net2.weight`, tied),
/// and a mean squared error against `targets`.
const char *kModel = R"(
func.func @forward(%x: tensor<3x4xf32> {model.name = "x"}, %t: tensor<3x2xf32> {model.name = "targets"}) -> tensor<f32> {
  %w1 = model.param "net1.weight" : tensor<5x4xf32>
  %b1 = model.param "net1.bias" : tensor<5xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %g = model.gelu %h : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %w2 = model.param "net2.weight" : tensor<2x5xf32>
  %y = model.linear "net2"(%g, %w2) : (tensor<3x5xf32>, tensor<2x5xf32>) -> tensor<3x2xf32>
  %w2b = model.param "net2.weight" : tensor<2x5xf32>
  %z = model.linear "tied"(%g, %w2b) : (tensor<3x5xf32>, tensor<2x5xf32>) -> tensor<3x2xf32>
  %s = model.silu %z : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %scale = model.param "scale" : tensor<2xf32>
  %m = model.mul %s, %scale : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %a = model.add %y, %m : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = model.sub %a, %t : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %sq = model.mul %d, %d : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = model.mean %sq : (tensor<3x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

class GradientTest : public ::testing::Test {
protected:
  GradientTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The model, differentiated or not, compiled for one rank.
  Program compile(bool differentiate) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kModel, &context);
    if (!module)
      throw std::runtime_error("the test model does not parse");
    if (differentiate && failed(mlir::tp::differentiate(*module)))
      throw std::runtime_error("tp-differentiate failed");
    if (failed(mlir::tp::partition(*module)))
      throw std::runtime_error("tp-partition failed");
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    modules.push_back(std::move(module));
    return Program::compile(entry);
  }

  static std::vector<rt::Tensor> run(const Program &program,
                                     const DataSource &data) {
    std::vector<rt::Tensor> out;
    rt::runRanks(
        1, [&](rt::Communicator &comm) { out = program.run(comm, data); });
    return out;
  }

  MLIRContext context;
  std::vector<OwningOpRef<ModuleOp>> modules;
};

TEST_F(GradientTest, BackwardProgramMatchesFiniteDifferences) {
  Program step = compile(/*differentiate=*/true);
  Program forward = compile(/*differentiate=*/false);
  DataSource data;
  data.seed = 11;
  std::vector<rt::Tensor> out = run(step, data);
  // The loss, then one gradient per parameter FQN (the tied one once).
  ASSERT_EQ(out.size(), 5u);
  rt::Tensor loss = run(forward, data).at(0);
  EXPECT_FLOAT_EQ(out[0].at(0), loss.at(0));

  // Global parameter values (one per FQN: the tied parameter is read by
  // two ops), then each element perturbed by +-h.
  std::vector<std::string> names;
  std::vector<rt::Tensor> params;
  for (const auto &p : forward.params()) {
    if (std::find(names.begin(), names.end(), p.name) != names.end())
      continue;
    names.push_back(p.name);
    params.push_back(Program::globalParam(p, data));
  }
  ASSERT_EQ(names, (std::vector<std::string>{"net1.weight", "net1.bias",
                                             "net2.weight", "scale"}));
  std::string path = ::testing::TempDir() + "/gradient-test.safetensors";
  auto lossWith = [&](size_t which, int64_t i, float delta) {
    std::vector<rt::Tensor> perturbed = params;
    perturbed[which].data()[i] += delta;
    std::vector<std::pair<std::string, const rt::Tensor *>> named;
    for (size_t k = 0; k < names.size(); ++k)
      named.push_back({names[k], &perturbed[k]});
    rt::writeSafetensors(path, named);
    DataSource file = data;
    file.weightsFile = path;
    return static_cast<double>(run(forward, file).at(0).at(0));
  };
  const float h = 1e-2f;
  int checked = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    // The step's gradient results follow the parameters' definition order.
    const rt::Tensor &grad = out[1 + k];
    ASSERT_EQ(grad.shape(), params[k].shape()) << names[k];
    for (int64_t i = 0; i < grad.numel(); ++i) {
      double numeric = (lossWith(k, i, h) - lossWith(k, i, -h)) / (2.0 * h);
      EXPECT_NEAR(grad.at(i), numeric, 2e-3 + 1e-2 * std::fabs(numeric))
          << names[k] << " element " << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5 * 4 + 5 + 2 * 5 + 2);
}

} // namespace
