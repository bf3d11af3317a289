//===- PlannerTest.cpp - the planner's model analysis and plans -*- C++ -*-===//
//
// tp/Plan/Planner.h on hand-written IR with Hugging Face's names: the
// pairs, norms and layers it finds (and the modules it leaves out), the
// plans it writes for a choice, and the search's rules (the budget, ties,
// failing candidates, the smallest plan when nothing fits).
//
//===----------------------------------------------------------------------===//

#include "tp/Plan/Planner.h"

#include "tp/InitAll.h"
#include "tp/Support/JSON.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tp::plan;

namespace {

/// One decoder layer as Hugging Face's Llama names it: a norm and an MLP
/// (gate_proj and up_proj read its input, down_proj makes its output).
std::string layer(int i, bool oddMlp = false) {
  std::string p = "model.layers." + std::to_string(i);
  std::string t = "tensor<2x4x8xf32>", h = "tensor<2x4x16xf32>";
  std::string mlp =
      "      %wg = model.param \"" + p +
      ".mlp.gate_proj.weight\" : tensor<16x8xf32>\n"
      "      %g = model.linear \"" +
      p + ".mlp.gate_proj\"(%b, %wg) : (" + t + ", tensor<16x8xf32>) -> " + h +
      "\n"
      "      %wu = model.param \"" +
      p +
      ".mlp.up_proj.weight\" : tensor<16x8xf32>\n"
      "      %u = model.linear \"" +
      p + ".mlp.up_proj\"(%b, %wu) : (" + t + ", tensor<16x8xf32>) -> " + h +
      "\n"
      "      %s = model.silu %g : (" +
      h + ") -> " + h +
      "\n"
      "      %q = model.mul %s, %u : (" +
      h + ", " + h + ") -> " + h + "\n";
  if (oddMlp)
    // Another linear between the pair: not a plain pair any more.
    mlp += "      %wx = model.param \"" + p +
           ".mlp.mix.weight\" : tensor<16x16xf32>\n"
           "      %q2 = model.linear \"" +
           p + ".mlp.mix\"(%q, %wx) : (" + h + ", tensor<16x16xf32>) -> " + h +
           "\n";
  std::string last = oddMlp ? "%q2" : "%q";
  mlp += "      %wd = model.param \"" + p +
         ".mlp.down_proj.weight\" : tensor<8x16xf32>\n"
         "      %d = model.linear \"" +
         p + ".mlp.down_proj\"(" + last + ", %wd) : (" + h +
         ", tensor<8x16xf32>) -> " + t +
         "\n"
         "      model.yield %d : " +
         t + "\n";
  return "  %l" + std::to_string(i + 1) + " = model.module \"" + p + "\"(%l" +
         std::to_string(i) +
         ") {arg_names = [\"x\"], kind = \"LlamaDecoderLayer\"} : (" + t +
         ") -> " + t +
         " {\n"
         "  ^bb0(%a: " +
         t +
         "):\n"
         "    %wn = model.param \"" +
         p +
         ".input_layernorm.weight\" : tensor<8xf32>\n"
         "    %n = model.rms_norm \"" +
         p + ".input_layernorm\"(%a, %wn) : (" + t + ", tensor<8xf32>) -> " +
         t +
         "\n"
         "    %m = model.module \"" +
         p + ".mlp\"(%n) {arg_names = [\"x\"], kind = \"LlamaMLP\"} : (" + t +
         ") -> " + t +
         " {\n"
         "    ^bb0(%b: " +
         t + "):\n" + mlp +
         "    }\n"
         "    %r = model.add %a, %m : (" +
         t + ", " + t + ") -> " + t +
         "\n"
         "    model.yield %r : " +
         t +
         "\n"
         "  }\n";
}

std::string model(bool oddSecondLayer = false) {
  return "func.func @forward(%l0: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {\n" +
         layer(0) + layer(1, oddSecondLayer) +
         "  return %l2 : tensor<2x4x8xf32>\n}\n";
}

class PlannerTest : public ::testing::Test {
protected:
  PlannerTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  ModelStructure analyze(const std::string &text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    return analyzeModel(entry);
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(PlannerTest, FindsHuggingFacePairsNormsAndLayers) {
  ModelStructure s = analyze(model());
  ASSERT_EQ(s.pairs.size(), 1u);
  EXPECT_EQ(s.pairs[0].module, "model.layers.*.mlp");
  EXPECT_EQ(s.pairs[0].in, (std::vector<std::string>{"gate_proj", "up_proj"}));
  EXPECT_EQ(s.pairs[0].out, "down_proj");
  EXPECT_EQ(s.norms,
            (std::vector<std::string>{"model.layers.*.input_layernorm"}));
  EXPECT_EQ(s.layers, "model.layers.*");
  EXPECT_EQ(s.embedding, "");
  EXPECT_EQ(s.output, "");
}

TEST_F(PlannerTest, FindsPairsAcrossSiblingModules) {
  // BERT's attention: query and value in BertSelfAttention, the output
  // projection in its sibling BertSelfOutput, which also reads the
  // residual.
  std::string t = "tensor<2x4x8xf32>", w = "tensor<8x8xf32>";
  std::string text =
      "func.func @forward(%x: " + t + ") -> " + t +
      " {\n"
      "  %att = model.module \"layer.0.attention\"(%x) {arg_names = "
      "[\"h\"], kind = \"BertAttention\"} : (" +
      t + ") -> " + t + " {\n  ^bb0(%h: " + t +
      "):\n"
      "    %s = model.module \"layer.0.attention.self\"(%h) {arg_names = "
      "[\"h\"], kind = \"BertSelfAttention\"} : (" +
      t + ") -> " + t + " {\n    ^bb0(%a: " + t +
      "):\n"
      "      %wq = model.param \"layer.0.attention.self.query.weight\" : " +
      w +
      "\n"
      "      %q = model.linear \"layer.0.attention.self.query\"(%a, %wq) : (" +
      t + ", " + w + ") -> " + t +
      "\n"
      "      %wv = model.param \"layer.0.attention.self.value.weight\" : " +
      w +
      "\n"
      "      %v = model.linear \"layer.0.attention.self.value\"(%a, %wv) : (" +
      t + ", " + w + ") -> " + t + "\n      %p = model.mul %q, %v : (" + t +
      ", " + t + ") -> " + t + "\n      model.yield %p : " + t +
      "\n    }\n"
      "    %o = model.module \"layer.0.attention.output\"(%s, %h) {arg_names "
      "= [\"h\", \"r\"], kind = \"BertSelfOutput\"} : (" +
      t + ", " + t + ") -> " + t + " {\n    ^bb0(%b: " + t + ", %r: " + t +
      "):\n"
      "      %wo = model.param \"layer.0.attention.output.dense.weight\" : " +
      w +
      "\n"
      "      %d = model.linear \"layer.0.attention.output.dense\"(%b, %wo) : "
      "(" +
      t + ", " + w + ") -> " + t + "\n      %sum = model.add %d, %r : (" + t +
      ", " + t + ") -> " + t + "\n      model.yield %sum : " + t +
      "\n    }\n    model.yield %o : " + t + "\n  }\n  return %att : " + t +
      "\n}\n";
  ModelStructure s = analyze(text);
  ASSERT_EQ(s.pairs.size(), 1u);
  EXPECT_EQ(s.pairs[0].module, "layer.*.attention");
  EXPECT_EQ(s.pairs[0].in,
            (std::vector<std::string>{"self.query", "self.value"}));
  EXPECT_EQ(s.pairs[0].out, "output.dense");
  EXPECT_TRUE(s.pairs[0].pieces.empty());
  // BertAttention's first input is what query and value read.
  EXPECT_TRUE(s.pairs[0].moduleInput);
}

TEST_F(PlannerTest, FusedProjectionsAreShardedByPiece) {
  // GPT-2's c_attn: one linear whose output features are sliced into q and
  // k; at the root of a model without modules.
  std::string t = "tensor<2x4x8xf32>", f = "tensor<2x4x16xf32>";
  std::string text =
      "func.func @forward(%x: " + t + ") -> " + t +
      " {\n"
      "  %w = model.param \"c_attn.weight\" : tensor<16x8xf32>\n"
      "  %y = model.linear \"c_attn\"(%x, %w) : (" +
      t + ", tensor<16x8xf32>) -> " + f +
      "\n"
      "  %q = model.slice %y {dim = 2 : i64, start = 0 : i64, step = 1 : i64} "
      ": (" +
      f + ") -> " + t +
      "\n"
      "  %k = model.slice %y {dim = 2 : i64, start = 8 : i64, step = 1 : i64} "
      ": (" +
      f + ") -> " + t + "\n  %p = model.mul %q, %k : (" + t + ", " + t +
      ") -> " + t +
      "\n"
      "  %w2 = model.param \"c_proj.weight\" : tensor<8x8xf32>\n"
      "  %o = model.linear \"c_proj\"(%p, %w2) : (" +
      t + ", tensor<8x8xf32>) -> " + t + "\n  return %o : " + t + "\n}\n";
  ModelStructure s = analyze(text);
  ASSERT_EQ(s.pairs.size(), 1u);
  EXPECT_EQ(s.pairs[0].module, "");
  EXPECT_EQ(s.pairs[0].in, (std::vector<std::string>{"c_attn"}));
  EXPECT_EQ(s.pairs[0].pieces, (std::vector<std::string>{"c_attn"}));
  EXPECT_EQ(s.pairs[0].out, "c_proj");
  EXPECT_FALSE(s.pairs[0].moduleInput);
  MeshSpec mesh;
  mesh.shape = {2};
  mesh.axisNames = {"tp"};
  mesh.tpAxis = 0;
  Choice c = megatronChoice(s, mesh);
  std::string plan = planJSON(s, mesh, c);
  EXPECT_NE(plan.find("\"shard_pieces\": true"), std::string::npos) << plan;
  // Not a module of its own: no sequence parallel.
  EXPECT_FALSE(torchtitanChoice(s, mesh).sequenceParallel);
}

TEST_F(PlannerTest, AResidualIntoTheOutputLinearIsNoPair) {
  // b reads a's output plus x itself: sharding a alone would not make b's
  // input.
  std::string t = "tensor<2x4x8xf32>", w = "tensor<8x8xf32>";
  std::string text = "func.func @forward(%x: " + t + ") -> " + t +
                     " {\n"
                     "  %w1 = model.param \"a.weight\" : " +
                     w + "\n  %y = model.linear \"a\"(%x, %w1) : (" + t + ", " +
                     w + ") -> " + t + "\n  %s = model.add %y, %x : (" + t +
                     ", " + t + ") -> " + t +
                     "\n  %w2 = model.param \"b.weight\" : " + w +
                     "\n  %o = model.linear \"b\"(%s, %w2) : (" + t + ", " + w +
                     ") -> " + t + "\n  return %o : " + t + "\n}\n";
  ModelStructure s = analyze(text);
  EXPECT_TRUE(s.pairs.empty());
}

TEST_F(PlannerTest, LayersThatDisagreeAreLeftOut) {
  // The second layer's MLP has a linear between its pair.
  ModelStructure s = analyze(model(/*oddSecondLayer=*/true));
  EXPECT_TRUE(s.pairs.empty());
  EXPECT_EQ(s.layers, "");
}

TEST_F(PlannerTest, WritesThePlanOfAChoice) {
  ModelStructure s = analyze(model());
  MeshSpec mesh{{2, 2}, {"dp", "tp"}, 1, 0};
  Choice c = megatronChoice(s, mesh);
  c.fsdp = true;
  c.recompute = 2;
  tp::json::ParseResult plan = tp::json::parse(planJSON(s, mesh, c));
  ASSERT_TRUE(plan) << plan.error->message;
  const tp::json::Object &o = *plan.value.getAsObject();
  EXPECT_EQ(*o.getString("tp_axis"), "tp");
  EXPECT_EQ(*o.getString("fsdp_axis"), "dp");
  EXPECT_EQ(o.get("dp_axis"), nullptr);
  // The units are the layers, named: FSDP's default (layers.*) is not this
  // model's.
  const tp::json::Array &units = *o.getArray("fsdp_units");
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(*units[0].getAsString(), "model.layers.*");
  const tp::json::Object &p = *o.getObject("plan");
  EXPECT_EQ(*p.getObject("model.layers.*.mlp.gate_proj")->getString("style"),
            "ColwiseParallel");
  EXPECT_EQ(*p.getObject("model.layers.*.mlp.up_proj")->getString("style"),
            "ColwiseParallel");
  EXPECT_EQ(*p.getObject("model.layers.*.mlp.down_proj")->getString("style"),
            "RowwiseParallel");
  const tp::json::Array &recompute = *o.getArray("recompute");
  ASSERT_EQ(recompute.size(), 1u);
  EXPECT_EQ(*recompute[0].getAsString(), "model.layers.*");
  EXPECT_EQ(describe(s, c), "tp(model.layers.*.mlp) + fsdp + recompute");
  // Recomputing the first layer of the two names it.
  EXPECT_EQ(s.layerNames,
            (std::vector<std::string>{"model.layers.0", "model.layers.1"}));
  c.recompute = 1;
  plan = tp::json::parse(planJSON(s, mesh, c));
  ASSERT_TRUE(plan) << plan.error->message;
  const tp::json::Array &first =
      *plan.value.getAsObject()->getArray("recompute");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(*first[0].getAsString(), "model.layers.0");
}

// A 3-D mesh is hybrid sharding: every candidate, the standard plans
// included, shards the parameters over one data axis and replicates them
// over the other, which the plan names fsdp_axis and dp_axis.
TEST_F(PlannerTest, AThreeDMeshIsHybridSharding) {
  ModelStructure s = analyze(model());
  MeshSpec mesh{{2, 2, 2}, {"rep", "dp", "tp"}, 2, 1, 0};
  EXPECT_TRUE(megatronChoice(s, mesh).fsdp);
  EXPECT_TRUE(torchtitanChoice(s, mesh).fsdp);
  tp::json::ParseResult plan =
      tp::json::parse(planJSON(s, mesh, megatronChoice(s, mesh)));
  ASSERT_TRUE(plan) << plan.error->message;
  const tp::json::Object &o = *plan.value.getAsObject();
  EXPECT_EQ(*o.getString("tp_axis"), "tp");
  EXPECT_EQ(*o.getString("dp_axis"), "rep");
  EXPECT_EQ(*o.getString("fsdp_axis"), "dp");
  auto price = [&](const Choice &c) {
    Evaluation e;
    e.ok = true;
    e.peakBytes = 100;
    e.stepSeconds = c.pairs[0] ? 1.0 : 2.0;
    return e;
  };
  SearchOptions options;
  options.train = true;
  SearchResult r = search(s, mesh, options, price);
  ASSERT_TRUE(r.best);
  for (const auto &[c, e] : r.tried)
    EXPECT_TRUE(c.fsdp) << describe(s, c);
}

TEST_F(PlannerTest, KeepsTheFirstLayers) {
  ModelStructure s = analyze(model());
  func::FuncOp entry;
  module->walk([&](func::FuncOp f) { entry = f; });
  // Two layers: keeping two changes nothing.
  EXPECT_EQ(keepLayers(entry, s.layers, 2), 0);
  EXPECT_EQ(keepLayers(entry, "blocks.*", 1), 0);
  EXPECT_EQ(keepLayers(entry, s.layers, 1), 2);
  int layers = 0;
  entry.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "model.module" &&
        op->getAttrOfType<StringAttr>("fqn").getValue().starts_with(
            "model.layers.1"))
      ++layers;
  });
  EXPECT_EQ(layers, 0);
  // The function returns the first layer's result and still verifies.
  EXPECT_TRUE(succeeded(verify(*module)));
  Operation *ret = entry.getBody().front().getTerminator();
  EXPECT_EQ(
      ret->getOperand(0).getDefiningOp()->getAttrOfType<StringAttr>("fqn"),
      StringAttr::get(&context, "model.layers.0"));
}

