//===- Instruction.h - the executor's instruction list ----------*- C++ -*-===//
//
// A compiled program is plain data: a list of instructions over numbered
// value slots, each naming an opcode, the slots it reads, the slot it
// defines, its static arguments and the slots that die after it. One
// compiler (Program::compile) produces it from a partitioned function, the
// printer (Program::print) shows it, and every backend's interpreter runs
// the same list. No MLIR in this header.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_INSTRUCTION_H
#define TP_EXECUTOR_INSTRUCTION_H

#include "tp/Runtime/Communicator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tp::exec {

/// What an instruction does. The comment after each names the static
/// arguments it reads (fields of Instruction); all take their inputs from
/// `operands` and define `result`.
enum class Opcode : uint8_t {
  // Values that come from the data source or from nothing.
  Param,      // param: the whole parameter
  ParamChunk, // param, dim, axes: only this rank's torch.chunk of it
  Arange,     // size: [0, 1, ..., size - 1]
  // Layout changes on one rank.
  Chunk,                // dim, axes: this rank's torch.chunk piece
  PartialFromReplicate, // axes, reduce: sum keeps the value on coordinate 0
  Reshape,              // shape (-1: the uneven dim, whatever is left)
  Transpose,            // shape: the permutation
  Copy,                 // (dropout at inference, detach)
  Pack,                 // every operand flattened, one after another
  Unpack,               // size (offset), shape: elements of a 1-D operand
  // Collectives over the group of ranks that differ only on `axes`.
  AllGather,           // dim, axes
  AllGatherUneven,     // dim, size, outerAxes, axes: torch.chunk pieces
  AllReduce,           // reduce, axes
  ReduceScatter,       // dim, reduce, axes
  ReduceScatterUneven, // dim, reduce, axes: into torch.chunk pieces
  AllToAll,            // dim (split), concatDim, axes
  Broadcast,           // root, axes
  // Kernels: they compute in f32 (16-bit operands are widened for the call)
  // and round the result to its slot's dtype once.
  Linear,          // operands x, weight[, bias]
  Embedding,       // operands ids, table
  EmbeddingMasked, // size (the vocabulary), axes: rows of a sharded table
  LayerNorm,       // value (eps)
  RMSNorm,         // value (eps)
  Relu,
  Gelu,
  Silu,
  Exp,
  Log,
  Add,
  Sub,
  Mul,
  Matmul,
  Softmax,      // dim
  Rotary,       // value (theta)
  Attention,    // causal
  ReduceMax,    // dim
  ReduceSum,    // dim
  Mean,         // size: the global count over a shard (0: its own)
  TargetLogit,  // size (classes), axes: empty unless the classes are sharded
  CrossEntropy, // size: the global rows over a shard of rows (0: its own)
  // Backward kernels (host only for now): operands as the op's
  // (ModelGradOps.td).
  Full,                // value: every element of the result slot's shape
  Neg,                 //
  LinearGradInput,     // grad, weight
  LinearGradWeight,    // grad, input
  SumTo,               // shape (-1: the grad's extent there, an uneven dim)
  ReluGrad,            // grad, input
  GeluGrad,            // grad, input
  SiluGrad,            // grad, input
  MeanGrad,            // shape: the mean's input
  LogGrad,             // grad, input
  LayerNormGradInput,  // value (eps): grad, input, weight
  LayerNormGradWeight, // value (eps): grad, input
  RMSNormGradInput,    // value (eps): grad, input, weight
  RMSNormGradWeight,   // value (eps): grad, input
  EmbeddingGrad,       // grad, ids, table (its rows: the vocabulary)
  EmbeddingGradMasked, // size (the vocabulary), axes: rows of a sharded table
  SoftmaxGrad,         // dim: grad, output
  RotaryGrad,          // value (theta)
  AttentionGradQ,      // causal: grad, q, k, v
  AttentionGradK,      // causal: grad, q, k, v
  AttentionGradV,      // causal: grad, q, k, v
  ReduceSumGrad,       // dim: grad, input
  ReduceMaxGrad,       // dim: grad, input
  CrossEntropyGrad,    // size (as CrossEntropy): grad, logits, targets
  TargetLogitGrad,     // size (classes), axes: empty unless they are sharded
  // Dropout in training and its backward (the same mask on the gradient):
  // value (p), name (the FQN, the mask's key), shape (the global shape),
  // shardDims (empty unless the operand is a shard).
  Dropout,
  DropoutGrad,
  // Optimizer updates (param, grad): the result is the updated parameter,
  // which later runs with a RankState read in place of the parameter's slot
  // (operand 0); their state is kept by name. `hyper` holds the arguments.
  SGDUpdate,   // hyper: lr, momentum, dampening, weight_decay, nesterov
  AdamWUpdate, // hyper: lr, beta1, beta2, eps, weight_decay
  // Clipping by the global norm (clip_grad_norm_).
  SumSquares,      // every operand's squared elements, summed: f32 scalar
  ClipCoefficient, // value (max_norm): min(1, max_norm / (sqrt(x) + 1e-6))
};

