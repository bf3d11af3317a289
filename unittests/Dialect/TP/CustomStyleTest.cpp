//===- CustomStyleTest.cpp - styles registered from C++ ---------*- C++ -*-===//
//
// Registers a style through the C++ extension point, uses it from a JSON
// plan, and checks what the whole pipeline lowers it to.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "tp/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
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
  %w = model.param "proj.weight" : tensor<8x8xf32>
  %y = model.linear "proj"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
)mlir";

/// A rowwise style written against the extension point: its `output` arg
/// chooses the output placement.
void registerMyRowwise(std::vector<std::string> *seenArgs) {
  CustomStyle style;
  style.supports = [](Operation *op) { return isa<model::LinearOp>(op); };
  style.lower = [seenArgs](CustomStyleAttr attr, StyleBuilder &b) {
    MLIRContext *ctx = attr.getContext();
    Attribute output = ReplicateAttr::get(ctx);
    if (DictionaryAttr args = attr.getArgs()) {
      for (NamedAttribute a : args)
        seenArgs->push_back(a.getName().str());
      if (Attribute o = args.get("output"))
        output = o;
    }
    if (failed(b.placeParam("weight", ShardAttr::get(ctx, 1))) ||
        failed(b.prepareInput(0, ShardAttr::get(ctx, -1),
                              ShardAttr::get(ctx, -1))))
      return failure();
    return b.placeOutput(0, output);
  };
  registerParallelStyle("MyRowwise", style);
}

class CustomStyleTest : public ::testing::Test {
protected:
  CustomStyleTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Parses the model, applies `plan` and runs the pipeline; returns the
  /// printed IR, or "" after collecting diagnostics in `errors`.
  std::string lower(StringRef plan, StringRef model = kModel) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(model, &ctx);
    EXPECT_TRUE(module);
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      errors += d.str() + "\n";
      return success();
    });
    FailureOr<PlanAttr> parsed = parsePlan(*module, plan, "plan.json");
    if (failed(parsed))
      return "";
    TPDialect::PlanAttrHelper(&ctx).setAttr(*module, *parsed);
    PassManager pm(&ctx);
    buildTPPipeline(pm, TPPipelineOptions());
    if (failed(pm.run(*module)))
      return "";
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

  /// The lowered model function of `ir`, without the module's attributes
  /// (which spell the plan's styles).
  static std::string body(StringRef ir) {
    size_t func = ir.find("func.func");
    return func == StringRef::npos ? std::string() : ir.substr(func).str();
  }

  static int count(StringRef text, StringRef what) {
    int n = 0;
    for (size_t pos = text.find(what); pos != StringRef::npos;
         pos = text.find(what, pos + 1))
      ++n;
    return n;
  }

  MLIRContext ctx;
  std::string errors;
};

TEST_F(CustomStyleTest, RegisteredStyleLowersThroughThePipeline) {
  std::vector<std::string> seen;
  registerMyRowwise(&seen);
  std::string ir = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "MyRowwise", "note": "x"}}})json");
  ASSERT_FALSE(ir.empty()) << errors;
  EXPECT_EQ(seen, std::vector<std::string>{"note"});
  // Weight columns chunked, the model input declared Shard(-1) arriving as
  // each rank's shard (its local type [4, 4]), one all_reduce for the
  // partial sum, nothing else.
  EXPECT_EQ(count(ir, "tp.all_reduce"), 1) << ir;
  EXPECT_EQ(count(ir, "tp.all_gather"), 0) << ir;
  EXPECT_EQ(count(ir, "tp.chunk"), 1) << ir;
  EXPECT_NE(ir.find("@forward(%arg0: tensor<4x4xf32>)"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("#tp.custom<name = \"MyRowwise\""), std::string::npos);
}

TEST_F(CustomStyleTest, ArgumentsReachTheStyle) {
  std::vector<std::string> seen;
  registerMyRowwise(&seen);
  // output = Shard(0): the partial sum is reduce-scattered instead.
  std::string ir = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "MyRowwise", "output": "Shard(0)"}}})json");
  ASSERT_FALSE(ir.empty()) << errors;
  EXPECT_EQ(count(ir, "tp.reduce_scatter"), 1) << ir;
  EXPECT_EQ(count(ir, "tp.all_reduce"), 0) << ir;
}

TEST_F(CustomStyleTest, UnsupportedModuleIsAnError) {
  std::vector<std::string> seen;
  registerMyRowwise(&seen);
  std::string ir = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"": {"style": "MyRowwise"}}})json");
  EXPECT_TRUE(ir.empty());
  EXPECT_NE(errors.find("MyRowwise does not support module ''"),
            std::string::npos)
      << errors;
}

