//===- ImportShard.cpp - upstream shard annotations as tp placements -----===//
//
// import-shard: a function over global tensors annotated with upstream's
// shard.sharding / shard.shard becomes tp's DTensor program (tp.mesh,
// dtensor arguments, tp.distribute / tp.redistribute at the annotations),
// and its linalg computation becomes model ops (RaiseLinalg.cpp), whose
// sharding rules tp's propagation has. tp-shard-pipeline then lowers it as
// tp-pipeline lowers a plan, from propagation on.
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "tp/Conversion/Shard/Passes.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPIMPORTSHARDPASS
#include "tp/Conversion/Shard/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

/// One placement per grid axis from a sharding; errors name what tp cannot
/// express.
FailureOr<SmallVector<Attribute>>
placementsOf(shard::ShardingOp sharding, int64_t gridRank, int64_t tensorRank) {
  MLIRContext *ctx = sharding.getContext();
  if (!sharding.getStaticHaloSizes().empty() ||
      !sharding.getDynamicHaloSizes().empty())
    return sharding.emitError()
           << "shard.sharding with halo sizes: tp shards do not overlap";
  if (!sharding.getStaticShardedDimsOffsets().empty() ||
      !sharding.getDynamicShardedDimsOffsets().empty())
    return sharding.emitError()
           << "shard.sharding with explicit sharded_dims_offsets: tp's "
              "uneven shards are torch.chunk pieces, not given offsets";
  SmallVector<Attribute> placements(gridRank, ReplicateAttr::get(ctx));
  auto axes = sharding.getSplitAxes().getAxes();
  if ((int64_t)axes.size() > tensorRank)
    return sharding.emitError() << "shard.sharding splits " << axes.size()
                                << " dims of a tensor of rank " << tensorRank;
  for (auto [dim, list] : llvm::enumerate(axes)) {
    int64_t last = -1;
    for (int16_t a : list.asArrayRef()) {
      if (a < 0 || a >= gridRank)
        return sharding.emitError() << "shard.sharding names grid axis " << a
                                    << " of a grid of rank " << gridRank;
      // tp nests the pieces of a dim split by several axes in mesh order.
      if (a < last)
        return sharding.emitError()
               << "shard.sharding splits dim " << dim
               << " over grid axes out of order (" << last << " before " << a
               << "): tp nests a dim's pieces in mesh-axis order";
      last = a;
      placements[a] = ShardAttr::get(ctx, dim);
    }
  }
  return placements;
}

