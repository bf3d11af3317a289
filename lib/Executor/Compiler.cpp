//===- Compiler.cpp - a function's inputs, results, slots, params ---------===//
//
// The function-level half of the compiler (Compiler.h), and
// Program::compile: the mesh, the
// inputs and results with their layouts, slot numbering, parameters (a
// parameter read only by its chunk is loaded as that chunk), then the
// liveness plan and the memory check. The per-op half is CompileOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "mlir/IR/BuiltinOps.h"

#include <stdexcept>

using namespace mlir;
using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;
namespace m = mlir::tp::model;
using mlir::tp::TPDialect;

namespace mlir::tp::exec::detail {
ProgramData compileProgram(func::FuncOp func) {
  ProgramData program;
  Compiler(program).compile(func);
  return program;
}
} // namespace mlir::tp::exec::detail

Program Program::compile(func::FuncOp func) {
  return Program(std::make_shared<const ProgramData>(compileProgram(func)));
}

void Compiler::compile(func::FuncOp func) {
  program.name = func.getName().str();
  ModuleOp module = func->getParentOfType<ModuleOp>();
  std::string meshNames;
  int meshes = 0;
  if (module)
    module.walk([&](mlir::tp::MeshOp mesh) {
      meshNames += (meshes++ ? " and @" : "@") + mesh.getSymName().str();
      if (program.meshShape.size() == 1 && program.meshShape[0] == 1)
        program.meshShape.assign(mesh.getShape().begin(),
                                 mesh.getShape().end());
    });
  if (meshes > 1)
    throw std::runtime_error("the program has " + std::to_string(meshes) +
                             " meshes (" + meshNames +
                             "); the executor runs a program on one mesh");
  if (func.getBody().empty())
    throw std::runtime_error("function @" + func.getName().str() +
                             " has no body");
  Block &block = func.getBody().front();
  auto argTypes =
      TPDialect::ArgTypesAttrHelper(func->getContext()).getAttr(func);
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    InputInfo in;
    auto name = func.getArgAttrOfType<StringAttr>(i, "model.name");
    in.name = name ? name.getValue().str() : "arg" + std::to_string(i);
    describeLayout(argTypes ? cast<TypeAttr>(argTypes[i]).getValue()
                            : arg.getType(),
                   program.meshShape.size(),
                   "input '" + in.name + "' (argument " + std::to_string(i) +
                       " of @" + func.getName().str() + ")",
                   in.shape, in.placements);
    in.dtype = dtypeOf(arg.getType(), func);
    auto elt = cast<RankedTensorType>(arg.getType()).getElementType();
    if (isa<IntegerType>(elt) && !elt.isInteger(1)) { // i1: a mask
      in.isTokens = true;
      in.vocab = tokenRange(arg);
      in.ignoreIndex = m::takesIgnoreIndex(arg);
      if (in.vocab <= 0)
        throw std::runtime_error("integer input '" + in.name +
                                 "' feeds no embedding, so its id range "
                                 "is unknown");
    }
    int slot = slotOf(arg);
    if (program.slots[slot].staticBytes == 0 && !in.placements.empty()) {
      // An uneven piece of an input: rank 0 holds the largest.
      std::vector<int64_t> offsets, sizes;
      runtime::placementBox(in.shape, in.placements, program.meshShape,
                            std::vector<int64_t>(program.meshShape.size(), 0),
                            offsets, sizes);
      setBound(slot, sizes);
    }
    program.inputSlots.push_back(slot);
    program.inputs.push_back(in);
  }
  for (Operation &op : block.without_terminator())
    compileOp(&op);
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  auto resultTypes =
      TPDialect::ResultTypesAttrHelper(func->getContext()).getAttr(func);
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    program.resultSlots.push_back(slotOf(v));
    ResultLayout layout;
    describeLayout(
        resultTypes ? cast<TypeAttr>(resultTypes[i]).getValue() : v.getType(),
        program.meshShape.size(),
        "result " + std::to_string(i) + " of @" + func.getName().str(),
        layout.globalShape, layout.placements);
    layout.local = static_cast<bool>(func.getResultAttr(
        i, TPDialect::LocalAttrHelper(func->getContext()).getName()));
    if (auto fqn = func.getResultAttrOfType<StringAttr>(
            i, TPDialect::GradOfAttrHelper::getNameStr()))
      layout.gradOf = fqn.str();
    if (auto fqn = func.getResultAttrOfType<StringAttr>(
            i, TPDialect::UpdatedAttrHelper::getNameStr()))
      layout.updated = fqn.str();
    program.results.push_back(layout);
  }
  // Whether the ranks fit this host is the launcher's check: a program
  // compiled for its memory report may be meant for larger machines.
  planAsync(program);
  planLiveness(program);
}

