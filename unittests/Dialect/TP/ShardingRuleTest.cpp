//===- ShardingRuleTest.cpp - rules for other dialects' ops -----*- C++ -*-===//
//
// An op of another dialect joins placement propagation by getting a
// ShardingRuleOpInterface external model; without one it sees replicated
// operands.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

// net1 is colwise (output Shard(1)); arith.negf then runs on that output.
constexpr const char *kModel = R"mlir(
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %h = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %n = arith.negf %h : tensor<4x16xf32>
    return %n : tensor<4x16xf32>
  }
}
)mlir";

/// Element-wise: whatever the operand has, the result has.
struct NegfRule
    : public ShardingRuleOpInterface::ExternalModel<NegfRule, arith::NegFOp> {
  AxisRule getAxisRule(Operation *, ArrayRef<Attribute> placements,
                       int64_t) const {
    return {SmallVector<Attribute>(placements), placements[0]};
  }
};

std::string lowerWith(bool withRule) {
  DialectRegistry registry;
  registerAllDialects(registry);
  if (withRule)
    registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
      arith::NegFOp::attachInterface<NegfRule>(*ctx);
    });
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModel, &ctx);
  EXPECT_TRUE(module);
  PlanAttr plan = TPDialect::PlanAttrHelper(&ctx).getAttr(*module);
  if (failed(applyPlan(*module, plan)) || failed(lowerStyles(*module)) ||
      failed(lowerRedistributions(*module)) || failed(partition(*module)))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

TEST(ShardingRule, ExternalModelKeepsTheShard) {
  std::string ir = lowerWith(true);
  ASSERT_FALSE(ir.empty());
  // negf runs on the local column shard; nothing is gathered.
  size_t negf = ir.find("arith.negf");
  ASSERT_NE(negf, std::string::npos) << ir;
  std::string line = ir.substr(negf, ir.find('\n', negf) - negf);
  EXPECT_NE(line.find(": tensor<4x8xf32>"), std::string::npos) << line;
  EXPECT_EQ(ir.find("tp.all_gather"), std::string::npos) << ir;
}

TEST(ShardingRule, WithoutARuleOperandsAreReplicated) {
  std::string ir = lowerWith(false);
  ASSERT_FALSE(ir.empty());
  // Without a rule the shard is gathered before negf.
  EXPECT_NE(ir.find("tp.all_gather"), std::string::npos) << ir;
}

} // namespace
