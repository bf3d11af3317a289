//===- Compiler.h - partitioned function to instruction list ----*- C++ -*-===//
//
// The one compiler of the executor: it walks a partitioned (or
// unparallelized) func.func and produces the ProgramData every backend
// runs. Private to lib/Executor.
//
//   Compiler.cpp         the function: inputs, results, slots, parameters
//   CompileOps.cpp       one instruction per op
//   CompilerSupport.cpp  types, layouts and the liveness plan
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_COMPILER_H
#define TP_LIB_EXECUTOR_COMPILER_H

#include "ProgramData.h"

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::tp::exec::detail {

/// Compiles \p func; throws std::runtime_error naming the op (or the input,
/// result or parameter) that cannot be executed.
ProgramData compileProgram(mlir::func::FuncOp func);

//===----------------------------------------------------------------------===//
// Helpers (CompilerSupport.cpp)
//===----------------------------------------------------------------------===//

/// "model.linear 'fqn' at loc".
std::string describe(mlir::Operation *op);
/// \p t as MLIR prints it.
std::string typeString(mlir::Type t);
/// The shape of a ranked tensor type, dynamic dims as -1.
std::vector<int64_t> shapeOf(mlir::Type t);
/// The runtime element type of a value of type \p t: its float type, I64
/// (kTokenDType) for i64 and I32 for i32. Other element types are rejected
/// naming \p where.
rt::DType dtypeOf(mlir::Type t, mlir::Operation *where);
/// The shape of \p t, which must be a ranked tensor type with static dims
/// (inputs, parameters and global results: the runtime needs their sizes
/// before it runs); throws naming \p what ("input 'x' (argument 0 of
/// @forward)") otherwise, or when it does not fit in memory (checkFits).
std::vector<int64_t> staticShapeOf(mlir::Type t, const std::string &what);
/// Throws naming \p what when a value of type \p t has more elements than
/// int64_t counts or more bytes than this host's memory holds (before any
/// allocation). Dims that are dynamic (uneven shards) are not counted.
void checkFits(mlir::Type t, const std::string &what);
rt::ReduceOp reduceOp(mlir::tp::ReductionKind k);
/// The global shape and per-axis placement strings ("R", "S<d>",
/// "P<kind>") of a value of global type \p global on a mesh of rank
/// \p meshRank; the global shape must be static (\p what names the value
/// in the error).
void describeLayout(mlir::Type global, size_t meshRank, const std::string &what,
                    std::vector<int64_t> &shape,
                    std::vector<std::string> &placements);
/// What a model op's kernel name selects: a kernel of KernelTable.h
/// (Opcode::Kernel and its id), or an optimizer update (its opcode), with
/// the argument kinds it reads.
struct KernelRef {
  Opcode op = Opcode::Kernel;
  int kernel = -1;
  unsigned args = 0;
};
/// The kernel or update named \p name, if the executor has it.
std::optional<KernelRef> kernelRef(llvm::StringRef name);
/// The attributes of an op that kernel \p k reads: `fqn` (the
/// instruction's name) and those of its argument kinds (CompileOps.cpp).
llvm::SmallVector<llvm::StringRef> kernelAttributes(const KernelRef &k);
/// Marks the collectives whose result is first read after other
/// instructions `async`, and the first reader's `awaits` (the interpreter
/// overlaps them with those instructions where its communicator allows).
void planAsync(ProgramData &program);
/// Fills every instruction's `frees` (each slot after its last reader,
/// results kept) and the static peak bytes of \p program.
void planLiveness(ProgramData &program);

/// The range of ids an integer input \p ids may hold, [0, result), from the
/// tables they index (embeddings, loss targets), or -1 when they index none.
/// Part of the data source's policy, found by the compiler because only
/// the IR knows the tables.
int64_t tokenRange(mlir::Value ids);

//===----------------------------------------------------------------------===//
// The compiler's state
//===----------------------------------------------------------------------===//

class Compiler {
public:
  explicit Compiler(ProgramData &program) : program(program) {}
  void compile(mlir::func::FuncOp func);

private:
  /// The slot of \p v, numbered (with its type) on first sight.
  int slotOf(mlir::Value v);
  /// The largest shape over the ranks of \p v, whose type has dynamic
  /// (uneven) dims: tp-partition's tp.local_bound, or a chunk's or
  /// reduce_scatter's piece of its operand's bound; empty where unknown.
  llvm::SmallVector<int64_t> boundOf(mlir::Value v);
  /// Counts slot \p s at \p bound (its largest shape over the ranks) in
  /// the memory plan.
  void setBound(int s, llvm::ArrayRef<int64_t> bound);
  /// One instruction per op (CompileOps.cpp).
  void compileOp(mlir::Operation *op);
  void compileParam(mlir::tp::model::ParamOp op);
  /// A model op: the kernel its record names, with the static arguments
  /// read from its attributes (every one of which the kernel must read).
  void compileKernel(mlir::tp::model::KernelOpInterface kernel,
                     Instruction instr);
  /// model.dropout (Copy unless `train`), model.dropout_grad and their
  /// sharded forms (the global shape and shard dims for the mask's index).
  void compileDropout(mlir::Operation *op, Instruction instr);
  /// model.generic's loop nest and body (CompileGeneric.cpp); throws naming
  /// a body op the host kernel cannot compute.
  static runtime::GenericSpec compileGeneric(mlir::tp::model::GenericOp op);
  /// Appends \p instr defining the result of \p op (its only result, a
  /// ranked tensor); a kernel also gets its widened operands.
  Instruction &emit(mlir::Operation *op, Instruction instr);
  Instruction &emit(mlir::Operation *op, Opcode code) {
    Instruction instr;
    instr.op = code;
    return emit(op, std::move(instr));
  }
  /// Sets \p instr to run the kernel named \p name (a tp op's sharded
  /// form of a model op's kernel).
  static void setKernel(Instruction &instr, llvm::StringRef name);
  /// A collective on the mesh axes \p axes (recorded in axisGroups).
  Instruction &emitCollective(mlir::Operation *op, Opcode code,
                              llvm::ArrayRef<int64_t> axes);

  ProgramData &program;
  llvm::DenseMap<mlir::Value, int> slots;
  /// The bounds of the slots with dynamic dims (setBound).
  llvm::DenseMap<int, llvm::SmallVector<int64_t>> bounds;
  /// Chunks folded into the parameter they read (ParamChunk).
  llvm::DenseSet<mlir::Operation *> fusedChunks;
  /// The first param op of each FQN.
  std::map<std::string, mlir::tp::model::ParamOp> paramOps;
};

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_COMPILER_H
