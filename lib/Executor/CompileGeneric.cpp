//===- CompileGeneric.cpp - model.generic as a loop nest -------*- C++ -*-===//
//
// The compiler's half of model.generic: its indexing maps become the loop
// each operand dim reads, its body a list of scalar instructions over
// registers (runtime::GenericSpec), which the host kernel runs.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <stdexcept>

using namespace mlir;
using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;
namespace m = mlir::tp::model;
using Kind = mlir::tp::runtime::ScalarInstr::Kind;

namespace {
std::optional<int> predicateOf(arith::CmpFPredicate p) {
  switch (p) {
  case arith::CmpFPredicate::OEQ:
    return 0;
  case arith::CmpFPredicate::UNE:
    return 1;
  case arith::CmpFPredicate::OLT:
    return 2;
  case arith::CmpFPredicate::OLE:
    return 3;
  case arith::CmpFPredicate::OGT:
    return 4;
  case arith::CmpFPredicate::OGE:
    return 5;
  default:
    return std::nullopt;
  }
}
} // namespace

mlir::tp::runtime::GenericSpec Compiler::compileGeneric(m::GenericOp op) {
  mlir::tp::runtime::GenericSpec spec;
  spec.loops = static_cast<int64_t>(op.getIteratorTypes().size());
  for (unsigned i = 0; i < op.getNumOperands(); ++i) {
    SmallVector<int64_t> loops = op.getLoopsOf(i);
    spec.operandMaps.emplace_back(loops.begin(), loops.end());
  }
  spec.resultMap = spec.operandMaps.back();
  spec.hasInit = op.readsInit();
  Block &body = op.getBody().front();
  llvm::DenseMap<Value, int> regs;
  for (BlockArgument arg : body.getArguments()) {
    if (!isa<FloatType>(arg.getType()))
      throw std::runtime_error("tp executor runs model.generic on float "
                               "elements only, not " +
                               describe(op));
    regs[arg] = static_cast<int>(arg.getArgNumber());
  }
  int next = static_cast<int>(body.getNumArguments());
  auto reg = [&](Value v) { return regs.lookup(v); };
  for (Operation &inner : body.without_terminator()) {
    mlir::tp::runtime::ScalarInstr s;
    auto unary = [&](Kind k) {
      s.kind = k;
      s.a = reg(inner.getOperand(0));
      return true;
    };
    auto binary = [&](Kind k) {
      s.kind = k;
      s.a = reg(inner.getOperand(0));
      s.b = reg(inner.getOperand(1));
      return true;
    };
    bool known =
        llvm::TypeSwitch<Operation *, bool>(&inner)
            .Case([&](arith::ConstantOp c) {
              auto f = dyn_cast<FloatAttr>(c.getValue());
              if (!f)
                return false;
              s.kind = Kind::Constant;
              s.value = f.getValueAsDouble();
              return true;
            })
            .Case([&](arith::AddFOp) { return binary(Kind::Add); })
            .Case([&](arith::SubFOp) { return binary(Kind::Sub); })
            .Case([&](arith::MulFOp) { return binary(Kind::Mul); })
            .Case([&](arith::DivFOp) { return binary(Kind::Div); })
            .Case([&](arith::MaximumFOp) { return binary(Kind::Max); })
            .Case([&](arith::MinimumFOp) { return binary(Kind::Min); })
            .Case([&](arith::MaxNumFOp) { return binary(Kind::MaxNum); })
            .Case([&](arith::MinNumFOp) { return binary(Kind::MinNum); })
            .Case([&](arith::NegFOp) { return unary(Kind::Neg); })
            .Case([&](math::AbsFOp) { return unary(Kind::Abs); })
            .Case([&](math::ExpOp) { return unary(Kind::Exp); })
            .Case([&](math::LogOp) { return unary(Kind::Log); })
            .Case([&](math::TanhOp) { return unary(Kind::Tanh); })
            .Case([&](math::SqrtOp) { return unary(Kind::Sqrt); })
            .Case([&](math::RsqrtOp) { return unary(Kind::Rsqrt); })
            .Case([&](math::ErfOp) { return unary(Kind::Erf); })
            .Case([&](math::SinOp) { return unary(Kind::Sin); })
            .Case([&](math::CosOp) { return unary(Kind::Cos); })
            .Case([&](math::TanOp) { return unary(Kind::Tan); })
            .Case([&](math::AtanOp) { return unary(Kind::Atan); })
            .Case([&](math::Log1pOp) { return unary(Kind::Log1p); })
            .Case([&](math::ExpM1Op) { return unary(Kind::Expm1); })
            .Case([&](math::FloorOp) { return unary(Kind::Floor); })
            .Case([&](math::CeilOp) { return unary(Kind::Ceil); })
            .Case([&](math::PowFOp) { return binary(Kind::Pow); })
            .Case([&](arith::CmpFOp c) {
              std::optional<int> p = predicateOf(c.getPredicate());
              if (!p)
                return false;
              s.predicate = *p;
              return binary(Kind::Compare);
            })
            .Case([&](arith::SelectOp sel) {
              if (!isa<IntegerType>(sel.getCondition().getType()))
                return false;
              s.kind = Kind::Select;
              s.a = reg(sel.getCondition());
              s.b = reg(sel.getTrueValue());
              s.c = reg(sel.getFalseValue());
              return true;
            })
            .Case([&](arith::ExtFOp) { return unary(Kind::Copy); })
            .Case([&](arith::TruncFOp t) {
              Type to = t.getType();
              if (to.isBF16())
                return unary(Kind::RoundBF16);
              if (to.isF16())
                return unary(Kind::RoundF16);
              return to.isF32() && unary(Kind::Copy);
            })
            .Default([](Operation *) { return false; });
    if (!known || inner.getNumResults() != 1)
      throw std::runtime_error("tp executor cannot compute " +
                               inner.getName().getStringRef().str() +
                               " in the body of " + describe(op));
    regs[inner.getResult(0)] = next++;
    spec.body.push_back(s);
  }
  spec.yield = reg(cast<m::GenericYieldOp>(body.getTerminator()).getValue());
  return spec;
}
