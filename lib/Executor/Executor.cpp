//===- Executor.cpp - Program on the host --------------------------------===//
//
// Program's public side, in TPInterpreter (no MLIR; Program::compile is the
// compiler's, Compiler.cpp): the host backend and its instance of the
// interpreter (Interpreter.h): buffers are runtime::Tensor, model ops call
// the CPU kernels, tp collectives the rank's communicators (one per set of
// mesh axes). Also the global values of
// parameters and inputs and the reassembly of global results.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "ProgramData.h"

#include "tp/Runtime/FloatOps.h"
#include "tp/Runtime/GradKernels.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/TransformerGradKernels.h"
#include "tp/Runtime/UnevenCollectives.h"

#include <type_traits>

using namespace ::mlir::tp::exec;
namespace exec = ::mlir::tp::exec;
namespace rt = ::mlir::tp::runtime;

using ::mlir::tp::exec::detail::HostBackend;

Program::Program(std::shared_ptr<const exec::detail::ProgramData> data)
    : data(std::move(data)) {}
Program::~Program() = default;
Program::Program(Program &&) noexcept = default;
Program &Program::operator=(Program &&) noexcept = default;

const std::vector<int64_t> &Program::meshShape() const {
  return data->meshShape;
}
int64_t Program::numRanks() const {
  int64_t n = 1;
  for (int64_t d : data->meshShape)
    n *= d;
  return n;
}
const std::vector<ParamInfo> &Program::params() const { return data->params; }
const std::vector<InputInfo> &Program::inputs() const { return data->inputs; }
const std::vector<ResultLayout> &Program::results() const {
  return data->results;
}
int64_t Program::peakBytes() const { return data->peak; }
size_t Program::size() const { return data->instrs.size(); }
const std::vector<Instruction> &Program::instructions() const {
  return data->instrs;
}
const std::vector<SlotType> &Program::slotTypes() const { return data->slots; }
const std::vector<int> &Program::inputSlots() const { return data->inputSlots; }
const std::vector<int> &Program::resultSlots() const {
  return data->resultSlots;
}

std::vector<Tensor>
Program::run(rt::Communicator &comm, const DataSource &data,
             int64_t *measuredPeakBytes, rt::CollectiveStats *stats,
             RankState *state, PhaseCounts *byPhase,
             std::vector<double> *instructionSeconds) const {
  return exec::detail::runProgram<HostBackend>(
      *this->data, comm, data, state ? state->impl.get() : nullptr,
      measuredPeakBytes, stats, byPhase, instructionSeconds);
}

RankState::RankState()
    : impl(std::make_unique<exec::detail::RankStateImpl>()) {}
RankState::~RankState() = default;
RankState::RankState(RankState &&) noexcept = default;
RankState &RankState::operator=(RankState &&) noexcept = default;
int64_t RankState::paramBytes() const { return impl->paramBytes; }
int64_t RankState::optimizerBytes() const { return impl->optimizerBytes; }
void RankState::setReturnsUpdated(bool returns) {
  impl->returnsUpdated = returns;
}

Tensor Program::globalParam(const ParamInfo &p, const DataSource &data) {
  std::unique_ptr<rt::WeightFiles> files;
  if (!data.weightsFile.empty())
    files = std::make_unique<rt::WeightFiles>(
        rt::WeightFiles::open(data.weightsFile));
  return data.param(p, files.get());
}

Tensor Program::globalInput(const InputInfo &in, const DataSource &data) {
  std::unique_ptr<rt::SafetensorsFile> file;
  if (!data.inputsFile.empty())
    file = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  return data.input(in, file.get());
}

namespace {
/// The elements of \p t: f32 (data()) or, for integer results, int64.
float *elements(Tensor &t, float *) { return t.data(); }
int64_t *elements(Tensor &t, int64_t *) { return t.dataI64(); }

/// \p dst combined with a partial value \p v of reduction \p reduce ("sum",
/// "avg", "max", "min"); avg is summed here and divided at the end. Integer
/// sums wrap like the collectives'.
float combine(float dst, float v, const std::string &reduce) {
  if (reduce == "sum" || reduce == "avg")
    return dst + v;
  return reduce == "max" ? rt::maxKeepNaN(dst, v) : rt::minKeepNaN(dst, v);
}
int64_t combine(int64_t dst, int64_t v, const std::string &reduce) {
  if (reduce == "avg")
    throw std::runtime_error("a result of integers cannot be a partial avg");
  if (reduce == "sum")
    return static_cast<int64_t>(static_cast<uint64_t>(dst) +
                                static_cast<uint64_t>(v));
  return reduce == "max" ? std::max(dst, v) : std::min(dst, v);
}

/// Program::assembleResult with elements of type T (f32 for float results,
/// int64 for integer ones, so that ids come back exactly).
template <typename T>
Tensor assemble(const ResultLayout &layout, const std::vector<int64_t> &mesh,
                const std::vector<Tensor> &perRank) {
  constexpr rt::DType wide =
      std::is_same_v<T, float> ? rt::DType::F32 : rt::DType::I64;
  Tensor global(layout.globalShape, wide);
  T *out = elements(global, static_cast<T *>(nullptr));
  std::vector<bool> touched(global.numel(), false);
  int64_t rank = global.rank();
  for (size_t r = 0; r < perRank.size(); ++r) {
    std::vector<int64_t> coords(mesh.size());
    int64_t rr = r;
    for (int64_t a = mesh.size() - 1; a >= 0; --a) {
      coords[a] = rr % mesh[a];
      rr /= mesh[a];
    }
    // Replicated axes: take coordinate 0 only. Shard axes: offsets.
    bool skip = false;
    std::vector<int64_t> offset, size;
    rt::placementBox(layout.globalShape, layout.placements, mesh, coords,
                     offset, size);
    std::string reduce;
    for (size_t a = 0; a < mesh.size(); ++a) {
      const std::string &p = layout.placements[a];
      if (p == "R")
        skip |= coords[a] != 0;
      else if (p[0] == 'P')
        reduce = p.substr(1);
    }
    if (skip)
      continue;
    Tensor local = perRank[r].to(wide);
    if (local.shape() != size)
      throw std::runtime_error("rank " + std::to_string(r) +
                               " returned a result of shape [" +
                               local.shapeString() + "], expected [" +
                               Tensor(size).shapeString() + "]");
    const T *in = elements(local, static_cast<T *>(nullptr));
    // Scatter the local block into the global tensor.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < local.numel(); ++e) {
      int64_t g = 0;
      for (int64_t d = 0; d < rank; ++d)
        g = g * layout.globalShape[d] + offset[d] + idx[d];
      out[g] = !touched[g] || reduce.empty() ? in[e]
                                             : combine(out[g], in[e], reduce);
      touched[g] = true;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < size[d])
          break;
        idx[d] = 0;
      }
    }
  }
  // avg: the sum above counted each partial axis group once per member.
  if constexpr (std::is_same_v<T, float>)
    for (size_t a = 0; a < mesh.size(); ++a)
      if (layout.placements[a] == "Pavg")
        for (int64_t e = 0; e < global.numel(); ++e)
          out[e] /= mesh[a];
  return global;
}
} // namespace

Tensor Program::assembleResult(size_t i,
                               const std::vector<Tensor> &perRank) const {
  const ResultLayout &layout = data->results.at(i);
  rt::DType dtype = perRank.empty() ? rt::DType::F32 : perRank[0].dtype();
  if (rt::isIntegerDType(dtype))
    return assemble<int64_t>(layout, data->meshShape, perRank).to(dtype);
  return assemble<float>(layout, data->meshShape, perRank).to(dtype);
}
