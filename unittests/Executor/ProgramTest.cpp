//===- ProgramTest.cpp - the compiled program as data -----------*- C++ -*-===//
//
// Compiles small partitioned modules from strings and checks the
// instruction list itself (its printed form, the liveness plan, the static
// peak), that running it gives the numbers computed from the global values,
// and the data policy of the DataSource (init scales, token ranges).
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/Executor.h"

#include "tp/InitAll.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>

#include <cmath>
#include <cstdio>
#include <mutex>

using namespace mlir;
namespace rt = ::mlir::tp::runtime;
using ::mlir::tp::exec::DataSource;
using ::mlir::tp::exec::Instruction;
using ::mlir::tp::exec::Opcode;
using ::mlir::tp::exec::Program;

namespace {

/// The example MLP as tp-opt partitions it for 4 ranks (colwise net1,
/// rowwise net2).
const char *kMlp = R"(
tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @forward(%x: tensor<4x8xf32> {model.name = "x"}) -> tensor<4x8xf32> attributes {tp.spmd} {
  %0 = model.param "net1.weight" : tensor<32x8xf32>
  %1 = model.param "net1.bias" : tensor<32xf32>
  %2 = tp.chunk %0 on @mesh mesh_axes = [0] axis = 0 : tensor<32x8xf32> -> tensor<8x8xf32>
  %3 = tp.chunk %1 on @mesh mesh_axes = [0] axis = 0 : tensor<32xf32> -> tensor<8xf32>
  %4 = model.linear "net1"(%x, %2, %3) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %5 = model.relu %4 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = model.param "net2.weight" : tensor<8x32xf32>
  %7 = model.param "net2.bias" : tensor<8xf32>
  %8 = tp.chunk %6 on @mesh mesh_axes = [0] axis = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  %9 = model.linear "net2"(%5, %8) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %10 = tp.all_reduce %9 on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %11 = model.add %10, %7 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %11 : tensor<4x8xf32>
}
)";

class ProgramTest : public ::testing::Test {
protected:
  ProgramTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  Program compile(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      throw std::runtime_error("the test module does not parse");
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    return Program::compile(entry);
  }

  static std::string print(const Program &program) {
    std::string s;
    llvm::raw_string_ostream os(s);
    program.print(os);
    return s;
  }

  /// Every rank's results of running \p program on its mesh.
  static std::vector<std::vector<rt::Tensor>> runAll(const Program &program,
                                                     const DataSource &data) {
    int n = static_cast<int>(program.numRanks());
    std::vector<std::vector<rt::Tensor>> out(n);
    std::mutex mu;
    rt::runRanks(n, [&](rt::Communicator &comm) {
      auto r = program.run(comm, data);
      std::lock_guard<std::mutex> lock(mu);
      out[comm.rank()] = std::move(r);
    });
    return out;
  }

  /// Result \p i assembled from every rank's piece.
  static rt::Tensor assembled(const Program &program,
                              const std::vector<std::vector<rt::Tensor>> &out,
                              size_t i) {
    std::vector<rt::Tensor> perRank;
    for (const auto &r : out)
      perRank.push_back(r.at(i));
    return program.assembleResult(i, perRank);
  }

  static void expectNear(const rt::Tensor &a, const rt::Tensor &b) {
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.numel(); ++i)
      EXPECT_NEAR(a.data()[i], b.data()[i],
                  1e-5f * (1.0f + std::fabs(b.data()[i])))
          << "element " << i;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ProgramTest, PrintsOneInstructionPerLineWithFrees) {
  Program program = compile(kMlp);
  // A parameter read only by its chunk is loaded as the chunk; each slot is
  // freed after its last reader, the result never.
  EXPECT_EQ(print(program),
            "program @forward on mesh [4]: 10 slots, peak 544 bytes per rank\n"
            "  %0 = input 'x' {placements = [R]} : f32[4x8]\n"
            "  %1 = param_chunk 'net1.weight' {dim = 0, axes = [0]} : "
            "f32[8x8]\n"
            "  %2 = param_chunk 'net1.bias' {dim = 0, axes = [0]} : f32[8]\n"
            "  %3 = linear 'net1' %0, %1, %2 : f32[4x8]  // frees %0, %1, %2\n"
            "  %4 = relu %3 : f32[4x8]  // frees %3\n"
            "  %5 = param_chunk 'net2.weight' {dim = 1, axes = [0]} : "
            "f32[8x8]\n"
            "  %6 = param 'net2.bias' : f32[8]\n"
            "  %7 = linear 'net2' %4, %5 : f32[4x8]  // frees %4, %5\n"
            "  %8 = all_reduce %7 {reduce = sum, axes = [0]} : f32[4x8]  "
            "// frees %7\n"
            "  %9 = add %8, %6 : f32[4x8]  // frees %6, %8\n"
            "  return %9\n");
}

