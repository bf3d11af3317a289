//===- ExecutorImpl.h - backend-generic executor internals -----*- C++ -*-===//
//
// The compiler from an SPMD function to a flat list of closures, and the
// per-rank interpreter, generic over a backend B that owns the buffers:
// HostBackend (Executor.cpp: runtime::Tensor and the CPU kernels) and
// DeviceBackend (DeviceExecutor.cpp: gpu::DeviceTensor and the CUDA
// kernels). Private to lib/Executor.
//
// A backend provides
//   using Buffer;                       // movable, with shape(), dim(),
//                                       // numel(), bytes(), dtype()
//   static constexpr const char *kName; // "host", "device"
//   static constexpr bool kHostOnlyKernels; // transpose and the loss ops
//   static Buffer fromHost(Tensor);     // parameters, inputs, constants
//   static Tensor toHost(const Buffer &);
//   static Buffer clone(const Buffer &);
//   static Buffer convert(const Buffer &, runtime::DType);
//   static Buffer zeros(std::vector<int64_t>, runtime::DType);
// and the kernels and tensor collectives, found by argument-dependent lookup
// on Buffer (runtime:: for Tensor, runtime::gpu:: for DeviceTensor) under the
// names of tp/Runtime/Kernels.h and Communicator.h: linear(x, w, bias*),
// allGatherDim(comm, x, dim), sliceDim, concatDim, chunkDim, ...
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_EXECUTORIMPL_H
#define TP_LIB_EXECUTOR_EXECUTORIMPL_H

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Executor/Executor.h"
#include "tp/Runtime/Safetensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp::exec::detail {

using namespace mlir;
namespace m = mlir::tp::model;
using mlir::tp::TPDialect;
namespace rt = ::tp::runtime;
using runtime::Tensor;

//===----------------------------------------------------------------------===//
// Shared, backend-independent helpers (Executor.cpp)
//===----------------------------------------------------------------------===//

/// "model.linear 'fqn' at loc".
std::string describe(Operation *op);
/// \p t as MLIR prints it.
std::string typeString(Type t);
/// The static shape of a ranked tensor type (dynamic dims as kDynamic).
std::vector<int64_t> shapeOf(Type t);
/// The runtime element type of a value of type \p t: its float type, with
/// integer ids held as f32. Other element types are rejected naming
/// \p where.
rt::DType dtypeOf(Type t, Operation *where);
/// Bytes per element of a value of type \p t.
int64_t elementBytes(Type t);
/// The shape of \p t, which must be a ranked tensor type with static dims
/// (inputs, parameters and global results: the runtime needs their sizes
/// before it runs); throws naming \p what ("input 'x' (argument 0 of
/// @forward)") otherwise, or when it does not fit in memory (checkFits).
std::vector<int64_t> staticShapeOf(Type t, const std::string &what);
/// Throws naming \p what when a value of type \p t has more elements than
/// int64_t counts or more bytes than this host's memory holds (before any
/// allocation). Dims that are dynamic (uneven shards) are not counted.
void checkFits(Type t, const std::string &what);
rt::ReduceOp reduceOp(mlir::tp::ReductionKind k);
/// Parameter \p p (or its \p slice) from the file or the seeded generator,
/// in p.dtype.
Tensor loadParam(const ParamInfo &p, const DataSource &data,
                 rt::SafetensorsFile *file, const Slice *slice);
/// Input \p in from the file or the seeded generator, in in.dtype.
Tensor loadInput(const InputInfo &in, const DataSource &data,
                 rt::SafetensorsFile *file);
/// The piece of the global input \p global that the rank at \p coords of
/// \p meshShape receives (in.placements).
Tensor localInput(const InputInfo &in, Tensor global,
                  const std::vector<int64_t> &meshShape,
                  const std::vector<int64_t> &coords);
/// The global shape and per-axis placement strings ("R", "S<d>",
/// "P<kind>") of a value of global type \p global on a mesh of rank
/// \p meshRank; the global shape must be static (\p what names the value
/// in the error).
void describeLayout(Type global, size_t meshRank, const std::string &what,
                    std::vector<int64_t> &shape,
                    std::vector<std::string> &placements);

/// What a compiled program knows besides its instructions.
struct Layout {
  std::vector<int64_t> meshShape{1};
  int numSlots = 0;
  std::vector<int> resultSlots;
  std::vector<int> inputSlots;
  std::vector<ParamInfo> params;
  std::vector<InputInfo> inputs;
  std::vector<ResultLayout> results;
  std::set<std::vector<int64_t>> axisGroups;
  int64_t peak = 0;

  int64_t groupIndex(const std::vector<int64_t> &coords,
                     llvm::ArrayRef<int64_t> axes) const {
    int64_t idx = 0;
    for (int64_t a : axes)
      idx = idx * meshShape[a] + coords[a];
    return idx;
  }
  int64_t groupSize(llvm::ArrayRef<int64_t> axes) const {
    int64_t n = 1;
    for (int64_t a : axes)
      n *= meshShape[a];
    return n;
  }
  /// This rank's mesh coordinates (row-major rank numbering).
  std::vector<int64_t> coordsOf(int64_t rank) const {
    std::vector<int64_t> coords(meshShape.size(), 0);
    for (int64_t a = static_cast<int64_t>(meshShape.size()) - 1; a >= 0; --a) {
      coords[a] = rank % meshShape[a];
      rank /= meshShape[a];
    }
    return coords;
  }
};

