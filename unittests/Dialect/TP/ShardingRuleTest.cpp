//===- ShardingRuleTest.cpp - rules for other dialects' ops -----*- C++ -*-===//
//
// An op of another dialect joins placement propagation by getting a
// ShardingRuleOpInterface external model; without one it sees replicated
// operands; a rule that leaves out a placement is an error. Every model op
// that computes from tensors has its own rule and its linalg export, and
// every forward op its backward rule.
//
//===----------------------------------------------------------------------===//

#include "tp/Conversion/ModelToLinalg/Passes.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"

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

/// A broken rule: no placement for the operand.
struct BrokenNegfRule
    : public ShardingRuleOpInterface::ExternalModel<BrokenNegfRule,
                                                    arith::NegFOp> {
  AxisRule getAxisRule(Operation *, ArrayRef<Attribute> placements,
                       int64_t) const {
    return {{}, placements[0]};
  }
};

enum class Rule { None, Good, Broken };

/// The lowered module's text, or "" with the first error in `error`.
std::string lowerWith(Rule rule, std::string *error = nullptr) {
  DialectRegistry registry;
  registerAllDialects(registry);
  if (rule == Rule::Good)
    registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
      arith::NegFOp::attachInterface<NegfRule>(*ctx);
    });
  if (rule == Rule::Broken)
    registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
      arith::NegFOp::attachInterface<BrokenNegfRule>(*ctx);
    });
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (error && error->empty() &&
        diag.getSeverity() == DiagnosticSeverity::Error)
      *error = diag.str();
    return success();
  });
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
  std::string ir = lowerWith(Rule::Good);
  ASSERT_FALSE(ir.empty());
  // negf runs on the local column shard; nothing is gathered.
  size_t negf = ir.find("arith.negf");
  ASSERT_NE(negf, std::string::npos) << ir;
  std::string line = ir.substr(negf, ir.find('\n', negf) - negf);
  EXPECT_NE(line.find(": tensor<4x8xf32>"), std::string::npos) << line;
  EXPECT_EQ(ir.find("tp.all_gather"), std::string::npos) << ir;
}

TEST(ShardingRule, WithoutARuleOperandsAreReplicated) {
  std::string ir = lowerWith(Rule::None);
  ASSERT_FALSE(ir.empty());
  // Without a rule the shard is gathered before negf.
  EXPECT_NE(ir.find("tp.all_gather"), std::string::npos) << ir;
}

TEST(ShardingRule, ARuleWithoutEveryPlacementIsAnError) {
  std::string error;
  EXPECT_EQ(lowerWith(Rule::Broken, &error), "");
  EXPECT_NE(error.find("sharding rule of 'arith.negf' on mesh axis"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("gave 0 operand placements for 1 operands"),
            std::string::npos)
      << error;
}

/// The model ops that take no tensor to compute from (or only structure):
/// nothing to shard, nothing to differentiate through.
bool isStructural(StringRef name) {
  return llvm::is_contained({"model.module", "model.yield", "model.arange",
                             "model.full", "model.constant", "model.param"},
                            name);
}

TEST(ModelOps, EveryOpHasItsShardingRule) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  int count = 0;
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    if (op.getDialectNamespace() != "model" ||
        isStructural(op.getStringRef()) || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    ++count;
    EXPECT_TRUE(op.hasInterface<ShardingRuleOpInterface>())
        << op.getStringRef().str() << " has no sharding rule";
  }
  EXPECT_GT(count, 40);
}

TEST(ModelOps, ForwardOpsAreDifferentiable) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // The ops a model is written with; backward ops, updates and clipping
  // are what differentiation and the optimizer emit.
  for (StringRef name :
       {"model.param",      "model.linear",       "model.embedding",
        "model.layer_norm", "model.rms_norm",     "model.dropout",
        "model.relu",       "model.gelu",         "model.silu",
        "model.exp",        "model.log",          "model.detach",
        "model.neg",        "model.add",          "model.sub",
        "model.mul",        "model.matmul",       "model.softmax",
        "model.reshape",    "model.transpose",    "model.rotary",
        "model.attention",  "model.reduce_max",   "model.reduce_sum",
        "model.mean",       "model.target_logit", "model.cross_entropy",
        "tp.distribute",    "tp.redistribute",    "tp.to_local"}) {
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(name, &ctx);
    ASSERT_TRUE(op) << name.str();
    EXPECT_TRUE(op->hasInterface<model::DifferentiableOpInterface>())
        << name.str() << " has no backward rule";
  }
}

TEST(ModelOps, EveryOpHasALinalgExport) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  RewritePatternSet patterns(&ctx);
  populateModelToLinalgPatterns(patterns);
  llvm::StringSet<> exported;
  for (const std::unique_ptr<RewritePattern> &p : patterns.getNativePatterns())
    if (std::optional<OperationName> root = p->getRootKind())
      exported.insert(root->getStringRef());
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    StringRef name = op.getStringRef();
    // Parameters become arguments and modules are inlined before the
    // conversion; dropout and the updates need a training step's seed and
    // state (convertModelToLinalg's own patterns); a terminator goes with
    // its op (a generic's yield).
    if (op.getDialectNamespace() != "model" ||
        op.hasTrait<OpTrait::IsTerminator>() ||
        llvm::is_contained({"model.param", "model.module", "model.yield",
                            "model.dropout", "model.dropout_grad",
                            "model.sgd_update", "model.adamw_update"},
                           name))
      continue;
    EXPECT_TRUE(exported.contains(name)) << name.str() << " has no export";
  }
}

} // namespace
