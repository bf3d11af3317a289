//===- DataSource.h - where a program's parameters and inputs come from --===//
//
// The data side of the executor, kept apart from the compiler: what a
// program needs (ParamInfo, InputInfo: names, shapes, dtypes, the id range
// of token inputs) and where the values come from (DataSource: safetensors
// files, or a seeded generator whose init policy lives here). No MLIR in
// this header.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_DATASOURCE_H
#define TP_EXECUTOR_DATASOURCE_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tp::runtime {
class SafetensorsFile;
class WeightFiles;
} // namespace mlir::tp::runtime

namespace mlir::tp::exec {

using runtime::Tensor;
class Checkpoint;

/// How the runtime holds integer token ids: as int64, exactly (PyTorch's
/// LongTensor). i64 tensors of a program map to it (i32 ones to I32), the
/// generator produces it, and --save-inputs writes it.
inline constexpr runtime::DType kTokenDType = runtime::DType::I64;

/// A slice of a global tensor along one dim (torch.chunk piece).
struct Slice {
  int64_t dim = 0, offset = 0, size = 0;
};

/// Description of one parameter of a program.
struct ParamInfo {
  std::string name;
  std::vector<int64_t> globalShape;
  /// The element type the program holds the parameter in (the model's
  /// dtype); generated and loaded values are rounded to it.
  runtime::DType dtype = runtime::DType::F32;
};

/// Description of one input (function argument).
/// PyTorch's ignore_index of F.cross_entropy: a target row the loss skips.
constexpr int64_t kIgnoreIndex = -100;

struct InputInfo {
  std::string name;
  /// The global shape: files and the generator hold the whole input, and
  /// each rank receives its piece of it (see `placements`).
  std::vector<int64_t> shape;
  /// How the input arrives, one entry per mesh axis as in ResultLayout: "R"
  /// (every rank gets it whole), "S<d>" (this rank's torch.chunk of dim d)
  /// or "P<kind>" (a partial value: for sum the axis' first rank holds it
  /// and the others zeros; avg, max and min hold it everywhere).
  std::vector<std::string> placements;
  /// For integer token inputs: valid ids are in [0, vocab) (see
  /// tokenRange in lib/Executor/CompilerSupport.cpp for how it is found).
  /// Their dtype is kTokenDType for i64 arguments, I32 for i32 ones.
  bool isTokens = false;
  int64_t vocab = 0;
  /// Token inputs read only as cross-entropy targets may also hold -100,
  /// PyTorch's ignore_index: rows the loss skips.
  bool ignoreIndex = false;
  /// The element type the program holds the input in (token ids: I64 or
  /// I32, as the argument's integer type).
  runtime::DType dtype = runtime::DType::F32;
};

/// The seeded generator's distribution for one parameter: uniform in
/// [-scale, scale), plus one when `onesCentred`.
struct ParamInit {
  float scale = 1.0f;
  bool onesCentred = false;
};

/// Where parameters and inputs come from. The default is the seeded
/// generator, whose values depend only on (seed, name, global index), so a
/// rank can produce its shard without the whole tensor.
///
/// An inputs file holds each input under its argument name, either as one
/// batch of the input's global shape, which every step reads, or as a batch
/// per training step: a tensor of shape [S, ...the input's shape], of which
/// step k reads batch k (S >= the number of steps; every input held so has
/// the same S). Generated inputs are the same every step.
struct DataSource {
  /// The generator's seed; also the seed of a training step's dropout
  /// masks (runtime::DropoutKey), so a run is reproducible from it alone.
  uint64_t seed = 0;
  /// Optional safetensors files with global tensors under their FQNs
  /// (parameters) and function argument names (inputs). The weights may
  /// also be a Hugging Face sharded checkpoint: its index
  /// ("model.safetensors.index.json", runtime::WeightFiles).
  std::string weightsFile;
  std::string inputsFile;
  /// The weights file's key of parameter FQN is weightsPrefix + FQN
  /// (checkpoints saved from a wrapping module, HF-style `model.`).
  std::string weightsPrefix;
  /// Global parameters (by FQN) and inputs (by argument name) held in
  /// memory, as an embedder's buffers give them (the C API): a tensor here
  /// is taken before the files and the generator. An input held here is
  /// one batch, which every step reads. Shared, so that the per-rank copies
  /// of a DataSource do not copy the tensors.
  std::map<std::string, std::shared_ptr<const Tensor>> weightTensors,
      inputTensors;
  /// A checkpoint to resume from (tp/Executor/Checkpoint.h): parameters
  /// are read from it before anything else, and a run's first step is the
  /// one after the checkpoint's (its optimizer state and step count are
  /// restored too, see Program::run).
  std::shared_ptr<const Checkpoint> checkpoint;
  /// The training step whose inputs a run reads (0: the first, and a
  /// single run's).
  int64_t step = 0;

  /// The generator's init for a parameter. It depends only on the name and
  /// the global shape, so every plan sees the same values: 2-D and larger
  /// weights use 1/sqrt(fan_in), 1-D `...weight`s (norms) are centred on
  /// one, other 1-D parameters (biases) are small.
  static ParamInit paramInit(const std::string &name,
                             const std::vector<int64_t> &globalShape);

  /// Parameter \p p (or the box that \p slices cut, at most one slice per
  /// dim) from the checkpoint, weightTensors, \p weights (this source's
  /// weights file, opened) or the generator, in p.dtype. Throws naming the
  /// file and tensor when it is missing or has another shape.
  Tensor param(const ParamInfo &p, const runtime::WeightFiles *weights,
               const std::vector<Slice> &slices = {}) const;
  /// Input \p in of this source's step from inputTensors, \p inputs (this
  /// source's inputs file, opened) or the generator, in in.dtype. A file may
  /// hold token ids as I64, I32 (what PyTorch writes for either) or F32 holding
  /// integers (files from before the integer dtypes), converted exactly; a
  /// non-integral id, an id outside [0, vocab) or another dtype throws
  /// naming the file, the input and the batch.
  Tensor input(const InputInfo &in, runtime::SafetensorsFile *inputs) const;
  /// The number of batches \p inputs holds for \p in: 0 when it holds one
  /// batch for every step (a tensor of the input's shape), S for a batch per
  /// step (shape [S, ...]). Throws naming the file and the input when it
  /// holds neither, or no tensor of that name.
  static int64_t batchesOf(const InputInfo &in,
                           const runtime::SafetensorsFile &inputs);
  /// Checks, before anything runs, that the inputs file (if any) gives each
  /// of \p inputs a batch for each of \p steps steps: a tensor of that name
  /// of one of the two shapes, and as many batches for every input held per
  /// step, no fewer than \p steps. Returns that number of batches (0: one
  /// batch, or generated inputs, for every step). Throws naming the file,
  /// the input and what it holds.
  int64_t checkInputs(const std::vector<InputInfo> &inputs,
                      int64_t steps) const;
  /// The piece of the global input \p global that the rank at \p coords of
  /// \p meshShape receives (in.placements).
  static Tensor localInput(const InputInfo &in, Tensor global,
                           const std::vector<int64_t> &meshShape,
                           const std::vector<int64_t> &coords);
};

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_DATASOURCE_H