TEST_F(ProgramTest, InstructionsAreData) {
  Program program = compile(kMlp);
  const std::vector<Instruction> &instrs = program.instructions();
  ASSERT_EQ(instrs.size(), 9u);
  EXPECT_EQ(program.size(), instrs.size());
  const Instruction &reduce = instrs[7];
  EXPECT_EQ(reduce.op, Opcode::AllReduce);
  EXPECT_EQ(reduce.operands, (std::vector<int>{7}));
  EXPECT_EQ(reduce.result, 8);
  EXPECT_EQ(reduce.axes, (std::vector<int64_t>{0}));
  EXPECT_EQ(reduce.reduce, rt::ReduceOp::Sum);
  EXPECT_EQ(reduce.frees, (std::vector<int>{7}));
  EXPECT_EQ(instrs[0].op, Opcode::ParamChunk);
  EXPECT_EQ(program.params()[instrs[0].param].name, "net1.weight");
  EXPECT_EQ(program.inputSlots(), (std::vector<int>{0}));
  EXPECT_EQ(program.resultSlots(), (std::vector<int>{9}));
  EXPECT_EQ(program.slotTypes()[1].shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(program.slotTypes()[1].staticBytes, 8 * 8 * 4);
  // The most bytes live at once: the input, net1's weight and bias chunks
  // and net1's output, before linear's operands are freed.
  EXPECT_EQ(program.peakBytes(), (32 + 64 + 8 + 32) * 4);
}

TEST_F(ProgramTest, RunsToTheUnpartitionedValue) {
  Program program = compile(kMlp);
  DataSource data;
  data.seed = 11;
  auto out = runAll(program, data);
  auto param = [&](const char *name) {
    for (const auto &p : program.params())
      if (p.name == name)
        return Program::globalParam(p, data);
    throw std::runtime_error(std::string("no parameter ") + name);
  };
  rt::Tensor x = Program::globalInput(program.inputs()[0], data);
  rt::Tensor w1 = param("net1.weight"), b1 = param("net1.bias");
  rt::Tensor w2 = param("net2.weight"), b2 = param("net2.bias");
  rt::Tensor want =
      rt::linear(rt::relu(rt::linear(x, w1, &b1)), w2, &b2); // one rank
  for (const auto &r : out)
    expectNear(r.at(0), want); // replicated: every rank has all of it
}

TEST_F(ProgramTest, UnevenCollectivesGatherAndScatterTorchChunks) {
  // 5 rows over 3 ranks: torch.chunk gives 2, 2, 1.
  Program program = compile(R"(
tp.mesh @mesh(shape = 3) {axis_names = ["tp"]}
func.func @forward(%x: tensor<2x4xf32>) -> (tensor<2x5xf32>, tensor<?x4xf32>) attributes {tp.spmd, tp.result_types = [!tp.dtensor<2x5xf32, @mesh, [#tp.replicate]>, !tp.dtensor<5x4xf32, @mesh, [#tp.shard<0>]>]} {
  %w = model.param "fc.weight" : tensor<5x4xf32>
  %c = tp.chunk %w on @mesh mesh_axes = [0] axis = 0 : tensor<5x4xf32> -> tensor<?x4xf32>
  %h = model.linear "fc"(%x, %c) : (tensor<2x4xf32>, tensor<?x4xf32>) -> tensor<2x?xf32>
  %g = tp.all_gather %h on @mesh mesh_axes = [0] gather_axis = 1 : tensor<2x?xf32> -> tensor<2x5xf32>
  %p = model.param "p" : tensor<5x4xf32>
  %s = tp.reduce_scatter %p on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<5x4xf32> -> tensor<?x4xf32>
  return %g, %s : tensor<2x5xf32>, tensor<?x4xf32>
}
)");
  std::string text = print(program);
  EXPECT_NE(text.find("  %2 = linear 'fc' %0, %1 : f32[2x?]  // frees %0, %1\n"
                      "  %3 = all_gather_uneven %2 {dim = 1, size = 5, axes = "
                      "[0]} : f32[2x5]  // frees %2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  %5 = reduce_scatter_uneven %4 {dim = 0, reduce = "
                      "sum, axes = [0]} : f32[?x4]  // frees %4\n"),
            std::string::npos)
      << text;
  DataSource data;
  data.seed = 5;
  auto out = runAll(program, data);
  rt::Tensor x = Program::globalInput(program.inputs()[0], data);
  rt::Tensor w = Program::globalParam(program.params()[0], data);
  rt::Tensor p = Program::globalParam(program.params()[1], data);
  rt::Tensor want = rt::linear(x, w, nullptr);
  const int64_t rows[] = {2, 2, 1};
  for (int r = 0; r < 3; ++r) {
    expectNear(out[r][0], want);
    EXPECT_EQ(out[r][1].shape(), (std::vector<int64_t>{rows[r], 4}));
  }
  // Every rank holds p: the sum over the 3 ranks is 3p, split by rows.
  rt::Tensor tripled = p;
  for (int64_t i = 0; i < tripled.numel(); ++i)
    tripled.data()[i] *= 3;
  expectNear(assembled(program, out, 1), tripled);
}

TEST_F(ProgramTest, AsyncCollectivesRunWhileTheInstructionsBeforeTheirReader) {
  // The gather's reader comes two instructions later and nobody reads the
  // all_reduce: both run on the rank's communication thread (threads
  // allow it), the gather's operand lives until the linear that waits for
  // it, and the all_reduce is waited for at the end.
  Program program = compile(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["dp"]}
func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {tp.spmd} {
  %w = model.param "w" : tensor<8x8xf32>
  %c = tp.chunk %w on @mesh mesh_axes = [0] axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %g = tp.all_gather %c on @mesh mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %r = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = model.linear "fc"(%r, %g) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = tp.all_reduce %h on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %t = model.relu %h : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %t : tensor<4x8xf32>, tensor<4x8xf32>
}
)");
  std::string text = print(program);
  EXPECT_NE(text.find("  %2 = all_gather %1 {dim = 0, axes = [0]} : "
                      "f32[8x8]  // async\n"
                      "  %3 = relu %0 : f32[4x8]  // frees %0\n"
                      "  %4 = linear 'fc' %3, %2 : f32[4x8]  // awaits %2; "
                      "frees %1, %2, %3\n"
                      "  %5 = all_reduce %4 {reduce = sum, axes = [0]} : "
                      "f32[4x8]  // async\n"),
            std::string::npos)
      << text;
  DataSource data;
  data.seed = 3;
  rt::Tensor x = Program::globalInput(program.inputs()[0], data);
  rt::Tensor w = Program::globalParam(program.params()[0], data);
  rt::Tensor h = rt::linear(rt::relu(x), w, nullptr);
  rt::Tensor twice = h;
  for (int64_t i = 0; i < twice.numel(); ++i)
    twice.data()[i] *= 2;
  // On the communication thread (TP_OVERLAP_COLLECTIVES=1), and where they
  // stand (=0, what a machine without a spare core per rank does): the
  // same results, calls and peak.
  for (const char *overlap : {"1", "0"}) {
    SCOPED_TRACE(std::string("TP_OVERLAP_COLLECTIVES=") + overlap);
    setenv("TP_OVERLAP_COLLECTIVES", overlap, 1);
    std::vector<std::vector<rt::Tensor>> out(2);
    std::vector<rt::CollectiveStats> stats(2);
    std::vector<::mlir::tp::exec::PhaseCounts> phases(2);
    std::vector<int64_t> peaks(2);
    std::mutex mu;
    rt::runRanks(2, [&](rt::Communicator &comm) {
      int r = comm.rank();
      rt::CollectiveStats st;
      ::mlir::tp::exec::PhaseCounts ph;
      int64_t peak = 0;
      auto res = program.run(comm, data, &peak, &st, nullptr, &ph);
      std::lock_guard<std::mutex> lock(mu);
      out[r] = std::move(res);
      stats[r] = st;
      phases[r] = ph;
      peaks[r] = peak;
    });
    for (int r = 0; r < 2; ++r) {
      expectNear(out[r][0], twice);
      expectNear(out[r][1], rt::relu(h));
      // The calls on the communication thread's communicators count as the
      // program's, in their phase; the splits that made them do not.
      EXPECT_EQ(stats[r].counts["all_gather"], 1);
      EXPECT_EQ(stats[r].counts["all_reduce"], 1);
      EXPECT_EQ(stats[r].counts.count("split"), 0u);
      EXPECT_EQ(stats[r].bytes, (32 + 32) * 4); // both inputs are 4x8
      EXPECT_EQ(phases[r]["forward"]["all_gather"], 1);
      EXPECT_EQ(phases[r]["forward"]["all_reduce"], 1);
      // The measured peak is the memory plan's, the largest of its stages'
      // (a forward: the inputs, the forward's instructions, the results).
      auto plan = program.memoryPlan();
      EXPECT_EQ(peaks[r], plan.peakBytes);
      EXPECT_EQ(plan.peakBytes, *std::max_element(plan.stagePeakBytes.begin(),
                                                  plan.stagePeakBytes.end()));
      EXPECT_GT(plan.stagePeakBytes[0], 0);
      EXPECT_GT(plan.stagePeakBytes[1], 0);
      EXPECT_EQ(plan.stagePeakBytes[2], 0);
      EXPECT_EQ(plan.stagePeakBytes[3], 0);
      EXPECT_GT(plan.stagePeakBytes[4], 0);
    }
  }
  unsetenv("TP_OVERLAP_COLLECTIVES");
}

TEST_F(ProgramTest, InstructionTimesAddUpOverRuns) {
  // Each instruction's wall time, added to its entry run after run; their
  // sum is within the time the run took.
  Program program = compile(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["dp"]}
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {tp.spmd} {
  %r = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tp.all_reduce %r on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %t = model.relu %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
)");
  std::vector<std::vector<double>> times(2), first(2);
  std::vector<double> wall(2);
  rt::runRanks(2, [&](rt::Communicator &comm) {
    int r = comm.rank();
    auto start = std::chrono::steady_clock::now();
    program.run(comm, DataSource(), nullptr, nullptr, nullptr, nullptr,
                &times[r]);
    wall[r] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    first[r] = times[r];
    program.run(comm, DataSource(), nullptr, nullptr, nullptr, nullptr,
                &times[r]);
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(first[r].size(), program.size());
    double sum = 0;
    for (size_t i = 0; i < program.size(); ++i) {
      EXPECT_GE(first[r][i], 0);
      EXPECT_GE(times[r][i], first[r][i]);
      sum += first[r][i];
    }
    EXPECT_GT(sum, 0);
    EXPECT_LE(sum, wall[r]);
  }
}

TEST_F(ProgramTest, ABadOverlapSettingIsNamed) {
  Program program = compile(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["dp"]}
func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {tp.spmd} {
  %s = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %t = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %t : tensor<4x8xf32>, tensor<4x8xf32>
}
)");
  ASSERT_NE(print(program).find("// async"), std::string::npos);
  setenv("TP_OVERLAP_COLLECTIVES", "yes", 1);
  std::vector<std::string> errors(2);
  std::mutex mu;
  rt::runRanks(2, [&](rt::Communicator &comm) {
    try {
      program.run(comm, DataSource());
    } catch (const std::exception &e) {
      std::lock_guard<std::mutex> lock(mu);
      errors[comm.rank()] = e.what();
    }
  });
  unsetenv("TP_OVERLAP_COLLECTIVES");
  for (const std::string &e : errors)
    EXPECT_EQ(e, "TP_OVERLAP_COLLECTIVES must be 1 or 0, not 'yes'");
}

TEST_F(ProgramTest, DataSourceChoosesTheInitByNameAndShape) {
  // Matrices: 1/sqrt(fan_in); 1-D weights (norms) centred on one; biases
  // small and centred on zero.
  auto matrix = DataSource::paramInit("fc.weight", {32, 16});
  EXPECT_FLOAT_EQ(matrix.scale, 0.25f);
  EXPECT_FALSE(matrix.onesCentred);
  auto norm = DataSource::paramInit("norm.weight", {16});
  EXPECT_FLOAT_EQ(norm.scale, 0.1f);
  EXPECT_TRUE(norm.onesCentred);
  auto bias = DataSource::paramInit("fc.bias", {16});
  EXPECT_FLOAT_EQ(bias.scale, 0.1f);
  EXPECT_FALSE(bias.onesCentred);

  ::mlir::tp::exec::ParamInfo p;
  p.name = "norm.weight";
  p.globalShape = {64};
  rt::Tensor t = DataSource().param(p, nullptr);
  ASSERT_EQ(t.numel(), 64);
  for (int64_t i = 0; i < t.numel(); ++i) {
    EXPECT_GE(t.data()[i], 0.9f) << i;
    EXPECT_LT(t.data()[i], 1.1f) << i;
  }
  // A slice of the generator is the same slice of the whole tensor.
  ::mlir::tp::exec::Slice slice{0, 10, 5};
  rt::Tensor piece = DataSource().param(p, nullptr, {slice});
  EXPECT_EQ(piece, rt::sliceDim(t, 0, 10, 5));
  // A box of several slices (FSDP's piece of a tensor-parallel shard) is
  // the same box of the whole matrix.
  ::mlir::tp::exec::ParamInfo m;
  m.name = "fc.weight";
  m.globalShape = {12, 6};
  rt::Tensor whole = DataSource().param(m, nullptr);
  std::vector<::mlir::tp::exec::Slice> box{{1, 1, 3}, {0, 6, 3}};
  EXPECT_EQ(DataSource().param(m, nullptr, box),
            rt::sliceDim(rt::sliceDim(whole, 0, 6, 3), 1, 1, 3));
}

TEST_F(ProgramTest, TokenInputsRangeOverTheSmallestTableTheyIndex) {
  Program program = compile(R"(
func.func @forward(%ids: tensor<2x6xi64> {model.name = "tokens"}) -> (tensor<2x6x4xf32>, tensor<2x6x4xf32>) {
  %big = model.param "big.weight" : tensor<50x4xf32>
  %small = model.param "small.weight" : tensor<7x4xf32>
  %a = model.embedding "big"(%ids, %big) : (tensor<2x6xi64>, tensor<50x4xf32>) -> tensor<2x6x4xf32>
  %b = model.embedding "small"(%ids, %small) : (tensor<2x6xi64>, tensor<7x4xf32>) -> tensor<2x6x4xf32>
  return %a, %b : tensor<2x6x4xf32>, tensor<2x6x4xf32>
}
)");
  ASSERT_EQ(program.inputs().size(), 1u);
  const auto &in = program.inputs()[0];
  EXPECT_TRUE(in.isTokens);
  EXPECT_EQ(in.vocab, 7);
  // Ids are held as int64, the token dtype.
  EXPECT_EQ(::mlir::tp::exec::kTokenDType, rt::DType::I64);
  EXPECT_EQ(in.dtype, rt::DType::I64);
  EXPECT_NE(
      print(program).find(
          "%0 = input 'tokens' {placements = [R], tokens = 7} : i64[2x6]"),
      std::string::npos)
      << print(program);
  DataSource data;
  data.seed = 2;
  rt::Tensor ids = Program::globalInput(in, data);
  ASSERT_EQ(ids.dtype(), rt::DType::I64);
  bool aboveZero = false;
  for (int64_t i = 0; i < ids.numel(); ++i) {
    int64_t v = ids.dataI64()[i];
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 7);
    aboveZero |= v > 0;
  }
  EXPECT_TRUE(aboveZero);
}

/// Two ranks: a vocab-sharded embedding of i64 tokens, and the cross
/// entropy of its rows against i32 targets.
const char *kTokenLoss = R"(
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @forward(%ids: tensor<2x6xi64> {model.name = "tokens"}, %t: tensor<12xi32> {model.name = "targets"}) -> (tensor<f32>, tensor<2x6x4xf32>) attributes {tp.spmd} {
  %w = model.param "emb.weight" : tensor<10x4xf32>
  %wc = tp.chunk %w on @mesh mesh_axes = [0] axis = 0 : tensor<10x4xf32> -> tensor<5x4xf32>
  %e = tp.sharded_embedding %ids, %wc on @mesh mesh_axes = [0] vocab_size = 10 {module = "emb"} : (tensor<2x6xi64>, tensor<5x4xf32>) -> tensor<2x6x4xf32>
  %s = tp.all_reduce %e on @mesh mesh_axes = [0] reduction = sum : tensor<2x6x4xf32>
  %r = model.reshape %s : (tensor<2x6x4xf32>) -> tensor<12x4xf32>
  %loss = model.cross_entropy %r, %t : (tensor<12x4xf32>, tensor<12xi32>) -> tensor<f32>
  return %loss, %s : tensor<f32>, tensor<2x6x4xf32>
}
)";

