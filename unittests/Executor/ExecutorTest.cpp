//===- ExecutorTest.cpp - Tests for the executor ----------------*- C++ -*-===//
//
// Compiles small SPMD programs through the tp pipeline and runs them: rank
// state kept between runs, per-run statistics, dtypes, and errors.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/Executor.h"

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/InitAll.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <mutex>

using namespace mlir;
namespace rt = ::mlir::tp::runtime;
using ::mlir::tp::exec::DataSource;
using ::mlir::tp::exec::PhaseCounts;
using ::mlir::tp::exec::Program;
using ::mlir::tp::exec::RankState;

namespace {

class ExecutorTest : public ::testing::Test {
protected:
  ExecutorTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The example MLP (f32) lowered for 2 ranks and compiled.
  Program lowerExampleMlp() {
    std::string path = std::string(TP_EXAMPLES_DIR) + "/mlp.mlir";
    module = parseSourceFile<ModuleOp>(path, &context);
    EXPECT_TRUE(module);
    auto plan = mlir::tp::loadPlanFile(*module, std::string(TP_EXAMPLES_DIR) +
                                                    "/mlp_plan.json");
    EXPECT_TRUE(succeeded(plan));
    mlir::tp::TPDialect::PlanAttrHelper(&context).setAttr(*module, *plan);
    PassManager pm(&context);
    mlir::tp::buildTPPipeline(pm, mlir::tp::TPPipelineOptions());
    EXPECT_TRUE(succeeded(pm.run(*module)));
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    return Program::compile(entry);
  }

  /// The function of \p text (an SPMD program), compiled.
  Program compileText(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    return Program::compile(entry);
  }

