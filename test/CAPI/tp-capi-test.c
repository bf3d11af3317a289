// RUN: %capi_test %examples %t.missing.safetensors 2>&1 | FileCheck %s

/*===- tp-capi-test.c - tp's C API, used from C -------------------*- C -*-===*\
|*                                                                            *|
|* Drives tp through its C API only: registers the dialects and passes,       *|
|* lowers examples/mlp.mlir with a plan given inline (JSON text) and with a   *|
|* plan file, through upstream's mlirParsePassPipeline, reads the             *|
|* communication report, runs the program on 1, 2, 3 and 4 rank threads      *|
|* (generated data and caller buffers) and compares the outputs with one      *|
|* rank's; then the error paths, each of which must return a message.        *|
|* Prints what FileCheck checks (capi.c) and exits non-zero on a failed       *|
|* check.                                                                     *|
|*                                                                            *|
|* Usage: tp-capi-test EXAMPLES_DIR MISSING_FILE                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tp-c/TP.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

/// The MLP with a mean squared error (tp-model examples/mlp_loss.json): a
/// training step's model.
static const char *kLossModel =
    "func.func @forward(%x: tensor<4x8xf32> {model.name = \"x\"},"
    "    %t: tensor<4x8xf32> {model.name = \"targets\"}) -> tensor<f32> {\n"
    "  %w1 = model.param \"net1.weight\" : tensor<32x8xf32>\n"
    "  %b1 = model.param \"net1.bias\" : tensor<32xf32>\n"
    "  %h = model.linear \"net1\"(%x, %w1, %b1) : (tensor<4x8xf32>,"
    "    tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>\n"
    "  %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>\n"
    "  %w2 = model.param \"net2.weight\" : tensor<8x32xf32>\n"
    "  %b2 = model.param \"net2.bias\" : tensor<8xf32>\n"
    "  %y = model.linear \"net2\"(%r, %w2, %b2) : (tensor<4x32xf32>,"
    "    tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>\n"
    "  %d = model.sub %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) ->"
    "    tensor<4x8xf32>\n"
    "  %s = model.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) ->"
    "    tensor<4x8xf32>\n"
    "  %l = model.mean %s : (tensor<4x8xf32>) -> tensor<f32>\n"
    "  return %l : tensor<f32>\n"
    "}\n";

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/// A growing string that MlirStringCallbacks append to.
typedef struct Buffer {
  char *data;
  size_t size;
} Buffer;

static void appendToBuffer(MlirStringRef text, void *userData) {
  Buffer *b = (Buffer *)userData;
  b->data = (char *)realloc(b->data, b->size + text.length + 1);
  memcpy(b->data + b->size, text.data, text.length);
  b->size += text.length;
  b->data[b->size] = '\0';
}

static void clearBuffer(Buffer *b) {
  free(b->data);
  b->data = NULL;
  b->size = 0;
}

/// Collects the context's error diagnostics into a Buffer.
static MlirLogicalResult collectDiagnostic(MlirDiagnostic diagnostic,
                                           void *userData) {
  Buffer *b = (Buffer *)userData;
  if (b->size)
    appendToBuffer(mlirStringRefCreateFromCString("\n"), b);
  mlirDiagnosticPrint(diagnostic, appendToBuffer, b);
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc((size_t)size + 1);
  size_t got = fread(text, 1, (size_t)size, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

static MlirContext createContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tpRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry,
                                                  /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  return ctx;
}

/// The MLP plan of examples/mlp_plan.json on a mesh of `ranks`.
static void planText(char *out, size_t size, int ranks) {
  snprintf(out, size,
           "{\"mesh\": {\"shape\": [%d], \"axis_names\": [\"tp\"]},"
           " \"plan\": {\"net1\": {\"style\": \"ColwiseParallel\"},"
           " \"net2\": {\"style\": \"RowwiseParallel\","
           " \"output_layouts\": \"Replicate()\"}}}",
           ranks);
}

/// Parses `pipeline` and runs it on `module`; on failure prints the
/// parser's or the diagnostics' message after `label`.
static MlirLogicalResult runPipeline(MlirContext ctx, MlirModule module,
                                     const char *pipeline, const char *label) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  Buffer error = {NULL, 0};
  MlirLogicalResult result = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), appendToBuffer, &error);
  if (mlirLogicalResultIsFailure(result)) {
    printf("%s: pipeline: %s\n", label, error.data ? error.data : "");
  } else {
    MlirDiagnosticHandlerID id = mlirContextAttachDiagnosticHandler(
        ctx, collectDiagnostic, &error, NULL);
    result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
    mlirContextDetachDiagnosticHandler(ctx, id);
    if (mlirLogicalResultIsFailure(result))
      printf("%s: run: %s\n", label, error.data ? error.data : "");
  }
  clearBuffer(&error);
  mlirPassManagerDestroy(pm);
  return result;
}

/// The MLP lowered for `ranks` ranks with an inline plan (ranks > 0) or
/// with `pipeline` (a plan file), compiled; a null program on failure.
static TpProgram lower(MlirContext ctx, const char *modelText, int ranks,
                       const char *pipeline, int printReport) {
  TpProgram program = {NULL};
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(modelText));
  CHECK(!mlirModuleIsNull(module));
  if (mlirModuleIsNull(module))
    return program;
  MlirOperation op = mlirModuleGetOperation(module);
  char *error = NULL;
  if (ranks > 0) {
    char plan[512];
    planText(plan, sizeof(plan), ranks);
    CHECK(mlirLogicalResultIsSuccess(tpModuleSetPlan(
        op, mlirStringRefCreateFromCString(plan),
        mlirStringRefCreateFromCString("<inline plan>"), &error)));
    CHECK(error == NULL);
  }
  if (mlirLogicalResultIsFailure(runPipeline(ctx, module, pipeline, "lower")))
    ++failures;
  char *report = NULL;
  if (mlirLogicalResultIsSuccess(tpGetCommReport(op, &report, &error))) {
    if (printReport)
      printf("report:\n%s\n", report);
    CHECK(strstr(report, "\"collectives\"") != NULL);
  } else {
    printf("report failed: %s\n", error);
    ++failures;
  }
  tpFreeString(report);
  tpFreeString(error);
  error = NULL;
  if (mlirLogicalResultIsFailure(tpProgramCreate(op, &program, &error))) {
    printf("compile failed: %s\n", error);
    ++failures;
  }
  tpFreeString(error);
  // The program does not refer to the module.
  mlirModuleDestroy(module);
  return program;
}

/// The largest |a - b| over two f32 outputs of equal shape (INFINITY if
/// they differ in shape or dtype).
static double maxDifference(TpTensor a, TpTensor b) {
  if (a.dtype != TpDTypeF32 || b.dtype != TpDTypeF32 || a.rank != b.rank)
    return INFINITY;
  int64_t n = 1;
  for (intptr_t d = 0; d < a.rank; ++d) {
    if (a.shape[d] != b.shape[d])
      return INFINITY;
    n *= a.shape[d];
  }
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double diff = fabs(((const float *)a.data)[i] - ((const float *)b.data)[i]);
    if (!(diff <= worst))
      worst = diff;
  }
  return worst;
}

/// Runs `program` with `options`; a null result (and a message) on failure.
static TpRunResult run(TpProgram program, const TpRunOptions *options) {
  TpRunResult result = {NULL};
  char *error = NULL;
  if (mlirLogicalResultIsFailure(
          tpProgramRun(program, options, &result, &error))) {
    printf("run failed: %s\n", error);
    ++failures;
  }
  tpFreeString(error);
  return result;
}

/// Expects `program` to refuse `options`; prints the message after `label`.
static void expectRunError(TpProgram program, const TpRunOptions *options,
                           const char *label) {
  TpRunResult result = {NULL};
  char *error = NULL;
  MlirLogicalResult status = tpProgramRun(program, options, &result, &error);
  CHECK(mlirLogicalResultIsFailure(status));
  CHECK(tpRunResultIsNull(result));
  CHECK(error != NULL);
  printf("%s: %s\n", label, error ? error : "(no message)");
  tpFreeString(error);
  tpRunResultDestroy(result);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: tp-capi-test EXAMPLES_DIR MISSING_FILE\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/mlp.mlir", argv[1]);
  char *modelText = readFile(path);
  if (!modelText) {
    fprintf(stderr, "cannot read %s\n", path);
    return 2;
  }
  printf("tp version %s\n", tpGetVersion());
  // CHECK: tp version {{[0-9]+\.[0-9]+\.[0-9]+}}

  // The dialect handles, and tpRegisterAllDialects in the registry.
  MlirContext ctx = createContext();
  MlirDialectHandle handles[2] = {mlirGetDialectHandle__tp__(),
                                  mlirGetDialectHandle__model__()};
  for (int i = 0; i < 2; ++i) {
    mlirDialectHandleRegisterDialect(handles[i], ctx);
    MlirDialect dialect = mlirDialectHandleLoadDialect(handles[i], ctx);
    MlirStringRef ns = mlirDialectGetNamespace(dialect);
    printf("dialect %.*s\n", (int)ns.length, ns.data);
  }
  // CHECK: dialect tp
  // CHECK: dialect model
  tpRegisterAllPasses();
  tpRegisterAllPasses(); // twice is fine

  // The same model on 1, 2 and 3 ranks with an inline plan, and on 4 with
  // examples/mlp_plan.json through the pipeline's plan option.
  TpProgram programs[4];
  for (int n = 1; n <= 3; ++n)
    programs[n - 1] =
        lower(ctx, modelText, n, "builtin.module(tp-pipeline)", n == 2);
  // CHECK-LABEL: report:
  // CHECK: "collectives": {
  // CHECK-NEXT: "all_gather": 0,
  // CHECK-NEXT: "all_reduce": 1,
  // CHECK-NEXT: "all_to_all": 0,
  // CHECK-NEXT: "broadcast": 0,
  // CHECK-NEXT: "reduce_scatter": 0
  // CHECK: "modules": {
  // CHECK-NEXT: "net2": {
  // CHECK-NEXT: "all_reduce": 1,
  char pipeline[4200];
  snprintf(pipeline, sizeof(pipeline),
           "builtin.module(tp-pipeline{plan=%s/mlp_plan.json})", argv[1]);
  programs[3] = lower(ctx, modelText, 0, pipeline, 0);
  for (int i = 0; i < 4; ++i)
    if (tpProgramIsNull(programs[i])) {
      fprintf(stderr, "lowering failed; stopping\n");
      return 1;
    }
  printf("program: %ld inputs, %ld params, %ld results\n",
         (long)tpProgramGetNumInputs(programs[1]),
         (long)tpProgramGetNumParams(programs[1]),
         (long)tpProgramGetNumResults(programs[1]));
  // CHECK: program: 1 inputs, 4 params, 1 results
  MlirStringRef param0 = tpProgramGetParamName(programs[1], 0);
  printf("param 0: %.*s, input 0: %s\n", (int)param0.length, param0.data,
         tpProgramGetInputName(programs[1], 0).data);
  // CHECK: param 0: net1.weight, input 0: arg0
  CHECK(tpProgramGetParamName(programs[1], 99).data == NULL);
  // No callback (or no program): nothing printed, no crash.
  tpProgramPrint(programs[1], NULL, NULL);
  TpProgram none = {NULL};
  tpProgramPrint(none, appendToBuffer, NULL);

  // Generated data (seed 7) on 1, 2, 3 and 4 ranks.
  TpRunOptions options = tpRunOptionsGetDefault();
  options.seed = 7;
  TpRunResult results[4];
  for (int i = 0; i < 4; ++i) {
    CHECK(tpProgramGetNumRanks(programs[i]) == i + 1);
    results[i] = run(programs[i], &options);
    if (tpRunResultIsNull(results[i]))
      return 1;
  }
  TpTensor reference = tpRunResultGetOutput(results[0], 0);
  printf("output: rank %ld, shape %ldx%ld\n", (long)reference.rank,
         (long)reference.shape[0], (long)reference.shape[1]);
  // CHECK: output: rank 2, shape 4x8
  for (int i = 1; i < 4; ++i) {
    double diff = maxDifference(reference, tpRunResultGetOutput(results[i], 0));
    printf("%d ranks: all_reduce %ld, max difference to 1 rank %s\n", i + 1,
           (long)tpRunResultGetCollectiveCount(
               results[i], mlirStringRefCreateFromCString("all_reduce")),
           diff <= 1e-5 ? "<= 1e-5" : "too large");
    CHECK(diff <= 1e-5);
  }
  // CHECK: 2 ranks: all_reduce 1, max difference to 1 rank <= 1e-5
  // CHECK: 3 ranks: all_reduce 1, max difference to 1 rank <= 1e-5
  // CHECK: 4 ranks: all_reduce 1, max difference to 1 rank <= 1e-5
  CHECK(tpRunResultGetOutput(results[0], 5).data == NULL);

  // The input and a weight from the caller's buffers, on 1 and 3 ranks: the
  // same outputs, and not those of the generated data.
  float x[4 * 8], w1[32 * 8];
  for (int i = 0; i < 4 * 8; ++i)
    x[i] = (float)((i % 7) - 3) * 0.25f;
  for (int i = 0; i < 32 * 8; ++i)
    w1[i] = (float)((i * 5) % 11 - 5) * 0.05f;
  int64_t xShape[2] = {4, 8}, w1Shape[2] = {32, 8};
  TpNamedTensor inputs[1] = {{"arg0", {TpDTypeF32, 2, xShape, x}}};
  TpNamedTensor weights[1] = {{"net1.weight", {TpDTypeF32, 2, w1Shape, w1}}};
  TpRunOptions buffers = options;
  buffers.inputs = inputs;
  buffers.numInputs = 1;
  buffers.weights = weights;
  buffers.numWeights = 1;
  TpRunResult fromBuffers[2] = {run(programs[0], &buffers),
                                run(programs[2], &buffers)};
  if (tpRunResultIsNull(fromBuffers[0]) || tpRunResultIsNull(fromBuffers[1]))
    return 1;
  TpTensor one = tpRunResultGetOutput(fromBuffers[0], 0);
  double diff = maxDifference(one, tpRunResultGetOutput(fromBuffers[1], 0));
  double change = maxDifference(one, reference);
  printf("caller buffers: 3 ranks vs 1 %s, vs generated data %s\n",
         diff <= 1e-5 ? "<= 1e-5" : "too large",
         change > 1e-3 ? "different" : "the same");
  // CHECK: caller buffers: 3 ranks vs 1 <= 1e-5, vs generated data different
  CHECK(diff <= 1e-5 && change > 1e-3);

  // Three SGD steps of the loss model on 1 and 2 ranks: the same losses,
  // falling, and the same gradients and updated parameters.
  const char *train =
      "builtin.module(tp-pipeline{grad=true optimizer=sgd lr=0.1})";
  TpProgram steps[2] = {lower(ctx, kLossModel, 1, train, 0),
                        lower(ctx, kLossModel, 2, train, 0)};
  if (tpProgramIsNull(steps[0]) || tpProgramIsNull(steps[1]))
    return 1;
  TpRunOptions training = options;
  training.steps = 3;
  TpRunResult trained[2] = {run(steps[0], &training), run(steps[1], &training)};
  if (tpRunResultIsNull(trained[0]) || tpRunResultIsNull(trained[1]))
    return 1;
  CHECK(tpRunResultGetNumLosses(trained[0]) == 3);
  CHECK(tpRunResultGetNumLosses(trained[1]) == 3);
  double worstLoss = 0, worstOutput = 0;
  for (intptr_t i = 0; i < 3; ++i) {
    double a = tpRunResultGetLoss(trained[0], i);
    double b = tpRunResultGetLoss(trained[1], i);
    if (!(fabs(a - b) <= worstLoss))
      worstLoss = fabs(a - b);
  }
  intptr_t outputs = tpRunResultGetNumOutputs(trained[0]);
  CHECK(outputs == tpRunResultGetNumOutputs(trained[1]));
  for (intptr_t i = 0; i < outputs; ++i) {
    double d = maxDifference(tpRunResultGetOutput(trained[0], i),
                             tpRunResultGetOutput(trained[1], i));
    if (!(d <= worstOutput))
      worstOutput = d;
  }
  int falling =
      tpRunResultGetLoss(trained[0], 2) < tpRunResultGetLoss(trained[0], 1) &&
      tpRunResultGetLoss(trained[0], 1) < tpRunResultGetLoss(trained[0], 0);
  printf("training: %ld outputs, 3 losses %s, 2 ranks vs 1: losses %s, "
         "outputs %s\n",
         (long)outputs, falling ? "falling" : "not falling",
         worstLoss <= 1e-5 ? "<= 1e-5" : "too far",
         worstOutput <= 1e-5 ? "<= 1e-5" : "too far");
  // CHECK: training: 9 outputs, 3 losses falling, 2 ranks vs 1: losses <= 1e-5,
  // outputs <= 1e-5
  CHECK(falling && worstLoss <= 1e-5 && worstOutput <= 1e-5);
  CHECK(isnan(tpRunResultGetLoss(trained[0], 3)));
  for (int i = 0; i < 2; ++i) {
    tpRunResultDestroy(trained[i]);
    tpProgramDestroy(steps[i]);
  }

  // Error paths: each returns failure and a message, none crashes.
  // CHECK-LABEL: errors:
  printf("errors:\n");
  MlirModule scratch =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(modelText));
  CHECK(mlirLogicalResultIsFailure(runPipeline(
      ctx, scratch, "builtin.module(tp-pipelin)", "bad pipeline string")));
  // CHECK: bad pipeline string: pipeline: {{.*}}'tp-pipelin' does not refer to
  // a registered pass or pass pipeline
  CHECK(mlirLogicalResultIsFailure(runPipeline(
      ctx, scratch, "builtin.module(tp-pipeline{plan=/no/plan.json})",
      "missing plan file")));
  // CHECK: missing plan file: run: {{.*}}cannot read plan file '/no/plan.json'
  // Training options tp-run refuses are refused on this path too.
  CHECK(mlirLogicalResultIsFailure(runPipeline(
      ctx, scratch,
      "builtin.module(tp-pipeline{grad=true optimizer=adamw momentum=0.9})",
      "adamw with momentum")));
  // CHECK: adamw with momentum: pipeline: {{.*}}tp-pipeline: momentum belongs to optimizer=sgd
  CHECK(mlirLogicalResultIsFailure(runPipeline(
      ctx, scratch, "builtin.module(tp-pipeline{grad=true optimizer=sgd lr=inf})",
      "infinite lr")));
  // CHECK: infinite lr: pipeline: {{.*}}tp-pipeline: lr must be a finite number of at least 0, got inf
  CHECK(mlirLogicalResultIsFailure(runPipeline(
      ctx, scratch, "builtin.module(tp-pipeline{optimizer=sgd})",
      "optimizer without grad")));
  // CHECK: optimizer without grad: pipeline: {{.*}}give grad=true too
  char *error = NULL;
  const char *badPlans[2] = {
      "{\"mesh\": {\"shape\": [2]}, \"plan\": {\"net1\": {\"style\": "
      "\"ColwiseParalel\"}}}",
      "{\"mesh\": {\"shape\": [2]}, \"plan\": "};
  for (int i = 0; i < 2; ++i) {
    CHECK(mlirLogicalResultIsFailure(
        tpModuleSetPlan(mlirModuleGetOperation(scratch),
                        mlirStringRefCreateFromCString(badPlans[i]),
                        mlirStringRefCreateFromCString("bad.json"), &error)));
    printf("bad plan: %s\n", error ? error : "(no message)");
    CHECK(error != NULL);
    tpFreeString(error);
    error = NULL;
  }
  // CHECK: bad plan: {{.*}}ColwiseParalel
  // CHECK: bad plan: {{.*}}plan bad.json: malformed JSON
  // A mesh tp.mesh refuses (an axis name twice) fails the plan too.
  CHECK(mlirLogicalResultIsFailure(tpModuleSetPlan(
      mlirModuleGetOperation(scratch),
      mlirStringRefCreateFromCString(
          "{\"mesh\": {\"shape\": [2, 2], \"axis_names\": [\"tp\", "
          "\"tp\"]}, \"tp_axis\": \"tp\", \"plan\": {}}"),
      mlirStringRefCreateFromCString("twice.json"), &error)));
  printf("mesh axis named twice: %s\n", error ? error : "(no message)");
  // CHECK: mesh axis named twice: {{.*}}error: 'tp.mesh' op mesh axis name
  // 'tp' is used twice
  tpFreeString(error);
  error = NULL;
  // A failed plan leaves no mesh behind: a good one on 2 ranks still fits.
  char plan[512];
  planText(plan, sizeof(plan), 2);
  CHECK(mlirLogicalResultIsSuccess(tpModuleSetPlan(
      mlirModuleGetOperation(scratch), mlirStringRefCreateFromCString(plan),
      mlirStringRefCreateFromCString("good.json"), NULL)));
  // The plan set but not lowered: neither a report nor a program, which
  // would ignore the plan (no collectives, one rank).
  char *unloweredReport = NULL;
  CHECK(mlirLogicalResultIsFailure(tpGetCommReport(
      mlirModuleGetOperation(scratch), &unloweredReport, &error)));
  CHECK(unloweredReport == NULL);
  printf("report of an unlowered plan: %s\n", error ? error : "(no message)");
  // CHECK: report of an unlowered plan: tpGetCommReport: the module holds a
  // plan that is not partitioned yet
  tpFreeString(error);
  error = NULL;
  TpProgram planned;
  CHECK(mlirLogicalResultIsFailure(tpProgramCreate(
      mlirModuleGetOperation(scratch), &planned, &error)));
  CHECK(tpProgramIsNull(planned));
  printf("compile an unlowered plan: %s\n", error ? error : "(no message)");
  // CHECK: compile an unlowered plan: tpProgramCreate: 'builtin.module' holds
  // a plan that is not partitioned yet
  tpFreeString(error);
  error = NULL;
  // Styles attached but not lowered: no report of that.
  CHECK(mlirLogicalResultIsSuccess(runPipeline(
      ctx, scratch, "builtin.module(tp-apply-plan)", "apply plan")));
  char *report = NULL;
  CHECK(mlirLogicalResultIsFailure(
      tpGetCommReport(mlirModuleGetOperation(scratch), &report, &error)));
  CHECK(report == NULL && error != NULL);
  printf("report of a styled model: %s\n", error ? error : "(no message)");
  // CHECK: report of a styled model: {{.*}}error: {{.+}}
  tpFreeString(error);
  error = NULL;
  // Styles lowered, not partitioned: no program of that.
  CHECK(mlirLogicalResultIsSuccess(runPipeline(
      ctx, scratch, "builtin.module(tp-lower-styles)", "lower styles")));
  TpProgram unpartitioned;
  CHECK(mlirLogicalResultIsFailure(tpProgramCreate(
      mlirModuleGetOperation(scratch), &unpartitioned, &error)));
  CHECK(tpProgramIsNull(unpartitioned) && error != NULL);
  printf("compile unpartitioned: %s\n", error ? error : "(no message)");
  // CHECK: compile unpartitioned: tpProgramCreate: {{.*}}not partitioned
  tpFreeString(error);
  error = NULL;
  mlirModuleDestroy(scratch);

  TpRunOptions missing = options;
  missing.weightsFile = argv[2];
  expectRunError(programs[1], &missing, "missing weights file");
  // CHECK: missing weights file: tpProgramRun: {{.*}}missing.safetensors
  TpRunOptions ranks = options;
  ranks.numRanks = 3;
  expectRunError(programs[1], &ranks, "wrong ranks");
  // CHECK: wrong ranks: tpProgramRun: numRanks 3 does not match the program's
  // mesh of 2 ranks
  TpRunOptions unknown = buffers;
  TpNamedTensor typo[1] = {{"net1.weigth", {TpDTypeF32, 2, w1Shape, w1}}};
  unknown.weights = typo;
  expectRunError(programs[1], &unknown, "unknown weight");
  // CHECK: unknown weight: tpProgramRun: the program has no parameter
  // 'net1.weigth'
  TpRunOptions wrongShape = buffers;
  int64_t badShape[2] = {8, 4};
  TpNamedTensor transposed[1] = {{"arg0", {TpDTypeF32, 2, badShape, x}}};
  wrongShape.inputs = transposed;
  expectRunError(programs[1], &wrongShape, "wrong shape");
  // CHECK: wrong shape: tpProgramRun: input 'arg0' given in memory has shape
  // [8x4] but the model expects [4x8]
  // The longest timeout waits as long as it takes (it once overflowed the
  // deadline into the past): the 2-rank run succeeds as with the default.
  TpRunOptions forever = options;
  forever.timeoutMs = INT64_MAX;
  TpRunResult patient = run(programs[1], &forever);
  CHECK(!tpRunResultIsNull(patient));
  if (!tpRunResultIsNull(patient))
    CHECK(maxDifference(tpRunResultGetOutput(patient, 0),
                        tpRunResultGetOutput(results[1], 0)) == 0);
  tpRunResultDestroy(patient);
  // Too many steps: the message says so (it said "at least 1").
  TpRunOptions tooMany = options;
  tooMany.steps = (int64_t)1 << 40;
  expectRunError(programs[1], &tooMany, "too many steps");
  // CHECK: too many steps: tpProgramRun: steps must be at most 2147483647, got 1099511627776
  TpRunOptions noSteps = options;
  noSteps.steps = 0;
  expectRunError(programs[1], &noSteps, "no steps");
  // CHECK: no steps: tpProgramRun: steps must be at least 1, got 0
  TpRunOptions cuda = options;
  cuda.device = "tpu";
  expectRunError(programs[1], &cuda, "bad device");
  // CHECK: bad device: tpProgramRun: {{.*}}tpu

  for (int i = 0; i < 4; ++i) {
    tpRunResultDestroy(results[i]);
    tpProgramDestroy(programs[i]);
  }
  tpRunResultDestroy(fromBuffers[0]);
  tpRunResultDestroy(fromBuffers[1]);
  mlirContextDestroy(ctx);
  free(modelText);
  printf("%s\n", failures ? "FAILED" : "PASSED");
  // CHECK: PASSED
  return failures ? 1 : 0;
}
