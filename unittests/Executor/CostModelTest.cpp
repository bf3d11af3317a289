//===- CostModelTest.cpp - predicted step time of a program -----*- C++ -*-===//
//
// Program::estimateCost (tp/Executor/CostModel.h) on a small program with
// round-number hardware, every figure worked out by hand: the roofline of
// each kernel, the ring formulas of the collectives, async collectives
// overlapping the compute before their reader (and not, without overlap),
// ranks sharing cores, groups across nodes; and the profiles' JSON.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/CostModel.h"
#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"

#include "HostBackend.h"
#include "KernelTable.h"
#include "ProgramData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tp::exec;

namespace {

// A gather two instructions before its reader and an all_reduce nobody
// reads: both async (ProgramTest checks the schedule).
//   %1 = param_chunk 'w' : f32[4x8]
//   %2 = all_gather %1 : f32[8x8]          // async
//   %3 = relu %0 : f32[4x8]
//   %4 = linear 'fc' %3, %2 : f32[4x8]     // awaits %2
//   %5 = all_reduce %4 : f32[4x8]          // async
//   %6 = relu %4 : f32[4x8]
const char *kProgram = R"(
tp.mesh @mesh(shape = 2) {axis_names = ["dp"]}
func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {tp.spmd} {
  %w = model.param "w" : tensor<8x8xf32>
  %c = tp.chunk %w on @mesh mesh_axes = [0] axis = 0 {module = "fc"} : tensor<8x8xf32> -> tensor<4x8xf32>
  %g = tp.all_gather %c on @mesh mesh_axes = [0] gather_axis = 0 {module = "fc"} : tensor<4x8xf32> -> tensor<8x8xf32>
  %r = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = model.linear "fc"(%r, %g) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = tp.all_reduce %h on @mesh mesh_axes = [0] reduction = sum {module = "layers.0.mlp.down"} : tensor<4x8xf32>
  %t = model.relu %h : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %t : tensor<4x8xf32>, tensor<4x8xf32>
}
)";

/// Every rate 1e9 per second, 1 us per instruction, 10 us per ring step.
HardwareProfile round() {
  HardwareProfile p;
  p.name = "round";
  p.matmulFlops = p.vectorFlops = p.memoryBandwidth = 1e9;
  p.instructionOverhead = 1e-6;
  p.intraNode = {1e-5, 1e9};
  return p;
}

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kProgram, &context);
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    program = std::make_unique<Program>(Program::compile(entry));
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<Program> program;
};

constexpr double kUs = 1e-6;

TEST_F(CostModelTest, RooflineRingAndOverlapByHand) {
  CostEstimate est = program->estimateCost(round());
  ASSERT_EQ(est.instructions.size(), 6u);
  const auto &c = est.instructions;
  // param_chunk: resident, only the instruction's own cost.
  EXPECT_NEAR(c[0].seconds, 1 * kUs, 1e-12);
  // all_gather of 2: 1 step of 10 us, (n-1)/n of the 256-byte result.
  EXPECT_TRUE(c[1].communication);
  EXPECT_NEAR(c[1].seconds, (1 + 10 + 0.128) * kUs, 1e-12);
  EXPECT_EQ(c[1].bytes, 128);
  // relu of 32 elements: 256 bytes moved beat 32 flops.
  EXPECT_NEAR(c[2].seconds, (1 + 0.256) * kUs, 1e-12);
  // linear [4x8] x [8x8]^T: 512 flops, 512 bytes.
  EXPECT_EQ(c[3].flops, 512);
  EXPECT_NEAR(c[3].seconds, (1 + 0.512) * kUs, 1e-12);
  // all_reduce of 2: 2 steps and 2(n-1)/n of its 128 bytes.
  EXPECT_NEAR(c[4].seconds, (1 + 20 + 0.128) * kUs, 1e-12);

  // The gather starts after the param_chunk (1 us) and ends at 12.128 us;
  // the linear waits for it from 2.256 us; the all_reduce starts after the
  // linear, at 13.64 us, and the run ends with it at 34.768 us.
  EXPECT_NEAR(c[1].start, 1 * kUs, 1e-12);
  EXPECT_NEAR(c[3].start, 12.128 * kUs, 1e-12);
  EXPECT_NEAR(c[4].start, 13.64 * kUs, 1e-12);
  EXPECT_NEAR(est.stepSeconds, 34.768 * kUs, 1e-12);
  EXPECT_NEAR(est.total.computeSeconds, 5.024 * kUs, 1e-12);
  EXPECT_NEAR(est.total.communicationSeconds, 32.256 * kUs, 1e-12);
  EXPECT_NEAR(est.total.exposedSeconds, (9.872 + 19.872) * kUs, 1e-12);
  EXPECT_EQ(est.total.collectives, 2);
  EXPECT_EQ(est.total.communicationBytes, 256);
  // Compute and exposed waiting make up the run.
  EXPECT_NEAR(est.total.computeSeconds + est.total.exposedSeconds,
              est.stepSeconds, 1e-12);

  // Modules in program order: the chunk and gather are fc's, the relu
  // follows them; the all_reduce names its module, grouped by layer.
  ASSERT_EQ(est.modules.size(), 2u);
  EXPECT_EQ(est.modules[0].first, "fc");
  EXPECT_EQ(est.modules[1].first, "layers.0.mlp");
  EXPECT_EQ(est.modules[0].second.collectives, 1);
  EXPECT_EQ(est.modules[1].second.collectives, 1);
  ASSERT_EQ(est.phases.count("forward"), 1u);
  EXPECT_NEAR(est.phases["forward"].exposedSeconds, est.total.exposedSeconds,
              1e-15);
}

