//===- CompilerSupport.cpp - types, layouts, the liveness plan ------------===//
//
// The compiler's helpers (Compiler.h): MLIR types to runtime shapes and
// dtypes (with the size checks that run before anything is allocated),
// placements to the layout strings of InputInfo and ResultLayout, and the
// liveness plan over the finished instruction list.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include <map>

#include "llvm/Support/MathExtras.h"

#include <stdexcept>

using namespace mlir;
using namespace ::mlir::tp::exec;
namespace rt = ::mlir::tp::runtime;

namespace mlir::tp::exec::detail {

std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  if (auto fqn = op->getAttrOfType<StringAttr>("fqn"))
    os << " '" << fqn.getValue() << "'";
  os << " at " << op->getLoc();
  return s;
}

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Bytes per element as the runtime holds them (dtypeOf, without its
/// check: unsupported types are rejected where the value is typed).
static int64_t elementBytes(RankedTensorType t) {
  Type e = t.getElementType();
  if (e.isInteger(64))
    return static_cast<int64_t>(rt::dtypeSize(kTokenDType));
  return e.isBF16() || e.isF16() ? 2 : 4;
}

void checkFits(Type t, const std::string &what) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  if (!ranked)
    return;
  int64_t numel = 1, bytes = 0;
  bool overflow = false;
  for (int64_t d : ranked.getShape())
    if (!ShapedType::isDynamic(d))
      overflow |= llvm::MulOverflow(numel, d, numel);
  overflow |= llvm::MulOverflow(numel, elementBytes(ranked), bytes);
  if (overflow)
    throw std::runtime_error(what + " has type " + typeString(t) +
                             ": its size in bytes overflows int64_t");
  int64_t memory = rt::hostMemoryBytes();
  if (bytes > memory)
    throw std::runtime_error(what + " has type " + typeString(t) + ": " +
                             std::to_string(numel) + " elements (" +
                             std::to_string(bytes) +
                             " bytes), more than this host's " +
                             std::to_string(memory) + " bytes of memory hold");
}

std::vector<int64_t> staticShapeOf(Type t, const std::string &what) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  if (!ranked)
    throw std::runtime_error(what + " has type " + typeString(t) +
                             ": only ranked tensors are supported");
  if (!ranked.hasStaticShape())
    throw std::runtime_error(what + " has type " + typeString(t) +
                             ": dynamic dims are not supported");
  checkFits(t, what);
  return shapeOf(t);
}