/// The opcode's name in the printed program ("all_gather").
const char *opcodeName(Opcode op);
/// Whether \p op is a kernel (computes in f32, see Opcode).
bool isKernel(Opcode op);
/// Whether \p op has a kernel on the host only (transpose, the loss ops,
/// the backward kernels, the optimizer updates); the device backend runs
/// those instructions on the host.
bool isHostOnly(Opcode op);

/// The phase of a training step an instruction computes in (its op's
/// `tp.phase`); a program that is not a training step is all forward.
enum class Phase : uint8_t { Forward, Backward, Optimizer };
/// "forward", "backward", "optimizer".
const char *phaseName(Phase phase);

/// One instruction. Fields an opcode does not read (see Opcode) keep their
/// defaults, so the printer shows only what matters.
struct Instruction {
  Opcode op = Opcode::Copy;
  /// The slots it reads, in the order of the op's operands.
  std::vector<int> operands;
  /// The slot it defines (each instruction defines a new one).
  int result = -1;

  /// Mesh axes of the group it works on (collectives, chunks, sharded
  /// embeddings and targets).
  std::vector<int64_t> axes;
  /// AllGatherUneven: earlier mesh axes that split the same dim, so this
  /// group's full size is the nested torch.chunk of `size`.
  std::vector<int64_t> outerAxes;
  /// Reshape's target shape, Transpose's permutation, the global shape of
  /// a dropout's operand.
  std::vector<int64_t> shape;
  /// Dropout: the dim of the operand each mesh axis shards (-1: none), so
  /// that a rank finds where its shard lies in the global tensor.
  std::vector<int64_t> shardDims;
  int64_t dim = 0;
  int64_t concatDim = 0;
  /// A full (unsharded) extent: the gathered dim, the vocabulary, the number
  /// of classes, the arange length, a mean's global count.
  int64_t size = 0;
  int64_t root = 0;
  /// eps of the norms, theta of rotary, the value of full, dropout's p.
  float value = 0;
  /// The optimizer updates' hyperparameters (see Opcode).
  std::vector<double> hyper;
  runtime::ReduceOp reduce = runtime::ReduceOp::Sum;
  bool causal = false;
  /// Param, ParamChunk: the index into Program::params().
  int param = -1;
  /// Where in a training step it runs: its collectives count there.
  Phase phase = Phase::Forward;

  /// The op's FQN (or the parameter's name) when it has one, for the
  /// printer; `origin` describes the op with its location, for errors.
  std::string name;
  std::string origin;

  /// Kernels: the 16-bit operand slots widened to f32 for the call (each
  /// once), derived from the slot types.
  std::vector<int> widen;
  /// The liveness plan: slots whose last reader this is (results excepted).
  std::vector<int> frees;
};

/// The type of a value slot: its local shape on one rank (-1 for a dim
/// whose size depends on the rank, an uneven shard) and element type.
struct SlotType {
  std::vector<int64_t> shape;
  runtime::DType dtype = runtime::DType::F32;
  /// Bytes when every dim is static, else 0 (uneven dims are measured when
  /// the program runs).
  int64_t staticBytes = 0;
};

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_INSTRUCTION_H
