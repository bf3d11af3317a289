//===- Linear.cpp - contractions: rules and gradients -----------*- C++ -*-===//
//
// The sharding rules and backward rules of nn.Linear, nn.Embedding and
// model.matmul, and the rules of their backward ops. Colwise and Rowwise
// are these rules read from the weight's placement. Each op's verifier
// is here too.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

//===----------------------------------------------------------------------===//
// Format
//===----------------------------------------------------------------------===//

// A leaf op's format, `$fqn ( operands ) attr-dict : functional-type(operands,
// results)`, as ODS writes it for the others.

ParseResult LinearOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr fqn;
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  FunctionType type;
  if (parser.parseCustomAttributeWithFallback(
          fqn, parser.getBuilder().getType<NoneType>()))
    return failure();
  result.getOrAddProperties<Properties>().fqn = fqn;
  SMLoc operandsLoc;
  if (parser.parseLParen() ||
      (operandsLoc = parser.getCurrentLocation(),
       parser.parseOperandList(operands)) ||
      parser.parseRParen() || parseAttrDict(parser, result) ||
      parser.parseColon() || parser.parseType(type) ||
      parser.resolveOperands(operands, type.getInputs(), operandsLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}

void LinearOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getFqnAttr());
  p << '(' << getOperation()->getOperands() << ')';
  printAttrDict(p, *this, {"fqn"});
  p << " : ";
  p.printFunctionalType(getOperation()->getOperandTypes(),
                        getOperation()->getResultTypes());
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  auto x = shapeOf(getInput()), w = shapeOf(getWeight());
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [out_features, in_features], got "
                         << shapeStr(w);
  if (x.empty() || !sameSize(x.back(), w[1]))
    return emitOpError() << "input of '" << getFqn() << "' has shape "
                         << shapeStr(x) << " but weight expects " << w[1]
                         << " input features";
  if (getBias() &&
      failed(expectShape(*this, "bias", shapeOf(getBias()), {w[0]})))
    return failure();
  SmallVector<int64_t> out(x);
  out.back() = w[0];
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult EmbeddingOp::verify() {
  auto ids = shapeOf(getIds()), w = shapeOf(getWeight());
  if (!isa<IntegerType>(getTensorLikeElementType(getIds().getType())))
    return emitOpError() << "ids of '" << getFqn() << "' must be integers";
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [num_embeddings, embedding_dim]";
  SmallVector<int64_t> out(ids);
  out.push_back(w[1]);
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult MatmulOp::verify() {
  auto a = shapeOf(getLhs()), b = shapeOf(getRhs());
  if (a.size() < 2 || b.size() < 2)
    return emitOpError("matmul operands must have rank >= 2");
  if (!sameSize(a.back(), b[b.size() - 2]))
    return emitOpError() << "contracting dims differ: " << shapeStr(a) << " x "
                         << shapeStr(b);
  if (b.size() != 2 && b.size() != a.size())
    return emitOpError("rhs must be 2-D or have the lhs's batch dims");
  SmallVector<int64_t> out(a);
  out.back() = b.back();
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult LinearGradInputOp::verify() {
  auto g = shapeOf(getGrad()), w = shapeOf(getWeight());
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [out_features, in_features], got "
                         << shapeStr(w);
  if (g.empty() || !sameSize(g.back(), w[0]))
    return emitOpError() << "gradient of '" << getFqn() << "' has shape "
                         << shapeStr(g) << " but the weight has " << w[0]
                         << " output features";
  SmallVector<int64_t> out(g);
  out.back() = w[1];
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult LinearGradWeightOp::verify() {
  auto g = shapeOf(getGrad()), x = shapeOf(getInput());
  if (g.empty() || g.size() != x.size())
    return emitOpError() << "gradient " << shapeStr(g) << " and input "
                         << shapeStr(x) << " of '" << getFqn()
                         << "' must have the same rank (at least 1)";
  for (size_t i = 0; i + 1 < g.size(); ++i)
    if (!sameSize(g[i], x[i]))
      return emitOpError() << "gradient " << shapeStr(g) << " and input "
                           << shapeStr(x) << " of '" << getFqn()
                           << "' differ in their leading dims";
  return expectShape(*this, "result", shapeOf(getResult()),
                     {g.back(), x.back()});
}

LogicalResult EmbeddingGradOp::verify() {
  auto w = shapeOf(getWeight());
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [num_embeddings, embedding_dim], got "
                         << shapeStr(w);
  if (!isa<IntegerType>(getTensorLikeElementType(getIds().getType())))
    return emitOpError() << "ids of '" << getFqn() << "' must be integers";
  SmallVector<int64_t> g(shapeOf(getIds()));
  g.push_back(w[1]);
  if (failed(expectShape(*this, "gradient", shapeOf(getGrad()), g)))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), w);
}

//===----------------------------------------------------------------------===//
// nn.Linear: x [..., in], weight [out, in], optional bias [out]
//===----------------------------------------------------------------------===//

AxisRule LinearOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  int64_t xRank = shapeOf(getInput()).size();
  bool hasBias = getBias() != nullptr;
  Attribute x = in[0], w = in[1];
  auto withBias = [&](SmallVector<Attribute> ops, Attribute b) {
    if (hasBias)
      ops.push_back(b);
    return ops;
  };
  // Colwise: weight rows sharded -> output features sharded.
  if (r.shardDim(w) == 0)
    return {withBias({r.rep(), r.shard(0)}, r.shard(0)), r.shard(xRank - 1)};
  // Rowwise: weight columns sharded, input features sharded -> partial.
  if (r.shardDim(w) == 1 && !hasBias)
    return {{r.shard(xRank - 1), r.shard(1)}, r.partialSum()};
  if (isa<ReplicateAttr>(w)) {
    if (auto d = r.shardDim(x); d && *d < xRank - 1)
      return {withBias({x, r.rep()}, r.rep()), x};
    if (r.isPartialSum(x) && !hasBias)
      return {{x, r.rep()}, x};
  }
  return r.replicateAll(hasBias ? 3 : 2);
}