/// What one rank keeps between runs when it is given a RankState: the
/// communicators of its mesh axis groups and its loaded parameters.
struct RankStateImpl {
  const void *program = nullptr;
  rt::Communicator *world = nullptr;
  std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>> groups;
  /// One entry per parameter instruction (a Buffer of the backend).
  std::vector<std::shared_ptr<void>> params;
  int64_t paramBytes = 0;
};

//===----------------------------------------------------------------------===//
// Frames and instructions
//===----------------------------------------------------------------------===//

/// Per-rank state while a program runs.
template <class B> struct Frame {
  using Buffer = typename B::Buffer;

  /// Value slots; a slot may share its buffer with the RankState (a
  /// resident parameter). Buffers are never written after they are set.
  std::vector<std::shared_ptr<Buffer>> slots;
  /// Whether the slot's buffer is a resident parameter (kept after the run).
  std::vector<bool> resident;
  rt::Communicator *world = nullptr;
  std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>> ownGroups;
  const std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>>
      *groups = nullptr;
  std::vector<int64_t> coords;
  const DataSource *data = nullptr;
  std::unique_ptr<rt::SafetensorsFile> weights, inputs;
  RankStateImpl *state = nullptr;

  const Buffer &at(int s) const { return *slots[s]; }
  void set(int s, Buffer b) {
    slots[s] = std::make_shared<Buffer>(std::move(b));
  }
  /// Slot \p s's buffer, moved out if nothing else holds it.
  Buffer take(int s) {
    if (slots[s].use_count() == 1)
      return std::move(*slots[s]);
    return B::clone(*slots[s]);
  }

  /// Sets parameter instruction \p index's value into slot \p out: the
  /// resident one if the RankState has it, else `load()` (kept resident when
  /// there is a RankState).
  template <class Fn> void loadParam(int out, size_t index, Fn load) {
    if (state && index < state->params.size() && state->params[index]) {
      slots[out] = std::static_pointer_cast<Buffer>(state->params[index]);
      resident[out] = true;
      return;
    }
    set(out, B::fromHost(load()));
    if (state) {
      if (state->params.size() <= index)
        state->params.resize(index + 1);
      state->params[index] = slots[out];
      state->paramBytes += static_cast<int64_t>(slots[out]->bytes());
      resident[out] = true;
    }
  }
};

template <class B> struct Instr {
  std::function<void(Frame<B> &)> fn;
  /// The slot the instruction defines, and the slots dead after it.
  int def = -1;
  std::vector<int> frees;
};

template <class B> struct Impl : Layout {
  std::vector<Instr<B>> instrs;

  rt::Communicator &comm(Frame<B> &f, llvm::ArrayRef<int64_t> axes) const {
    std::vector<int64_t> key(axes.begin(), axes.end());
    if ((int64_t)key.size() == (int64_t)meshShape.size())
      return *f.world;
    return *f.groups->at(key);
  }
};

//===----------------------------------------------------------------------===//
// Uneven collectives, generic over the buffer type
//===----------------------------------------------------------------------===//

/// `x` zero-padded along `dim` to `size`.
template <class B>
typename B::Buffer padDim(const typename B::Buffer &x, int64_t dim,
                          int64_t size) {
  if (x.dim(dim) == size)
    return B::clone(x);
  std::vector<int64_t> padShape = x.shape();
  padShape[dim] = size - x.dim(dim);
  std::vector<typename B::Buffer> parts;
  parts.push_back(B::clone(x));
  parts.push_back(B::zeros(padShape, x.dtype()));
  return concatDim(parts, dim);
}

/// all_gather of torch.chunk pieces of a dim of full size `total`: every
/// rank pads its piece to the chunk size, and the padding is dropped after.
template <class B>
typename B::Buffer allGatherUneven(rt::Communicator &comm,
                                   const typename B::Buffer &x, int64_t dim,
                                   int64_t total) {
  int64_t k = comm.size();
  int64_t chunk = (total + k - 1) / k;
  typename B::Buffer gathered =
      allGatherDim(comm, padDim<B>(x, dim, chunk), dim);
  std::vector<typename B::Buffer> pieces;
  for (int64_t j = 0; j < k; ++j) {
    rt::Chunk c = rt::chunkOf(total, k, j);
    pieces.push_back(sliceDim(gathered, dim, j * chunk, c.size));
  }
  return concatDim(pieces, dim);
}