TEST_F(ProgramTest, IntegerInputsKeepTheirWidth) {
  Program program = compile(kTokenLoss);
  ASSERT_EQ(program.inputs().size(), 2u);
  EXPECT_EQ(program.inputs()[0].dtype, rt::DType::I64);
  EXPECT_EQ(program.inputs()[0].vocab, 10);
  EXPECT_EQ(program.inputs()[1].dtype, rt::DType::I32);
  EXPECT_EQ(program.inputs()[1].vocab, 4);
  // Read only as the loss's targets: -100 (ignore_index) is valid too; the
  // embedding's ids are not.
  EXPECT_FALSE(program.inputs()[0].ignoreIndex);
  EXPECT_TRUE(program.inputs()[1].ignoreIndex);
  std::string text = print(program);
  EXPECT_NE(text.find("input 'targets' {placements = [R], tokens = 4, "
                      "ignore_index = -100} : i32[12]"),
            std::string::npos)
      << text;
  const auto &tokenSlot = program.slotTypes()[program.inputSlots()[0]];
  EXPECT_EQ(tokenSlot.dtype, rt::DType::I64);
  EXPECT_EQ(tokenSlot.staticBytes, 12 * 8);
  // Ids reach the kernels as they are: no widening to f32.
  for (const Instruction &in : program.instructions())
    EXPECT_TRUE(in.widen.empty()) << ::mlir::tp::exec::instructionName(in);
  DataSource data;
  data.seed = 4;
  rt::Tensor targets = Program::globalInput(program.inputs()[1], data);
  EXPECT_EQ(targets.dtype(), rt::DType::I32);
}

