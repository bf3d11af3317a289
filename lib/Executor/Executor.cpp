//===- Executor.cpp - run a partitioned tp program on N ranks ---*- C++ -*-===//
//
// The host instantiation of the executor (ExecutorImpl.h): buffers are
// runtime::Tensor, model ops call the CPU kernels, tp collectives call the
// rank's communicators (one per set of mesh axes), parameters are loaded as
// this rank's shard only. Also the backend-independent helpers: data
// loading, type mapping, and reassembly of global results.
//
//===----------------------------------------------------------------------===//

#include "ExecutorImpl.h"

#include "tp/Runtime/FloatOps.h"
#include "tp/Runtime/Init.h"
#include "tp/Runtime/Kernels.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ::tp::exec;
namespace exec = ::tp::exec;
namespace rt = ::tp::runtime;

//===----------------------------------------------------------------------===//
// Helpers shared by every backend
//===----------------------------------------------------------------------===//

std::string exec::detail::describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  if (auto fqn = op->getAttrOfType<StringAttr>("fqn"))
    os << " '" << fqn.getValue() << "'";
  os << " at " << op->getLoc();
  return s;
}

std::string exec::detail::typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

void exec::detail::checkFits(Type t, const std::string &what) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  if (!ranked)
    return;
  int64_t numel = 1, bytes = 0;
  bool overflow = false;
  for (int64_t d : ranked.getShape())
    if (!ShapedType::isDynamic(d))
      overflow |= llvm::MulOverflow(numel, d, numel);
  overflow |= llvm::MulOverflow(numel, elementBytes(t), bytes);
  if (overflow)
    throw std::runtime_error(what + " has type " + typeString(t) +
                             ": its size in bytes overflows int64_t");
  int64_t memory = rt::hostMemoryBytes();
  if (bytes > memory)
    throw std::runtime_error(what + " has type " + typeString(t) + ": " +
                             std::to_string(numel) + " elements (" +
                             std::to_string(bytes) +
                             " bytes), more than this host's " +
                             std::to_string(memory) + " bytes of memory hold");
}

std::vector<int64_t> exec::detail::staticShapeOf(Type t,
                                                 const std::string &what) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  if (!ranked)
    throw std::runtime_error(what + " has type " + typeString(t) +
                             ": only ranked tensors are supported");
  if (!ranked.hasStaticShape())
    throw std::runtime_error(what + " has type " + typeString(t) +
                             ": dynamic dims are not supported");
  checkFits(t, what);
  return shapeOf(t);
}

std::vector<int64_t> exec::detail::shapeOf(Type t) {
  auto r = cast<RankedTensorType>(t);
  return std::vector<int64_t>(r.getShape().begin(), r.getShape().end());
}

/// The runtime element type of a value of type \p t: its float type, with
/// integer ids held as f32. Other element types are rejected.
rt::DType exec::detail::dtypeOf(Type t, Operation *where) {
  auto shaped = dyn_cast<ShapedType>(t);
  if (!shaped)
    return rt::DType::F32;
  Type e = shaped.getElementType();
  if (e.isF32() || isa<IntegerType>(e))
    return rt::DType::F32;
  if (e.isBF16())
    return rt::DType::BF16;
  if (e.isF16())
    return rt::DType::F16;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  throw std::runtime_error("tp executor supports f32, bf16 and f16 tensors "
                           "(and integer ids), not " +
                           s + ": " + describe(where));
}

/// Bytes per element of a value of type \p t (tensor elements are held in
/// their float type; ids as f32).
int64_t exec::detail::elementBytes(Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  if (!shaped)
    return 4;
  Type e = shaped.getElementType();
  return e.isBF16() || e.isF16() ? 2 : 4;
}

rt::ReduceOp exec::detail::reduceOp(mlir::tp::ReductionKind k) {
  switch (k) {
  case mlir::tp::ReductionKind::Sum:
    return rt::ReduceOp::Sum;
  case mlir::tp::ReductionKind::Avg:
    return rt::ReduceOp::Avg;
  case mlir::tp::ReductionKind::Max:
    return rt::ReduceOp::Max;
  case mlir::tp::ReductionKind::Min:
    return rt::ReduceOp::Min;
  }
  return rt::ReduceOp::Sum;
}