TEST_F(CostModelTest, EachProductPaysTheCallOverhead) {
  // The linear (instruction 3, one GEMM) costs 3 us more; the relus
  // nothing.
  HardwareProfile hw = round();
  CostEstimate before = program->estimateCost(hw);
  hw.matmulCallOverhead = 3e-6;
  CostEstimate after = program->estimateCost(hw);
  EXPECT_NEAR(after.instructions[3].seconds - before.instructions[3].seconds,
              3 * kUs, 1e-12);
  EXPECT_NEAR(after.instructions[2].seconds, before.instructions[2].seconds,
              1e-15);
  // On half a core, twice that.
  hw.sharedCores = 1;
  HardwareProfile shared = round();
  shared.sharedCores = 1;
  EXPECT_NEAR(program->estimateCost(hw).instructions[3].seconds -
                  program->estimateCost(shared).instructions[3].seconds,
              6 * kUs, 1e-12);
}

TEST_F(CostModelTest, WithoutOverlapCollectivesAddUp) {
  HardwareProfile hw = round();
  hw.overlap = false;
  CostEstimate est = program->estimateCost(hw);
  EXPECT_NEAR(est.stepSeconds, (5.024 + 32.256) * kUs, 1e-12);
  EXPECT_NEAR(est.total.exposedSeconds, 32.256 * kUs, 1e-12);
}

TEST_F(CostModelTest, RanksSharingCoresComputeAtTheirShare) {
  HardwareProfile hw = round();
  hw.sharedCores = 1; // two ranks on one core
  CostEstimate est = program->estimateCost(hw);
  EXPECT_EQ(est.coreShare, 0.5);
  // The work doubles, the instruction's own cost does not.
  EXPECT_NEAR(est.instructions[3].seconds, (1 + 2 * 0.512) * kUs, 1e-12);
  EXPECT_NEAR(est.instructions[2].seconds, (1 + 2 * 0.256) * kUs, 1e-12);
}

TEST_F(CostModelTest, OversubscribedRanksUseTheirLink) {
  HardwareProfile hw = round();
  hw.oversubscribed = {1e-4, 1e8};
  // Two ranks, two cores: the intra-node link.
  hw.sharedCores = 2;
  EXPECT_NEAR(program->estimateCost(hw).instructions[1].seconds,
              (1 + 10 + 0.128) * kUs, 1e-12);
  // Two ranks on one core: the oversubscribed one.
  hw.sharedCores = 1;
  EXPECT_NEAR(program->estimateCost(hw).instructions[1].seconds,
              (1 + 100 + 1.28) * kUs, 1e-12);
}