TEST_F(PlannerTest, SearchKeepsTheBudgetAndNamesTheSmallest) {
  ModelStructure s = analyze(model());
  MeshSpec mesh{{2, 2}, {"dp", "tp"}, 1, 0};
  // A made-up price: sharding the pair halves the time, FSDP saves memory
  // and costs time (kept gathered to the backward, less time and more
  // memory; finer units less of both), recompute likewise; a candidate
  // fails to lower. The kernels: the pair's and recompute's time.
  auto price = [&](const Choice &c) {
    Evaluation e;
    e.ok = true;
    e.kernelSeconds =
        (c.pairs[0] ? 1.0 : 2.0) + 0.125 * static_cast<double>(c.recompute);
    e.stepSeconds =
        e.kernelSeconds + (c.fsdp ? 0.5 : 0) - (c.keepGathered ? 0.125 : 0);
    e.stepSeconds -= c.fineUnits ? 0.0625 : 0;
    e.peakBytes = 1000 - (c.fsdp ? 400 : 0) + (c.keepGathered ? 50 : 0) -
                  (c.fineUnits ? 30 : 0) - 150 * c.recompute -
                  (c.pairs[0] ? 100 : 0);
    if (!c.pairs[0] && c.fsdp && c.recompute) {
      e.ok = false;
      e.error = "does not lower";
    }
    return e;
  };
  SearchOptions options;
  options.train = true;
  // Pair x FSDP, FSDP resharded or kept gathered; no embedding, head or
  // norms' sequence parallel without them, and without a budget no
  // recompute (it only adds work): 6. FSDP with finer units is not priced:
  // its kernels alone (1 s and 2 s) take no less than the best (1 s).
  SearchResult r = search(s, mesh, options, price);
  EXPECT_EQ(r.tried.size(), 6u);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(describe(s, r.tried[*r.best].first), "tp(model.layers.*.mlp)");
  options.budget = 700;
  r = search(s, mesh, options, price);
  // The two without FSDP do not fit: their recompute twins are priced,
  // fastest first, until one is no faster than the best that fits (the
  // replicated pair, 2 s, cannot beat 1.25 s with more work). FSDP with
  // the sharded pair is priced with finer units too (its kernels, 1 s,
  // take less than the 1.375 s of FSDP kept gathered), with the
  // replicated one not (2 s).
  EXPECT_EQ(r.tried.size(), 9u);
  ASSERT_TRUE(r.best);
  // 1.25 s at 600 bytes (recompute) beats 1.3125 s at 520 (FSDP per pair
  // module kept gathered), 1.375 s at 550 (FSDP kept gathered) and 1.5 s
  // at 500 (FSDP).
  EXPECT_EQ(describe(s, r.tried[*r.best].first),
            "tp(model.layers.*.mlp) + recompute");
  // At 750 bytes the sharded pair fits recomputing one of its two layers
  // (1.125 s at 750 bytes), which beats FSDP and recomputing both.
  options.budget = 750;
  r = search(s, mesh, options, price);
  EXPECT_EQ(r.tried.size(), 10u);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.tried[*r.best].first.recompute, 1);
  EXPECT_EQ(describe(s, r.tried[*r.best].first),
            "tp(model.layers.*.mlp) + recompute of the first layer");
  options.budget = 100;
  r = search(s, mesh, options, price);
  // The four FSDP ones with finer units too, every recompute twin, and
  // the smallest recomputing one layer instead of both.
  EXPECT_EQ(r.tried.size(), 21u);
  EXPECT_FALSE(r.best);
  ASSERT_TRUE(r.smallest);
  EXPECT_EQ(r.tried[*r.smallest].second.peakBytes, 170);
  EXPECT_TRUE(r.tried[*r.smallest].first.fineUnits);
  // At 480 bytes resharded FSDP (500) fits only with finer units (470
  // bytes, 1.4375 s), as fast as finer units kept gathered recomputing a
  // layer (370 bytes, which the tie goes to) and faster than layer units
  // kept gathered recomputing one (400 bytes, 1.5 s).
  options.budget = 480;
  r = search(s, mesh, options, price);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(describe(s, r.tried[*r.best].first),
            "tp(model.layers.*.mlp) + fsdp per pair module kept gathered to "
            "the backward + recompute of the first layer");
  bool finer = false;
  for (const auto &[c, e] : r.tried)
    finer |= c.fineUnits && !c.keepGathered && !c.recompute && c.pairs[0] &&
             e.peakBytes == 470;
  EXPECT_TRUE(finer);
  // At 560 bytes FSDP kept gathered (550 bytes, 1.375 s) beats FSDP
  // resharded (500 bytes, 1.5 s), and recompute does not fit (600); FSDP
  // per pair module kept gathered, though it fits as layer units do, is
  // priced and faster still (520 bytes, 1.3125 s).
  options.budget = 560;
  r = search(s, mesh, options, price);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(describe(s, r.tried[*r.best].first),
            "tp(model.layers.*.mlp) + fsdp per pair module kept gathered to "
            "the backward");
  tp::json::ParseResult plan =
      tp::json::parse(planJSON(s, mesh, r.tried[*r.best].first));
  ASSERT_TRUE(plan) << plan.error->message;
  const tp::json::Value *reshard =
      plan.value.getAsObject()->get("reshard_after_forward");
  ASSERT_NE(reshard, nullptr);
  EXPECT_EQ(reshard->getAsBoolean(), false);
}