static void checkShape(const rt::SafetensorsFile &file, const std::string &name,
                       const std::vector<int64_t> &expected) {
  if (!file.contains(name))
    throw std::runtime_error(file.path() + ": missing tensor '" + name + "'");
  if (file.shape(name) != expected) {
    Tensor probe(file.shape(name));
    Tensor want(expected);
    throw std::runtime_error(file.path() + ": tensor '" + name +
                             "' has shape [" + probe.shapeString() +
                             "] but the model expects [" + want.shapeString() +
                             "]");
  }
}

Tensor exec::detail::loadParam(const ParamInfo &p, const DataSource &data,
                               rt::SafetensorsFile *file, const Slice *slice) {
  if (file) {
    checkShape(*file, p.name, p.globalShape);
    return (slice ? file->readSlice(p.name, slice->dim, slice->offset,
                                    slice->size)
                  : file->read(p.name))
        .to(p.dtype);
  }
  Tensor t = slice ? rt::initShard(data.seed, p.name, p.globalShape, slice->dim,
                                   slice->offset, slice->size, p.scale)
                   : rt::initTensor(data.seed, p.name, p.globalShape, p.scale);
  if (p.onesCentred)
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data()[i] += 1.0f;
  return t.to(p.dtype);
}

Tensor Program::globalParam(const ParamInfo &p, const DataSource &data) {
  std::unique_ptr<rt::SafetensorsFile> file;
  if (!data.weightsFile.empty())
    file = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.weightsFile));
  return exec::detail::loadParam(p, data, file.get(), nullptr);
}

Tensor exec::detail::loadInput(const InputInfo &in, const DataSource &data,
                               rt::SafetensorsFile *file) {
  if (file) {
    checkShape(*file, in.name, in.shape);
    Tensor t = file->read(in.name);
    if (!in.isTokens)
      return t.to(in.dtype);
    t = t.to(rt::DType::F32);
    if (in.isTokens)
      for (int64_t i = 0; i < t.numel(); ++i) {
        float v = t.data()[i];
        if (v != std::floor(v) || v < 0 || v >= in.vocab)
          throw std::runtime_error(file->path() + ": input '" + in.name +
                                   "' holds id " + std::to_string(v) +
                                   " outside [0, " + std::to_string(in.vocab) +
                                   ")");
      }
    return t;
  }
  if (in.isTokens)
    return rt::initTokens(data.seed, in.name, in.shape, in.vocab);
  return rt::initTensor(data.seed, in.name, in.shape, 1.0f).to(in.dtype);
}

Tensor exec::detail::localInput(const InputInfo &in, Tensor global,
                                const std::vector<int64_t> &meshShape,
                                const std::vector<int64_t> &coords) {
  for (size_t a = 0; a < in.placements.size() && a < meshShape.size(); ++a) {
    const std::string &p = in.placements[a];
    if (p[0] == 'S') {
      // Nested in mesh order, as the partitioner chunks.
      global = rt::chunkDim(global, std::stoll(p.substr(1)), meshShape[a],
                            coords[a]);
    } else if (p == "Psum" && coords[a] != 0) {
      global = Tensor(global.shape(), global.dtype());
    }
  }
  return global;
}

void exec::detail::describeLayout(Type global, size_t meshRank,
                                  const std::string &what,
                                  std::vector<int64_t> &shape,
                                  std::vector<std::string> &placements) {
  placements.clear();
  auto d = dyn_cast<mlir::tp::DTensorType>(global);
  shape = staticShapeOf(d ? d.getGlobalType() : global, what);
  if (!d) {
    placements.assign(meshRank, "R");
    return;
  }
  for (Attribute p : d.getPlacements()) {
    if (auto s = dyn_cast<mlir::tp::ShardAttr>(p))
      placements.push_back("S" + std::to_string(s.getDim()));
    else if (auto pa = dyn_cast<mlir::tp::PartialAttr>(p))
      placements.push_back(
          "P" + mlir::tp::stringifyReductionKind(pa.getKind()).str());
    else
      placements.push_back("R");
  }
}

Tensor Program::globalInput(const InputInfo &in, const DataSource &data) {
  std::unique_ptr<rt::SafetensorsFile> file;
  if (!data.inputsFile.empty())
    file = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  return exec::detail::loadInput(in, data, file.get());
}

//===----------------------------------------------------------------------===//
// The host backend
//===----------------------------------------------------------------------===//

