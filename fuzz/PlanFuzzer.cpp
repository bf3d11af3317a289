//===- PlanFuzzer.cpp - fuzz target: JSON plan -> #tp.plan -> SPMD -*- C++
//-*-===//
//
// tp-fuzz-plan: parses the input as a JSON plan (mlir::parsePlan) against
// a small built-in model and, when it parses, lowers the model with it
// through tp-pipeline, so that the plan's keys (fnmatch), styles, layouts and
// mesh all reach the passes. Seeds: fuzz/corpus/plan/.
//
//===----------------------------------------------------------------------===//

#include "MLIRFuzzSupport.h"

#include "tp/Dialect/Model/Builder/ModelBuilder.h"

namespace mlir::tp::fuzz {

/// The models the plans are applied to, small enough to lower in
/// milliseconds, with the FQNs of the example plans: an MLP (net1, net2), the
/// GPT-style transformer and a Llama (feed_forward.w3).
static const char kMLP[] = R"({"arch": "mlp", "in_features": 8,
  "hidden": 12, "out_features": 8, "batch": 3})";
static const char kTransformer[] = R"({"arch": "transformer", "dim": 8,
  "n_layers": 2, "n_heads": 2, "vocab_size": 12, "max_seq_len": 6,
  "batch": 2, "seq_len": 5})";
static const char kLlama[] = R"({"arch": "llama", "dim": 8, "n_layers": 2,
  "n_heads": 2, "n_kv_heads": 1, "vocab_size": 12, "hidden_dim": 12,
  "max_seq_len": 6, "batch": 2, "seq_len": 5})";

/// One input.
static int fuzzOne(StringRef text) {
  FuzzContext ctx;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(&ctx.context, "model", 1, 1));
  const char *config = text.contains("net1") || text.contains("net2") ? kMLP
                       : text.contains("w3") ? kLlama
                                             : kTransformer;
  if (std::optional<std::string> error =
          model::buildModelFromConfig(*module, config, "model")) {
    llvm::errs() << "tp-fuzz-plan: built-in model: " << *error << "\n";
    std::abort();
  }

  lowerWithPlan(*module, text, "plan.json");
  return 0;
}

} // namespace mlir::tp::fuzz

TP_FUZZ_TARGET(fuzzOne)