LogicalResult LinearOp::backward(GradientBuilder &b, Value grad) {
  OpBuilder &builder = b.getBuilder();
  if (b.isActive(getInput()))
    b.accumulate(getInput(),
                 LinearGradInputOp::create(
                     builder, getLoc(), GradientBuilder::gradType(getInput()),
                     getFqnAttr(), grad, getWeight()));
  if (b.isActive(getWeight()))
    b.accumulate(getWeight(),
                 LinearGradWeightOp::create(
                     builder, getLoc(), GradientBuilder::gradType(getWeight()),
                     getFqnAttr(), grad, getInput()));
  if (b.isActive(getBias()))
    b.accumulate(getBias(), b.sumTo(grad, getBias()));
  return success();
}

/// grad [..., out] @ weight [out, in] -> [..., in].
AxisRule LinearGradInputOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  int64_t rank = shapeOf(getGrad()).size();
  Attribute g = in[0], w = in[1];
  // Colwise weight: the output features of the gradient are sharded with
  // it, and each rank's product is a partial sum.
  if (r.shardDim(w) == 0)
    return {{r.shard(rank - 1), w}, r.partialSum()};
  // Rowwise weight: the input features come out sharded; the gradient
  // must be whole.
  if (r.shardDim(w) == 1)
    return {{r.rep(), w}, r.shard(rank - 1)};
  if (isa<ReplicateAttr>(w)) {
    if (auto d = r.shardDim(g); d && *d < rank - 1)
      return {{g, r.rep()}, g};
    if (r.isPartialSum(g))
      return {{g, r.rep()}, g};
    // Output features sharded: take the matching rows of the weight.
    if (r.shardDim(g) == rank - 1)
      return {{g, r.shard(0)}, r.partialSum()};
  }
  return r.replicateAll(2);
}

/// Sum over leading dims of grad [..., out]^T @ input [..., in].
AxisRule LinearGradWeightOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  int64_t rank = shapeOf(getGrad()).size();
  Attribute g = in[0], x = in[1];
  auto dg = r.shardDim(g), dx = r.shardDim(x);
  // The same leading dim (batch, sequence) sharded in both: each rank
  // sums its rows, a partial sum of the whole.
  if (dg && dg == dx && *dg < rank - 1)
    return {{g, x}, r.partialSum()};
  // Output features sharded (colwise): rows of the weight gradient.
  if (dg == rank - 1)
    return {{g, r.rep()}, r.shard(0)};
  // Input features sharded (rowwise): columns.
  if (dx == rank - 1)
    return {{r.rep(), x}, r.shard(1)};
  if (r.isPartialSum(g) && isa<ReplicateAttr>(x))
    return {{g, x}, g};
  // One operand's leading dim sharded, the other whole: chunk it alike.
  if (dg && *dg < rank - 1 && isa<ReplicateAttr>(x))
    return {{g, g}, r.partialSum()};
  if (dx && *dx < rank - 1 && isa<ReplicateAttr>(g))
    return {{x, x}, r.partialSum()};
  return r.replicateAll(2);
}

//===----------------------------------------------------------------------===//
// nn.Embedding: ids [...], weight [V, D]
//===----------------------------------------------------------------------===//

