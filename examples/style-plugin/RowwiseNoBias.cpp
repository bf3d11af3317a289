//===- RowwiseNoBias.cpp - an example parallel-style plugin -----*- C++ -*-===//
//
// A style plugin: a shared library that registers parallel styles, which
// plans then name like built-in ones. Load it with
//
//   tp-opt model.mlir --load-style-plugin=libTPExampleStylePlugin.so \
//       --tp-pipeline=plan=plan.json
//   tp-run model.mlir --load-style-plugin=libTPExampleStylePlugin.so \
//       --plan plan.json --verify
//
// with a plan entry {"style": "RowwiseNoBias", "output": "Shard(0)"}. The
// style shards a bias-free Linear's weight on its input dim, takes its
// input sharded on the last dim, and redistributes the partial sum to the
// entry's "output" placement (default Replicate()). The plugin links neither
// tp nor MLIR: the tool that loads it provides both.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"

using namespace mlir;
using namespace mlir::tp;

extern "C" void tpRegisterParallelStyles() {
  CustomStyle style;
  style.supports = [](Operation *op) {
    auto linear = dyn_cast<model::LinearOp>(op);
    return linear && !linear.getBias();
  };
  style.lower = [](CustomStyleAttr attr, StyleBuilder &b) -> LogicalResult {
    MLIRContext *ctx = attr.getContext();
    Attribute output = ReplicateAttr::get(ctx);
    if (DictionaryAttr args = attr.getArgs())
      if (Attribute o = args.get("output"))
        output = o;
    if (failed(b.placeParam("weight", ShardAttr::get(ctx, 1))) ||
        failed(b.prepareInput(0, ShardAttr::get(ctx, -1),
                              ShardAttr::get(ctx, -1))))
      return failure();
    return b.placeOutput(0, output);
  };
  registerParallelStyle("RowwiseNoBias", std::move(style));
}