int Compiler::slotOf(Value v) {
  auto it = slots.find(v);
  if (it != slots.end())
    return it->second;
  int s = static_cast<int>(program.slots.size());
  slots[v] = s;
  Operation *where = v.getDefiningOp();
  if (!where)
    where = v.getParentBlock()->getParentOp();
  SlotType type;
  type.dtype = dtypeOf(v.getType(), where);
  checkFits(v.getType(), "the value of " + describe(where));
  if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
    type.shape = shapeOf(t);
    if (t.hasStaticShape())
      type.staticBytes =
          t.getNumElements() * static_cast<int64_t>(rt::dtypeSize(type.dtype));
  }
  program.slots.push_back(std::move(type));
  if (program.slots[s].staticBytes == 0)
    if (SmallVector<int64_t> bound = boundOf(v); !bound.empty())
      setBound(s, bound);
  return s;
}

SmallVector<int64_t> Compiler::boundOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  Operation *def = v.getDefiningOp();
  if (!t || t.hasStaticShape() || !def)
    return {};
  if (auto bound =
          TPDialect::LocalBoundAttrHelper(def->getContext()).getAttr(def))
    return SmallVector<int64_t>(bound.asArrayRef());
  // A piece of the operand along one dim, over the group of `axes`: the
  // largest is rank 0's (torch.chunk), of the operand's largest.
  auto piece = [&](Value operand, int64_t dim, ArrayRef<int64_t> axes,
                   bool gather) -> SmallVector<int64_t> {
    // The operand's largest shape: its static one, or its slot's bound, or
    // (a value folded into its reader, a parameter's chunk) its own.
    SmallVector<int64_t> shape;
    auto o = dyn_cast<RankedTensorType>(operand.getType());
    if (o && o.hasStaticShape())
      shape.assign(o.getShape().begin(), o.getShape().end());
    else if (auto it = slots.find(operand); it != slots.end())
      shape = bounds.lookup(it->second);
    else
      shape = boundOf(operand);
    if (shape.empty())
      return {};
    if (dim < 0)
      dim += static_cast<int64_t>(shape.size());
    if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
      return {};
    int64_t n =
        program.groupSize(std::vector<int64_t>(axes.begin(), axes.end()));
    shape[dim] = gather ? shape[dim] * n : (shape[dim] + n - 1) / n;
    // The static dims of the result are what they say.
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (!t.isDynamicDim(i) && i < static_cast<int64_t>(shape.size()))
        shape[i] = t.getDimSize(i);
    return shape;
  };
  if (auto c = dyn_cast<mlir::tp::ChunkOp>(def))
    return piece(c.getInput(), c.getAxis(), c.getMeshAxes(), false);
  if (auto r = dyn_cast<mlir::tp::ReduceScatterOp>(def))
    return piece(r.getInput(), r.getScatterAxis(), r.getMeshAxes(), false);
  if (auto g = dyn_cast<mlir::tp::AllGatherOp>(def))
    return piece(g.getInput(), g.getGatherAxis(), g.getMeshAxes(), true);
  // A value of its operand's shape: an all_reduce's, an elementwise op's.
  if (isa<mlir::tp::AllReduceOp>(def) ||
      def->hasTrait<OpTrait::Elementwise>() ||
      def->hasTrait<OpTrait::SameOperandsAndResultShape>())
    for (Value operand : def->getOperands())
      if (operand.getType() == t)
        if (auto it = slots.find(operand); it != slots.end())
          if (SmallVector<int64_t> b = bounds.lookup(it->second); !b.empty())
            return b;
  return {};
}

