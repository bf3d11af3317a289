//===- PlanBuilderTest.cpp - plans built in C++ -----------------*- C++ -*-===//
//
// A plan built with PlanBuilder is the plan parsePlan reads from the same
// JSON, mesh included, and lowers the same; a plan the parser would refuse is
// refused with the same reason.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/PlanBuilder.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

constexpr const char *kModel = R"mlir(
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w1 = model.param "net1.weight" : tensor<16x8xf32>
  %h = model.linear "net1"(%x, %w1) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %w2 = model.param "net2.weight" : tensor<8x16xf32>
  %y = model.linear "net2"(%h, %w2) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
)mlir";

class PlanBuilderTest : public ::testing::Test {
protected:
  PlanBuilderTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parseModel() {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModel, &ctx);
    EXPECT_TRUE(module);
    return module;
  }

  /// Builds `plan` into a fresh model; "" or the first error.
  std::string buildError(const PlanBuilder &plan) {
    OwningOpRef<ModuleOp> module = parseModel();
    std::string error;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      if (error.empty())
        error = d.str();
      return success();
    });
    if (succeeded(plan.build(*module))) {
      EXPECT_TRUE(error.empty());
    }
    return error;
  }

  /// The module after tp-pipeline, printed.
  static std::string lower(ModuleOp module) {
    PassManager pm(module.getContext());
    buildTPPipeline(pm, TPPipelineOptions());
    EXPECT_TRUE(succeeded(pm.run(module)));
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  }

  MLIRContext ctx;
};

TEST_F(PlanBuilderTest, FSDPKeysAreTheParsedOnes) {
  OwningOpRef<ModuleOp> built = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2, 2, 2}, {"rep", "dp", "tp"})
      .setTPAxis("tp")
      .setDPAxis("rep")
      .setFSDPAxis("dp")
      .setReshardAfterForward(false)
      .fsdpUnit("net*")
      .add("net1", plan.colwise());
  FailureOr<PlanAttr> fromBuilder = plan.build(*built);
  ASSERT_TRUE(succeeded(fromBuilder));
  EXPECT_EQ(fromBuilder->getFsdpAxis().getValue(), "dp");
  EXPECT_FALSE(fromBuilder->getReshardAfterForward());
  OwningOpRef<ModuleOp> parsed = parseModel();
  FailureOr<PlanAttr> fromJSON = parsePlan(*parsed, R"json({
      "mesh": {"shape": [2, 2, 2], "axis_names": ["rep", "dp", "tp"]},
      "tp_axis": "tp", "dp_axis": "rep", "fsdp_axis": "dp",
      "reshard_after_forward": false, "fsdp_units": ["net*"],
      "plan": {"net1": {"style": "ColwiseParallel"}}})json",
                                           "plan.json");
  ASSERT_TRUE(succeeded(fromJSON));
  EXPECT_EQ(*fromBuilder, *fromJSON);
}

TEST_F(PlanBuilderTest, FSDPUnitsAreTheModulesTheirPatternsMatch) {
  OwningOpRef<ModuleOp> module = parseModel();
  auto emit = [&] { return emitError(module->getLoc()); };
  // Without fsdp_units: each child of layers, the rest the root's.
  FailureOr<FSDPUnitMatcher> byDefault = getFSDPUnitMatcher(PlanAttr(), emit);
  ASSERT_TRUE(succeeded(byDefault));
  EXPECT_EQ(byDefault->unitOf("layers.3.attention.wq"), "layers.3");
  EXPECT_EQ(byDefault->unitOf("layers.3"), "layers.3");
  EXPECT_EQ(byDefault->unitOf("output"), "");
  EXPECT_EQ(byDefault->unitOf(""), "");
  EXPECT_EQ(getParameterOwner("layers.3.attention.wq.weight"),
            "layers.3.attention.wq");
  EXPECT_EQ(getParameterOwner("scale"), "");
  // The first pattern that matches decides.
  PlanBuilder plan(&ctx);
  plan.setMesh({2, 2}, {"dp", "tp"})
      .setTPAxis("tp")
      .setFSDPAxis("dp")
      .fsdpUnit("net1")
      .fsdpUnit("*");
  FailureOr<PlanAttr> built = plan.build(*module);
  ASSERT_TRUE(succeeded(built));
  FailureOr<FSDPUnitMatcher> units = getFSDPUnitMatcher(*built, emit);
  ASSERT_TRUE(succeeded(units));
  EXPECT_EQ(units->unitOf("net1"), "net1");
  EXPECT_EQ(units->unitOf("net2.inner"), "net2");
}

