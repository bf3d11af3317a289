//===- FactorRuleTest.cpp - rules from factor descriptions ------*- C++ -*-===//
//
// AxisRuleBuilder::fromFactors: an op described by factors (an einsum)
// gets the placements a hand-written rule would give: parallel factors
// pass shards through, sharded reductions give Partial, replicated factors
// are never sharded, Partial operands pass only as the op's linearity
// allows, and among several shards the one that moves the fewest elements
// wins.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/AxisRules.h"
#include "tp/Dialect/TP/IR/TPDialect.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

using Linearity = FactorRule::Linearity;

class FactorRuleTest : public ::testing::Test {
protected:
  FactorRuleTest() : r(&ctx, 2) { ctx.loadDialect<TPDialect>(); }

  /// "S1 R -> P(sum)" for a rule's operand and result placements.
  static std::string show(const AxisRule &rule) {
    std::string s;
    llvm::raw_string_ostream os(s);
    auto one = [&](Attribute a) {
      if (auto d = AxisRuleBuilder::shardDim(a))
        os << 'S' << *d;
      else if (auto p = dyn_cast<PartialAttr>(a))
        os << "P(" << stringifyReductionKind(p.getKind()) << ')';
      else
        os << 'R';
    };
    for (Attribute a : rule.operands) {
      one(a);
      os << ' ';
    }
    os << "-> ";
    one(rule.result);
    return s;
  }

  MLIRContext ctx;
  AxisRuleBuilder r;
};

TEST_F(FactorRuleTest, MatmulShardsPassOrBecomePartial) {
  // [8x16] @ [16x32].
  FactorRule mm = FactorRule::einsum("ik,kj->ij", {{8, 16}, {16, 32}},
                                     Linearity::EachOperand);
  // Rows of the lhs: rows of the result.
  EXPECT_EQ(show(r.fromFactors(mm, {r.shard(0), r.rep()})), "S0 R -> S0");
  // The contraction dim: each rank's product is a partial sum; the rhs is
  // chunked on its rows to match.
  EXPECT_EQ(show(r.fromFactors(mm, {r.shard(1), r.rep()})), "S1 S0 -> P(sum)");
  // Columns of the rhs (colwise).
  EXPECT_EQ(show(r.fromFactors(mm, {r.rep(), r.shard(1)})), "R S1 -> S1");
  // A partial sum times a whole matrix stays a partial sum.
  EXPECT_EQ(show(r.fromFactors(mm, {r.partialSum(), r.rep()})),
            "P(sum) R -> P(sum)");
  // Two partials are not a product of sums: reduced first.
  EXPECT_EQ(show(r.fromFactors(mm, {r.partialSum(), r.partialSum()})),
            "R R -> R");
}

TEST_F(FactorRuleTest, TheShardThatMovesLessWins) {
  // lhs [8x16] sharded on k, rhs [16x4096] sharded on j: keeping the big
  // rhs in place (factor j) moves only the lhs.
  FactorRule mm = FactorRule::einsum("ik,kj->ij", {{8, 16}, {16, 4096}},
                                     Linearity::EachOperand);
  EXPECT_EQ(show(r.fromFactors(mm, {r.shard(1), r.shard(1)})), "R S1 -> S1");
  // With a big lhs the contraction wins.
  FactorRule big = FactorRule::einsum("ik,kj->ij", {{4096, 16}, {16, 8}},
                                      Linearity::EachOperand);
  EXPECT_EQ(show(r.fromFactors(big, {r.shard(1), r.shard(1)})),
            "S1 S0 -> P(sum)");
}

TEST_F(FactorRuleTest, BroadcastDimsHaveNoFactor) {
  // A batched matmul whose rhs broadcasts over the batch: [4x8x16] @
  // [1x16x32]. The rhs's batch dim is size 1: it is replicated, not
  // chunked.
  FactorRule bmm = FactorRule::einsum("bik,bkj->bij", {{4, 8, 16}, {1, 16, 32}},
                                      Linearity::EachOperand);
  EXPECT_EQ(show(r.fromFactors(bmm, {r.shard(0), r.rep()})), "S0 R -> S0");
  // A shard of a size-1 broadcast dim proposes nothing.
  EXPECT_EQ(show(r.fromFactors(bmm, {r.rep(), r.shard(0)})), "R R -> R");
  // Element-wise: a bias [32] added to [8x32].
  FactorRule add =
      FactorRule::elementwise({{8, 32}, {32}}, {8, 32}, Linearity::AllOperands);
  EXPECT_EQ(show(r.fromFactors(add, {r.shard(1), r.rep()})), "S1 S0 -> S1");
  EXPECT_EQ(show(r.fromFactors(add, {r.shard(0), r.rep()})), "S0 R -> S0");
}

TEST_F(FactorRuleTest, LinearityDecidesHowPartialsPass) {
  FactorRule add =
      FactorRule::elementwise({{8}, {8}}, {8}, Linearity::AllOperands);
  FactorRule mul =
      FactorRule::elementwise({{8}, {8}}, {8}, Linearity::EachOperand);
  FactorRule max = FactorRule::elementwise({{8}, {8}}, {8}, Linearity::None);
  Attribute p = r.partialSum(), rep = r.rep();
  EXPECT_EQ(show(r.fromFactors(add, {p, p})), "P(sum) P(sum) -> P(sum)");
  EXPECT_EQ(show(r.fromFactors(add, {p, rep})), "R R -> R");
  EXPECT_EQ(show(r.fromFactors(mul, {p, rep})), "P(sum) R -> P(sum)");
  EXPECT_EQ(show(r.fromFactors(mul, {p, p})), "R R -> R");
  EXPECT_EQ(show(r.fromFactors(max, {p, rep})), "R R -> R");
  // Moving elements keeps any partial, a max too.
  FactorRule transpose =
      FactorRule::einsum("ij->ji", {{4, 8}}, Linearity::MovesElements);
  Attribute pmax = r.partial(ReductionKind::Max);
  EXPECT_EQ(show(r.fromFactors(transpose, {pmax})), "P(max) -> P(max)");
  EXPECT_EQ(show(r.fromFactors(transpose, {r.shard(0)})), "S0 -> S1");
}

TEST_F(FactorRuleTest, ReductionKindsAndReplicatedFactors) {
  // amax over dim 1 of [8x16], keepdim: the reduced dim is size 1 in the
  // result (no factor there).
  FactorRule amax;
  amax.factors = {{}, {FactorRule::FactorKind::Reduction, ReductionKind::Max}};
  amax.operands = {{0, 1}};
  amax.result = {0, -1};
  amax.shapes = {{8, 16}};
  EXPECT_EQ(show(r.fromFactors(amax, {r.shard(1)})), "S1 -> P(max)");
  EXPECT_EQ(show(r.fromFactors(amax, {r.shard(0)})), "S0 -> S0");
  // A softmax reads its rows whole: that factor is never sharded.
  FactorRule softmax;
  softmax.factors = {{}, {FactorRule::FactorKind::Replicated}};
  softmax.operands = {{0, 1}};
  softmax.result = {0, 1};
  softmax.shapes = {{8, 16}};
  EXPECT_EQ(show(r.fromFactors(softmax, {r.shard(1)})), "R -> R");
  EXPECT_EQ(show(r.fromFactors(softmax, {r.shard(0)})), "S0 -> S0");
}

} // namespace
