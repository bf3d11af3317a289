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
  std::string lower(StringRef plan) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModel, &ctx);
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

} // namespace
