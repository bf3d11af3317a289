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
// The attribute classes themselves come with the dialect header.
#include "tp/Dialect/TP/IR/TPDialect.h"

namespace mlir::tp {

/// True for `#tp.shard`, `#tp.replicate` and `#tp.partial`.
bool isPlacement(Attribute attr);

/// True for a parallel-style attribute (one with ParallelStyleAttrTrait).
/// What a style does to modules (ParallelStyleAttrInterface) is attached by
/// TPTransforms; this needs nothing of it.
bool isParallelStyle(Attribute attr);

/// Returns `placement` with a negative shard dim normalized against `rank`.
Attribute normalizePlacement(Attribute placement, int64_t rank);

/// Renders placements the way PyTorch prints them: `[Shard(1), Replicate()]`.
std::string placementsToString(ArrayRef<Attribute> placements);

/// The one check of a plan's mesh axes, wherever a plan comes from (a plan
/// file, PlanBuilder, a `#tp.plan` against its `tp.mesh`): `tpAxis` and
/// `dpAxis` (empty: not given) must name axes of the mesh (`axisNames`,
/// empty for a mesh without names), differ, and a mesh of several axes
/// must name its tensor-parallel one. Returns the first problem, or "".
std::string checkPlanAxes(ArrayRef<int64_t> meshShape,
                          ArrayRef<StringRef> axisNames, StringRef tpAxis,
                          StringRef dpAxis);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_TPATTRS_H
