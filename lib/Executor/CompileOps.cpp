//===- CompileOps.cpp - one instruction per op ------------------*- C++ -*-===//
//
// The per-op half of the compiler (Compiler.h): each op of the partitioned
// function becomes one Instruction, its attributes becoming static
// arguments. A model op names its kernel (KernelOpInterface) and its
// attributes are read by the kernel's argument kinds (its `add` in
// Kernels/), so no list of model ops or kernels is kept here; tp's ops (layout
// changes, collectives and the sharded forms partitioning makes) and parameters
// are compiled one by one. What an op means at run time is the interpreter's
// (Interpreter.h).
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"
#include "OpcodeTable.h"
#include "tp/Runtime/Kernels.h"

#include "llvm/ADT/TypeSwitch.h"

#include <stdexcept>

using namespace mlir;
using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;
namespace m = mlir::tp::model;
using mlir::tp::TPDialect;

namespace {
/// The attribute an argument kind is read from when a model op's kernel
/// takes it (KernelOpInterface). Shapes come from the result type; kHyper
/// from the attributes hyperNames lists; the rest are set by tp ops only.
struct AttributeArg {
  Arg arg;
  const char *attr;
  bool optional;
};
constexpr AttributeArg kAttributeArgs[] = {
    {kDim, "dim", false},
    {kPerm, "permutation", false},
    {kEps, "eps", false},
    {kTheta, "theta", false},
    {kValue, "value", false},
    {kMaxNorm, "max_norm", false},
    {kCausal, "causal", false},
    {kCount, "count", true},
    {kExponent, "exponent", false},
    {kStart, "start", false},
    {kStep, "step", false},
    {kElements, "elements", false},
    {kPredicate, "predicate", false},
    {kGeneric, "indexing_maps", false},
};
/// The argument kinds a model op's kernel may have that no attribute
/// gives: its result's shape and extent (with what they may hold), and the
/// axes (with the size that goes with them) of a sharded form that only tp
/// ops have.
constexpr unsigned kDerivedArgs =
    kShape | kStaticShape | kOneUneven | kExtent | kSize | kAxes;
} // namespace

std::optional<KernelRef>
mlir::tp::exec::detail::kernelRef(llvm::StringRef name) {
  KernelRef k;
  k.kernel = kernelNamed(std::string_view(name.data(), name.size()));
  if (k.kernel >= 0) {
    k.args = kernelArgs(k.kernel);
    return k;
  }
  // The optimizer updates write their state in place: opcodes of their own.
  std::optional<Opcode> code = opcodeNamed(name);
  if (!code || !(opcodeInfo(*code).args & kHyper))
    return std::nullopt;
  k.op = *code;
  k.args = opcodeInfo(*code).args;
  return k;
}

void Compiler::setKernel(Instruction &instr, llvm::StringRef name) {
  std::optional<KernelRef> k = kernelRef(name);
  if (!k || k->op != Opcode::Kernel)
    throw std::logic_error("tp executor has no kernel '" + name.str() + "'");
  instr.op = Opcode::Kernel;
  instr.kernel = k->kernel;
}

llvm::SmallVector<llvm::StringRef>
mlir::tp::exec::detail::kernelAttributes(const KernelRef &k) {
  llvm::SmallVector<llvm::StringRef> names{"fqn"};
  unsigned args = k.args;
  for (const AttributeArg &a : kAttributeArgs)
    if (args & a.arg)
      names.push_back(a.attr);
  for (const char *h : hyperNames(k.op))
    names.push_back(h);
  if (args & kDropout)
    names.append({"p", "train"});
  if (args & kGeneric)
    names.push_back("iterator_types");
  return names;
}

/// The float attribute \p name of \p op (bool: 0 or 1), or an error naming
/// both.
static double numberAttr(Operation *op, StringRef name) {
  Attribute a = op->getAttr(name);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  throw std::runtime_error("tp executor needs the number '" + name.str() +
                           "' of " + describe(op));
}