std::vector<int64_t> shapeOf(Type t) {
  auto r = cast<RankedTensorType>(t);
  std::vector<int64_t> shape;
  for (int64_t d : r.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return shape;
}

rt::DType dtypeOf(Type t, Operation *where) {
  auto shaped = dyn_cast<ShapedType>(t);
  if (!shaped)
    return rt::DType::F32;
  Type e = shaped.getElementType();
  if (e.isInteger(64))
    return kTokenDType;
  if (e.isInteger(32))
    return rt::DType::I32;
  if (e.isF32())
    return rt::DType::F32;
  if (e.isBF16())
    return rt::DType::BF16;
  if (e.isF16())
    return rt::DType::F16;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  throw std::runtime_error("tp executor supports f32, bf16, f16, i64 and i32 "
                           "tensors, not " +
                           s + ": " + describe(where));
}

rt::ReduceOp reduceOp(mlir::tp::ReductionKind k) {
  switch (k) {
  case mlir::tp::ReductionKind::Sum:
    return rt::ReduceOp::Sum;
  case mlir::tp::ReductionKind::Avg:
    return rt::ReduceOp::Avg;
  case mlir::tp::ReductionKind::Max:
    return rt::ReduceOp::Max;
  case mlir::tp::ReductionKind::Min:
    return rt::ReduceOp::Min;
  }
  return rt::ReduceOp::Sum;
}

void describeLayout(Type global, size_t meshRank, const std::string &what,
                    std::vector<int64_t> &shape,
                    std::vector<std::string> &placements) {
  placements.clear();
  auto d = dyn_cast<mlir::tp::DTensorType>(global);
  shape = staticShapeOf(d ? d.getGlobalType() : global, what);
  if (!d) {
    placements.assign(meshRank, "R");
    return;
  }
  for (Attribute p : d.getPlacements()) {
    if (auto s = dyn_cast<mlir::tp::ShardAttr>(p))
      placements.push_back("S" + std::to_string(s.getDim()));
    else if (auto pa = dyn_cast<mlir::tp::PartialAttr>(p))
      placements.push_back(
          "P" + mlir::tp::stringifyReductionKind(pa.getKind()).str());
    else
      placements.push_back("R");
  }
}

void regatherForBackward(ProgramData &program) {
  // The loss: the result that is neither a gradient nor an updated
  // parameter, in a program that returns gradients.
  int lossSlot = -1;
  bool training = false;
  for (size_t i = 0; i < program.results.size(); ++i) {
    const ResultLayout &r = program.results[i];
    training |= !r.gradOf.empty();
    if (r.gradOf.empty() && r.updated.empty() && lossSlot < 0)
      lossSlot = program.resultSlots[i];
  }
  if (!training || lossSlot < 0)
    return;
  std::vector<Instruction> &instrs = program.instrs;
  size_t loss = 0;
  while (loss < instrs.size() && instrs[loss].result != lossSlot)
    ++loss;
  if (loss == instrs.size())
    return;
  std::vector<bool> isResult(program.slots.size(), false);
  for (int s : program.resultSlots)
    isResult[s] = true;
  // Gathers to run again, by the index of their first backward reader.
  std::multimap<size_t, Instruction> inserts;
  for (size_t i = 0; i < loss; ++i) {
    const Instruction &gather = instrs[i];
    if (gather.op != Opcode::AllGather && gather.op != Opcode::AllGatherUneven)
      continue;
    int gathered = gather.result;
    if (isResult[gathered] || program.slots[gathered].staticBytes <=
                                  program.slots[gather.operands[0]].staticBytes)
      continue;
    Instruction again = gather;
    again.result = -1;
    for (size_t j = loss + 1; j < instrs.size(); ++j)
      for (int &s : instrs[j].operands)
        if (s == gathered) {
          if (again.result < 0) {
            again.result = static_cast<int>(program.slots.size());
            program.slots.push_back(program.slots[gathered]);
            inserts.emplace(j, again);
          }
          s = again.result;
        }
  }
  if (inserts.empty())
    return;
  std::vector<Instruction> out;
  out.reserve(instrs.size() + inserts.size());
  for (size_t j = 0; j < instrs.size(); ++j) {
    auto [first, last] = inserts.equal_range(j);
    for (auto it = first; it != last; ++it)
      out.push_back(std::move(it->second));
    out.push_back(std::move(instrs[j]));
  }
  instrs = std::move(out);
}

void planLiveness(ProgramData &program) {
  int numSlots = static_cast<int>(program.slots.size());
  std::vector<int> lastUse(numSlots, -1);
  for (size_t i = 0; i < program.instrs.size(); ++i)
    for (int s : program.instrs[i].operands)
      lastUse[s] = static_cast<int>(i);
  std::vector<bool> keep(numSlots, false);
  for (int s : program.resultSlots)
    keep[s] = true;
  for (int s = 0; s < numSlots; ++s)
    if (lastUse[s] >= 0 && !keep[s])
      program.instrs[lastUse[s]].frees.push_back(s);
  // Peak: the inputs are live from the start, each instruction's result
  // from its definition until it is freed.
  int64_t live = 0;
  for (int s : program.inputSlots)
    live += program.slots[s].staticBytes;
  program.peak = live;
  for (const Instruction &instr : program.instrs) {
    live += program.slots[instr.result].staticBytes;
    program.peak = std::max(program.peak, live);
    for (int s : instr.frees)
      live -= program.slots[s].staticBytes;
  }
}

} // namespace mlir::tp::exec::detail
