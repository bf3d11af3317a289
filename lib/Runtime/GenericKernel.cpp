//===- GenericKernel.cpp - model.generic's loop nest on the host -*- C++
//-*-===//

#include "tp/Runtime/Generic.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace mlir::tp::runtime;
using Kind = ScalarInstr::Kind;

namespace {
float evaluate(const ScalarInstr &in, const std::vector<float> &r) {
  auto a = [&] { return r[in.a]; };
  auto b = [&] { return r[in.b]; };
  switch (in.kind) {
  case Kind::Constant:
    return static_cast<float>(in.value);
  case Kind::Add:
    return a() + b();
  case Kind::Sub:
    return a() - b();
  case Kind::Mul:
    return a() * b();
  case Kind::Div:
    return a() / b();
  case Kind::Max:
    return std::isnan(a()) || std::isnan(b()) ? NAN : std::max(a(), b());
  case Kind::Min:
    return std::isnan(a()) || std::isnan(b()) ? NAN : std::min(a(), b());
  case Kind::MaxNum:
    return std::fmax(a(), b());
  case Kind::MinNum:
    return std::fmin(a(), b());
  case Kind::Neg:
    return -a();
  case Kind::Abs:
    return std::fabs(a());
  case Kind::Exp:
    return std::exp(a());
  case Kind::Log:
    return std::log(a());
  case Kind::Tanh:
    return std::tanh(a());
  case Kind::Sqrt:
    return std::sqrt(a());
  case Kind::Rsqrt:
    return 1.0f / std::sqrt(a());
  case Kind::Erf:
    return std::erf(a());
  case Kind::Sin:
    return std::sin(a());
  case Kind::Cos:
    return std::cos(a());
  case Kind::Tan:
    return std::tan(a());
  case Kind::Atan:
    return std::atan(a());
  case Kind::Log1p:
    return std::log1p(a());
  case Kind::Expm1:
    return std::expm1(a());
  case Kind::Floor:
    return std::floor(a());
  case Kind::Ceil:
    return std::ceil(a());
  case Kind::Pow:
    return std::pow(a(), b());
  case Kind::Compare: {
    float x = a(), y = b();
    switch (in.predicate) {
    case 0:
      return x == y;
    case 1:
      return x != y;
    case 2:
      return x < y;
    case 3:
      return x <= y;
    case 4:
      return x > y;
    default:
      return x >= y;
    }
  }
  case Kind::Select:
    return r[in.a] != 0 ? r[in.b] : r[in.c];
  case Kind::RoundBF16:
    return bf16ToFloat(floatToBF16(a()));
  case Kind::RoundF16:
    return f16ToFloat(floatToF16(a()));
  case Kind::Copy:
    return a();
  }
  throw std::logic_error("generic: unknown scalar instruction");
}
} // namespace

std::string GenericSpec::summary() const {
  std::string s;
  std::vector<bool> parallel(loops, false);
  for (int64_t l : resultMap)
    if (l >= 0 && l < loops)
      parallel[l] = true;
  for (int64_t l = 0; l < loops; ++l)
    s += std::string(l ? ", " : "") + (parallel[l] ? "parallel" : "reduction");
  return s + "; " + std::to_string(body.size()) + " body ops";
}

Tensor mlir::tp::runtime::generic(const GenericSpec &spec,
                                  const std::vector<const Tensor *> &operands,
                                  const std::vector<int64_t> &resultShape) {
  if (operands.size() != spec.operandMaps.size())
    throw std::runtime_error("generic: " + std::to_string(operands.size()) +
                             " operands for a body of " +
                             std::to_string(spec.operandMaps.size()));
  // Each loop's extent, from every operand and result dim it indexes.
  std::vector<int64_t> extent(spec.loops, -1);
  auto bind = [&](int64_t loop, int64_t size, const char *what) {
    if (loop < 0 || size < 0)
      return;
    if (extent[loop] >= 0 && extent[loop] != size)
      throw std::runtime_error("generic: loop " + std::to_string(loop) +
                               " has extent " + std::to_string(extent[loop]) +
                               " and " + std::to_string(size) + " (" + what +
                               ")");
    extent[loop] = size;
  };
  for (size_t k = 0; k < operands.size(); ++k) {
    const std::vector<int64_t> &map = spec.operandMaps[k];
    if (static_cast<int64_t>(map.size()) != operands[k]->rank())
      throw std::runtime_error("generic: operand " + std::to_string(k) +
                               " has rank " +
                               std::to_string(operands[k]->rank()) +
                               ", its map " + std::to_string(map.size()));
    for (size_t d = 0; d < map.size(); ++d) {
      if (map[d] < 0 && operands[k]->dim(d) != 1)
        throw std::runtime_error("generic: operand " + std::to_string(k) +
                                 " dim " + std::to_string(d) +
                                 " is read at 0 but has extent " +
                                 std::to_string(operands[k]->dim(d)));
      bind(map[d], operands[k]->dim(d), "an operand");
    }
  }
  for (size_t d = 0; d < spec.resultMap.size(); ++d)
    bind(spec.resultMap[d], resultShape.at(d), "the result");
  for (int64_t l = 0; l < spec.loops; ++l)
    if (extent[l] < 0)
      throw std::runtime_error("generic: loop " + std::to_string(l) +
                               " indexes no dim of known extent");

  std::vector<int64_t> outShape;
  for (int64_t l : spec.resultMap)
    outShape.push_back(extent[l]);
  // The init's copy (the operand itself is not written), or zeros.
  Tensor out =
      spec.hasInit ? operands.back()->reshaped(outShape) : Tensor(outShape);
  // Strides of each operand and of the result along each loop.
  auto stridesOf = [&](const std::vector<int64_t> &shape,
                       const std::vector<int64_t> &map) {
    std::vector<int64_t> perLoop(spec.loops, 0);
    int64_t stride = 1;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (map[d] >= 0)
        perLoop[map[d]] += stride;
      stride *= shape[d];
    }
    return perLoop;
  };
  size_t n = operands.size();
  std::vector<std::vector<int64_t>> strides;
  for (size_t k = 0; k < n; ++k)
    strides.push_back(stridesOf(operands[k]->shape(), spec.operandMaps[k]));
  std::vector<int64_t> outStrides = stridesOf(outShape, spec.resultMap);

  int64_t total = 1;
  for (int64_t e : extent)
    total *= e;
  std::vector<int64_t> idx(spec.loops, 0);
  std::vector<int64_t> off(n, 0);
  int64_t outOff = 0;
  std::vector<float> regs(n + spec.body.size(), 0.0f);
  float *o = out.data();
  for (int64_t it = 0; it < total; ++it) {
    for (size_t k = 0; k < n; ++k)
      regs[k] = operands[k]->data()[off[k]];
    if (spec.hasInit)
      regs[n - 1] = o[outOff]; // the result so far
    for (size_t i = 0; i < spec.body.size(); ++i)
      regs[n + i] = evaluate(spec.body[i], regs);
    o[outOff] = regs[spec.yield];
    // Next index, innermost loop fastest.
    for (int64_t l = spec.loops - 1; l >= 0; --l) {
      if (++idx[l] < extent[l]) {
        for (size_t k = 0; k < n; ++k)
          off[k] += strides[k][l];
        outOff += outStrides[l];
        break;
      }
      for (size_t k = 0; k < n; ++k)
        off[k] -= strides[k][l] * (extent[l] - 1);
      outOff -= outStrides[l] * (extent[l] - 1);
      idx[l] = 0;
    }
  }
  return out;
}