TEST_F(PlanBuilderTest, SameAsTheParsedPlan) {
  OwningOpRef<ModuleOp> built = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2, 3}, {"dp", "tp"})
      .setTPAxis("tp")
      .setDPAxis("dp")
      .freeze("net2.*")
      .add("net1", plan.colwise())
      .add("net2", plan.rowwise({}, plan.replicate()));
  FailureOr<PlanAttr> fromBuilder = plan.build(*built);
  ASSERT_TRUE(succeeded(fromBuilder));

  OwningOpRef<ModuleOp> parsed = parseModel();
  FailureOr<PlanAttr> fromJSON = parsePlan(*parsed, R"json({
      "mesh": {"shape": [2, 3], "axis_names": ["dp", "tp"]},
      "tp_axis": "tp", "dp_axis": "dp", "frozen": ["net2.*"],
      "plan": {"net1": {"style": "ColwiseParallel"},
               "net2": {"style": "RowwiseParallel",
                        "output_layouts": "Replicate()"}}})json",
                                           "plan.json");
  ASSERT_TRUE(succeeded(fromJSON));
  // Attributes are uniqued: equal plans are the same attribute.
  EXPECT_EQ(*fromBuilder, *fromJSON);
  // The module carries it where tp-pipeline reads it, and the mesh it names.
  EXPECT_EQ(TPDialect::PlanAttrHelper(&ctx).getAttr(*built), *fromBuilder);
  auto mesh = built->lookupSymbol<MeshOp>("mesh");
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh.getShape(), ArrayRef<int64_t>({2, 3}));

  TPDialect::PlanAttrHelper(&ctx).setAttr(*parsed, *fromJSON);
  EXPECT_EQ(lower(*built), lower(*parsed));
}

TEST_F(PlanBuilderTest, RecomputeIsTheParsedList) {
  OwningOpRef<ModuleOp> built = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2})
      .recompute("layers.*")
      .recompute("norm")
      .add("net1", plan.colwise());
  FailureOr<PlanAttr> fromBuilder = plan.build(*built);
  ASSERT_TRUE(succeeded(fromBuilder));
  OwningOpRef<ModuleOp> parsed = parseModel();
  FailureOr<PlanAttr> fromJSON = parsePlan(*parsed, R"json({
      "mesh": {"shape": [2]}, "recompute": ["layers.*", "norm"],
      "plan": {"net1": {"style": "ColwiseParallel"}}})json",
                                           "plan.json");
  ASSERT_TRUE(succeeded(fromJSON));
  EXPECT_EQ(*fromBuilder, *fromJSON);
  ASSERT_TRUE(fromJSON->getRecompute());
  EXPECT_EQ(fromJSON->getRecompute().size(), 2u);
}

TEST_F(PlanBuilderTest, LowersToTheMegatronPair) {
  OwningOpRef<ModuleOp> module = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2})
      .add("net1", plan.colwise())
      .add("net2", plan.rowwise({}, plan.replicate()));
  ASSERT_TRUE(succeeded(plan.build(*module)));
  std::string ir = lower(*module);
  // Colwise then rowwise: the pair's one all_reduce and nothing else.
  size_t first = ir.find("tp.all_reduce");
  EXPECT_NE(first, std::string::npos) << ir;
  EXPECT_EQ(ir.find("tp.all_reduce", first + 1), std::string::npos) << ir;
  EXPECT_EQ(ir.find("tp.all_gather"), std::string::npos) << ir;
}

TEST_F(PlanBuilderTest, KeepsAMeshOfTheSameShape) {
  OwningOpRef<ModuleOp> module = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2}).add("net1", plan.colwise());
  ASSERT_TRUE(succeeded(plan.build(*module)));
  ASSERT_TRUE(succeeded(plan.build(*module)));
  EXPECT_EQ(llvm::range_size(module->getOps<MeshOp>()), 1u);

  PlanBuilder other(&ctx);
  other.setMesh({4}).add("net1", other.colwise());
  std::string error;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    error = d.str();
    return success();
  });
  EXPECT_TRUE(failed(other.build(*module)));
  EXPECT_EQ(error,
            "plan: the module already has a mesh @mesh of a different shape");
}

TEST_F(PlanBuilderTest, RefusesWhatTheParserRefuses) {
  PlanBuilder noMesh(&ctx);
  noMesh.add("net1", noMesh.colwise());
  EXPECT_EQ(buildError(noMesh),
            "plan: the mesh needs a shape of positive sizes (setMesh)");

  PlanBuilder zero(&ctx);
  zero.setMesh({2, 0}, {"dp", "tp"}).setTPAxis("tp");
  EXPECT_EQ(buildError(zero),
            "plan: the mesh needs a shape of positive sizes (setMesh)");

  PlanBuilder names(&ctx);
  names.setMesh({2, 2}, {"tp"});
  EXPECT_EQ(buildError(names), "plan: the mesh has 1 axis names for 2 axes");

  PlanBuilder noAxis(&ctx);
  noAxis.setMesh({2, 2}, {"dp", "tp"});
  EXPECT_EQ(buildError(noAxis),
            "plan: the mesh has 2 axes: name the tensor-parallel one with "
            "tp_axis");

  PlanBuilder badAxis(&ctx);
  badAxis.setMesh({2}, {"tp"}).setTPAxis("model");
  EXPECT_EQ(buildError(badAxis),
            "plan: tp_axis 'model' is not an axis of the mesh (its axes: "
            "tp)");

  PlanBuilder sameAxes(&ctx);
  sameAxes.setMesh({2, 2}, {"dp", "tp"}).setTPAxis("tp").setDPAxis("tp");
  EXPECT_EQ(buildError(sameAxes), "plan: dp_axis and tp_axis are both 'tp'");

  PlanBuilder fsdpOnDP(&ctx);
  fsdpOnDP.setMesh({2, 2, 2}, {"rep", "dp", "tp"})
      .setTPAxis("tp")
      .setDPAxis("dp")
      .setFSDPAxis("dp");
  EXPECT_EQ(buildError(fsdpOnDP),
            "plan: fsdp_axis and dp_axis are both 'dp' (for HSDP, dp_axis "
            "names the axis the shards are replicated over and fsdp_axis the "
            "one they are sharded over)");

  PlanBuilder keepWithoutFSDP(&ctx);
  keepWithoutFSDP.setMesh({2}).setReshardAfterForward(false);
  EXPECT_EQ(buildError(keepWithoutFSDP),
            "plan reshard_after_forward = false needs an fsdp_axis (only "
            "FSDP's parameters are gathered and freed)");

  PlanBuilder notAStyle(&ctx);
  notAStyle.setMesh({2}).add("net1", notAStyle.replicate());
  EXPECT_EQ(buildError(notAStyle), "plan: the style of 'net1' is "
                                   "#tp.replicate, not a parallel style");

  PlanBuilder null(&ctx);
  null.setMesh({2}).add("net1", Attribute());
  EXPECT_EQ(buildError(null), "plan: the style of 'net1' is null");
}