namespace {
/// Host tensors and the CPU kernels (found by argument-dependent lookup in
/// tp::runtime).
struct HostBackend {
  using Buffer = Tensor;
  static constexpr const char *kName = "host";
  static constexpr bool kHostOnlyKernels = true;
  static Buffer fromHost(Tensor t) { return t; }
  static Tensor toHost(const Buffer &b) { return b; }
  static Buffer clone(const Buffer &b) { return b; }
  static Buffer convert(const Buffer &b, rt::DType dtype) {
    return b.to(dtype);
  }
  static Buffer convert(Buffer &&b, rt::DType dtype) {
    return b.dtype() == dtype ? std::move(b) : b.to(dtype);
  }
  static Buffer zeros(std::vector<int64_t> shape, rt::DType dtype) {
    return Tensor(std::move(shape), dtype);
  }
};
} // namespace

struct Program::Impl : exec::detail::Impl<HostBackend> {};

Program::Program(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Program::~Program() = default;
Program::Program(Program &&) noexcept = default;

const std::vector<int64_t> &Program::meshShape() const {
  return impl->meshShape;
}
const std::vector<ParamInfo> &Program::params() const { return impl->params; }
const std::vector<InputInfo> &Program::inputs() const { return impl->inputs; }
const std::vector<ResultLayout> &Program::results() const {
  return impl->results;
}
int64_t Program::peakBytes() const { return impl->peak; }
size_t Program::size() const { return impl->instrs.size(); }

Program Program::compile(func::FuncOp func) {
  auto impl = std::make_unique<Impl>();
  exec::detail::Compiler<HostBackend>(*impl).compile(func);
  return Program(std::move(impl));
}

std::vector<Tensor> Program::run(rt::Communicator &comm, const DataSource &data,
                                 int64_t *measuredPeakBytes,
                                 rt::CollectiveStats *stats,
                                 RankState *state) const {
  return exec::detail::runProgram<HostBackend>(
      *impl, comm, data, state ? state->impl.get() : nullptr, measuredPeakBytes,
      stats);
}

RankState::RankState()
    : impl(std::make_unique<exec::detail::RankStateImpl>()) {}
RankState::~RankState() = default;
RankState::RankState(RankState &&) noexcept = default;
RankState &RankState::operator=(RankState &&) noexcept = default;
int64_t RankState::paramBytes() const { return impl->paramBytes; }

Tensor Program::assembleResult(size_t i,
                               const std::vector<Tensor> &perRank) const {
  const ResultLayout &layout = impl->results.at(i);
  const std::vector<int64_t> &mesh = impl->meshShape;
  rt::DType dtype = perRank.empty() ? rt::DType::F32 : perRank[0].dtype();
  Tensor global(layout.globalShape);
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
    std::vector<int64_t> offset(rank, 0), size(layout.globalShape);
    std::string reduce;
    for (size_t a = 0; a < mesh.size(); ++a) {
      const std::string &p = layout.placements[a];
      if (p == "R") {
        skip |= coords[a] != 0;
      } else if (p[0] == 'S') {
        int64_t d = std::stoll(p.substr(1));
        rt::Chunk c = rt::chunkOf(size[d], mesh[a], coords[a]);
        offset[d] += c.offset;
        size[d] = c.size;
      } else {
        reduce = p.substr(1);
      }
    }
    if (skip)
      continue;
    const Tensor local = perRank[r].to(rt::DType::F32);
    if (local.shape() != size)
      throw std::runtime_error("rank " + std::to_string(r) +
                               " returned a result of shape [" +
                               local.shapeString() + "], expected [" +
                               Tensor(size).shapeString() + "]");
    // Scatter the local block into the global tensor.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < local.numel(); ++e) {
      int64_t g = 0;
      for (int64_t d = 0; d < rank; ++d)
        g = g * layout.globalShape[d] + offset[d] + idx[d];
      float v = local.data()[e];
      float &dst = global.data()[g];
      if (!touched[g] || reduce.empty())
        dst = v;
      else if (reduce == "sum" || reduce == "avg")
        dst += v;
      else if (reduce == "max")
        dst = rt::maxKeepNaN(dst, v);
      else
        dst = rt::minKeepNaN(dst, v);
      touched[g] = true;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < size[d])
          break;
        idx[d] = 0;
      }
    }
  }
  // avg: the sum above counted each partial axis group once per member.
  for (size_t a = 0; a < mesh.size(); ++a)
    if (layout.placements[a] == "Pavg")
      for (int64_t e = 0; e < global.numel(); ++e)
        global.data()[e] /= mesh[a];
  return global.to(dtype);
}