TEST_F(CostModelTest, SmallerGroupsPayTheCallLatency) {
  // Two ranks on one core, oversubscribed: the all_gather (instruction 1)
  // of both ranks is a group of all, no cost per call.
  HardwareProfile hw = round();
  hw.sharedCores = 1;
  hw.oversubscribed = {1e-4, 1e8, 5e-5};
  EXPECT_NEAR(program->estimateCost(hw).instructions[1].seconds,
              (1 + 100 + 1.28) * kUs, 1e-12);
  // On a 2x2 mesh, an all_reduce over one axis (2 of the 4 ranks) of 32
  // bytes: 50 us for the call, 2 steps of 100 us, 32 bus bytes at 1e8.
  OwningOpRef<ModuleOp> mesh2d = parseSourceString<ModuleOp>(R"(
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @forward(%x: tensor<8xf32>) -> tensor<8xf32> attributes {tp.spmd} {
  %s = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = sum : tensor<8xf32>
  return %s : tensor<8xf32>
}
)",
                                                             &context);
  ASSERT_TRUE(mesh2d);
  func::FuncOp entry;
  mesh2d->walk([&](func::FuncOp f) { entry = f; });
  Program axisGroup = Program::compile(entry);
  hw.sharedCores = 2; // 4 ranks on 2 cores
  EXPECT_NEAR(axisGroup.estimateCost(hw).instructions[0].seconds,
              (1 + 50 + 200 + 0.32) * kUs, 1e-12);
  // Spinning ranks (a core each) pay no cost per call.
  hw.sharedCores = 4;
  EXPECT_NEAR(axisGroup.estimateCost(hw).instructions[0].seconds,
              (1 + 20 + 0.032) * kUs, 1e-12);
}

TEST_F(CostModelTest, GroupsAcrossNodesUseTheInterNodeLink) {
  HardwareProfile hw = round();
  hw.ranksPerNode = 1;
  hw.interNode = {1e-4, 1e8};
  CostEstimate est = program->estimateCost(hw);
  EXPECT_NEAR(est.instructions[1].seconds, (1 + 100 + 1.28) * kUs, 1e-12);
  hw.ranksPerNode = 2;
  est = program->estimateCost(hw);
  EXPECT_NEAR(est.instructions[1].seconds, (1 + 10 + 0.128) * kUs, 1e-12);
}

/// What kernel \p name counts on \p shapes (operands, then the result):
/// its flops and library transcendentals (KernelCost).
struct Counted {
  double flops = -1, transcendentals = 0, products = 0, bytes = 0;
  bool matrix = false;
};
Counted countOf(const char *name, std::vector<std::vector<int64_t>> shapes) {
  using namespace mlir::tp::exec::detail;
  ProgramData p;
  Instruction in;
  in.op = Opcode::Kernel;
  in.kernel = kernelNamed(name);
  for (size_t i = 0; i < shapes.size(); ++i) {
    SlotType t;
    t.shape = shapes[i];
    int64_t n = 1;
    for (int64_t d : t.shape)
      n *= d;
    t.staticBytes = 4 * n;
    p.slots.push_back(t);
    if (i + 1 < shapes.size())
      in.operands.push_back(static_cast<int>(i));
    else
      in.result = static_cast<int>(i);
  }
  const KernelEntry<HostBackend> *k = HostBackend::kernels()[in.kernel];
  Counted c;
  if (!k)
    return c;
  c.flops = k->cost.flops
                ? k->cost.flops(in, p)
                : static_cast<double>(p.slots[in.result].staticBytes / 4);
  c.matrix = k->cost.matrix;
  c.transcendentals =
      k->cost.transcendentals ? k->cost.transcendentals(in, p) : 0;
  c.products = k->cost.products ? k->cost.products(in, p) : c.matrix ? 1 : 0;
  if (k->cost.bytes) {
    c.bytes = k->cost.bytes(in, p);
  } else {
    for (const SlotType &t : p.slots)
      c.bytes += static_cast<double>(t.staticBytes);
  }
  return c;
}

TEST(KernelCostTest, MatrixProductsByHand) {
  // [4, 8] x [16, 8]^T: 4 * 16 outputs of 8 multiply-adds.
  Counted linear = countOf("linear", {{4, 8}, {16, 8}, {4, 16}});
  EXPECT_EQ(linear.flops, 2 * 4 * 16 * 8);
  EXPECT_TRUE(linear.matrix);
  // Batched [2, 3, 4] x [2, 4, 5].
  EXPECT_EQ(countOf("matmul", {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}}).flops,
            2 * 2 * 3 * 5 * 4);
  // The gradients of the linear: each as many flops as the forward.
  EXPECT_EQ(countOf("linear_grad_input", {{4, 16}, {16, 8}, {4, 8}}).flops,
            linear.flops);
  EXPECT_EQ(countOf("linear_grad_weight", {{4, 16}, {4, 8}, {16, 8}}).flops,
            linear.flops);
  // Attention of q [1, 4, 2, 8] on k, v [1, 6, 2, 8]: per head q k^T and
  // p v (2 * 4 * 6 * 8 each), and 13 flops per score's vectorized exp.
  double products = 2 * 2 * (2 * 4 * 6 * 8), scores = 2 * 4 * 6;
  Counted attention = countOf(
      "attention", {{1, 4, 2, 8}, {1, 6, 2, 8}, {1, 6, 2, 8}, {1, 4, 2, 8}});
  EXPECT_EQ(attention.flops, products + 13 * scores);
  EXPECT_TRUE(attention.matrix);
  // Its backward: the scores again, dv, dp, dq, dk (5 products) and the
  // exps, a third per gradient instruction.
  EXPECT_EQ(countOf("attention_grad_q", {{1, 4, 2, 8},
                                         {1, 4, 2, 8},
                                         {1, 6, 2, 8},
                                         {1, 6, 2, 8},
                                         {1, 4, 2, 8}})
                .flops,
            (5 * (2 * 2 * 4 * 6 * 8) + 13 * scores) / 3);
}