TEST_F(CustomStyleTest, UnknownParameterIsAnError) {
  std::string ir = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "CustomStyle", "params": {"bias": "Shard(0)"}}}})json");
  EXPECT_TRUE(ir.empty());
  EXPECT_NE(errors.find("the module has no parameter 'proj.bias'"),
            std::string::npos)
      << errors;
}

constexpr const char *kBiasModel = R"mlir(
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x6xf32> {
  %w = model.param "proj.weight" : tensor<6x8xf32>
  %b = model.param "proj.bias" : tensor<6xf32>
  %y = model.linear "proj"(%x, %w, %b) : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}
)mlir";

constexpr const char *kMLPModel = R"mlir(
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = model.module "mlp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%in: tensor<4x8xf32>):
    %w1 = model.param "mlp.w1.weight" : tensor<16x8xf32>
    %h = model.linear "mlp.w1"(%in, %w1) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %w2 = model.param "mlp.w2.weight" : tensor<8x16xf32>
    %o = model.linear "mlp.w2"(%h, %w2) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    model.yield %o : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}
)mlir";

/// ColwiseParallel written against StyleBuilder.
void registerMyColwise() {
  CustomStyle style;
  style.lower = [](CustomStyleAttr attr, StyleBuilder &b) {
    MLIRContext *ctx = attr.getContext();
    Attribute rep = ReplicateAttr::get(ctx), last = ShardAttr::get(ctx, -1);
    if (failed(b.takeInput(0, rep, rep)) ||
        failed(b.placeWeight(ShardAttr::get(ctx, 0))) ||
        failed(b.placeBias(ShardAttr::get(ctx, 0))))
      return failure();
    return b.declareOutput(0, last, last);
  };
  registerParallelStyle("MyColwise", style);
}

TEST_F(CustomStyleTest, BuilderLowersAsColwiseDoes) {
  registerMyColwise();
  std::string mine = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "MyColwise"}}})json",
                           kBiasModel);
  ASSERT_FALSE(mine.empty()) << errors;
  std::string builtin = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "ColwiseParallel"}}})json",
                              kBiasModel);
  ASSERT_FALSE(builtin.empty()) << errors;
  // Weight and bias chunked, no collective: the output stays Shard(-1).
  EXPECT_EQ(count(mine, "tp.chunk"), 2) << mine;
  EXPECT_EQ(count(mine, "tp.all_"), 0) << mine;
  EXPECT_EQ(body(mine), body(builtin));
}

TEST_F(CustomStyleTest, BuilderSeparatesTheBiasAsRowwiseDoes) {
  CustomStyle style;
  style.lower = [](CustomStyleAttr attr, StyleBuilder &b) {
    MLIRContext *ctx = attr.getContext();
    Attribute last = ShardAttr::get(ctx, -1);
    if (failed(b.takeInput(0, last, last)) ||
        failed(b.placeWeight(ShardAttr::get(ctx, 1))) ||
        failed(b.separateBias()))
      return failure();
    return b.declareOutput(0, PartialAttr::get(ctx, ReductionKind::Sum),
                           ReplicateAttr::get(ctx));
  };
  registerParallelStyle("MyRowwiseBias", style);
  std::string mine = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "MyRowwiseBias"}}})json",
                           kBiasModel);
  ASSERT_FALSE(mine.empty()) << errors;
  std::string builtin = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "RowwiseParallel"}}})json",
                              kBiasModel);
  ASSERT_FALSE(builtin.empty()) << errors;
  // The bias is added once, after the all_reduce of the partial sums.
  size_t reduce = mine.find("tp.all_reduce"), add = mine.find("model.add");
  ASSERT_NE(reduce, std::string::npos) << mine;
  ASSERT_NE(add, std::string::npos) << mine;
  EXPECT_LT(reduce, add) << mine;
  EXPECT_EQ(body(mine), body(builtin));
}