void Compiler::setBound(int s, ArrayRef<int64_t> bound) {
  SlotType &type = program.slots[s];
  if (bound.size() != type.shape.size())
    return;
  int64_t numel = 1;
  for (int64_t d : bound)
    numel *= d;
  type.staticBytes = numel * static_cast<int64_t>(rt::dtypeSize(type.dtype));
  bounds[s] = SmallVector<int64_t>(bound);
}

Instruction &Compiler::emit(Operation *op, Instruction instr) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    throw std::runtime_error("tp executor needs tensor results: " +
                             describe(op));
  instr.result = slotOf(op->getResult(0));
  if (instr.name.empty())
    if (auto fqn = op->getAttrOfType<StringAttr>("fqn"))
      instr.name = fqn.getValue().str();
  if (auto module = op->getAttrOfType<StringAttr>("module"))
    instr.module = module.getValue().str();
  else if (!llvm::isa<m::ParamOp>(op))
    instr.module = instr.name;
  instr.origin = describe(op);
  switch (mlir::tp::getPhase(op)) {
  case mlir::tp::Phase::Forward:
    instr.phase = Phase::Forward;
    break;
  case mlir::tp::Phase::Backward:
    instr.phase = Phase::Backward;
    break;
  case mlir::tp::Phase::Optimizer:
    instr.phase = Phase::Optimizer;
    break;
  }
  // 16-bit floats are widened for the kernels; integer operands (ids,
  // targets) are read as they are.
  if (isKernel(instr.op))
    for (int s : instr.operands)
      if ((program.slots[s].dtype == rt::DType::BF16 ||
           program.slots[s].dtype == rt::DType::F16) &&
          !llvm::is_contained(instr.widen, s))
        instr.widen.push_back(s);
  program.instrs.push_back(std::move(instr));
  return program.instrs.back();
}

Instruction &Compiler::emitCollective(Operation *op, Opcode code,
                                      llvm::ArrayRef<int64_t> axes) {
  Instruction instr;
  instr.op = code;
  instr.operands.push_back(slots.at(op->getOperand(0)));
  instr.axes.assign(axes.begin(), axes.end());
  program.axisGroups.insert(instr.axes);
  return emit(op, std::move(instr));
}

void Compiler::compileParam(m::ParamOp p) {
  ParamInfo info;
  info.name = p.getName().str();
  info.globalShape =
      staticShapeOf(p.getType(), "parameter '" + info.name + "'");
  info.dtype = dtypeOf(p.getType(), p);
  // One FQN names one tensor (in a weights file too): a tied parameter is
  // one op, or ops of the same shape.
  auto [first, inserted] = paramOps.try_emplace(info.name, p);
  if (!inserted && first->second.getType() != p.getType())
    throw std::runtime_error(
        "parameter '" + info.name + "' is declared with two types: " +
        typeString(first->second.getType()) + " (" + describe(first->second) +
        ") and " + typeString(p.getType()) + " (" + describe(p) + ")");
  Instruction instr;
  instr.param = static_cast<int>(program.params.size());
  instr.name = info.name;
  program.params.push_back(std::move(info));
  // A parameter used only by a chain of single-axis chunks (each the only
  // reader of the one before: a tensor-parallel shard, and FSDP's shard of
  // it) is loaded as the last one's piece: the rank never holds more.
  mlir::tp::ChunkOp last;
  for (Value v = p.getResult(); v.hasOneUse();) {
    auto chunk = dyn_cast<mlir::tp::ChunkOp>(*v.getUsers().begin());
    if (!chunk || chunk.getMeshAxes().size() != 1)
      break;
    fusedChunks.insert(chunk);
    instr.axes.push_back(chunk.getMeshAxes()[0]);
    instr.shardDims.push_back(chunk.getAxis());
    last = chunk;
    v = chunk.getResult();
  }
  if (last) {
    instr.op = Opcode::ParamChunk;
    instr.dim = instr.shardDims.front();
    emit(last, std::move(instr));
    return;
  }
  instr.op = Opcode::Param;
  emit(p, std::move(instr));
}