/// reduce_scatter into torch.chunk pieces: pad the dim to a multiple of the
/// group size, reduce-scatter, keep this rank's real size.
template <class B>
typename B::Buffer reduceScatterUneven(rt::Communicator &comm,
                                       const typename B::Buffer &x, int64_t dim,
                                       rt::ReduceOp op) {
  int64_t k = comm.size(), total = x.dim(dim);
  int64_t chunk = (total + k - 1) / k;
  typename B::Buffer mine =
      reduceScatterDim(comm, padDim<B>(x, dim, chunk * k), dim, op);
  rt::Chunk c = rt::chunkOf(total, k, comm.rank());
  return sliceDim(mine, dim, 0, c.size);
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

template <class B> class Compiler {
public:
  using Buffer = typename B::Buffer;

  Compiler(Impl<B> &impl) : impl(impl) {}

  void compile(func::FuncOp func) {
    ModuleOp module = func->getParentOfType<ModuleOp>();
    std::string meshNames;
    int meshes = 0;
    if (module)
      module.walk([&](mlir::tp::MeshOp mesh) {
        meshNames += (meshes++ ? " and @" : "@") + mesh.getSymName().str();
        if (impl.meshShape.size() == 1 && impl.meshShape[0] == 1)
          impl.meshShape.assign(mesh.getShape().begin(), mesh.getShape().end());
      });
    if (meshes > 1)
      throw std::runtime_error("the program has " + std::to_string(meshes) +
                               " meshes (" + meshNames +
                               "); the executor runs a program on one mesh");
    if (func.getBody().empty())
      throw std::runtime_error("function @" + func.getName().str() +
                               " has no body");
    Block &block = func.getBody().front();
    auto argTypes =
        TPDialect::ArgTypesAttrHelper(func->getContext()).getAttr(func);
    for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
      InputInfo in;
      auto name = func.getArgAttrOfType<StringAttr>(i, "model.name");
      in.name = name ? name.getValue().str() : "arg" + std::to_string(i);
      describeLayout(argTypes ? cast<TypeAttr>(argTypes[i]).getValue()
                              : arg.getType(),
                     impl.meshShape.size(),
                     "input '" + in.name + "' (argument " + std::to_string(i) +
                         " of @" + func.getName().str() + ")",
                     in.shape, in.placements);
      in.dtype = dtypeOf(arg.getType(), func);
      auto elt = cast<RankedTensorType>(arg.getType()).getElementType();
      if (isa<IntegerType>(elt)) {
        in.isTokens = true;
        in.vocab = vocabOf(arg);
        if (in.vocab <= 0)
          throw std::runtime_error("integer input '" + in.name +
                                   "' feeds no embedding, so its id range "
                                   "is unknown");
      }
      impl.inputSlots.push_back(slotOf(arg));
      impl.inputs.push_back(in);
    }
    for (Operation &op : block.without_terminator())
      compileOp(&op);
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    auto resultTypes =
        TPDialect::ResultTypesAttrHelper(func->getContext()).getAttr(func);
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      impl.resultSlots.push_back(slotOf(v));
      ResultLayout layout;
      describeLayout(
          resultTypes ? cast<TypeAttr>(resultTypes[i]).getValue() : v.getType(),
          impl.meshShape.size(),
          "result " + std::to_string(i) + " of @" + func.getName().str(),
          layout.globalShape, layout.placements);
      layout.local = static_cast<bool>(func.getResultAttr(
          i, TPDialect::LocalAttrHelper(func->getContext()).getName()));
      impl.results.push_back(layout);
    }
    planLiveness(block);
    int64_t memory = rt::hostMemoryBytes();
    if (impl.peak > memory)
      throw std::runtime_error(
          "@" + func.getName().str() + " needs " + std::to_string(impl.peak) +
          " bytes per rank at its peak, more than this host's " +
          std::to_string(memory) + " bytes of memory hold");
  }