  /// Each of \p n ranks' results of \p program on generated data of
  /// \p seed, and (when asked) each rank's collective counts.
  static std::vector<std::vector<rt::Tensor>>
  runOnRanks(const Program &program, int n, uint64_t seed,
             std::vector<rt::CollectiveStats> *stats = nullptr) {
    DataSource data;
    data.seed = seed;
    std::vector<std::vector<rt::Tensor>> out(n);
    if (stats)
      stats->assign(n, rt::CollectiveStats());
    std::mutex mu;
    rt::runRanks(n, [&](rt::Communicator &comm) {
      rt::CollectiveStats s;
      auto r = program.run(comm, data, nullptr, &s);
      std::lock_guard<std::mutex> lock(mu);
      out[comm.rank()] = std::move(r);
      if (stats)
        (*stats)[comm.rank()] = s;
    });
    return out;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ExecutorTest, WeightsPrefixNamesTheFileKeys) {
  Program program = lowerExampleMlp();
  // The same parameters under their FQNs and under "model." + FQN (a
  // checkpoint of a module wrapping the MLP).
  DataSource gen;
  gen.seed = 3;
  std::vector<rt::Tensor> tensors;
  for (const auto &p : program.params())
    tensors.push_back(Program::globalParam(p, gen));
  auto save = [&](const std::string &path, const std::string &prefix) {
    std::vector<std::pair<std::string, const rt::Tensor *>> named;
    for (size_t i = 0; i < tensors.size(); ++i)
      named.push_back({prefix + program.params()[i].name, &tensors[i]});
    rt::writeSafetensors(path, named);
  };
  std::string plain = ::testing::TempDir() + "/tp-executor-plain.st";
  std::string prefixed = ::testing::TempDir() + "/tp-executor-prefixed.st";
  save(plain, "");
  save(prefixed, "model.");

  auto runWith = [&](const std::string &path, const std::string &prefix) {
    DataSource data;
    data.seed = 99;
    data.weightsFile = path;
    data.weightsPrefix = prefix;
    std::vector<std::vector<rt::Tensor>> out(4);
    std::mutex mu;
    rt::runRanks(4, [&](rt::Communicator &comm) {
      auto r = program.run(comm, data);
      std::lock_guard<std::mutex> lock(mu);
      out[comm.rank()] = std::move(r);
    });
    return out;
  };
  auto viaPrefix = runWith(prefixed, "model.");
  auto viaPlain = runWith(plain, "");
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(viaPrefix[r], viaPlain[r]) << "rank " << r;
  // Without the prefix the prefixed file's keys are not the FQNs.
  try {
    runWith(prefixed, "");
    ADD_FAILURE() << "expected a missing tensor error";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("missing tensor 'net1.weight'"),
              std::string::npos)
        << e.what();
  }
  std::remove(plain.c_str());
  std::remove(prefixed.c_str());
}

TEST_F(ExecutorTest, RankStateKeepsParametersBetweenRuns) {
  Program program = lowerExampleMlp();
  ASSERT_EQ(program.meshShape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(program.numRanks(), 4);
  // Parameters from a file that disappears after the first run: later runs
  // must not read it again.
  std::string weights = ::testing::TempDir() + "/tp-executor-weights.st";
  DataSource gen;
  gen.seed = 7;
  std::vector<rt::Tensor> tensors;
  std::vector<std::pair<std::string, const rt::Tensor *>> named;
  for (const auto &p : program.params())
    tensors.push_back(Program::globalParam(p, gen));
  for (size_t i = 0; i < tensors.size(); ++i)
    named.push_back({program.params()[i].name, &tensors[i]});
  rt::writeSafetensors(weights, named);
  DataSource data;
  data.seed = 7;
  data.weightsFile = weights;

  std::vector<std::vector<rt::Tensor>> first(4), second(4);
  std::vector<int64_t> bytes(4), peak1(4), peak2(4);
  std::vector<rt::CollectiveStats> stats1(4), stats2(4);
  std::vector<PhaseCounts> phases(4);
  std::mutex mu;
  rt::runRanks(4, [&](rt::Communicator &comm) {
    RankState state;
    int r = comm.rank();
    auto a = program.run(comm, data, &peak1[r], &stats1[r], &state);
    comm.barrier();
    if (r == 0)
      std::remove(weights.c_str());
    comm.barrier();
    auto b = program.run(comm, data, &peak2[r], &stats2[r], &state, &phases[r]);
    std::lock_guard<std::mutex> lock(mu);
    first[r] = std::move(a);
    second[r] = std::move(b);
    bytes[r] = state.paramBytes();
  });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(first[r], second[r]) << "rank " << r;
    // net1 (32x8 weight, 32 bias) and net2's weight (8x32) are split four
    // ways; net2's bias (8) is replicated.
    EXPECT_EQ(bytes[r], ((32 * 8 + 32 + 8 * 32) / 4 + 8) * 4);
    // Each run counts its own collectives: one all_reduce, not two.
    EXPECT_EQ(stats1[r].counts["all_reduce"], 1);
    EXPECT_EQ(stats2[r].counts["all_reduce"], 1);
    // Not a training step: every call is the forward's, and every phase is
    // there.
    EXPECT_EQ(phases[r], (PhaseCounts{{"backward", {}},
                                      {"forward", {{"all_reduce", 1}}},
                                      {"optimizer", {}}}));
    EXPECT_EQ(stats1[r].bytes, stats2[r].bytes);
    // Resident parameters count in the peak of both runs.
    EXPECT_GE(peak2[r], bytes[r]);
  }
}

TEST_F(ExecutorTest, RankStateBelongsToOneProgram) {
  Program a = lowerExampleMlp();
  OwningOpRef<ModuleOp> keep = std::move(module);
  Program b = lowerExampleMlp();
  DataSource data;
  EXPECT_THROW(rt::runRanks(4,
                            [&](rt::Communicator &comm) {
                              RankState state;
                              a.run(comm, data, nullptr, nullptr, &state);
                              b.run(comm, data, nullptr, nullptr, &state);
                            }),
               std::runtime_error);
}

TEST_F(ExecutorTest, RunsBF16ProgramsIn16Bits) {
  std::string path = std::string(TP_EXAMPLES_DIR) + "/mlp.mlir";
  std::string text;
  {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    ASSERT_TRUE(f);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      text.append(buf, n);
    std::fclose(f);
  }
  for (size_t at; (at = text.find("xf32>")) != std::string::npos;)
    text.replace(at, 5, "xbf16>");
  module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  func::FuncOp entry;
  module->walk([&](func::FuncOp f) { entry = f; });
  ASSERT_TRUE(succeeded(mlir::tp::partition(*module)));
  Program program = Program::compile(entry);
  ASSERT_FALSE(program.params().empty());
  for (const auto &p : program.params())
    EXPECT_EQ(p.dtype, rt::DType::BF16) << p.name;
  DataSource data;
  rt::runRanks(1, [&](rt::Communicator &comm) {
    int64_t peak = 0;
    auto out = program.run(comm, data, &peak);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dtype(), rt::DType::BF16);
    // Every buffer is 16-bit: the static estimate and the measurement
    // agree on 2 bytes per element.
    EXPECT_EQ(peak, program.peakBytes());
  });
}