/// The runtime tensor of a model.constant's elements: floats as f32 (exact
/// for bf16 and f16; the kernel's result is rounded to the slot's dtype),
/// integers in their own dtype.
static mlir::tp::runtime::Tensor constantTensor(DenseElementsAttr elements) {
  auto type = cast<RankedTensorType>(elements.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  Type elt = type.getElementType();
  if (isa<FloatType>(elt)) {
    std::vector<float> values;
    values.reserve(elements.getNumElements());
    for (const APFloat &v : elements.getValues<APFloat>())
      values.push_back(static_cast<float>(v.convertToDouble()));
    return mlir::tp::runtime::Tensor::fromData(shape, values);
  }
  std::vector<int64_t> values;
  values.reserve(elements.getNumElements());
  if (elt.isInteger(1)) { // a mask: true is 1
    for (const APInt &v : elements.getValues<APInt>())
      values.push_back(v.getZExtValue());
    return mlir::tp::runtime::Tensor::fromInts(shape, values)
        .to(mlir::tp::runtime::DType::Bool);
  }
  for (const APInt &v : elements.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return mlir::tp::runtime::Tensor::fromInts(
      shape, values,
      elt.isSignlessInteger(32) ? mlir::tp::runtime::DType::I32
                                : mlir::tp::runtime::DType::I64);
}

void Compiler::compileKernel(model::KernelOpInterface kernel,
                             Instruction instr) {
  Operation *op = kernel;
  StringRef name = kernel.getKernelName();
  // A kernel, or an optimizer update (which writes its state in place);
  // layout changes and collectives are tp ops.
  std::optional<KernelRef> k = kernelRef(name);
  if (!k)
    throw std::runtime_error("tp executor has no kernel '" + name.str() +
                             "' to run " + describe(op));
  instr.op = k->op;
  instr.kernel = k->kernel;
  unsigned args = k->args;

  // Every attribute of the op is an argument its kernel reads: one it
  // would ignore means the kernel computes something other than the op.
  llvm::SmallVector<StringRef> read = kernelAttributes(*k);
  for (NamedAttribute a : op->getAttrs())
    if (!a.getName().strref().contains('.') &&
        !llvm::is_contained(read, a.getName().strref()))
      throw std::runtime_error("tp executor's kernel '" + name.str() +
                               "' does not read attribute '" +
                               a.getName().str() + "' of " + describe(op));
  unsigned unread = args & ~(kDerivedArgs | kHyper | kDropout);
  for (const AttributeArg &a : kAttributeArgs)
    unread &= ~a.arg;
  if (unread)
    throw std::runtime_error(
        "tp executor's kernel '" + name.str() +
        "' takes arguments a model op cannot give: " + describe(op));

  if (args & kDropout) {
    compileDropout(op, std::move(instr));
    return;
  }
  for (const AttributeArg &a : kAttributeArgs) {
    if (!(args & a.arg))
      continue;
    Attribute attr = op->getAttr(a.attr);
    if (!attr) {
      if (a.optional)
        continue;
      throw std::runtime_error("tp executor's kernel '" + name.str() +
                               "' needs attribute '" + a.attr + "' of " +
                               describe(op));
    }
    switch (a.arg) {
    case kDim: {
      auto dim = dyn_cast<IntegerAttr>(attr);
      if (!dim)
        break;
      // Counted from the end when negative, in the first operand's rank.
      int64_t rank = op->getNumOperands()
                         ? static_cast<int64_t>(
                               shapeOf(op->getOperand(0).getType()).size())
                         : 0;
      instr.dim = dim.getInt() < 0 ? dim.getInt() + rank : dim.getInt();
      continue;
    }
    case kElements:
      if (auto elements = dyn_cast<DenseElementsAttr>(attr)) {
        instr.param = static_cast<int>(program.constants.size());
        program.constants.push_back(constantTensor(elements));
        continue;
      }
      break;
    case kStart:
    case kStep:
      if (auto i = dyn_cast<IntegerAttr>(attr)) {
        (a.arg == kStart ? instr.start : instr.step) = i.getInt();
        continue;
      }
      break;
    case kPerm:
      if (auto perm = dyn_cast<DenseI64ArrayAttr>(attr)) {
        instr.shape.assign(perm.asArrayRef().begin(), perm.asArrayRef().end());
        continue;
      }
      break;
    case kGeneric:
      if (auto generic = dyn_cast<m::GenericOp>(op)) {
        instr.param = static_cast<int>(program.generics.size());
        program.generics.push_back(compileGeneric(generic));
        continue;
      }
      break;
    case kPredicate:
      if (auto name = dyn_cast<StringAttr>(attr)) {
        instr.size = static_cast<int64_t>(
            mlir::tp::runtime::parsePredicate(name.getValue().str()));
        continue;
      }
      break;
    case kCausal:
      if (auto causal = dyn_cast<BoolAttr>(attr)) {
        instr.causal = causal.getValue();
        continue;
      }
      break;
    case kCount:
      // The means of a shard (mean, cross_entropy and its gradient): the
      // global divisor tp-partition set.
      if (auto count = dyn_cast<IntegerAttr>(attr)) {
        instr.size = count.getInt();
        continue;
      }
      break;
    default: // eps, theta, value, max_norm, exponent
      if (auto f = dyn_cast<FloatAttr>(attr)) {
        instr.value = f.getValueAsDouble();
        continue;
      }
      break;
    }
    throw std::runtime_error("tp executor cannot read attribute '" +
                             std::string(a.attr) + "' of " + describe(op));
  }
  for (const char *h : hyperNames(k->op))
    instr.hyper.push_back(numberAttr(op, h));

  // Arguments from the result's type, and what the kernel may take of it.
  if (args & kShape) {
    instr.shape = shapeOf(op->getResult(0).getType());
    int64_t uneven = llvm::count(instr.shape, -1);
    int64_t allowed = (args & kStaticShape) ? 0
                      : (args & kOneUneven) ? 1
                                            : uneven;
    if (uneven > allowed)
      throw std::runtime_error(
          "tp executor's kernel '" + name.str() + "' cannot take " +
          (args & kStaticShape ? "a shape with a dim split unevenly"
                               : "a shape with more than one dim split "
                                 "unevenly") +
          ": " + describe(op));
  }
  if (args & kExtent) {
    // The count picked (slice, topk, arange) or the whole extent
    // (slice_grad, gather_grad) on `dim`: the sharding rule keeps it whole,
    // so it is static.
    int64_t size = shapeOf(op->getResult(0).getType()).at(instr.dim);
    if (size < 0)
      throw std::runtime_error(
          "tp executor's kernel '" + name.str() +
          "' cannot take a dim split unevenly: " + describe(op));
    instr.size = size;
  }
  emit(op, std::move(instr));
}

void Compiler::compileOp(Operation *op) {
  if (fusedChunks.count(op))
    return;
  Instruction instr;
  for (Value v : op->getOperands()) {
    auto it = slots.find(v);
    if (it == slots.end())
      throw std::runtime_error("operand of " + describe(op) +
                               " is not defined before it");
    instr.operands.push_back(it->second);
  }
  // Model ops: the kernel their record names.
  if (auto kernel = dyn_cast<model::KernelOpInterface>(op)) {
    compileKernel(kernel, std::move(instr));
    return;
  }
  auto axesOf = [](auto collective) {
    return std::vector<int64_t>(collective.getMeshAxes().begin(),
                                collective.getMeshAxes().end());
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](m::ParamOp p) { compileParam(p); })
      .Case([&](mlir::tp::ChunkOp c) {
        instr.op = Opcode::Chunk;
        instr.axes = axesOf(c);
        instr.dim = c.getAxis();
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::PartialFromReplicateOp c) {
        instr.op = Opcode::PartialFromReplicate;
        instr.axes = axesOf(c);
        instr.reduce = reduceOp(c.getReduction());
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::AllGatherOp c) {
        int64_t dim = c.getGatherAxis();
        if (!c.getInput().getType().isDynamicDim(dim)) {
          emitCollective(op, Opcode::AllGather, axesOf(c)).dim = dim;
          return;
        }
        int64_t total = c.getType().getDimSize(dim);
        std::vector<int64_t> outer;
        if (ShapedType::isDynamic(total)) {
          // The dim is also split on earlier mesh axes: this group's full
          // size is the nested torch.chunk of the global size.
          IntegerAttr global = c.getGlobalSizeAttr();
          std::optional<ArrayRef<int64_t>> outerAxes = c.getOuterAxes();
          if (!global || !outerAxes)
            throw std::runtime_error("tp executor cannot gather an uneven "
                                     "dim of unknown full size: " +
                                     describe(op));
          total = global.getInt();
          outer.assign(outerAxes->begin(), outerAxes->end());
        }
        Instruction &i = emitCollective(op, Opcode::AllGatherUneven, axesOf(c));
        i.dim = dim;
        i.size = total;
        i.outerAxes = std::move(outer);
      })
      .Case([&](mlir::tp::PackOp) {
        instr.op = Opcode::Pack;
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::UnpackOp u) {
        instr.op = Opcode::Unpack;
        instr.size = static_cast<int64_t>(u.getOffset());
        instr.shape = shapeOf(u.getType());
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::AllReduceOp c) {
        emitCollective(op, Opcode::AllReduce, axesOf(c)).reduce =
            reduceOp(c.getReduction());
      })
      .Case([&](mlir::tp::ReduceScatterOp c) {
        int64_t dim = c.getScatterAxis();
        Instruction &i = emitCollective(op,
                                        c.getType().isDynamicDim(dim)
                                            ? Opcode::ReduceScatterUneven
                                            : Opcode::ReduceScatter,
                                        axesOf(c));
        i.dim = dim;
        i.reduce = reduceOp(c.getReduction());
      })
      .Case([&](mlir::tp::AllToAllOp c) {
        Instruction &i = emitCollective(op, Opcode::AllToAll, axesOf(c));
        i.dim = c.getSplitAxis();
        i.concatDim = c.getConcatAxis();
      })
      .Case([&](mlir::tp::BroadcastOp c) {
        emitCollective(op, Opcode::Broadcast, axesOf(c)).root = c.getRoot();
      })
      .Case([&](mlir::tp::ShardedEmbeddingOp e) {
        // This rank holds rows [offset, offset + local rows) of the vocab.
        setKernel(instr, "embedding_masked");
        // The module the lookup came from (a model op's fqn).
        if (std::optional<StringRef> module = e.getModule())
          instr.name = module->str();
        instr.axes = axesOf(e);
        instr.size = e.getVocabSize();
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::ShardedEmbeddingGradOp e) {
        setKernel(instr, "embedding_grad_masked");
        if (std::optional<StringRef> module = e.getModule())
          instr.name = module->str();
        instr.axes = axesOf(e);
        instr.size = e.getVocabSize();
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::ShardedTargetLogitGradOp t) {
        setKernel(instr, "target_logit_grad");
        instr.axes = axesOf(t);
        instr.size = t.getNumClasses();
        emit(op, std::move(instr));
      })
      .Case<mlir::tp::ShardedDropoutOp, mlir::tp::ShardedDropoutGradOp>(
          [&](Operation *) { compileDropout(op, std::move(instr)); })
      .Case([&](mlir::tp::ShardedTargetLogitOp t) {
        // Class-sharded logits: this rank's classes start at its chunk's
        // offset.
        setKernel(instr, "target_logit");
        instr.axes = axesOf(t);
        instr.size = t.getNumClasses();
        emit(op, std::move(instr));
      })
      .Default([&](Operation *) {
        throw std::runtime_error(
            "tp executor cannot run " + describe(op) +
            (isa<mlir::tp::DTensorType>(op->getResultTypes().empty()
                                            ? Type()
                                            : op->getResult(0).getType())
                 ? " (the program is not partitioned; run tp-pipeline)"
                 : ""));
      });
}

void Compiler::compileDropout(Operation *op, Instruction instr) {
  auto p = cast<FloatAttr>(op->getAttr("p"));
  auto eval = dyn_cast<m::DropoutOp>(op);
  if ((eval && !eval.getTrain()) || p.getValue().isZero()) {
    // The identity: eval mode, or nothing to drop.
    setKernel(instr, "copy");
    emit(op, std::move(instr));
    return;
  }
  setKernel(instr, isa<m::DropoutOp, mlir::tp::ShardedDropoutOp>(op)
                       ? "dropout"
                       : "dropout_grad");
  instr.name = cast<StringAttr>(op->getAttr("fqn")).str();
  instr.value = p.getValueAsDouble();
  if (auto global = op->getAttrOfType<DenseI64ArrayAttr>("global_shape")) {
    // A shard (tp.sharded_dropout): where it lies follows from the global
    // shape, the shard dims and the rank's coordinates.
    instr.shape.assign(global.asArrayRef().begin(), global.asArrayRef().end());
    ArrayRef<int64_t> dims =
        op->getAttrOfType<DenseI64ArrayAttr>("shard_dims").asArrayRef();
    instr.shardDims.assign(dims.begin(), dims.end());
  } else {
    // A whole tensor (no mesh axis shards it): its type is the global one.
    instr.shape = shapeOf(op->getResult(0).getType());
    if (llvm::is_contained(instr.shape, -1))
      throw std::runtime_error("tp executor cannot draw a dropout mask on a "
                               "dynamic shape without its global shape: " +
                               describe(op));
  }
  emit(op, std::move(instr));
}