LogicalResult importAnnotations(ModuleOp module, func::FuncOp func) {
  MLIRContext *ctx = module.getContext();
  SmallVector<shard::ShardOp> shards;
  func.walk([&](shard::ShardOp op) { shards.push_back(op); });
  // tp partitions a function over one mesh: annotations on two grids would
  // have their placements read on one of them (an annotation moved from one
  // grid to the other, or shapes split by the wrong size).
  shard::ShardingOp firstSharding;
  for (shard::ShardOp op : shards) {
    auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
    if (!sharding)
      return op.emitError() << "shard.shard's sharding is not a "
                               "shard.sharding op: nothing to import";
    if (!firstSharding) {
      firstSharding = sharding;
    } else if (sharding.getGridAttr() != firstSharding.getGridAttr()) {
      InFlightDiagnostic diag =
          sharding.emitError()
          << "shard.sharding names grid " << sharding.getGridAttr() << " but @"
          << func.getSymName() << " is annotated on grid "
          << firstSharding.getGridAttr()
          << " too: tp partitions a function over one mesh";
      diag.attachNote(firstSharding.getLoc())
          << "the first annotation on " << firstSharding.getGridAttr();
      return diag;
    }
  }
  for (shard::ShardOp op : shards) {
    auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
    auto grid = module.lookupSymbol<MeshOp>(sharding.getGridAttr().getAttr());
    if (!grid)
      return sharding.emitError()
             << "shard.sharding names " << sharding.getGridAttr()
             << ", which is not a grid of this module";
    // A placement is a property of a value of the function's body; one
    // inside a loop or branch would change the type its region carries.
    if (op->getParentOp() != func.getOperation())
      return op.emitError()
             << "shard.shard inside " << op->getParentOp()->getName()
             << ": import-shard imports annotations in the function's body "
                "only";
    Value src = op.getSrc();
    ArrayRef<int64_t> shape = getTensorLikeShape(src.getType());
    if (ShapedType::isDynamicShape(shape))
      return op.emitError() << "shard.shard of " << src.getType()
                            << ": a tp dtensor's global shape is static";
    Type elementType = getTensorLikeElementType(src.getType());
    FailureOr<SmallVector<Attribute>> placements =
        placementsOf(sharding, grid.getRank(), shape.size());
    if (failed(placements))
      return failure();
    auto type = DTensorType::get(ctx, shape, elementType,
                                 sharding.getGridAttr(), *placements);
    Value result;
    auto arg = dyn_cast<BlockArgument>(src);
    if (arg && arg.getOwner()->isEntryBlock() &&
        arg.getOwner()->getParentOp() == func && !op.getAnnotateForUsers() &&
        !isa<DTensorType>(arg.getType())) {
      // How the argument arrives (DTensor.from_local of its piece).
      arg.setType(type);
      result = arg;
    } else if (src.getType() == type) {
      result = src;
    } else {
      OpBuilder b(op);
      if (isa<DTensorType>(src.getType()))
        result =
            RedistributeOp::create(b, op.getLoc(), type, src, StringAttr());
      else
        result = DistributeOp::create(b, op.getLoc(), type, src, StringAttr());
    }
    op.getResult().replaceAllUsesWith(result);
    op.erase();
  }
  WalkResult left = func.walk([&](Operation *op) {
    if (isa<shard::ShardingOp>(op) && op->use_empty()) {
      op->erase();
      return WalkResult::advance();
    }
    if (isa<shard::ShardDialect>(op->getDialect())) {
      op->emitError() << op->getName()
                      << " in an annotated function: import-shard imports "
                         "shard.sharding and shard.shard only";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (left.wasInterrupted())
    return failure();
  // Only tp's ops take the imported dtensors; an upstream op (arith on
  // tensors, a call) would be left with operands of a type it rejects.
  WalkResult foreign = func.walk([&](Operation *op) {
    if (isa<func::ReturnOp>(op) ||
        isa_and_nonnull<TPDialect, model::ModelDialect>(op->getDialect()))
      return WalkResult::advance();
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (isa<DTensorType>(operand.getType())) {
        op->emitError() << op->getName() << " takes operand " << i
                        << ", which shard.shard annotated: import-shard "
                           "hands annotated values to tp's model ops only";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (foreign.wasInterrupted())
    return failure();
  // Arguments may now be dtensors; results follow what is returned.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  func.setType(FunctionType::get(ctx, func.getBody().getArgumentTypes(),
                                 ret.getOperandTypes()));
  return success();
}

} // namespace

LogicalResult mlir::tp::importShard(ModuleOp module) {
  // Nested modules are their own symbol tables: their grids and functions
  // are not this module's, and importing only the outer half would leave
  // shard ops naming a grid that became a tp.mesh.
  for (auto nested : module.getOps<ModuleOp>()) {
    WalkResult shardOps = nested.walk([&](Operation *op) {
      if (!isa<shard::ShardDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << op->getName()
                      << " in a nested module: import-shard imports the "
                         "top module's grids and functions";
      return WalkResult::interrupt();
    });
    if (shardOps.wasInterrupted())
      return failure();
  }
  for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>())) {
    if (llvm::any_of(grid.getShape(), ShapedType::isDynamic))
      return grid.emitError() << "shard.grid @" << grid.getSymName()
                              << " has a dynamic axis size: a tp mesh's "
                                 "sizes are static";
    if (llvm::any_of(grid.getShape(), [](int64_t n) { return n <= 0; }))
      return grid.emitError() << "shard.grid @" << grid.getSymName()
                              << " has an axis of size 0: a tp mesh's "
                                 "sizes are positive";
    OpBuilder b(grid);
    MeshOp::create(b, grid.getLoc(), grid.getSymNameAttr(), grid.getShapeAttr(),
                   ArrayAttr());
    grid.erase();
  }
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!func.getBody().hasOneBlock())
      return func.emitError() << "import-shard takes single-block functions";
    if (failed(raiseLinalgToModel(func)) ||
        failed(importAnnotations(module, func)))
      return failure();
  }
  return success();
}

void mlir::tp::buildTPShardPipeline(OpPassManager &pm,
                                    const TPShardPipelineOptions &options) {
  // Annotations become placements, linalg becomes model ops.
  pm.addPass(createTPImportShardPass());
  // From here on as tp-pipeline after its styles, one function at a time:
  // every value gets a placement from the rules (Partial kept until a
  // layout needs it), chains are composed (Partial -> Replicate -> Shard
  // is one reduce_scatter), lowered to collectives and partitioned.
  OpPassManager &funcPM = pm.nest<func::FuncOp>();
  funcPM.addPass(createTPPropagatePass());
  funcPM.addPass(createTPOptimizePass());
  funcPM.addPass(createTPLowerRedistributePass());
  funcPM.addPass(createTPPartitionPass());
  funcPM.addPass(createTPCSEPass());
  funcPM.addPass(createTPMergeCollectivesPass());
  if (!options.reportJson.empty() || options.reportTable)
    pm.addPass(createTPCommReportPass(
        TPCommReportPassOptions{options.reportJson, options.reportTable}));
}

void mlir::tp::registerTPShardConversions() {
  registerTPShardPasses();
  PassPipelineRegistration<TPShardPipelineOptions>(
      "tp-shard-pipeline",
      "Lower upstream shard annotations with tp: import-shard, then tp's "
      "propagation, redistribution planning and partitioning",
      buildTPShardPipeline);
}

namespace {
struct ImportShardPass
    : public tp::impl::TPImportShardPassBase<ImportShardPass> {
  void runOnOperation() override {
    if (failed(importShard(getOperation())))
      signalPassFailure();
  }
};
} // namespace