TEST_F(CustomStyleTest, ApplyStyleLowersAsPairwiseDoes) {
  CustomStyle style;
  style.supports = [](Operation *op) { return isa<model::SubmoduleOp>(op); };
  style.lower = [](CustomStyleAttr attr, StyleBuilder &b) -> LogicalResult {
    MLIRContext *ctx = attr.getContext();
    SmallVector<Operation *> linears;
    b.getModule()->walk([&](model::LinearOp l) { linears.push_back(l); });
    if (linears.size() != 2)
      return failure();
    Attribute rep = ReplicateAttr::get(ctx);
    if (failed(b.applyStyle(linears[0], ColwiseAttr::get(ctx, {}, {}, true))))
      return failure();
    return b.applyStyle(
        linears[1], RowwiseAttr::get(ctx, ShardAttr::get(ctx, -1), rep, true));
  };
  registerParallelStyle("MyPair", style);
  std::string mine = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"mlp": {"style": "MyPair"}}})json",
                           kMLPModel);
  ASSERT_FALSE(mine.empty()) << errors;
  std::string builtin = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"mlp": {"style": "PairwiseParallel"}}})json",
                              kMLPModel);
  ASSERT_FALSE(builtin.empty()) << errors;
  EXPECT_EQ(count(mine, "tp.all_reduce"), 1) << mine;
  EXPECT_EQ(body(mine), body(builtin));
}

TEST_F(CustomStyleTest, BuilderErrorsNameTheStyleAndModule) {
  CustomStyle style;
  style.lower = [](CustomStyleAttr attr, StyleBuilder &b) {
    return b.separateBias();
  };
  registerParallelStyle("MySeparate", style);
  std::string ir = lower(R"json({"mesh": {"shape": [2]},
      "plan": {"": {"style": "MySeparate"}}})json");
  EXPECT_TRUE(ir.empty());
  EXPECT_NE(errors.find("MySeparate on '': only a linear's bias can be "
                        "separated"),
            std::string::npos)
      << errors;
}

/// Every built-in style: its attribute has the interface, whose definition
/// carries the attribute's name, and the plan parser knows the name.
TEST_F(CustomStyleTest, EveryBuiltinStyleHasADefinition) {
  for (StringRef text :
       {"#tp.colwise<>", "#tp.rowwise<>", "#tp.sequence_parallel<>",
        "#tp.prepare_module_input<>",
        "#tp.prepare_module_output<output_layouts = #tp.replicate, "
        "desired_output_layouts = #tp.replicate>",
        "#tp.prepare_module_input_output<output_layouts = #tp.replicate, "
        "desired_output_layouts = #tp.replicate>",
        "#tp.pairwise_parallel<>", "#tp.pairwise_sequence_parallel<>",
        "#tp.legacy_prepare_module_input<>",
        "#tp.legacy_prepare_module_output<>", "#tp.custom<name = \"X\">"}) {
    Attribute attr = parseAttribute(text, &ctx);
    ASSERT_TRUE(attr) << text.str();
    EXPECT_TRUE(isParallelStyle(attr)) << text.str();
    auto style = dyn_cast<ParallelStyleAttrInterface>(attr);
    ASSERT_TRUE(style) << text.str();
    const StyleDefinition *definition = getStyleDefinition(attr);
    ASSERT_TRUE(definition) << text.str();
    if (!isa<CustomStyleAttr>(attr)) {
      EXPECT_EQ(definition->name, style.getStyleName().str());
      EXPECT_TRUE(llvm::is_contained(
          lookupStyleDefinitions(style.getStyleName()), definition));
    }
  }
  EXPECT_FALSE(isParallelStyle(ShardAttr::get(&ctx, 0)));
  EXPECT_EQ(
      getBuiltinStyleNames(),
      ArrayRef<std::string>({"ColwiseParallel", "RowwiseParallel",
                             "SequenceParallel", "PrepareModuleInput",
                             "PrepareModuleOutput", "PrepareModuleInputOutput",
                             "PairwiseParallel", "CustomStyle"}));
}

/// An embedder that loads the dialects without registerAllDialects still
/// gets the style models: parsePlan and applyPlan attach them.
TEST(StyleModelsTest, AttachedWithoutRegisterAllDialects) {
  MLIRContext ctx;
  ctx.loadDialect<TPDialect, model::ModelDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModel, &ctx);
  ASSERT_TRUE(module);
  FailureOr<PlanAttr> plan = parsePlan(*module, R"json({"mesh": {"shape": [2]},
      "plan": {"proj": {"style": "ColwiseParallel"}}})json",
                                       "plan.json");
  ASSERT_TRUE(succeeded(plan));
  ASSERT_TRUE(succeeded(applyPlan(*module, *plan)));
  Operation *linear = nullptr;
  module->walk([&](model::LinearOp op) { linear = op; });
  ASSERT_TRUE(linear);
  ParallelStyleAttrInterface style =
      TPDialect::StyleAttrHelper(&ctx).getAttr(linear);
  ASSERT_TRUE(style);
  EXPECT_EQ(style.getStyleName(), "ColwiseParallel");
  EXPECT_TRUE(style.supportsModule(linear));
}

} // namespace
