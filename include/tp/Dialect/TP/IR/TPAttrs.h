//===- TPAttrs.h - tp placements, styles and plans --------------*- C++ -*-===//
//
// Placement, parallel-style and plan attributes, plus the placement algebra
// helpers the passes share (normalization, printing in PyTorch's spelling).
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPATTRS_H
#define TP_DIALECT_TP_IR_TPATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
// The attribute classes themselves come with the dialect header.
#include "tp/Dialect/TP/IR/TPDialect.h"

namespace mlir::tp {

/// True for `#tp.shard`, `#tp.inner_shard`, `#tp.replicate` and
/// `#tp.partial`.
bool isPlacement(Attribute attr);

/// True for a parallel-style attribute (one with ParallelStyleAttrTrait).
/// What a style does to modules (ParallelStyleAttrInterface) is attached by
/// TPTransforms; this needs nothing of it.
bool isParallelStyle(Attribute attr);

/// Returns `placement` with a negative shard dim normalized against `rank`.
Attribute normalizePlacement(Attribute placement, int64_t rank);

/// The tensor dim a `#tp.shard` or `#tp.inner_shard` splits (none for the
/// other placements).
std::optional<int64_t> getSplitDim(Attribute placement);

/// The mesh axes that split tensor dim \p dim, outermost first: the
/// `#tp.shard<dim>` axes in mesh order, then the `#tp.inner_shard<dim>` ones
/// in mesh order. A rank's piece of the dim is the nested torch.chunk in
/// this order.
SmallVector<int64_t> getSplitOrder(ArrayRef<Attribute> placements, int64_t dim);

/// The one spelling of a layout: an inner shard whose split order is mesh
/// order anyway (no `#tp.shard` of its dim on a later axis) is written
/// `#tp.shard`. Placements are otherwise returned as they are.
SmallVector<Attribute> canonicalizePlacements(ArrayRef<Attribute> placements);

/// Renders placements the way PyTorch prints them: `[Shard(1), Replicate()]`.
std::string placementsToString(ArrayRef<Attribute> placements);

/// The one check of a plan's mesh axes, wherever a plan comes from (a plan
/// file, PlanBuilder, a `#tp.plan` against its `tp.mesh`): `tpAxis` and
/// `dpAxis` and `fsdpAxis` (empty: not given) must name axes of the mesh
/// (`axisNames`, empty for a mesh without names), all different, and a mesh
/// of several axes must name its tensor-parallel one. Returns the first
/// problem, or "".
std::string checkPlanAxes(ArrayRef<int64_t> meshShape,
                          ArrayRef<StringRef> axisNames, StringRef tpAxis,
                          StringRef dpAxis, StringRef fsdpAxis = "");

} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_TPATTRS_H
