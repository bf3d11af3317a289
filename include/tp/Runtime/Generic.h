//===- Generic.h - a loop nest over a scalar body, on the host --*- C++ -*-===//
//
// The kernel of model.generic (a linalg.generic kept as it is): loops, the
// dims of each operand each loop indexes, and the body as a short list of
// scalar instructions over numbered registers. The executor's compiler
// builds a GenericSpec from the op's indexing maps and region; this kernel
// runs it over host tensors. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_GENERIC_H
#define TP_RUNTIME_GENERIC_H

#include "tp/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace mlir::tp::runtime {

/// One scalar instruction of a generic's body: register `result` (the
/// operands' elements are registers 0..n-1, in operand order; instruction
/// i defines register n + i) from registers `a`, `b`, `c`.
struct ScalarInstr {
  enum class Kind {
    Constant, // value
    Add,
    Sub,
    Mul,
    Div,
    Max, // NaN-propagating (arith.maximumf)
    Min,
    MaxNum, // NaN-ignoring (arith.maxnumf)
    MinNum,
    Neg,
    Abs,
    Exp,
    Log,
    Tanh,
    Sqrt,
    Rsqrt,
    Erf,
    Sin,
    Cos,
    Tan,
    Atan,
    Log1p,
    Expm1,
    Floor,
    Ceil,
    Pow,
    Compare,   // a <predicate> b: 1 or 0
    Select,    // a ? b : c
    RoundBF16, // arith.truncf to bf16 (round to nearest even)
    RoundF16,
    Copy, // arith.extf and other exact conversions
  };
  Kind kind = Kind::Copy;
  int a = -1, b = -1, c = -1;
  double value = 0;
  /// Compare: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge (ordered: false with NaN,
  /// except ne, true with NaN as arith.cmpf une).
  int predicate = 0;
};

/// A loop nest: `loops` loops; per operand (inputs, then the init when
/// `hasInit`) and per dim, the loop that indexes it, or -1 for a dim of
/// size 1 read at 0; per result dim, its loop (parallel loops only, each
/// once). Loops absent from the result are reductions: the body combines
/// the result's current element (the init's, or its last value) with the
/// inputs'. Without an init the body must not read the result's element
/// (every loop is parallel).
struct GenericSpec {
  int64_t loops = 0;
  std::vector<std::vector<int64_t>> operandMaps;
  std::vector<int64_t> resultMap;
  bool hasInit = false;
  std::vector<ScalarInstr> body;
  /// The register the body yields.
  int yield = -1;
  /// For the printer: "parallel, parallel, reduction; 4 body ops".
  std::string summary() const;
};

/// Runs \p spec over \p operands (F32; the init last when the spec has
/// one) into a result of \p resultShape (-1: a dim whose extent the
/// operands give, an uneven shard); each loop's extent is that of an
/// operand or result dim it indexes. Throws std::runtime_error when two
/// disagree on a loop's extent or a loop's extent is unknown.
Tensor generic(const GenericSpec &spec,
               const std::vector<const Tensor *> &operands,
               const std::vector<int64_t> &resultShape);

} // namespace mlir::tp::runtime

#endif // TP_RUNTIME_GENERIC_H
