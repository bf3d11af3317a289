/*===- tp-c/Runtime.h - C API: run a module on N ranks ------------*- C -*-===*\
|*                                                                            *|
|* A program compiled from a partitioned module (TpProgram), run on N rank    *|
|* threads of this process with parameters and inputs from safetensors files, *|
|* the caller's buffers or the seeded generator (TpRunOptions), and the run's *|
|* assembled global outputs (TpRunResult, TpTensor views).                    *|
|*                                                                            *|
|* Getters take non-null handles.                                             *|
|* Ownership: a handle a ...Create or tpProgramRun call returns belongs to    *|
|* the caller, who destroys it once (destroying a null handle does nothing).  *|
|* A TpProgram does not refer to the module it was compiled from, which may   *|
|* be destroyed right after. Views and names a getter returns belong to the   *|
|* handle they come from and live as long as it does. Error messages belong   *|
|* to the caller (tpFreeString). No C++ exception crosses this API.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_C_RUNTIME_H
#define TP_C_RUNTIME_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The element type of a tensor (the runtime's dtypes, same order).
typedef enum TpDType {
  TpDTypeF32 = 0,
  TpDTypeBF16 = 1,
  TpDTypeF16 = 2,
  TpDTypeI64 = 3,
  TpDTypeI32 = 4,
} TpDType;

/// A view of a contiguous, row-major tensor: `rank` extents at `shape`,
/// the product of them elements of `dtype` at `data` (rank 0: one
/// element). It owns nothing.
typedef struct TpTensor {
  TpDType dtype;
  intptr_t rank;
  const int64_t *shape;
  const void *data;
} TpTensor;

/// A caller's tensor under the name of a parameter (its FQN,
/// "net1.weight") or of an input (the function argument's name, "x", or
/// "arg0" for an unnamed argument).
typedef struct TpNamedTensor {
  const char *name;
  TpTensor tensor;
} TpNamedTensor;

/// A compiled program (one instruction list that every rank runs).
typedef struct TpProgram {
  void *ptr;
} TpProgram;

/// A finished run: the global value of every output, assembled from the
/// ranks' pieces, and what the run measured.
typedef struct TpRunResult {
  void *ptr;
} TpRunResult;

static inline bool tpProgramIsNull(TpProgram program) { return !program.ptr; }
static inline bool tpRunResultIsNull(TpRunResult result) { return !result.ptr; }

/// Compiles the function `module` runs (`forward`, else its first function
/// with a body): a program that tp-pipeline partitioned, or an
/// unparallelized model that tp-partition made a one-rank program. On
/// success sets *program; on failure (an op the executor cannot run, a plan
/// or styles tp-pipeline has not lowered) returns failure, leaves *program null
/// and sets *errorMessage (if not NULL) to a message the caller frees with
/// tpFreeString.
MLIR_CAPI_EXPORTED MlirLogicalResult tpProgramCreate(MlirOperation module,
                                                     TpProgram *program,
                                                     char **errorMessage);

/// Destroys `program`.
MLIR_CAPI_EXPORTED void tpProgramDestroy(TpProgram program);

/// The number of ranks the program runs on (the size of its mesh).
MLIR_CAPI_EXPORTED int64_t tpProgramGetNumRanks(TpProgram program);

/// The program's inputs (function arguments) and parameters, by position;
/// the names live as long as the program (a position out of range: a null
/// string).
MLIR_CAPI_EXPORTED intptr_t tpProgramGetNumInputs(TpProgram program);
MLIR_CAPI_EXPORTED MlirStringRef tpProgramGetInputName(TpProgram program,
                                                       intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t tpProgramGetNumParams(TpProgram program);
MLIR_CAPI_EXPORTED MlirStringRef tpProgramGetParamName(TpProgram program,
                                                       intptr_t pos);
/// The number of outputs a run returns.
MLIR_CAPI_EXPORTED intptr_t tpProgramGetNumResults(TpProgram program);

/// Prints the program's instruction list (tp-run --dump-program) through
/// `callback`, which may be called several times with consecutive chunks
/// (a null program or callback: nothing is printed).
MLIR_CAPI_EXPORTED void
tpProgramPrint(TpProgram program, MlirStringCallback callback, void *userData);

/// How to run a program. Start from tpRunOptionsGetDefault() and set what
/// differs; the pointers need to stay valid only during tpProgramRun.
typedef struct TpRunOptions {
  /// The number of rank threads: 0 for the program's mesh; otherwise it
  /// must equal the mesh's number of ranks (a module is partitioned for
  /// one mesh size).
  int64_t numRanks;
  /// The seed of generated parameters and inputs (and of a training step's
  /// dropout masks).
  uint64_t seed;
  /// Safetensors files holding global parameters under their FQNs and
  /// inputs under their argument names (NULL or "": none).
  const char *weightsFile;
  const char *inputsFile;
  /// Global parameters and inputs from the caller's buffers, copied at the
  /// start of the run. Each parameter or input comes from a buffer of its
  /// name, else from the file, else from the generator; a name the program
  /// does not have is an error.
  const TpNamedTensor *weights;
  intptr_t numWeights;
  const TpNamedTensor *inputs;
  intptr_t numInputs;
  /// Runs of the program (training steps: parameters and optimizer state
  /// stay on the ranks between them); at least 1.
  int64_t steps;
  /// Milliseconds a rank waits in a collective before failing; 0: 30 s.
  int64_t timeoutMs;
  /// Where the rank threads compute: NULL or "cpu", or "cuda" (one GPU,
  /// in builds with CUDA).
  const char *device;
} TpRunOptions;

/// The defaults: the program's mesh, seed 0, generated data, one step.
MLIR_CAPI_EXPORTED TpRunOptions tpRunOptionsGetDefault(void);

/// Runs `program` on rank threads of this process as `options` say (NULL:
/// the defaults). On success sets *result, which the caller destroys with
/// tpRunResultDestroy. On failure (bad options, a missing or mismatched
/// file or buffer, a rank that failed) returns failure, leaves *result null
/// and sets *errorMessage (if not NULL) to a message naming the problem,
/// which the caller frees with tpFreeString.
MLIR_CAPI_EXPORTED MlirLogicalResult tpProgramRun(TpProgram program,
                                                  const TpRunOptions *options,
                                                  TpRunResult *result,
                                                  char **errorMessage);

/// Destroys `result` and the outputs it holds.
MLIR_CAPI_EXPORTED void tpRunResultDestroy(TpRunResult result);

/// The outputs: the global value of each result of the program's function
/// (of the last step), in result order. The view and its shape and data
/// live as long as `result` (a position out of range: a view with null
/// data).
MLIR_CAPI_EXPORTED intptr_t tpRunResultGetNumOutputs(TpRunResult result);
MLIR_CAPI_EXPORTED TpTensor tpRunResultGetOutput(TpRunResult result,
                                                 intptr_t pos);

/// How many collectives named `name` ("all_reduce", "all_gather",
/// "reduce_scatter", "all_to_all", "broadcast") rank 0 ran in the last
/// step; 0 for a name it did not run.
MLIR_CAPI_EXPORTED int64_t tpRunResultGetCollectiveCount(TpRunResult result,
                                                         MlirStringRef name);

/// Wall time of the slowest rank over all steps, in milliseconds, and the
/// largest peak of live tensor bytes over the ranks.
MLIR_CAPI_EXPORTED double tpRunResultGetMilliseconds(TpRunResult result);
MLIR_CAPI_EXPORTED int64_t tpRunResultGetPeakBytes(TpRunResult result);

/// The loss of every step (a training step's first, scalar result), as
/// rank 0 computed it; none for a program without a scalar first result
/// (a position out of range: NaN).
MLIR_CAPI_EXPORTED intptr_t tpRunResultGetNumLosses(TpRunResult result);
MLIR_CAPI_EXPORTED double tpRunResultGetLoss(TpRunResult result, intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif // TP_C_RUNTIME_H
