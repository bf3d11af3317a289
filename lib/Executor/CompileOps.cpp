//===- CompileOps.cpp - one instruction per op ------------------*- C++ -*-===//
//
// The per-op half of the compiler (Compiler.h): each op of the partitioned
// function becomes one Instruction, its attributes becoming static
// arguments. What an op means at run time is the interpreter's
// (Interpreter.h); here only what it reads and how.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "llvm/ADT/TypeSwitch.h"

#include <stdexcept>

using namespace mlir;
using namespace ::mlir::tp::exec;
using namespace ::mlir::tp::exec::detail;
namespace m = mlir::tp::model;
using mlir::tp::TPDialect;

/// The ops whose instruction is the opcode and operands alone.
static std::optional<Opcode> plainOpcode(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Opcode>>(op)
      .Case([](m::LinearOp) { return Opcode::Linear; })
      .Case([](m::ReluOp) { return Opcode::Relu; })
      .Case([](m::GeluOp) { return Opcode::Gelu; })
      .Case([](m::SiluOp) { return Opcode::Silu; })
      .Case([](m::ExpOp) { return Opcode::Exp; })
      .Case([](m::LogOp) { return Opcode::Log; })
      .Case([](m::AddOp) { return Opcode::Add; })
      .Case([](m::SubOp) { return Opcode::Sub; })
      .Case([](m::MulOp) { return Opcode::Mul; })
      .Case([](m::MatmulOp) { return Opcode::Matmul; })
      .Case([](m::MeanOp) { return Opcode::Mean; })
      .Case([](m::CrossEntropyOp) { return Opcode::CrossEntropy; })
      .Case([](m::NegOp) { return Opcode::Neg; })
      .Case([](m::LinearGradInputOp) { return Opcode::LinearGradInput; })
      .Case([](m::LinearGradWeightOp) { return Opcode::LinearGradWeight; })
      .Case([](m::ReluGradOp) { return Opcode::ReluGrad; })
      .Case([](m::GeluGradOp) { return Opcode::GeluGrad; })
      .Case([](m::SiluGradOp) { return Opcode::SiluGrad; })
      .Case([](m::LogGradOp) { return Opcode::LogGrad; })
      .Case([](m::DetachOp) { return Opcode::Copy; })
      .Case([](m::EmbeddingGradOp) { return Opcode::EmbeddingGrad; })
      .Case([](m::CrossEntropyGradOp) { return Opcode::CrossEntropyGrad; })
      .Case([](m::TargetLogitGradOp) { return Opcode::TargetLogitGrad; })
      .Case([](m::SumSquaresOp) { return Opcode::SumSquares; })
      .Default([](Operation *) { return std::nullopt; });
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
  if (std::optional<Opcode> code = plainOpcode(op)) {
    instr.op = *code;
    // The means of a shard (mean, cross_entropy and its gradient): the
    // global divisor tp-partition set.
    if (auto count = op->getAttrOfType<IntegerAttr>("count"))
      instr.size = count.getInt();
    emit(op, std::move(instr));
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
      .Case([&](m::ClipCoefficientOp c) {
        instr.op = Opcode::ClipCoefficient;
        instr.value = static_cast<float>(c.getMaxNorm().convertToDouble());
        emit(op, std::move(instr));
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
      .Case([&](m::EmbeddingOp) {
        instr.op = Opcode::Embedding;
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::ShardedEmbeddingOp e) {
        // This rank holds rows [offset, offset + local rows) of the vocab.
        instr.op = Opcode::EmbeddingMasked;
        // The module the lookup came from (a model op's fqn).
        if (std::optional<StringRef> module = e.getModule())
          instr.name = module->str();
        instr.axes = axesOf(e);
        instr.size = e.getVocabSize();
        emit(op, std::move(instr));
      })
      .Case([&](m::LayerNormOp n) {
        instr.op = Opcode::LayerNorm;
        instr.value = n.getEps().convertToDouble();
        emit(op, std::move(instr));
      })
      .Case([&](m::RMSNormOp n) {
        instr.op = Opcode::RMSNorm;
        instr.value = n.getEps().convertToDouble();
        emit(op, std::move(instr));
      })
      .Case([&](m::SoftmaxOp s) {
        instr.op = Opcode::Softmax;
        instr.dim = s.getDim();
        emit(op, std::move(instr));
      })
      .Case([&](m::ReshapeOp r) {
        instr.op = Opcode::Reshape;
        instr.shape = shapeOf(r.getType());
        if (llvm::count(instr.shape, -1) > 1)
          throw std::runtime_error("tp executor cannot reshape to more "
                                   "than one uneven dim: " +
                                   describe(op));
        emit(op, std::move(instr));
      })
      .Case([&](m::RotaryOp r) {
        instr.op = Opcode::Rotary;
        instr.value = r.getTheta().convertToDouble();
        emit(op, std::move(instr));
      })
      .Case([&](m::AttentionOp a) {
        instr.op = Opcode::Attention;
        instr.causal = a.getCausal();
        emit(op, std::move(instr));
      })
      .Case([&](m::ArangeOp a) {
        instr.op = Opcode::Arange;
        instr.size = a.getType().getDimSize(0);
        emit(op, std::move(instr));
      })
      .Case([&](m::FullOp f) {
        instr.op = Opcode::Full;
        instr.value = f.getValue().convertToDouble();
        instr.shape = shapeOf(f.getType());
        emit(op, std::move(instr));
      })
      .Case([&](m::SumToOp t) {
        instr.op = Opcode::SumTo;
        instr.shape = shapeOf(t.getResult().getType());
        emit(op, std::move(instr));
      })
      .Case([&](m::MeanGradOp g) {
        instr.op = Opcode::MeanGrad;
        instr.shape = shapeOf(g.getResult().getType());
        if (llvm::is_contained(instr.shape, -1))
          throw std::runtime_error("tp executor cannot spread a mean's "
                                   "gradient over an uneven shard: " +
                                   describe(op));
        emit(op, std::move(instr));
      })
      .Case([&](m::SGDUpdateOp u) {
        instr.op = Opcode::SGDUpdate;
        instr.name = u.getFqn().str();
        instr.hyper = {
            u.getLr().convertToDouble(), u.getMomentum().convertToDouble(),
            u.getDampening().convertToDouble(),
            u.getWeightDecay().convertToDouble(), u.getNesterov() ? 1.0 : 0.0};
        emit(op, std::move(instr));
      })
      .Case([&](m::AdamWUpdateOp u) {
        instr.op = Opcode::AdamWUpdate;
        instr.name = u.getFqn().str();
        instr.hyper = {
            u.getLr().convertToDouble(), u.getBeta1().convertToDouble(),
            u.getBeta2().convertToDouble(), u.getEps().convertToDouble(),
            u.getWeightDecay().convertToDouble()};
        emit(op, std::move(instr));
      })
      .Case<m::LayerNormGradInputOp, m::LayerNormGradWeightOp,
            m::RMSNormGradInputOp, m::RMSNormGradWeightOp>([&](Operation *) {
        instr.op =
            llvm::TypeSwitch<Operation *, Opcode>(op)
                .Case([](m::LayerNormGradInputOp) {
                  return Opcode::LayerNormGradInput;
                })
                .Case([](m::LayerNormGradWeightOp) {
                  return Opcode::LayerNormGradWeight;
                })
                .Case([](m::RMSNormGradInputOp) {
                  return Opcode::RMSNormGradInput;
                })
                .Default([](Operation *) { return Opcode::RMSNormGradWeight; });
        instr.value = cast<FloatAttr>(op->getAttr("eps")).getValueAsDouble();
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::ShardedEmbeddingGradOp e) {
        instr.op = Opcode::EmbeddingGradMasked;
        if (std::optional<StringRef> module = e.getModule())
          instr.name = module->str();
        instr.axes = axesOf(e);
        instr.size = e.getVocabSize();
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::ShardedTargetLogitGradOp t) {
        instr.op = Opcode::TargetLogitGrad;
        instr.axes = axesOf(t);
        instr.size = t.getNumClasses();
        emit(op, std::move(instr));
      })
      .Case<m::DropoutOp, m::DropoutGradOp, mlir::tp::ShardedDropoutOp,
            mlir::tp::ShardedDropoutGradOp>(
          [&](Operation *) { compileDropout(op, std::move(instr)); })
      .Case([&](m::SoftmaxGradOp s) {
        instr.op = Opcode::SoftmaxGrad;
        instr.dim = s.getDim();
        emit(op, std::move(instr));
      })
      .Case([&](m::RotaryGradOp r) {
        instr.op = Opcode::RotaryGrad;
        instr.value = r.getTheta().convertToDouble();
        emit(op, std::move(instr));
      })
      .Case<m::AttentionGradQOp, m::AttentionGradKOp, m::AttentionGradVOp>(
          [&](Operation *) {
            instr.op = isa<m::AttentionGradQOp>(op)   ? Opcode::AttentionGradQ
                       : isa<m::AttentionGradKOp>(op) ? Opcode::AttentionGradK
                                                      : Opcode::AttentionGradV;
            instr.causal = cast<BoolAttr>(op->getAttr("causal")).getValue();
            emit(op, std::move(instr));
          })
      .Case<m::ReduceSumGradOp, m::ReduceMaxGradOp>([&](Operation *) {
        instr.op = isa<m::ReduceSumGradOp>(op) ? Opcode::ReduceSumGrad
                                               : Opcode::ReduceMaxGrad;
        auto dim = static_cast<int64_t>(
            cast<IntegerAttr>(op->getAttr("dim")).getInt());
        int64_t rank = shapeOf(op->getOperand(1).getType()).size();
        instr.dim = dim < 0 ? dim + rank : dim;
        emit(op, std::move(instr));
      })
      .Case([&](m::TransposeOp t) {
        instr.op = Opcode::Transpose;
        instr.shape.assign(t.getPermutation().begin(),
                           t.getPermutation().end());
        emit(op, std::move(instr));
      })
      .Case([&](m::ReduceMaxOp r) {
        instr.op = Opcode::ReduceMax;
        instr.dim = r.getDim();
        emit(op, std::move(instr));
      })
      .Case([&](m::ReduceSumOp r) {
        instr.op = Opcode::ReduceSum;
        instr.dim = r.getDim();
        emit(op, std::move(instr));
      })
      .Case([&](m::TargetLogitOp) {
        instr.op = Opcode::TargetLogit;
        emit(op, std::move(instr));
      })
      .Case([&](mlir::tp::ShardedTargetLogitOp t) {
        // Class-sharded logits: this rank's classes start at its chunk's
        // offset.
        instr.op = Opcode::TargetLogit;
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
    instr.op = Opcode::Copy;
    emit(op, std::move(instr));
    return;
  }
  instr.op = isa<m::DropoutOp, mlir::tp::ShardedDropoutOp>(op)
                 ? Opcode::Dropout
                 : Opcode::DropoutGrad;
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