TEST_F(PlannerTest, SearchLeavesOutWhatTheStateAloneRulesOut) {
  ModelStructure s = analyze(model());
  MeshSpec mesh{{2, 2}, {"dp", "tp"}, 1, 0};
  // Without FSDP the parameters and optimizer state alone take 600 bytes
  // (before the first instruction and after the last), with it 300; the
  // activations add 400, each of the two layers recomputed takes 150 off,
  // finer units 20.
  auto price = [&](const Choice &c) {
    Evaluation e;
    e.ok = true;
    int64_t state = c.fsdp ? 300 : 600;
    int64_t activations = 400 - 150 * c.recompute - (c.fineUnits ? 20 : 0);
    e.stagePeakBytes = {state, state + activations, state + activations, state,
                        state};
    e.peakBytes = state + activations;
    e.stepSeconds = (c.pairs[0] ? 1.0 : 2.0) + (c.fsdp ? 0.5 : 0) +
                    0.25 * static_cast<double>(c.recompute);
    return e;
  };
  EXPECT_EQ(stateBytes(price(Choice{{true}})), 600);
  SearchOptions options;
  options.train = true;
  options.budget = 450;
  SearchResult r = search(s, mesh, options, price);
  // FSDP recomputing both layers fits (finer units: 380 bytes, 2 s);
  // without FSDP, 600 bytes of state alone exceed the budget: the sharded
  // pair's twin is not priced for that, the replicated pair's twins for
  // the time (no less than 2 s without recompute).
  ASSERT_TRUE(r.best);
  EXPECT_EQ(describe(s, r.tried[*r.best].first),
            "tp(model.layers.*.mlp) + fsdp per pair module + recompute");
  int overBudget = 0;
  for (const Unpriced &u : r.unpriced) {
    EXPECT_GT(u.choice.recompute + u.choice.fineUnits, 0);
    for (const auto &[c, e] : r.tried)
      EXPECT_FALSE(c == u.choice);
    if (u.stateBytes) {
      ++overBudget;
      EXPECT_EQ(u.stateBytes, 600);
      EXPECT_FALSE(u.choice.fsdp);
    }
  }
  EXPECT_EQ(overBudget, 1);
  EXPECT_EQ(r.unpriced.size(), 6u);
  // Nothing fits: the search prices what it left out too, so that the
  // smallest is exact (finer units recomputing: 380 bytes), and the
  // replicated pair recomputing without FSDP is among them.
  options.budget = 100;
  r = search(s, mesh, options, price);
  EXPECT_FALSE(r.best);
  EXPECT_TRUE(r.unpriced.empty());
  ASSERT_TRUE(r.smallest);
  EXPECT_EQ(r.tried[*r.smallest].second.peakBytes, 380);
  bool twinOfReplicated = false;
  for (const auto &[c, e] : r.tried)
    twinOfReplicated |= !c.fsdp && c.recompute > 0 && !c.pairs[0];
  EXPECT_TRUE(twinOfReplicated);
}