/// A safetensors file at a fresh temporary path, removed afterwards.
struct TempFile {
  std::string path =
      ::testing::TempDir() + "tp_program_" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name() +
      ".safetensors";
  ~TempFile() { std::remove(path.c_str()); }
};

TEST_F(ProgramTest, TokenFilesMatchTheGenerator) {
  Program program = compile(kTokenLoss);
  DataSource generated;
  generated.seed = 5;
  auto expected = runAll(program, generated);
  rt::Tensor tokens = Program::globalInput(program.inputs()[0], generated);
  rt::Tensor targets = Program::globalInput(program.inputs()[1], generated);
  ASSERT_EQ(tokens.dtype(), rt::DType::I64);
  // The loss is finite and the rows differ: a wrong id would show.
  ASSERT_TRUE(std::isfinite(assembled(program, expected, 0).data()[0]));

  // The same ids as PyTorch writes them (I64 tokens, I32 or I64 targets),
  // and as files from before the integer dtypes wrote them (F32).
  for (rt::DType fileType : {rt::DType::I64, rt::DType::I32, rt::DType::F32}) {
    SCOPED_TRACE(rt::dtypeName(fileType));
    TempFile file;
    rt::Tensor t = tokens.to(fileType), g = targets.to(fileType);
    rt::writeSafetensors(file.path, {{"tokens", &t}, {"targets", &g}});
    DataSource fromFile;
    fromFile.seed = 99; // ignored for the inputs in the file
    fromFile.inputsFile = file.path;
    EXPECT_EQ(Program::globalInput(program.inputs()[0], fromFile), tokens);
    EXPECT_EQ(Program::globalInput(program.inputs()[1], fromFile), targets);
    fromFile.seed = generated.seed; // the same parameters
    auto got = runAll(program, fromFile);
    for (size_t i = 0; i < 2; ++i)
      EXPECT_EQ(assembled(program, got, i), assembled(program, expected, i))
          << "result " << i;
  }
}

