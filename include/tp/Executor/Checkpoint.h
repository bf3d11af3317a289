//===- Checkpoint.h - distributed training checkpoints that reshard
//--------===//
//
// A checkpoint is a directory: one safetensors file per rank that wrote
// anything, holding that rank's pieces of the parameters and of the
// optimizer state under their keys, and checkpoint.json, which says for
// every key its global shape, dtype and where each piece lies (file and box
// of the global tensor), with the step, the seed, the mesh and the plan of
// the run that saved it. A run under another mesh, plan or number of ranks
// reads it: each rank takes the box of each tensor it holds from the pieces
// that overlap it, reading only those bytes. Parameters are keyed by their
// FQN, optimizer state by "optim.state.<FQN>.<name>" (exp_avg, exp_avg_sq,
// momentum_buffer, as torch.optim names them), so the file of a one-rank
// checkpoint is an ordinary safetensors file of the model's state by FQN.
//
// Saving writes into "<dir>/step-<N>.partial", writes checkpoint.json last,
// flushes the files and the directory to the disk and then renames the
// directory to "<dir>/step-<N>": a save that did not finish (a crash of the
// process or of the machine) leaves nothing that loads. No MLIR in this
// header.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_CHECKPOINT_H
#define TP_EXECUTOR_CHECKPOINT_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tp::runtime {
class SafetensorsFile;
} // namespace mlir::tp::runtime

namespace mlir::tp::exec {

using runtime::Tensor;

/// A box of a global tensor: per dim, the first index and the extent.
struct Box {
  std::vector<int64_t> offsets, sizes;

  /// The whole of a tensor of \p shape.
  static Box whole(const std::vector<int64_t> &shape);
  int64_t numel() const;
  bool operator==(const Box &other) const {
    return offsets == other.offsets && sizes == other.sizes;
  }
};

/// The key prefix of optimizer state tensors.
inline constexpr const char *kOptimizerStatePrefix = "optim.state.";

/// One tensor of a rank's training state, or where it lies: a piece of a
/// parameter or of an optimizer state tensor.
struct StateShard {
  /// The parameter's FQN, or "optim.state.<FQN>.<name>".
  std::string key;
  std::vector<int64_t> globalShape;
  runtime::DType dtype = runtime::DType::F32;
  /// The piece of the global tensor the rank holds.
  Box box;
  /// Its value, shared with the rank's state (null where only the layout
  /// was asked for).
  std::shared_ptr<const Tensor> value;
  /// Whether this rank writes the piece: the lowest-numbered rank holding
  /// this box of the tensor (others hold copies of it).
  bool owner = false;
};

/// What a checkpoint records besides the tensors.
struct CheckpointInfo {
  /// Optimizer steps taken: a resumed run's first step is step + 1 (its
  /// AdamW bias correction, its dropout masks, its batch of a per-step
  /// inputs file).
  int64_t step = 0;
  /// The seed of the run that saved it (dropout masks depend on it).
  uint64_t seed = 0;
  /// The mesh and number of ranks that saved it.
  std::vector<int64_t> meshShape;
  int64_t numRanks = 1;
  /// The plan that saved it (its JSON text; empty when it had none).
  std::string plan;
};

/// The file a rank writes into a checkpoint directory:
/// "rank-00003.safetensors".
std::string checkpointRankFile(int64_t rank);
/// The directory of the checkpoint of \p step under \p root ("root/step-8").
std::string checkpointStepDir(const std::string &root, int64_t step);

/// The steps of a save, in the order a job runs them. Each throws
/// std::runtime_error naming the path when the filesystem refuses.
namespace checkpoint_save {
/// Rank 0, before any rank writes: creates "<root>/step-<step>.partial"
/// (empty, removing what an interrupted save left there) and returns it.
std::string begin(const std::string &root, int64_t step);
/// Every rank: writes the shards it owns into \p partialDir (no file when
/// it owns none).
void writeRank(const std::string &partialDir, int64_t rank,
               const std::vector<StateShard> &shards);
/// Rank 0, after every rank wrote: writes checkpoint.json from \p layout
/// (every rank's shards, values not needed, indexed by rank) and renames
/// the directory to "<root>/step-<step>", replacing a checkpoint of that
/// step. Returns the final directory.
std::string finish(const std::string &partialDir, const CheckpointInfo &info,
                   const std::vector<std::vector<StateShard>> &layout);
} // namespace checkpoint_save

/// A checkpoint opened for reading. open() validates it whole: the
/// metadata, every file it names (mapped, not read), each piece's shape
/// and dtype in its file, and that each tensor's pieces cover it exactly.
/// Thread-safe to read from several ranks at once.
class Checkpoint {
public:
  /// Opens \p path: a checkpoint directory (with checkpoint.json), or a
  /// directory of them ("<root>/step-<N>"), of which the latest complete
  /// one is taken. Throws std::runtime_error naming the file and what is
  /// wrong.
  static std::shared_ptr<const Checkpoint> open(const std::string &path);
  ~Checkpoint();

  /// The checkpoint's directory.
  const std::string &dir() const { return dir_; }
  const CheckpointInfo &info() const { return info_; }
  /// The keys, in the metadata's order.
  const std::vector<std::string> &keys() const { return keys_; }
  bool contains(const std::string &key) const;
  const std::vector<int64_t> &shape(const std::string &key) const;
  runtime::DType dtype(const std::string &key) const;
  /// Box \p box of tensor \p key in its dtype, copied from the pieces that
  /// overlap it (only their bytes in the box are read). Throws naming the
  /// checkpoint and the key when there is no such tensor or the box is
  /// outside it.
  Tensor read(const std::string &key, const Box &box) const;

private:
  struct Piece {
    size_t file = 0;
    Box box;
  };
  struct Entry {
    std::vector<int64_t> shape;
    runtime::DType dtype = runtime::DType::F32;
    std::vector<Piece> pieces;
  };
  Checkpoint() = default;
  const Entry &entry(const std::string &key) const;

  std::string dir_;
  CheckpointInfo info_;
  std::vector<std::string> keys_;
  std::map<std::string, Entry> entries_;
  std::vector<std::unique_ptr<runtime::SafetensorsFile>> files_;
};

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_CHECKPOINT_H