TEST(KernelCostTest, LibraryProductsPerCall) {
  // A linear is one GEMM; a matmul one over all rows when b is a matrix,
  // one per batch otherwise.
  EXPECT_EQ(countOf("linear", {{4, 8}, {16, 8}, {4, 16}}).products, 1);
  EXPECT_EQ(countOf("matmul", {{2, 3, 4}, {4, 5}, {2, 3, 5}}).products, 1);
  EXPECT_EQ(countOf("matmul", {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}}).products, 2);
  // Attention of 3 batches of 2 query heads: two per head and batch; its
  // backward five, a third on each gradient instruction.
  std::vector<int64_t> q{3, 4, 2, 8}, kv{3, 6, 1, 8};
  EXPECT_EQ(countOf("attention", {q, kv, kv, q}).products, 2 * 3 * 2);
  EXPECT_EQ(countOf("attention_grad_v", {q, q, kv, kv, kv}).products,
            5.0 * 3 * 2 / 3);
  // Not a matrix kernel: none.
  EXPECT_EQ(countOf("add", {{3, 5}, {3, 5}, {3, 5}}).products, 0);
}

TEST(KernelCostTest, NormsByTheirPasses) {
  // [6, 4] rows: layer_norm 8 flops an element, rms_norm 5; each gradient
  // instruction half of the backward's 20 and 12.
  std::vector<int64_t> x{6, 4}, w{4};
  EXPECT_EQ(countOf("layer_norm", {x, w, w, x}).flops, 8 * 24);
  EXPECT_EQ(countOf("rms_norm", {x, w, x}).flops, 5 * 24);
  EXPECT_EQ(countOf("layer_norm_grad_input", {x, x, w, x}).flops, 10 * 24);
  EXPECT_EQ(countOf("layer_norm_grad_weight", {x, x, w}).flops, 10 * 24);
  EXPECT_EQ(countOf("rms_norm_grad_input", {x, x, w, x}).flops, 6 * 24);
  EXPECT_EQ(countOf("rms_norm_grad_weight", {x, x, w}).flops, 6 * 24);
}

TEST(KernelCostTest, ElementwiseAndTranscendentals) {
  // One flop per element by default.
  Counted add = countOf("add", {{3, 5}, {3, 5}, {3, 5}});
  EXPECT_EQ(add.flops, 15);
  EXPECT_FALSE(add.matrix);
  EXPECT_EQ(add.transcendentals, 0);
  // The library's exp: a transcendental per element; SiLU's vectorized
  // one: 13 flops.
  EXPECT_EQ(countOf("exp", {{3, 5}, {3, 5}}).transcendentals, 15);
  EXPECT_EQ(countOf("softmax", {{3, 5}, {3, 5}}).transcendentals, 15);
  Counted silu = countOf("silu", {{3, 5}, {3, 5}});
  EXPECT_EQ(silu.flops, 13 * 15);
  EXPECT_EQ(silu.transcendentals, 0);
}

TEST(KernelCostTest, BytesReadAndWritten) {
  // By default the operands and the result, whole (4 bytes an element
  // here).
  EXPECT_EQ(countOf("add", {{3, 5}, {3, 5}, {3, 5}}).bytes, 4 * 45);
  // A slice reads what it writes: 2 of a [2, 100] buffer's columns (an
  // FSDP unit's gathered parameters), not the buffer.
  EXPECT_EQ(countOf("slice", {{2, 100}, {2, 2}}).bytes, 4 * (4 + 4));
  // An embedding reads the ids and the rows it looks up (4 tokens of 8),
  // not the table of 1,000 rows; its gradient writes the table's gradient
  // and reads only the table's shape.
  EXPECT_EQ(countOf("embedding", {{4}, {1000, 8}, {4, 8}}).bytes,
            4 * (4 + 32 + 32));
  EXPECT_EQ(countOf("embedding_masked", {{4}, {500, 8}, {4, 8}}).bytes,
            4 * (4 + 32 + 32));
  EXPECT_EQ(
      countOf("embedding_grad", {{4, 8}, {4}, {1000, 8}, {1000, 8}}).bytes,
      4 * (32 + 4 + 8000));
}

