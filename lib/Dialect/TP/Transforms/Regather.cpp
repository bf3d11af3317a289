//===- Regather.cpp - gather again in the backward --------------*- C++ -*-===//
//
// tp-regather: in a training step, a forward all_gather whose gathered
// value the backward reads again (under sequence parallelism: a norm's
// output, gathered for the colwise linears after it, is read again by
// their weight gradients) is gathered again right before its first
// backward reader, from the shard the forward kept. The gathered value then
// dies with the forward and only the shard lives across the step, so the
// activations kept for the backward fall as 1/np, as Megatron-LM's
// sequence parallelism does; the price is one more all_gather each, in the
// backward. Opt-in (tp-pipeline regather=true, tp-run --regather): the
// default keeps the gathered value and communicates less. FSDP's parameter
// gathers are regathered by default (the plan's reshard_after_forward).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPREGATHERPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

LogicalResult mlir::tp::regatherForBackward(func::FuncOp func,
                                            bool parametersOnly) {
  if (failed(checkPassPrecondition(func, TPPass::Regather)))
    return failure();
  // FSDP: the mesh axis its parameters are gathered over.
  std::optional<int64_t> fsdpAxis;
  if (parametersOnly) {
    FailureOr<std::optional<FSDPSetting>> fsdp = getFSDPSetting(func);
    if (failed(fsdp))
      return failure();
    if (!*fsdp || !(*fsdp)->plan.getReshardAfterForward())
      return success();
    fsdpAxis = (*fsdp)->axis;
  }
  SmallVector<AllGatherOp> gathers;
  func.walk([&](AllGatherOp g) {
    if (getPhase(g) != Phase::Forward)
      return;
    if (fsdpAxis && !(llvm::is_contained(g.getMeshAxes(), *fsdpAxis) &&
                      getShardedParameter(g.getInput())))
      return;
    gathers.push_back(g);
  });
  for (AllGatherOp gather : gathers) {
    Block *block = gather->getBlock();
    // The readers in later phases, and the first of them.
    SmallVector<OpOperand *> later;
    Operation *first = nullptr;
    for (OpOperand &use : gather.getResult().getUses()) {
      Operation *reader = block->findAncestorOpInBlock(*use.getOwner());
      if (!reader || getPhase(reader) == Phase::Forward ||
          isa<func::ReturnOp>(reader))
        continue;
      later.push_back(&use);
      if (!first || reader->isBeforeInBlock(first))
        first = reader;
    }
    if (later.empty())
      continue;
    OpBuilder b(first);
    auto again = cast<AllGatherOp>(b.clone(*gather));
    setPhase(again, getPhase(first));
    for (OpOperand *use : later)
      use->set(again.getResult());
  }
  return success();
}

namespace {
struct RegatherPass : public tp::impl::TPRegatherPassBase<RegatherPass> {
  using TPRegatherPassBase::TPRegatherPassBase;
  void runOnOperation() override {
    if (failed(regatherForBackward(getOperation(), parametersOnly)))
      signalPassFailure();
  }
};
} // namespace
