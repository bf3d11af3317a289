//===- Passes.td - passes over the executor's compiled program -*- tablegen -*-===//
//
// Analyses that compile a partitioned program with the executor's compiler
// (Program::compile) and report on the result, without running it.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_PASSES_TD
#define TP_EXECUTOR_PASSES_TD

include "mlir/Pass/PassBase.td"

def TPMemoryReportPass : Pass<"tp-memory-report", "::mlir::ModuleOp"> {
  let summary = "Predict each rank's tensor memory of a partitioned program";
  let description = [{
    Compiles the module's entry function (`forward`, else its one function
    with a body) as `tp-run` would, and predicts one rank's tensor memory
    without running it or allocating its tensors: its parameter shards,
    the gradients a training step returns, the optimizer state (AdamW's two
    moments, SGD's momentum buffer: each of its parameter shard's shape and
    dtype), its pieces of the inputs, and the peak of everything live at
    once, by kind (parameters, optimizer state, activations, communication
    buffers, the running instruction's workspace) and the instruction it
    falls on. The peak follows the executor's liveness plan and what each
    kernel declares it allocates; it is what `tp-run --json` reports as
    `memory.predicted_peak_bytes` and measures as
    `memory.measured_peak_bytes`. Values of uneven (rank-dependent) size
    are not counted; the report says how many.

    The prediction is for `runs` runs of the program with parameters and
    optimizer state resident between them, as `tp-run --train --steps N`
    runs a training step (with `runs=1`, as one run).

    `json=FILE` writes the report as JSON (`-`: standard output), `table`
    prints it as a table on standard error. The IR is not changed. The
    `tp-pipeline` option `memory-report=FILE` runs this pass at its end,
    with `runs=2` for a training step with an optimizer (its steady state)
    and 1 otherwise.

    The grad-transformer of test/tp-run on 2 ranks with sequence
    parallelism and AdamW: at its peak, as the second step hands its
    results out, a rank holds its parameters, both moments, the gradients
    it returns and the copies of the updated parameters it returns.

    ```
    $ tp-opt transformer.mlir --tp-pipeline="plan=plans-sp.json grad=true optimizer=adamw memory-report=-" -o /dev/null
    {
      "gradient_bytes": 15872,
      "input_bytes": 256,
      "np": 2,
      "optimizer_bytes": 31744,
      "parameter_bytes": 15872,
      "peak_at": {
        "instruction": 214,
        "op": "the results (the parameters returned are copied out)",
        "run": 1
      },
      "peak_by_kind": {
        "activations": 15876,
        "communication": 0,
        "optimizer_state": 31744,
        "parameters": 15872,
        "workspace": 15872
      },
      "peak_by_stage": {
        "backward": 73092,
        "forward": 73024,
        "inputs": 47872,
        "optimizer": 65668,
        "results": 79364
      },
      "predicted_peak_bytes": 79364,
      "runs": 2,
      "uneven_values": 0
    }
    ```

    A module the executor cannot compile (styles not yet lowered, an op it
    has no kernel for) is an error naming the op.
  }];
  let options = [
    Option<"jsonFile", "json", "std::string", "\"\"",
           "Write the report as JSON to this file ('-' for standard output)">,
    Option<"table", "table", "bool", "false",
           "Print the report as a table on standard error">,
    Option<"runs", "runs", "int", "1",
           "Runs of the program to predict for (parameters and optimizer "
           "state resident between them)">,
  ];
}

#endif // TP_EXECUTOR_PASSES_TD
