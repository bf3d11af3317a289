//===- PlanBuilder.h - a tensor-parallel plan built in C++ ------*- C++ -*-===//
//
// What a JSON plan file says (the mesh, FQN patterns and their styles in
// order, tp_axis, dp_axis, loss_parallel, frozen), said from C++: for a
// compiler that embeds tp and holds its plan in memory instead of a file.
// build() checks it as parsePlan checks a file, creates the `tp.mesh` it
// names and sets the `#tp.plan` attribute tp-pipeline reads.
//
//   PlanBuilder plan(&context);
//   plan.setMesh({2}, {"tp"})
//       .add("net1", plan.colwise())
//       .add("net2", plan.rowwise({}, plan.replicate()));
//   if (failed(plan.build(module))) ...
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_PLANBUILDER_H
#define TP_DIALECT_TP_TRANSFORMS_PLANBUILDER_H

#include "tp/Dialect/TP/IR/TPAttrs.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::tp {

/// Builds a `#tp.plan` and its mesh. The setters return the builder so
/// that calls chain; nothing is checked before build().
class PlanBuilder {
public:
  explicit PlanBuilder(MLIRContext *context);

  /// The mesh `@mesh`: its shape and, optionally, one name per axis
  /// (PyTorch's init_device_mesh(mesh_shape, mesh_dim_names)).
  PlanBuilder &setMesh(ArrayRef<int64_t> shape,
                       ArrayRef<StringRef> axisNames = {});
  /// The mesh axis the styles act on (required on a mesh of several axes).
  PlanBuilder &setTPAxis(StringRef axis);
  /// A data-parallel mesh axis: every model input is sharded on its first
  /// (batch) dim over it.
  PlanBuilder &setDPAxis(StringRef axis);
  /// A fully sharded data-parallel mesh axis (FSDP): the batch is sharded
  /// over it as over the dp axis, and every trainable parameter, its
  /// gradient and optimizer state are sharded over it on dim 0. With a dp
  /// axis too, the shards are replicated over that one (HSDP).
  PlanBuilder &setFSDPAxis(StringRef axis);
  /// FSDP2's reshard_after_forward (default true): each gathered parameter
  /// is freed after the forward and gathered again for the backward.
  PlanBuilder &setReshardAfterForward(bool on = true);
  /// A module FQN pattern whose parameters FSDP gathers together, and
  /// whose gradients it reduce-scatters together (default: `layers.*`).
  PlanBuilder &fsdpUnit(StringRef pattern);
  /// PyTorch's loss_parallel(): cross entropies on class-sharded logits.
  PlanBuilder &setLossParallel(bool lossParallel = true);
  /// A parameter or module FQN pattern a training step does not train.
  PlanBuilder &freeze(StringRef pattern);
  /// A composite module FQN pattern whose forward a training step's
  /// backward recomputes (activation checkpointing).
  PlanBuilder &recompute(StringRef pattern);
  /// Appends an entry: modules whose FQN matches `pattern` (fnmatch per
  /// dotted token) get `style`, entries applied in the order added.
  PlanBuilder &add(StringRef pattern, Attribute style);

  /// The styles of the entries, with PyTorch's arguments and defaults: an
  /// unset layout is PyTorch's default for it.
  ColwiseAttr colwise(Attribute inputLayouts = {}, Attribute outputLayouts = {},
                      bool useLocalOutput = true) const;
  RowwiseAttr rowwise(Attribute inputLayouts = {}, Attribute outputLayouts = {},
                      bool useLocalOutput = true) const;
  SequenceParallelAttr sequenceParallel(int64_t sequenceDim = 1,
                                        bool useLocalOutput = false) const;
  /// Placements, for the layouts above: Replicate(), Shard(dim).
  ReplicateAttr replicate() const;
  ShardAttr shard(int64_t dim) const;

  /// Checks the plan (a mesh of positive sizes with one name per axis if
  /// named; tp_axis, dp_axis and fsdp_axis different axes of it; tp_axis given
  /// on a mesh of several axes; every style a parallel style), creates the mesh
  /// `@mesh` in `module` (or checks that the one there has this shape),
  /// sets the plan as the module's `tp.plan` attribute and returns it.
  /// Errors are emitted at the module's location, naming the problem.
  FailureOr<PlanAttr> build(ModuleOp module) const;

private:
  MLIRContext *context;
  std::vector<int64_t> meshShape;
  std::vector<std::string> axisNames;
  std::string tpAxis, dpAxis, fsdpAxis;
  bool lossParallel = false, reshardAfterForward = true;
  std::vector<std::string> frozen, recomputed, fsdpUnits;
  std::vector<std::pair<std::string, Attribute>> entries;
};

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_PLANBUILDER_H
