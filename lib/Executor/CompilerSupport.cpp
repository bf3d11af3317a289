//===- CompilerSupport.cpp - types, layouts, the liveness plan ------------===//
//
// The compiler's helpers (Compiler.h): MLIR types to runtime shapes and
// dtypes (with the size checks that run before anything is allocated),
// placements to the layout strings of InputInfo and ResultLayout, and the
// liveness plan over the finished instruction list.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "llvm/ADT/StringExtras.h"
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
  // A file location as the printer writes it, without building a printer
  // for each instruction (its origin is described whether or not an error
  // ever names it).
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc())) {
    os << " at loc(\"";
    llvm::printEscapedString(file.getFilename().getValue(), os);
    os << "\":" << file.getLine() << ":" << file.getColumn() << ")";
  } else {
    os << " at " << op->getLoc();
  }
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
  if (e.isInteger(1))
    return rt::DType::Bool;
  if (e.isF32())
    return rt::DType::F32;
  if (e.isBF16())
    return rt::DType::BF16;
  if (e.isF16())
    return rt::DType::F16;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  throw std::runtime_error("tp executor supports f32, bf16, f16, i64, i32 "
                           "and i1 tensors, not " +
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
    else if (auto s = dyn_cast<mlir::tp::InnerShardAttr>(p))
      placements.push_back("I" + std::to_string(s.getDim()));
    else if (auto pa = dyn_cast<mlir::tp::PartialAttr>(p))
      placements.push_back(
          "P" + mlir::tp::stringifyReductionKind(pa.getKind()).str());
    else
      placements.push_back("R");
  }
}

/// Whether instruction \p in may run on a communication thread: a
/// collective of one call on the rank's buffers (a gather or scatter along
/// dim 0 fills its result in place; an all_reduce works in place).
static bool canRunAsync(const Instruction &in) {
  switch (in.op) {
  case Opcode::AllGather:
  case Opcode::ReduceScatter:
    return in.dim == 0;
  case Opcode::AllReduce:
    return true;
  default:
    return false;
  }
}

void planAsync(ProgramData &program) {
  std::vector<Instruction> &instrs = program.instrs;
  program.asyncAxisGroups.clear();
  for (Instruction &in : instrs) {
    in.async = false;
    in.awaits.clear();
  }
  // The first reader of each slot.
  std::vector<int> firstUse(program.slots.size(), -1);
  for (size_t i = 0; i < instrs.size(); ++i)
    for (int s : instrs[i].operands)
      if (firstUse[s] < 0)
        firstUse[s] = static_cast<int>(i);
  for (size_t i = 0; i < instrs.size(); ++i) {
    Instruction &in = instrs[i];
    int first = firstUse[in.result];
    // Nothing to overlap when the next instruction reads it.
    if (!canRunAsync(in) || first == static_cast<int>(i) + 1 ||
        (first < 0 && i + 1 == instrs.size()))
      continue;
    in.async = true;
    program.asyncAxisGroups.insert(in.axes);
    if (first >= 0)
      instrs[first].awaits.push_back(in.result);
  }
}

void planLiveness(ProgramData &program) {
  int numSlots = static_cast<int>(program.slots.size());
  std::vector<int> lastUse(numSlots, -1);
  for (size_t i = 0; i < program.instrs.size(); ++i)
    for (int s : program.instrs[i].operands)
      lastUse[s] = static_cast<int>(i);
  // An async gather or scatter reads its operand until the instruction
  // that waits for it (an all_reduce takes its operand's buffer, or copies
  // it, as it starts). Results nobody reads are waited for at the end.
  std::vector<int> waitAt(numSlots,
                          static_cast<int>(program.instrs.size()) - 1);
  for (size_t i = 0; i < program.instrs.size(); ++i)
    for (int s : program.instrs[i].awaits)
      waitAt[s] = static_cast<int>(i);
  for (const Instruction &in : program.instrs)
    if (in.async && in.op != Opcode::AllReduce)
      for (int o : in.operands)
        lastUse[o] = std::max(lastUse[o], waitAt[in.result]);
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

//===----------------------------------------------------------------------===//
// The id range of token inputs
//===----------------------------------------------------------------------===//

int64_t mlir::tp::exec::detail::tokenRange(mlir::Value ids) {
  namespace m = mlir::tp::model;
  using mlir::tp::TPDialect;
  // Ids must be valid for every table they index: the smallest one.
  int64_t range = -1;
  auto narrow = [&](int64_t v) { range = range < 0 ? v : std::min(range, v); };
  bool compared = false;
  for (mlir::Operation *user : ids.getUsers()) {
    // Through local chunks (a batch-sharded input) to the embeddings
    // (and gathers: targets of a whole-row loss on batch-sharded inputs).
    // and through the ops that only move ids (the shifted labels of a
    // causal LM: a slice and a reshape).
    if (m::movesIds(user)) {
      if (int64_t v = tokenRange(user->getResult(0)); v > 0)
        narrow(v);
      continue;
    }
    // Loss targets: ids range over the classes (all of them when the
    // logits are class-sharded).
    if (auto t = mlir::dyn_cast<m::TargetLogitOp>(user)) {
      narrow(mlir::cast<mlir::RankedTensorType>(t.getLogits().getType())
                 .getDimSize(1));
      continue;
    }
    if (auto t = mlir::dyn_cast<mlir::tp::ShardedTargetLogitOp>(user)) {
      narrow(t.getNumClasses());
      continue;
    }
    if (auto ce = mlir::dyn_cast<m::CrossEntropyOp>(user)) {
      narrow(mlir::cast<mlir::RankedTensorType>(ce.getLogits().getType())
                 .getDimSize(1));
      continue;
    }
    // An integer input read as a number (cast to float) is a mask, as
    // Hugging Face's attention_mask: 0 or 1.
    if (mlir::isa<m::CastOp>(user)) {
      narrow(2);
      continue;
    }
    // Compared (`attention_mask == 0`): a mask too, unless something else
    // gives the range (`ids != pad_id` of ids an embedding reads).
    if (mlir::isa<m::CompareOp>(user)) {
      compared = true;
      continue;
    }
    // Classes of a one-hot.
    if (auto oneHot = mlir::dyn_cast<m::OneHotOp>(user)) {
      narrow(mlir::cast<mlir::RankedTensorType>(oneHot.getType())
                 .getShape()
                 .back());
      continue;
    }
    // Embeddings: the whole vocabulary, also when this rank holds a chunk.
    if (auto emb = mlir::dyn_cast<m::EmbeddingOp>(user)) {
      mlir::Value w = emb.getWeight();
      if (auto chunk = w.getDefiningOp<mlir::tp::ChunkOp>())
        w = chunk.getInput();
      narrow(mlir::cast<mlir::RankedTensorType>(w.getType()).getDimSize(0));
      continue;
    }
    if (auto emb = mlir::dyn_cast<mlir::tp::ShardedEmbeddingOp>(user))
      narrow(emb.getVocabSize());
  }
  return range < 0 && compared ? 2 : range;
}