AxisRule EmbeddingOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  int64_t idsRank = shapeOf(getIds()).size();
  if (r.shardDim(in[1]) == 1)
    return {{r.rep(), r.shard(1)}, r.shard(idsRank)};
  // Vocabulary rows sharded: out-of-range ids look up zeros, so the sum
  // over ranks is the lookup.
  if (r.shardDim(in[1]) == 0)
    return {{r.rep(), r.shard(0)}, r.partialSum()};
  if (isa<ReplicateAttr>(in[1]) && r.shardDim(in[0]))
    return {{in[0], r.rep()}, in[0]};
  return r.replicateAll(2);
}

LogicalResult EmbeddingOp::backward(GradientBuilder &b, Value grad) {
  Value w = getWeight();
  b.accumulate(w, EmbeddingGradOp::create(b.getBuilder(), getLoc(),
                                          GradientBuilder::gradType(w),
                                          getFqnAttr(), grad, getIds(), w));
  return success();
}

/// The table's gradient (grad [..., D], ids [...], weight [V, D]), laid out
/// as the table. Vocabulary rows sharded: each rank scatters the whole
/// gradient into its rows; columns sharded: the gradient's columns; a whole
/// table: rows of the lookup split over ranks give a partial sum.
AxisRule EmbeddingGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  int64_t idsRank = shapeOf(getIds()).size();
  Attribute g = in[0], ids = in[1], w = in[2];
  if (r.shardDim(w) == 0)
    return {{r.rep(), r.rep(), w}, w};
  if (r.shardDim(w) == 1)
    return {{r.shard(idsRank), r.rep(), w}, w};
  if (r.shardDim(ids))
    return {{ids, ids, r.rep()}, r.partialSum()};
  if (auto d = r.shardDim(g); d && *d < idsRank)
    return {{g, g, r.rep()}, r.partialSum()};
  if (r.isPartialSum(g))
    return {{g, r.rep(), r.rep()}, g};
  return r.replicateAll(3);
}

//===----------------------------------------------------------------------===//
// model.matmul: [..., m, k] x [..., k, n]
//===----------------------------------------------------------------------===//

AxisRule MatmulOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // "...mk,...kn->...mn" with the batch dims broadcast (aligned at the
  // end); linear in each operand.
  SmallVector<int64_t> a(shapeOf(getLhs())), b(shapeOf(getRhs()));
  size_t batch = std::max(a.size(), b.size()) - 2;
  std::string letters = "abcdefghijklmnopqrstuvwxyz";
  std::string out = letters.substr(0, batch);
  auto batchOf = [&](size_t rank) { return out.substr(batch - (rank - 2)); };
  std::string spec =
      batchOf(a.size()) + "MK," + batchOf(b.size()) + "KN->" + out + "MN";
  return AxisRuleBuilder(getContext(), n)
      .fromFactors(
          FactorRule::einsum(spec, {a, b}, FactorRule::Linearity::EachOperand),
          in);
}

/// a [..., m, k] @ b [..., k, n]: a gets g @ b^T, b gets a^T @ g, each
/// summed over the batch dims it was broadcast along.
LogicalResult MatmulOp::backward(GradientBuilder &b, Value grad) {
  OpBuilder &builder = b.getBuilder();
  Location loc = getLoc();
  auto transposed = [&](Value v) {
    SmallVector<int64_t> shape(shapeOf(v));
    SmallVector<int64_t> perm =
        llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
    std::swap(perm[perm.size() - 2], perm.back());
    std::swap(shape[shape.size() - 2], shape.back());
    auto type =
        RankedTensorType::get(shape, getTensorLikeElementType(v.getType()));
    return TransposeOp::create(builder, loc, type, v, perm);
  };
  auto product = [&](Value lhs, Value rhs) {
    ArrayRef<int64_t> l = shapeOf(lhs), r = shapeOf(rhs);
    // Batch dims broadcast as the forward's verifier allows.
    SmallVector<int64_t> shape(l.size() >= r.size() ? l.drop_back(2)
                                                    : r.drop_back(2));
    shape.push_back(l[l.size() - 2]);
    shape.push_back(r.back());
    auto type =
        RankedTensorType::get(shape, getTensorLikeElementType(grad.getType()));
    return MatmulOp::create(builder, loc, type, lhs, rhs);
  };
  Value x = getLhs(), y = getRhs();
  if (b.isActive(x))
    b.accumulate(x, b.sumTo(product(grad, transposed(y)), x));
  if (b.isActive(y))
    b.accumulate(y, b.sumTo(product(transposed(x), grad), y));
  return success();
}
