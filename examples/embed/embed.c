/*===- embed.c - a C program on tp's C API (TP::TPCAPI) -------------------===*
 *
 * Lowers a two-layer MLP for N ranks with a plan given as JSON text, prints
 * the communication report, runs it on N rank threads and on one, and
 * checks that both compute the same outputs. Links one target, TP::TPCAPI
 * (docs/embedding.md, "The C API").
 *
 *   tp-embed-c [N]      N ranks (default 2); exits 1 on any failure
 *
 *===----------------------------------------------------------------------===*/

#include "mlir-c/Pass.h"
#include "tp-c/TP.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kModel =
    "func.func @forward(%x: tensor<4x8xf32> {model.name = \"x\"}) -> "
    "tensor<4x8xf32> {\n"
    "  %w1 = model.param \"net1.weight\" : tensor<32x8xf32>\n"
    "  %b1 = model.param \"net1.bias\" : tensor<32xf32>\n"
    "  %h = model.linear \"net1\"(%x, %w1, %b1) : (tensor<4x8xf32>, "
    "tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>\n"
    "  %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>\n"
    "  %w2 = model.param \"net2.weight\" : tensor<8x32xf32>\n"
    "  %b2 = model.param \"net2.bias\" : tensor<8xf32>\n"
    "  %y = model.linear \"net2\"(%r, %w2, %b2) : (tensor<4x32xf32>, "
    "tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>\n"
    "  return %y : tensor<4x8xf32>\n"
    "}\n";

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fprintf(stderr, "%.*s", (int)text.length, text.data);
}

/* Prints and frees an error message from the C API; returns 1. */
static int fail(const char *what, char *error) {
  fprintf(stderr, "tp-embed-c: %s: %s\n", what, error ? error : "failed");
  tpFreeString(error);
  return 1;
}

/* Lowers kModel for `ranks` ranks and runs it on as many threads; on
 * success *out holds the outputs (the caller destroys it). */
static int lowerAndRun(MlirContext context, int ranks, int printReport,
                       TpRunResult *out) {
  char *error = NULL;
  char plan[256];
  snprintf(plan, sizeof plan,
           "{\"mesh\": {\"shape\": [%d]}, \"plan\": {"
           "\"net1\": {\"style\": \"ColwiseParallel\"},"
           "\"net2\": {\"style\": \"RowwiseParallel\"}}}",
           ranks);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kModel));
  if (mlirModuleIsNull(module))
    return fail("parse", NULL);
  MlirOperation op = mlirModuleGetOperation(module);
  if (mlirLogicalResultIsFailure(
          tpModuleSetPlan(op, mlirStringRefCreateFromCString(plan),
                          mlirStringRefCreateFromCString("plan"), &error))) {
    mlirModuleDestroy(module);
    return fail("plan", error);
  }
  MlirPassManager pm = mlirPassManagerCreate(context);
  int lowered =
      mlirLogicalResultIsSuccess(mlirParsePassPipeline(
          mlirPassManagerGetAsOpPassManager(pm),
          mlirStringRefCreateFromCString("builtin.module(tp-pipeline)"),
          printToStderr, NULL)) &&
      mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op));
  mlirPassManagerDestroy(pm);
  if (!lowered) {
    mlirModuleDestroy(module);
    return fail("tp-pipeline", NULL); /* diagnostics went to stderr */
  }
  if (printReport) {
    char *report = NULL;
    if (mlirLogicalResultIsFailure(tpGetCommReport(op, &report, &error))) {
      mlirModuleDestroy(module);
      return fail("report", error);
    }
    printf("%d ranks: %s\n", ranks, report);
    tpFreeString(report);
  }
  TpProgram program;
  MlirLogicalResult compiled = tpProgramCreate(op, &program, &error);
  mlirModuleDestroy(module);
  if (mlirLogicalResultIsFailure(compiled))
    return fail("compile", error);
  TpRunOptions options = tpRunOptionsGetDefault();
  options.seed = 11; /* the same generated weights and input for any N */
  MlirLogicalResult ran = tpProgramRun(program, &options, out, &error);
  tpProgramDestroy(program);
  if (mlirLogicalResultIsFailure(ran))
    return fail("run", error);
  return 0;
}

int main(int argc, char **argv) {
  int ranks = argc > 1 ? atoi(argv[1]) : 2;
  if (ranks < 1) {
    fprintf(stderr, "tp-embed-c: the number of ranks must be positive\n");
    return 1;
  }
  printf("tp %s\n", tpGetVersion());
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tpRegisterAllDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  tpRegisterAllPasses();

  TpRunResult parallel, single;
  int status = lowerAndRun(context, ranks, 1, &parallel);
  if (status == 0 && (status = lowerAndRun(context, 1, 0, &single)) != 0)
    tpRunResultDestroy(parallel);
  if (status == 0) {
    TpTensor a = tpRunResultGetOutput(parallel, 0);
    TpTensor b = tpRunResultGetOutput(single, 0);
    int64_t n = 1;
    for (intptr_t d = 0; d < a.rank; ++d)
      n *= a.shape[d];
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      double x = ((const float *)a.data)[i], y = ((const float *)b.data)[i];
      double err = fabs(x - y) / (fabs(y) > 1e-6 ? fabs(y) : 1e-6);
      worst = err > worst ? err : worst;
    }
    long reduces = (long)tpRunResultGetCollectiveCount(
        parallel, mlirStringRefCreateFromCString("all_reduce"));
    printf("%d ranks vs 1: %ld all_reduce, max relative error %.3g\n", ranks,
           reduces, worst);
    if (worst > 1e-5 || (ranks > 1 && reduces != 1)) {
      fprintf(stderr, "tp-embed-c: %d ranks do not compute what 1 does\n",
              ranks);
      status = 1;
    }
    tpRunResultDestroy(parallel);
    tpRunResultDestroy(single);
  }
  mlirContextDestroy(context);
  return status;
}