TEST_F(ExecutorTest, PartialFromReplicateKeepsTheValueOnCoordinateZero) {
  // On a 2x2 mesh, rank r has coordinates (r / 2, r % 2).
  Program program = compileText(R"(
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @forward(%x: tensor<2x3xf32>, %h: tensor<2x3xbf16>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xbf16>) {
  %tp = tp.partial_from_replicate %x on @mesh mesh_axes = [1] reduction = sum : tensor<2x3xf32>
  %all = tp.partial_from_replicate %x on @mesh mesh_axes = [0, 1] reduction = sum : tensor<2x3xf32>
  %max = tp.partial_from_replicate %x on @mesh mesh_axes = [0] reduction = max : tensor<2x3xf32>
  %half = tp.partial_from_replicate %h on @mesh mesh_axes = [0] reduction = sum : tensor<2x3xbf16>
  return %tp, %all, %max, %half : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xbf16>
}
)");
  std::vector<std::vector<rt::Tensor>> out = runOnRanks(program, 4, 3);
  const rt::Tensor &x = out[0][0]; // rank (0, 0) keeps every value
  ASSERT_EQ(x.shape(), (std::vector<int64_t>{2, 3}));
  rt::Tensor zeros({2, 3});
  for (int r = 0; r < 4; ++r) {
    int dp = r / 2, tp = r % 2;
    EXPECT_EQ(out[r][0], tp == 0 ? x : zeros) << "rank " << r;
    EXPECT_EQ(out[r][1], r == 0 ? x : zeros) << "rank " << r;
    EXPECT_EQ(out[r][2], x) << "rank " << r;
    EXPECT_EQ(out[r][3].dtype(), rt::DType::BF16) << "rank " << r;
    EXPECT_EQ(out[r][3].to(rt::DType::F32) == zeros, dp != 0) << "rank " << r;
  }
  // The input is not all zeros, so the checks above can fail.
  EXPECT_FALSE(x == zeros);
}

TEST_F(ExecutorTest, BucketedAllReduceEqualsOneAllReducePerTensor) {
  // tp.pack, one all_reduce, tp.unpack (tp-merge-collectives' bucket) give
  // each tensor what its own all_reduce gives.
  Program program = compileText(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["dp"]}
func.func @forward(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<2x3xf32>, tensor<4xf32>) {
  %ra = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum : tensor<2x3xf32>
  %rb = tp.all_reduce %b on @mesh mesh_axes = [0] reduction = sum : tensor<4xf32>
  %p = tp.pack %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<10xf32>
  %r = tp.all_reduce %p on @mesh mesh_axes = [0] reduction = sum : tensor<10xf32>
  %ua = tp.unpack %r offset = 0 : tensor<10xf32> -> tensor<2x3xf32>
  %ub = tp.unpack %r offset = 6 : tensor<10xf32> -> tensor<4xf32>
  return %ua, %ub, %ra, %rb : tensor<2x3xf32>, tensor<4xf32>, tensor<2x3xf32>, tensor<4xf32>
}
)");
  std::vector<rt::CollectiveStats> stats;
  std::vector<std::vector<rt::Tensor>> out = runOnRanks(program, 2, 5, &stats);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(out[r].size(), 4u);
    EXPECT_EQ(out[r][0].shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(out[r][0], out[r][2]) << "rank " << r;
    EXPECT_EQ(out[r][1], out[r][3]) << "rank " << r;
    EXPECT_EQ(stats[r].counts["all_reduce"], 3) << "rank " << r;
  }
  // Every rank holds the same inputs: the sum is twice the input, and not
  // zero, so the checks above can fail.
  EXPECT_FALSE(out[0][1] == rt::Tensor({4}));
}

TEST_F(ExecutorTest, RejectsUnsupportedElementTypes) {
  module = parseSourceString<ModuleOp>(R"(
func.func @forward(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %r = model.relu %x : (tensor<4x8xf64>) -> tensor<4x8xf64>
  return %r : tensor<4x8xf64>
}
)",
                                       &context);
  ASSERT_TRUE(module);
  func::FuncOp entry;
  module->walk([&](func::FuncOp f) { entry = f; });
  try {
    Program::compile(entry);
    FAIL() << "compile did not throw";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("supports f32, bf16, f16, i64, i32 "
                                         "and i1 tensors, not f64"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
