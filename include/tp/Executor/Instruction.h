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
#include <string_view>
#include <vector>

namespace mlir::tp::exec {

/// What an instruction does: one per entry of Opcodes.def, in its order
/// (its comments say which fields of Instruction each reads). A model op's
/// kernel is Opcode::Kernel with the kernel's id in Instruction::kernel.
enum class Opcode : uint8_t {
#define TP_OPCODE(Name, Printed, Args, Kernel, HostOnly) Name,
#include "tp/Executor/Opcodes.def"
};

/// The opcode's name in the printed program ("all_gather").
const char *opcodeName(Opcode op);
/// Whether \p op computes in f32 (Opcode::Kernel, see Opcodes.def).
bool isKernel(Opcode op);
/// Whether \p op is a collective (all_gather, all_reduce, reduce_scatter,
/// all_to_all, broadcast, their uneven forms): it communicates.
bool isCollective(Opcode op);
/// The id of the kernel named \p name ("layer_norm": a model op's
/// KernelOpInterface name), or -1 when the executor has none.
int kernelNamed(std::string_view name);
/// The name of kernel \p id.
const char *kernelName(int id);

/// The phase of a training step an instruction computes in (its op's
/// `tp.phase`); a program that is not a training step is all forward.
enum class Phase : uint8_t { Forward, Backward, Optimizer };
/// "forward", "backward", "optimizer".
const char *phaseName(Phase phase);

/// One instruction. Fields an opcode does not read (see Opcode) keep their
/// defaults, so the printer shows only what matters.
struct Instruction {
  Opcode op = Opcode::Kernel;
  /// Opcode::Kernel: the kernel it runs (kernelName(kernel)).
  int kernel = -1;
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
  /// Slice, SliceGrad: element i of `dim` is element start + i * step.
  int64_t start = 0;
  int64_t step = 1;
  /// eps of the norms, theta of rotary, the value of full, dropout's p.
  float value = 0;
  /// The optimizer updates' hyperparameters (see Opcode).
  std::vector<double> hyper;
  runtime::ReduceOp reduce = runtime::ReduceOp::Sum;
  bool causal = false;
  /// Param, ParamChunk: the index into Program::params(); Constant: into
  /// the program's constants.
  int param = -1;
  /// Where in a training step it runs: its collectives count there.
  Phase phase = Phase::Forward;

  /// The op's FQN (or the parameter's name) when it has one, for the
  /// printer; `origin` describes the op with its location, for errors.
  std::string name;
  std::string origin;
  /// The module it belongs to, where the IR says: a collective's or
  /// chunk's `module` (the FQN whose style made it), else the op's FQN
  /// (`name`). Empty otherwise; the cost model (CostModel.h) attributes
  /// such instructions to the module before them in their phase.
  std::string module;

  /// Kernels: the 16-bit operand slots widened to f32 for the call (each
  /// once), derived from the slot types.
  std::vector<int> widen;
  /// The liveness plan: slots whose last reader this is (results excepted).
  std::vector<int> frees;
  /// A collective whose result is first read after other instructions
  /// (a prefetched FSDP gather, a gradient bucket the backward does not
  /// wait for): where the backend can, it runs on the rank's communication
  /// thread while those instructions run (planAsync).
  bool async = false;
  /// The results of async collectives this instruction is the first to
  /// read: it waits for them before it runs. Their operands live until
  /// then.
  std::vector<int> awaits;
};

/// The name \p in prints as: its kernel's for Opcode::Kernel, else its
/// opcode's.
const char *instructionName(const Instruction &in);

/// The type of a value slot: its local shape on one rank (-1 for a dim
/// whose size depends on the rank, an uneven shard) and element type.
struct SlotType {
  std::vector<int64_t> shape;
  runtime::DType dtype = runtime::DType::F32;
  /// Bytes when every dim is static. With uneven (dynamic) dims, whose
  /// sizes differ between ranks: the largest rank's bytes where the
  /// compiler knows that rank's shape (tp-partition's tp.local_bound, a
  /// chunk of a known shape), else 0 (the memory plan leaves it out and
  /// says so).
  int64_t staticBytes = 0;
};

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_INSTRUCTION_H
