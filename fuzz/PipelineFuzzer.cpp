//===- PipelineFuzzer.cpp - fuzz target: MLIR -> tp-pipeline ----*- C++ -*-===//
//
// tp-fuzz-pipeline: what `tp-opt --tp-pipeline` does with mutated IR. The
// input is parsed as MLIR with tp's dialects (parsing verifies it); IR that
// parses is lowered by tp-pipeline with its own tp.plan attribute, or else
// with a fixed plan (the MLP's or the transformer's, after the FQNs it
// names). The pipeline may fail with diagnostics; it must not crash or
// leave invalid IR behind a pass that succeeded. Seeds:
// fuzz/corpus/pipeline/.
//
//===----------------------------------------------------------------------===//

#include "MLIRFuzzSupport.h"

#include "mlir/Parser/Parser.h"

namespace mlir::tp::fuzz {

/// examples/mlp_plan.json.
static const char kMLPPlan[] = R"json(
{"mesh": {"shape": [4], "axis_names": ["tp"]},
 "plan": {"net1": {"style": "ColwiseParallel"},
          "net2": {"style": "RowwiseParallel", "output_layouts": "Replicate()"}}}
)json";
/// test/tp-run/Inputs/llama-plan.json, which the transformer's FQNs match
/// too.
static const char kTransformerPlan[] = R"json(
{"mesh": {"shape": [2], "axis_names": ["tp"]},
 "plan": {"layers.*.attention.w[qkv]": {"style": "ColwiseParallel"},
          "layers.*.attention.wo": {"style": "RowwiseParallel"},
          "layers.*.feed_forward.w[13]": {"style": "ColwiseParallel"},
          "layers.*.feed_forward.w2": {"style": "RowwiseParallel"}}}
)json";

/// One input.
static int fuzzOne(StringRef text) {
  FuzzContext ctx;
  ParserConfig config(&ctx.context);
  // MLIR's lexer relies on the NUL after the buffer that every file buffer
  // has (tp-opt's too); libFuzzer's data has none.
  std::string source = text.str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      StringRef(source.c_str(), source.size()), config, "input.mlir");
  if (!module)
    return 0;
  if ((*module)->hasAttr("tp.plan"))
    runTPPipeline(*module);
  else
    // A module whose symbols clash with the plan's mesh ends at parsePlan.
    lowerWithPlan(*module, text.contains("net1") ? kMLPPlan : kTransformerPlan,
                  "fixed-plan.json");
  return 0;
}

} // namespace mlir::tp::fuzz

TP_FUZZ_TARGET(fuzzOne)