// Nothing fits: the smallest recomputing every layer is priced with fewer
// layers recomputed too, since the peak need not fall with each one.
TEST_F(PlannerTest, NothingFitsPricesEachRecomputeCount) {
  ModelStructure s = analyze(model());
  MeshSpec mesh{{2, 2}, {"dp", "tp"}, 1, 0};
  // Recomputing the first layer takes 150 bytes off, the second adds 100
  // back (its recomputed activations live with the first's).
  auto price = [&](const Choice &c) {
    Evaluation e;
    e.ok = true;
    e.peakBytes = 1000 - (c.pairs[0] ? 100 : 0) - (c.fsdp ? 400 : 0) -
                  (c.recompute >= 1 ? 150 : 0) + (c.recompute >= 2 ? 100 : 0);
    e.stepSeconds = 1.0 + 0.25 * static_cast<double>(c.recompute);
    return e;
  };
  SearchOptions options;
  options.train = true;
  options.budget = 100;
  SearchResult r = search(s, mesh, options, price);
  EXPECT_FALSE(r.best);
  ASSERT_TRUE(r.smallest);
  EXPECT_EQ(r.tried[*r.smallest].second.peakBytes, 350);
  EXPECT_EQ(describe(s, r.tried[*r.smallest].first),
            "tp(model.layers.*.mlp) + fsdp + recompute of the first layer");
  // A budget between the two fits only the partial recompute: a plan.
  options.budget = 360;
  r = search(s, mesh, options, price);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.tried[*r.best].first.recompute, 1);
}

TEST_F(PlannerTest, FewerLayersRecomputedMayFitWhereAllDoNot) {
  ModelStructure s = analyze(model());
  MeshSpec mesh{{2, 2}, {"dp", "tp"}, 1, 0};
  // As above, and with the pairs replicated a plan that fits without
  // recompute, slowly: recomputing the first layer of the sharded plan
  // fits and is faster, though recomputing both does not fit.
  auto price = [&](const Choice &c) {
    Evaluation e;
    e.ok = true;
    e.peakBytes = (c.pairs[0] ? 500 : 300) + (c.fsdp ? 0 : 400) -
                  (c.recompute >= 1 ? 150 : 0) + (c.recompute >= 2 ? 100 : 0);
    e.stepSeconds =
        (c.pairs[0] ? 1.0 : 3.0) + 0.25 * static_cast<double>(c.recompute);
    return e;
  };
  SearchOptions options;
  options.train = true;
  options.budget = 360;
  SearchResult r = search(s, mesh, options, price);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(describe(s, r.tried[*r.best].first),
            "tp(model.layers.*.mlp) + fsdp + recompute of the first layer");
  EXPECT_DOUBLE_EQ(r.tried[*r.best].second.stepSeconds, 1.25);
}

} // namespace