private:
  int slotOf(Value v) {
    auto it = slots.find(v);
    if (it != slots.end())
      return it->second;
    int s = impl.numSlots++;
    slots[v] = s;
    slotValues.push_back(v);
    Operation *where = v.getDefiningOp();
    if (!where)
      where = v.getParentBlock()->getParentOp();
    slotDtypes.push_back(dtypeOf(v.getType(), where));
    checkFits(v.getType(), "the value of " + describe(where));
    return s;
  }

  /// The vocabulary size of the embedding that reads `ids`.
  int64_t vocabOf(Value ids) {
    int64_t vocab = -1;
    for (Operation *user : ids.getUsers()) {
      // Through local chunks (a batch-sharded input) to the embeddings.
      if (auto chunk = dyn_cast<mlir::tp::ChunkOp>(user)) {
        int64_t v = vocabOf(chunk.getResult());
        if (v > 0)
          vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      // Loss targets: ids range over the classes.
      if (auto t = dyn_cast<m::TargetLogitOp>(user)) {
        int64_t v =
            cast<RankedTensorType>(t.getLogits().getType()).getDimSize(1);
        vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      if (auto t = dyn_cast<mlir::tp::ShardedTargetLogitOp>(user)) {
        int64_t v = t.getNumClasses();
        vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      if (auto ce = dyn_cast<m::CrossEntropyOp>(user)) {
        int64_t v =
            cast<RankedTensorType>(ce.getLogits().getType()).getDimSize(1);
        vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      if (auto emb = dyn_cast<m::EmbeddingOp>(user)) {
        Value w = emb.getWeight();
        if (auto chunk = w.getDefiningOp<mlir::tp::ChunkOp>())
          w = chunk.getInput();
        int64_t v = cast<RankedTensorType>(w.getType()).getDimSize(0);
        vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      if (auto emb = dyn_cast<mlir::tp::ShardedEmbeddingOp>(user)) {
        int64_t v = emb.getVocabSize();
        vocab = vocab < 0 ? v : std::min(vocab, v);
      }
    }
    return vocab;
  }

  /// The seeded generator's scale depends only on the parameter's name and
  /// global shape, so every plan sees the same values: 2-D weights use
  /// 1/sqrt(fan_in); 1-D weights (norms) are centred on one; biases are
  /// small.
  static ParamInfo paramInfo(m::ParamOp op) {
    ParamInfo p;
    p.name = op.getName().str();
    p.globalShape = staticShapeOf(op.getType(), "parameter '" + p.name + "'");
    p.dtype = dtypeOf(op.getType(), op);
    if (p.globalShape.size() >= 2) {
      p.scale =
          1.0f / std::sqrt((float)std::max<int64_t>(1, p.globalShape.back()));
    } else if (llvm::StringRef(p.name).ends_with("weight")) {
      p.onesCentred = true;
      p.scale = 0.1f;
    } else {
      p.scale = 0.1f;
    }
    return p;
  }

  void emit(std::function<void(Frame<B> &)> fn) {
    // Every instruction defines the slot numbered just before it is emitted.
    impl.instrs.push_back({std::move(fn), impl.numSlots - 1, {}});
  }

  void compileOp(Operation *op) {
    if (auto c = dyn_cast<mlir::tp::ChunkOp>(op); c && fusedChunks.count(c))
      return;
    std::vector<int> in;
    for (Value v : op->getOperands()) {
      if (!slots.count(v))
        throw std::runtime_error("operand of " + describe(op) +
                                 " is not defined before it");
      in.push_back(slots[v]);
    }
    Impl<B> &P = impl;
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](m::ParamOp p) { compileParam(p); })
        .Case([&](mlir::tp::ChunkOp c) {
          if (fusedChunks.count(c))
            return;
          int out = slotOf(c.getResult());
          std::vector<int64_t> axes(c.getMeshAxes().begin(),
                                    c.getMeshAxes().end());
          int64_t dim = c.getAxis();
          emit([&P, in, out, axes, dim](Frame<B> &f) {
            f.set(out, chunkDim(f.at(in[0]), dim, P.groupSize(axes),
                                P.groupIndex(f.coords, axes)));
          });
        })
        .Case([&](mlir::tp::PartialFromReplicateOp c) {
          int out = slotOf(c.getResult());
          std::vector<int64_t> axes(c.getMeshAxes().begin(),
                                    c.getMeshAxes().end());
          // sum: the value on coordinate 0 of the axes, zeros elsewhere;
          // the other reductions of equal values are the value.
          bool sum = c.getReduction() == mlir::tp::ReductionKind::Sum;
          emit([&P, in, out, axes, sum](Frame<B> &f) {
            const Buffer &x = f.at(in[0]);
            f.set(out, !sum || P.groupIndex(f.coords, axes) == 0
                           ? B::clone(x)
                           : B::zeros(x.shape(), x.dtype()));
          });
        })
        .Case([&](mlir::tp::AllGatherOp c) {
          int64_t dim = c.getGatherAxis();
          if (!c.getInput().getType().isDynamicDim(dim)) {
            collective(c, in, [dim](rt::Communicator &comm, const Buffer &x) {
              return allGatherDim(comm, x, dim);
            });
            return;
          }
          int64_t total = c.getType().getDimSize(dim);
          std::vector<int64_t> outer;
          if (ShapedType::isDynamic(total)) {
            // The dim is also split on earlier mesh axes: this group's full
            // size is the nested torch.chunk of the global size.
            IntegerAttr global = c.getGlobalSizeAttr();
            std::optional<ArrayRef<int64_t>> outerAxes = c.getOuterAxes();
            if (!global || !outerAxes)
              throw std::runtime_error("tp executor cannot gather an uneven "
                                       "dim of unknown full size: " +
                                       describe(op));
            total = global.getInt();
            outer.assign(outerAxes->begin(), outerAxes->end());
          }
          Impl<B> &P = impl;
          int64_t src = in[0];
          std::vector<int64_t> axes(c.getMeshAxes().begin(),
                                    c.getMeshAxes().end());
          impl.axisGroups.insert(axes);
          int out = slotOf(c.getResult());
          emit([&P, axes, src, out, dim, total, outer](Frame<B> &f) {
            int64_t size = total;
            for (int64_t a : outer)
              size = rt::chunkOf(size, P.meshShape[a], f.coords[a]).size;
            f.set(out,
                  allGatherUneven<B>(P.comm(f, axes), f.at(src), dim, size));
          });
          return;
        })
        .Case([&](mlir::tp::AllReduceOp c) {
          rt::ReduceOp r = reduceOp(c.getReduction());
          collective(c, in, [r](rt::Communicator &comm, const Buffer &x) {
            Buffer y = B::clone(x);
            allReduceInPlace(comm, y, r);
            return y;
          });
        })
        .Case([&](mlir::tp::ReduceScatterOp c) {
          rt::ReduceOp r = reduceOp(c.getReduction());
          int64_t dim = c.getScatterAxis();
          bool uneven = c.getType().isDynamicDim(dim);
          collective(c, in,
                     [r, dim, uneven](rt::Communicator &comm, const Buffer &x) {
                       return uneven ? reduceScatterUneven<B>(comm, x, dim, r)
                                     : reduceScatterDim(comm, x, dim, r);
                     });
        })
        .Case([&](mlir::tp::AllToAllOp c) {
          collective(c, in,
                     [s = c.getSplitAxis(), cc = c.getConcatAxis()](
                         rt::Communicator &comm, const Buffer &x) {
                       return allToAllDims(comm, x, s, cc);
                     });
        })
        .Case([&](mlir::tp::BroadcastOp c) {
          collective(
              c, in,
              [root = c.getRoot()](rt::Communicator &comm, const Buffer &x) {
                return broadcastTensor(comm, x, root);
              });
        })
        .Case([&](m::LinearOp l) {
          bool bias = l.getBias() != nullptr;
          unary(op, in, [bias, in](Frame<B> &f) {
            return linear(f.at(in[0]), f.at(in[1]),
                          bias ? &f.at(in[2]) : nullptr);
          });
        })
        .Case([&](m::EmbeddingOp) {
          unary(op, in, [in](Frame<B> &f) {
            return embedding(f.at(in[0]), f.at(in[1]));
          });
        })
        .Case([&](mlir::tp::ShardedEmbeddingOp e) {
          // This rank holds rows [offset, offset + local rows) of the vocab.
          std::vector<int64_t> axes(e.getMeshAxes().begin(),
                                    e.getMeshAxes().end());
          int64_t vocab = e.getVocabSize();
          unary(op, in, [&P, in, axes, vocab](Frame<B> &f) {
            rt::Chunk c = rt::chunkOf(vocab, P.groupSize(axes),
                                      P.groupIndex(f.coords, axes));
            return embeddingMasked(f.at(in[0]), f.at(in[1]), c.offset);
          });
        })
        .Case([&](m::LayerNormOp n) {
          float eps = n.getEps().convertToDouble();
          unary(op, in, [in, eps](Frame<B> &f) {
            return layerNorm(f.at(in[0]), &f.at(in[1]), &f.at(in[2]), eps);
          });
        })
        .Case([&](m::RMSNormOp n) {
          float eps = n.getEps().convertToDouble();
          unary(op, in, [in, eps](Frame<B> &f) {
            return rmsNorm(f.at(in[0]), &f.at(in[1]), eps);
          });
        })
        .Case([&](m::DropoutOp) {
          unary(op, in, [in](Frame<B> &f) { return B::clone(f.at(in[0])); });
        })
        .Case([&](m::ReluOp) {
          unary(op, in, [in](Frame<B> &f) { return relu(f.at(in[0])); });
        })
        .Case([&](m::GeluOp) {
          unary(op, in, [in](Frame<B> &f) { return gelu(f.at(in[0])); });
        })
        .Case([&](m::SiluOp) {
          unary(op, in, [in](Frame<B> &f) { return silu(f.at(in[0])); });
        })
        .Case([&](m::AddOp) {
          unary(op, in,
                [in](Frame<B> &f) { return add(f.at(in[0]), f.at(in[1])); });
        })
        .Case([&](m::MulOp) {
          unary(op, in,
                [in](Frame<B> &f) { return mul(f.at(in[0]), f.at(in[1])); });
        })
        .Case([&](m::MatmulOp) {
          unary(op, in,
                [in](Frame<B> &f) { return matmul(f.at(in[0]), f.at(in[1])); });
        })
        .Case([&](m::SoftmaxOp s) {
          int64_t dim = s.getDim();
          unary(op, in,
                [in, dim](Frame<B> &f) { return softmax(f.at(in[0]), dim); });
        })
        .Case([&](m::ReshapeOp r) {
          std::vector<int64_t> shape = shapeOf(r.getType());
          if (llvm::count(shape, ShapedType::kDynamic) > 1)
            throw std::runtime_error("tp executor cannot reshape to more "
                                     "than one uneven dim: " +
                                     describe(op));
          unary(op, in, [in, shape](Frame<B> &f) {
            // An uneven (dynamic) dim takes what the others leave.
            std::vector<int64_t> s = shape;
            int64_t known = 1;
            for (int64_t d : s)
              if (d != ShapedType::kDynamic)
                known *= d;
            for (int64_t &d : s)
              if (d == ShapedType::kDynamic)
                d = known ? f.at(in[0]).numel() / known : 0;
            return reshape(f.at(in[0]), s);
          });
        })
        .Case([&](m::RotaryOp r) {
          float theta = r.getTheta().convertToDouble();
          unary(op, in, [in, theta](Frame<B> &f) {
            return rotary(f.at(in[0]), 0, theta);
          });
        })
        .Case([&](m::AttentionOp a) {
          bool causal = a.getCausal();
          unary(op, in, [in, causal](Frame<B> &f) {
            return attention(f.at(in[0]), f.at(in[1]), f.at(in[2]), causal);
          });
        })
        .Case([&](m::ArangeOp a) {
          int64_t n = a.getType().getDimSize(0);
          unary(op, in, [n](Frame<B> &) {
            std::vector<float> v(n);
            for (int64_t i = 0; i < n; ++i)
              v[i] = (float)i;
            return B::fromHost(Tensor::fromData({n}, std::move(v)));
          });
        })
        .Case([&](m::ExpOp) {
          unary(op, in, [in](Frame<B> &f) { return exp(f.at(in[0])); });
        })
        .Default([&](Operation *) {
          if (compileHostOnlyOp(op, in))
            return;
          throw std::runtime_error(
              "tp executor cannot run " + describe(op) +
              (isa<mlir::tp::DTensorType>(op->getResultTypes().empty()
                                              ? Type()
                                              : op->getResult(0).getType())
                   ? " (the program is not partitioned; run tp-pipeline)"
                   : ""));
        });
  }

  /// The ops whose kernels exist on the host only (transpose and the loss
  /// ops); false if `op` is none of them. Other backends reject them.
  bool compileHostOnlyOp(Operation *op, const std::vector<int> &in) {
    if (!isa<m::TransposeOp, m::SubOp, m::LogOp, m::ReduceMaxOp, m::ReduceSumOp,
             m::MeanOp, m::TargetLogitOp, mlir::tp::ShardedTargetLogitOp,
             m::CrossEntropyOp>(op))
      return false;
    if constexpr (!B::kHostOnlyKernels) {
      throw std::runtime_error(std::string("the ") + B::kName +
                               " backend has no kernel for " + describe(op));
    } else {
      Impl<B> &P = impl;
      llvm::TypeSwitch<Operation *>(op)
          .Case([&](m::TransposeOp t) {
            std::vector<int64_t> perm(t.getPermutation().begin(),
                                      t.getPermutation().end());
            unary(op, in, [in, perm](Frame<B> &f) {
              return permute(f.at(in[0]), perm);
            });
          })
          .Case([&](m::SubOp) {
            unary(op, in,
                  [in](Frame<B> &f) { return sub(f.at(in[0]), f.at(in[1])); });
          })
          .Case([&](m::LogOp) {
            unary(op, in, [in](Frame<B> &f) { return log(f.at(in[0])); });
          })
          .Case([&](m::ReduceMaxOp r) {
            int64_t dim = r.getDim();
            unary(op, in, [in, dim](Frame<B> &f) {
              return reduceMax(f.at(in[0]), dim);
            });
          })
          .Case([&](m::ReduceSumOp r) {
            int64_t dim = r.getDim();
            unary(op, in, [in, dim](Frame<B> &f) {
              return reduceSum(f.at(in[0]), dim);
            });
          })
          .Case([&](m::MeanOp) {
            unary(op, in, [in](Frame<B> &f) { return mean(f.at(in[0])); });
          })
          .Case([&](m::TargetLogitOp) {
            unary(op, in, [in](Frame<B> &f) {
              return targetLogit(f.at(in[0]), f.at(in[1]), 0);
            });
          })
          .Case([&](mlir::tp::ShardedTargetLogitOp t) {
            // This rank holds classes [offset, offset + local classes).
            std::vector<int64_t> axes(t.getMeshAxes().begin(),
                                      t.getMeshAxes().end());
            int64_t classes = t.getNumClasses();
            unary(op, in, [&P, in, axes, classes](Frame<B> &f) {
              int64_t offset = rt::chunkOf(classes, P.groupSize(axes),
                                           P.groupIndex(f.coords, axes))
                                   .offset;
              return targetLogit(f.at(in[0]), f.at(in[1]), offset);
            });
          })
          .Case([&](m::CrossEntropyOp) {
            unary(op, in, [in](Frame<B> &f) {
              return crossEntropy(f.at(in[0]), f.at(in[1]));
            });
          });
      return true;
    }
  }

  /// Ops with one result computed by `fn`, a kernel call on f32 tensors.
  /// Kernels compute in f32: 16-bit operands are widened for the call (the
  /// frame holds them in their dtype again afterwards) and a 16-bit result is
  /// rounded once, as PyTorch's CPU kernels for bf16 and f16 do.
  void unary(Operation *op, const std::vector<int> &in,
             std::function<Buffer(Frame<B> &)> fn) {
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      throw std::runtime_error("tp executor needs tensor results: " +
                               describe(op));
    int out = slotOf(op->getResult(0));
    rt::DType outType = slotDtypes[out];
    std::vector<int> widen;
    for (int s : in)
      if (slotDtypes[s] != rt::DType::F32 && !llvm::is_contained(widen, s))
        widen.push_back(s);
    if (widen.empty() && outType == rt::DType::F32) {
      emit([out, fn = std::move(fn)](Frame<B> &f) { f.set(out, fn(f)); });
      return;
    }
    emit([out, outType, widen, fn = std::move(fn)](Frame<B> &f) {
      std::vector<std::shared_ptr<Buffer>> held;
      held.reserve(widen.size());
      for (int s : widen) {
        held.push_back(std::move(f.slots[s]));
        f.set(s, B::convert(*held.back(), rt::DType::F32));
      }
      Buffer result = fn(f);
      for (size_t i = 0; i < widen.size(); ++i)
        f.slots[widen[i]] = std::move(held[i]);
      f.set(out, B::convert(std::move(result), outType));
    });
  }

  template <typename OpT>
  void
  collective(OpT c, const std::vector<int> &in,
             std::function<Buffer(rt::Communicator &, const Buffer &)> fn) {
    std::vector<int64_t> axes(c.getMeshAxes().begin(), c.getMeshAxes().end());
    impl.axisGroups.insert(axes);
    int out = slotOf(c.getResult());
    Impl<B> &P = impl;
    int src = in[0];
    emit([&P, axes, src, out, fn = std::move(fn)](Frame<B> &f) {
      f.set(out, fn(P.comm(f, axes), f.at(src)));
    });
  }

  void compileParam(m::ParamOp p) {
    ParamInfo info = paramInfo(p);
    // One FQN names one tensor (in a weights file too): a tied parameter is
    // one op, or ops of the same shape.
    auto [first, inserted] = paramOps.try_emplace(info.name, p);
    if (!inserted && first->second.getType() != p.getType())
      throw std::runtime_error(
          "parameter '" + info.name + "' is declared with two types: " +
          typeString(first->second.getType()) + " (" + describe(first->second) +
          ") and " + typeString(p.getType()) + " (" + describe(p) + ")");
    size_t index = impl.params.size();
    impl.params.push_back(info);
    Impl<B> &P = impl;
    // A parameter used only by one single-axis chunk is loaded as that
    // chunk: the rank never holds the whole tensor.
    if (p->hasOneUse())
      if (auto chunk = dyn_cast<mlir::tp::ChunkOp>(*p->getUsers().begin()))
        if (chunk.getMeshAxes().size() == 1) {
          fusedChunks.insert(chunk);
          int out = slotOf(chunk.getResult());
          std::vector<int64_t> axes(chunk.getMeshAxes().begin(),
                                    chunk.getMeshAxes().end());
          int64_t dim = chunk.getAxis();
          emit([&P, index, out, axes, dim](Frame<B> &f) {
            const ParamInfo &info = P.params[index];
            int64_t n = info.globalShape[dim], k = P.groupSize(axes);
            rt::Chunk c = rt::chunkOf(n, k, P.groupIndex(f.coords, axes));
            Slice s{dim, c.offset, c.size};
            f.loadParam(out, index, [&] {
              return loadParam(info, *f.data, f.weights.get(), &s);
            });
          });
          return;
        }
    int out = slotOf(p.getResult());
    emit([&P, index, out](Frame<B> &f) {
      f.loadParam(out, index, [&] {
        return loadParam(P.params[index], *f.data, f.weights.get(), nullptr);
      });
    });
  }

  /// Frees each slot after its last use and computes the peak live bytes.
  void planLiveness(Block &block) {
    std::vector<int> lastUse(impl.numSlots, -1);
    // Map each instruction back to the slots it reads: re-walk in order.
    int idx = 0;
    std::vector<int> instrOfOp;
    for (Operation &op : block.without_terminator()) {
      if (auto c = dyn_cast<mlir::tp::ChunkOp>(&op); c && fusedChunks.count(c))
        continue;
      // Each compiled op produced exactly one instruction.
      if (isa<m::ParamOp>(&op) && op.hasOneUse() &&
          isa<mlir::tp::ChunkOp>(*op.getUsers().begin()) &&
          fusedChunks.count(cast<mlir::tp::ChunkOp>(*op.getUsers().begin()))) {
        ++idx;
        continue;
      }
      for (Value v : op.getOperands())
        lastUse[slots[v]] = idx;
      ++idx;
    }
    std::set<int> keep(impl.resultSlots.begin(), impl.resultSlots.end());
    for (int s = 0; s < impl.numSlots; ++s)
      if (lastUse[s] >= 0 && !keep.count(s))
        impl.instrs[lastUse[s]].frees.push_back(s);
    // Peak: walk the instructions accumulating defined sizes.
    auto bytes = [&](int s) -> int64_t {
      auto t = dyn_cast<RankedTensorType>(slotValues[s].getType());
      if (!t || !t.hasStaticShape())
        return 0;
      return t.getNumElements() * elementBytes(t);
    };
    int64_t live = 0;
    for (int s : impl.inputSlots)
      live += bytes(s);
    impl.peak = live;
    std::vector<int> defined(impl.instrs.size(), -1);
    // Slots are numbered in definition order after the inputs.
    int next = impl.inputSlots.size();
    for (size_t i = 0; i < impl.instrs.size(); ++i) {
      if (next < impl.numSlots)
        live += bytes(next++);
      impl.peak = std::max(impl.peak, live);
      for (int s : impl.instrs[i].frees)
        live -= bytes(s);
    }
  }

  Impl<B> &impl;
  llvm::DenseMap<Value, int> slots;
  std::vector<Value> slotValues;
  /// The runtime dtype of each slot.
  std::vector<rt::DType> slotDtypes;
  llvm::DenseSet<Operation *> fusedChunks;
  /// The first param op of each FQN.
  std::map<std::string, m::ParamOp> paramOps;
};

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Runs \p impl as rank comm.rank(); see Program::run.
template <class B>
std::vector<typename B::Buffer>
runProgram(const Impl<B> &impl, rt::Communicator &comm, const DataSource &data,
           RankStateImpl *state, int64_t *measuredPeakBytes,
           rt::CollectiveStats *stats) {
  int64_t ranks = 1;
  for (int64_t d : impl.meshShape)
    ranks *= d;
  if (comm.size() != ranks)
    throw std::runtime_error("the program's mesh has " + std::to_string(ranks) +
                             " ranks but the "
                             "communicator has " +
                             std::to_string(comm.size()));
  if (state && state->program &&
      (state->program != &impl || state->world != &comm))
    throw std::runtime_error("a RankState belongs to one program and one "
                             "communicator");
  Frame<B> f;
  f.world = &comm;
  f.data = &data;
  f.state = state;
  f.slots.resize(impl.numSlots);
  f.resident.assign(impl.numSlots, false);
  f.coords = impl.coordsOf(comm.rank());
  // Sub-communicators, created in the same order on every rank (once per
  // RankState).
  auto &groups = state ? state->groups : f.ownGroups;
  if (!state || !state->program) {
    for (const std::vector<int64_t> &axes : impl.axisGroups) {
      if (axes.size() == impl.meshShape.size())
        continue;
      std::vector<int64_t> others;
      for (int64_t a = 0; a < (int64_t)impl.meshShape.size(); ++a)
        if (llvm::find(axes, a) == axes.end())
          others.push_back(a);
      int color = impl.groupIndex(f.coords, others);
      int key = impl.groupIndex(f.coords, axes);
      groups[axes] = comm.split(color, key);
    }
    if (state) {
      state->program = &impl;
      state->world = &comm;
    }
  }
  f.groups = &groups;
  rt::CollectiveStats worldBefore = comm.stats();
  std::map<std::vector<int64_t>, rt::CollectiveStats> statsBefore;
  for (auto &[axes, group] : groups)
    statsBefore[axes] = group->stats();
  if (!data.weightsFile.empty() &&
      !(state && state->params.size() == impl.params.size()))
    f.weights = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.weightsFile));
  if (!data.inputsFile.empty())
    f.inputs = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  for (size_t i = 0; i < impl.inputs.size(); ++i)
    f.set(impl.inputSlots[i],
          B::fromHost(localInput(
              impl.inputs[i], loadInput(impl.inputs[i], data, f.inputs.get()),
              impl.meshShape, f.coords)));
  // Live bytes: resident parameters count from the start, others from their
  // definition to their last use.
  int64_t live = state ? state->paramBytes : 0, peak = 0;
  for (int s : impl.inputSlots)
    live += f.at(s).bytes();
  peak = live;
  for (const Instr<B> &instr : impl.instrs) {
    int64_t before = state ? state->paramBytes : 0;
    instr.fn(f);
    if (!f.resident[instr.def])
      live += f.at(instr.def).bytes();
    else if (state)
      live += state->paramBytes - before; // loaded by this run
    peak = std::max(peak, live);
    for (int s : instr.frees) {
      if (!f.resident[s])
        live -= f.at(s).bytes();
      f.slots[s].reset();
    }
  }
  if (measuredPeakBytes)
    *measuredPeakBytes = peak;
  if (stats) {
    // This run's calls: the communicators may have been used before.
    auto add = [&](const rt::CollectiveStats &now,
                   const rt::CollectiveStats &then) {
      for (auto &[k, v] : now.counts)
        if (k != "split") {
          auto it = then.counts.find(k);
          stats->counts[k] += v - (it == then.counts.end() ? 0 : it->second);
        }
      stats->bytes += now.bytes - then.bytes;
    };
    add(comm.stats(), worldBefore);
    for (auto &[axes, group] : groups)
      add(group->stats(), statsBefore[axes]);
  }
  std::vector<typename B::Buffer> results;
  for (int s : impl.resultSlots)
    results.push_back(f.take(s));
  return results;
}

} // namespace tp::exec::detail

#endif // TP_LIB_EXECUTOR_EXECUTORIMPL_H