TEST_F(ProgramTest, InputFilesHoldABatchPerStep) {
  Program program = compile(kTokenLoss);
  const auto &inputs = program.inputs();
  // Three batches of generated tokens and targets, [3, ...] each; the
  // targets also once, for every step.
  std::vector<std::vector<rt::Tensor>> batches(inputs.size());
  for (uint64_t seed : {1, 2, 3}) {
    DataSource generated;
    generated.seed = seed;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<int64_t> shape{1};
      shape.insert(shape.end(), inputs[i].shape.begin(), inputs[i].shape.end());
      batches[i].push_back(
          Program::globalInput(inputs[i], generated).reshaped(shape));
    }
  }
  rt::Tensor tokens = rt::concatDim(batches[0], 0);
  rt::Tensor targets = rt::concatDim(batches[1], 0);
  rt::Tensor fixed = batches[1][0].reshaped(inputs[1].shape);
  TempFile perStep, mixed;
  mixed.path += ".mixed"; // TempFile names a file after the test
  rt::writeSafetensors(perStep.path,
                       {{"tokens", &tokens}, {"targets", &targets}});
  rt::writeSafetensors(mixed.path, {{"tokens", &tokens}, {"targets", &fixed}});
  DataSource data;
  data.inputsFile = perStep.path;
  EXPECT_EQ(data.checkInputs(inputs, 3), 3);
  for (data.step = 0; data.step < 3; ++data.step)
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_EQ(Program::globalInput(inputs[i], data),
                batches[i][data.step].reshaped(inputs[i].shape))
          << "step " << data.step << ", input " << i;
  try {
    data.checkInputs(inputs, 4);
    ADD_FAILURE() << "no error for 3 batches and 4 steps";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "input 'tokens' holds 3 batches (one per step), fewer "
                  "than the 4 steps to run"),
              std::string::npos)
        << e.what();
  }
  // An input held once is read by every step.
  data.inputsFile = mixed.path;
  EXPECT_EQ(data.checkInputs(inputs, 2), 3);
  data.step = 2;
  EXPECT_EQ(Program::globalInput(inputs[0], data),
            batches[0][2].reshaped(inputs[0].shape));
  EXPECT_EQ(Program::globalInput(inputs[1], data), fixed);
}