// What the mesh itself refuses leaves no mesh behind: the plan fails in
// build(), not in the first pass that reads the mesh.
TEST_F(PlanBuilderTest, RefusesAnInvalidMesh) {
  PlanBuilder twice(&ctx);
  twice.setMesh({2, 2}, {"tp", "tp"}).setTPAxis("tp");
  EXPECT_EQ(buildError(twice),
            "'tp.mesh' op mesh axis name 'tp' is used twice");

  PlanBuilder empty(&ctx);
  empty.setMesh({2, 2}, {"", "tp"}).setTPAxis("tp");
  EXPECT_EQ(buildError(empty),
            "'tp.mesh' op mesh axis names must not be empty");

  PlanBuilder huge(&ctx);
  huge.setMesh({int64_t(1) << 32, int64_t(1) << 32}, {"dp", "tp"})
      .setTPAxis("tp");
  EXPECT_EQ(buildError(huge),
            "'tp.mesh' op mesh has more ranks than fit in 64 bits");

  PlanBuilder negative(&ctx);
  negative.setMesh({-2});
  EXPECT_EQ(buildError(negative),
            "plan: the mesh needs a shape of positive sizes (setMesh)");

  OwningOpRef<ModuleOp> module = parseModel();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(twice.build(*module)));
  EXPECT_TRUE(module->getOps<MeshOp>().empty());
  EXPECT_FALSE(TPDialect::PlanAttrHelper(&ctx).getAttr(*module));
}

// A mesh already there with the same shape but other axis names would make
// tp_axis name another axis than the plan meant.
TEST_F(PlanBuilderTest, RefusesAMeshWithOtherAxisNames) {
  OwningOpRef<ModuleOp> module = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2, 2}, {"dp", "tp"}).setTPAxis("tp");
  ASSERT_TRUE(succeeded(plan.build(*module)));

  PlanBuilder swapped(&ctx);
  swapped.setMesh({2, 2}, {"tp", "dp"}).setTPAxis("tp");
  std::string error;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    error = d.str();
    return success();
  });
  EXPECT_TRUE(failed(swapped.build(*module)));
  EXPECT_EQ(error,
            "plan: the module already has a mesh @mesh with other axis names");
}

TEST_F(PlanBuilderTest, RefusesASymbolMeshOfAnotherKind) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "func.func private @mesh(tensor<4xf32>) -> tensor<4xf32>", &ctx);
  ASSERT_TRUE(module);
  PlanBuilder plan(&ctx);
  plan.setMesh({2});
  std::string error;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    error = d.str();
    return success();
  });
  EXPECT_TRUE(failed(plan.build(*module)));
  EXPECT_EQ(error, "plan: the module already has a symbol @mesh that is not "
                   "a tp.mesh ('func.func')");
  EXPECT_TRUE(module->getOps<MeshOp>().empty());
}

// Patterns that match nothing are accepted by build() (it does not read the
// model); tp-apply-plan names them when the plan is applied.
TEST_F(PlanBuilderTest, PatternsThatMatchNothingAreNamedWhenApplied) {
  OwningOpRef<ModuleOp> module = parseModel();
  PlanBuilder plan(&ctx);
  plan.setMesh({2}).add("net9", plan.colwise());
  ASSERT_TRUE(succeeded(plan.build(*module)));
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    messages.push_back(d.str());
    return success();
  });
  PassManager pm(&ctx);
  buildTPPipeline(pm, TPPipelineOptions());
  (void)pm.run(*module);
  bool named = llvm::any_of(messages, [](const std::string &m) {
    return m.find("'net9' matches no module") != std::string::npos;
  });
  EXPECT_TRUE(named) << (messages.empty() ? "no diagnostics" : messages[0]);
}

} // namespace