TEST(HardwareProfileTest, JSONRoundTripsAndBuiltinsParse) {
  for (const std::string &name : HardwareProfile::builtinNames()) {
    HardwareProfile p, back;
    ASSERT_TRUE(HardwareProfile::builtin(name, p)) << name;
    EXPECT_FALSE(p.source.empty()) << name;
    std::string error;
    ASSERT_TRUE(HardwareProfile::fromJSON(p.toJSON(), back, error)) << error;
    EXPECT_EQ(back.toJSON(), p.toJSON());
    EXPECT_GT(back.matmulFlops16, back.matmulFlops) << name;
  }
  HardwareProfile p;
  EXPECT_FALSE(HardwareProfile::builtin("tpu-v9", p));
  // A calibrated profile's cost per GEMM call survives the round trip.
  HardwareProfile cpu = round(), back;
  cpu.matmulCallOverhead = 2.5e-7;
  cpu.oversubscribed = {1e-5, 1e9, 1.5e-4};
  std::string error;
  ASSERT_TRUE(HardwareProfile::fromJSON(cpu.toJSON(), back, error)) << error;
  EXPECT_EQ(back.matmulCallOverhead, 2.5e-7);
  EXPECT_EQ(back.oversubscribed.callLatency, 1.5e-4);
  EXPECT_NE(cpu.toJSON().find("\"matmul_call_overhead\""), std::string::npos);
}

TEST(HardwareProfileTest, ErrorsNameTheKey) {
  auto error = [](const char *text) {
    HardwareProfile p;
    std::string e;
    EXPECT_FALSE(HardwareProfile::fromJSON(text, p, e)) << text;
    return e;
  };
  const char *base = R"("matmul_flops": 1, "vector_flops": 1,
      "memory_bandwidth": 1, "intra_node": {"latency": 0, "bandwidth": 1})";
  EXPECT_EQ(error("[1]"), "a hardware profile is a JSON object");
  EXPECT_EQ(error(R"({"vector_flops": 1, "memory_bandwidth": 1,
      "intra_node": {"bandwidth": 1}})"),
            "missing key 'matmul_flops'");
  EXPECT_EQ(error((std::string("{") + base + R"(, "gpus": 8})").c_str())
                .substr(0, 20),
            "unknown key 'gpus' (");
  EXPECT_EQ(error(R"({"matmul_flops": -1})"),
            "'matmul_flops' must be a positive number");
  EXPECT_EQ(error(R"({"matmul_flops": 1, "vector_flops": 1,
      "memory_bandwidth": 1, "intra_node": {"latency": 0}})"),
            "'intra_node' has no \"bandwidth\"");
  EXPECT_EQ(error(R"({"intra_node": {"bandwidth": 1, "hops": 2}})"),
            "unknown key 'intra_node.hops' (expected latency, bandwidth, "
            "call_latency)");
  EXPECT_EQ(
      error((std::string("{") + base + R"(, "ranks_per_node": 8})").c_str()),
      "'ranks_per_node' needs 'inter_node', the link between nodes");
  EXPECT_EQ(
      error((std::string("{") + base + R"(, "shared_cores": 1.5})").c_str()),
      "'shared_cores' must be a non-negative integer");
  EXPECT_EQ(error("{"), error("{")); // a syntax error says where
  EXPECT_NE(error("{").find("["), std::string::npos);
}

TEST(ModuleGroupTest, CutsAfterTheLayerNumber) {
  EXPECT_EQ(moduleGroup("layers.0.attention.wq"), "layers.0.attention");
  EXPECT_EQ(moduleGroup("model.layers.12.mlp.up_proj"), "model.layers.12.mlp");
  EXPECT_EQ(moduleGroup("layers.3"), "layers.3");
  EXPECT_EQ(moduleGroup("tok_embeddings"), "tok_embeddings");
  EXPECT_EQ(moduleGroup("net1"), "net1");
  EXPECT_EQ(moduleGroup(""), "");
}

} // namespace