TEST_F(ProgramTest, IntegerResultsComeBackExactly) {
  // The tokens, batch-sharded over 2 ranks, returned as they are (and
  // through an embedding, which gives their range).
  Program program = compile(R"(
tp.mesh @mesh(shape = 2) {axis_names = ["dp"]}
func.func @forward(%ids: tensor<4xi64> {model.name = "tokens"}) -> (tensor<2xi64>, tensor<4x2xf32>) attributes {tp.spmd, tp.result_types = [!tp.dtensor<4xi64, @mesh, [#tp.shard<0>]>, !tp.dtensor<4x2xf32, @mesh, [#tp.replicate]>]} {
  %c = tp.chunk %ids on @mesh mesh_axes = [0] axis = 0 : tensor<4xi64> -> tensor<2xi64>
  %w = model.param "emb.weight" : tensor<10x2xf32>
  %e = model.embedding "emb"(%ids, %w) : (tensor<4xi64>, tensor<10x2xf32>) -> tensor<4x2xf32>
  return %c, %e : tensor<2xi64>, tensor<4x2xf32>
}
)");
  DataSource data;
  data.seed = 6;
  auto out = runAll(program, data);
  rt::Tensor tokens = Program::globalInput(program.inputs()[0], data);
  EXPECT_EQ(out[0][0].dtype(), rt::DType::I64);
  EXPECT_EQ(assembled(program, out, 0), tokens);
  // Beyond 2^24, where a trip through f32 would round.
  constexpr int64_t big = (int64_t(1) << 40) + 1;
  rt::Tensor a = rt::Tensor::fromInts({2}, {big, -big});
  rt::Tensor b = rt::Tensor::fromInts({2}, {big + 2, 7});
  EXPECT_EQ(program.assembleResult(0, {a, b}),
            rt::Tensor::fromInts({4}, {big, -big, big + 2, 7}));
  // I32 results stay I32.
  rt::Tensor a32 = rt::Tensor::fromInts({2}, {16777217, -1}, rt::DType::I32);
  rt::Tensor b32 = rt::Tensor::fromInts({2}, {3, 2147483647}, rt::DType::I32);
  EXPECT_EQ(
      program.assembleResult(0, {a32, b32}),
      rt::Tensor::fromInts({4}, {16777217, -1, 3, 2147483647}, rt::DType::I32));
}

TEST_F(ProgramTest, BadTokenFilesNameTheFileAndInput) {
  Program program = compile(kTokenLoss);
  const auto &in = program.inputs()[0];
  auto expectError = [&](const rt::Tensor &tokens, const std::string &part) {
    TempFile file;
    rt::writeSafetensors(file.path, {{"tokens", &tokens}});
    DataSource data;
    data.inputsFile = file.path;
    try {
      Program::globalInput(in, data);
      ADD_FAILURE() << "no error for " << part;
    } catch (const std::runtime_error &e) {
      std::string what = e.what();
      EXPECT_NE(what.find(file.path + ": input 'tokens' holds "),
                std::string::npos)
          << what;
      EXPECT_NE(what.find(part), std::string::npos) << what;
    }
  };
  std::vector<int64_t> ok(12, 3);
  std::vector<int64_t> high = ok, negative = ok, far = ok;
  high[7] = 10;
  negative[0] = -1;
  far[11] = (int64_t(1) << 40) + 1;
  expectError(rt::Tensor::fromInts({2, 6}, high), "id 10 outside [0, 10)");
  expectError(rt::Tensor::fromInts({2, 6}, negative, rt::DType::I32),
              "id -1 outside [0, 10)");
  expectError(rt::Tensor::fromInts({2, 6}, far),
              "id 1099511627777 outside [0, 10)");
  std::vector<float> half(12, 3.0f);
  half[2] = 2.5f;
  expectError(rt::Tensor::fromData({2, 6}, half), "not an integer");
  expectError(rt::Tensor::fromInts({2, 6}, ok).to(rt::DType::BF16),
              "token ids as BF16");
}

TEST_F(ProgramTest, TensorsHeldInMemoryComeBeforeFilesAndTheGenerator) {
  Program program = compile(kTokenLoss);
  const auto &in = program.inputs()[0];
  ::mlir::tp::exec::ParamInfo p;
  p.name = "fc.weight";
  p.globalShape = {4, 6};
  rt::Tensor weight = rt::Tensor::full({4, 6}, 0.5f);
  weight.data()[7] = 2.0f;
  rt::Tensor tokens = rt::Tensor::fromInts({2, 6}, std::vector<int64_t>(12, 4));
  // A file holding other tokens, which the tensor in memory overrides.
  TempFile file;
  rt::Tensor other = rt::Tensor::fromInts({2, 6}, std::vector<int64_t>(12, 1));
  rt::Tensor targets =
      rt::Tensor::fromInts({12}, std::vector<int64_t>(12, 2), rt::DType::I32);
  rt::writeSafetensors(file.path, {{"tokens", &other}, {"targets", &targets}});
  DataSource data;
  data.inputsFile = file.path;
  data.weightTensors["fc.weight"] = std::make_shared<rt::Tensor>(weight);
  data.inputTensors["tokens"] = std::make_shared<rt::Tensor>(tokens);
  EXPECT_EQ(data.param(p, nullptr), weight);
  ::mlir::tp::exec::Slice slice{0, 1, 2};
  EXPECT_EQ(data.param(p, nullptr, {slice}), rt::sliceDim(weight, 0, 1, 2));
  EXPECT_EQ(Program::globalInput(in, data), tokens);
  EXPECT_EQ(data.checkInputs(program.inputs(), 1), 0);
  // Without it, the file's.
  DataSource fromFile = data;
  fromFile.inputTensors.clear();
  EXPECT_EQ(Program::globalInput(in, fromFile), other);

  // The shape and the ids are checked as a file's are.
  auto expectError = [&](DataSource &source, auto read,
                         const std::string &part) {
    try {
      read(source);
      ADD_FAILURE() << "no error for " << part;
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << e.what();
    }
  };
  DataSource bad;
  bad.weightTensors["fc.weight"] =
      std::make_shared<rt::Tensor>(rt::Tensor({6, 4}));
  bad.inputTensors["tokens"] = std::make_shared<rt::Tensor>(
      rt::Tensor::fromInts({2, 6}, std::vector<int64_t>(12, 10)));
  expectError(
      bad, [&](DataSource &d) { d.param(p, nullptr); },
      "parameter 'fc.weight' given in memory has shape [6x4] but the model "
      "expects [4x6]");
  expectError(
      bad, [&](DataSource &d) { Program::globalInput(in, d); },
      "input 'tokens' given in memory holds id 10 outside [0, 10)");
}

TEST_F(ProgramTest, IntegerInputsThatIndexNothingAreRejected) {
  try {
    compile(R"(
func.func @forward(%ids: tensor<4xi64>) -> tensor<4xi64> {
  return %ids : tensor<4xi64>
}
)");
    FAIL() << "compile did not throw";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "integer input 'arg0' feeds no embedding, so its id range "
                  "is unknown"),
              std::string::npos)
        << e.what();
  }
}

TEST(OpcodeTest, TablesKnowOpcodesAndKernelsByName) {
  EXPECT_STREQ(::mlir::tp::exec::opcodeName(Opcode::AllGatherUneven),
               "all_gather_uneven");
  EXPECT_TRUE(::mlir::tp::exec::isKernel(Opcode::Kernel));
  EXPECT_FALSE(::mlir::tp::exec::isKernel(Opcode::AllReduce));
  EXPECT_FALSE(::mlir::tp::exec::isKernel(Opcode::ParamChunk));
  // Kernels are numbered by name; an instruction prints its kernel's.
  int ce = ::mlir::tp::exec::kernelNamed("cross_entropy");
  ASSERT_GE(ce, 0);
  EXPECT_STREQ(::mlir::tp::exec::kernelName(ce), "cross_entropy");
  EXPECT_EQ(::mlir::tp::exec::kernelNamed("no_such_kernel"), -1);
  Instruction in;
  in.kernel = ce;
  EXPECT_STREQ(::mlir::tp::exec::instructionName(in), "cross_entropy");
  in.op = Opcode::AllReduce;
  EXPECT_STREQ(::mlir::tp::exec::instructionName(in), "all_reduce");
}

} // namespace
