//===- Executor.cpp - run a partitioned tp program on N ranks ---*- C++ -*-===//
//
// Compiles an SPMD function into a flat list of closures over numbered value
// slots (freed after their last use), and runs it per rank: model ops call
// the CPU kernels, tp collectives call the rank's communicators (one per
// set of mesh axes), parameters are loaded as this rank's shard only.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/Executor.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Runtime/Init.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/Safetensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace mlir;
using namespace ::tp::exec;
namespace m = mlir::tp::model;
namespace rt = ::tp::runtime;
using mlir::tp::MeshOp;

namespace {

/// Per-rank state while a program runs.
struct Frame {
  std::vector<Tensor> slots;
  rt::Communicator *world = nullptr;
  std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>> groups;
  std::vector<int64_t> coords;
  const DataSource *data = nullptr;
  std::unique_ptr<rt::SafetensorsFile> weights, inputs;
};

struct Instr {
  std::function<void(Frame &)> fn;
  /// The slot the instruction defines, and the slots dead after it.
  int def = -1;
  std::vector<int> frees;
};

std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  if (auto fqn = op->getAttrOfType<StringAttr>("fqn"))
    os << " '" << fqn.getValue() << "'";
  os << " at " << op->getLoc();
  return s;
}

std::vector<int64_t> shapeOf(Type t) {
  auto r = cast<RankedTensorType>(t);
  return std::vector<int64_t>(r.getShape().begin(), r.getShape().end());
}

/// The runtime element type of a value of type \p t: its float type, with
/// integer ids held as f32. Other element types are rejected.
rt::DType dtypeOf(Type t, Operation *where) {
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
int64_t elementBytes(Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  if (!shaped)
    return 4;
  Type e = shaped.getElementType();
  return e.isBF16() || e.isF16() ? 2 : 4;
}

rt::ReduceOp reduceOp(mlir::tp::ReductionKind k) {
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

/// `x` zero-padded along `dim` to `size`.
Tensor padDim(const Tensor &x, int64_t dim, int64_t size) {
  if (x.dim(dim) == size)
    return x;
  std::vector<int64_t> padShape = x.shape();
  padShape[dim] = size - x.dim(dim);
  return rt::concatDim({x, Tensor(padShape, x.dtype())}, dim);
}

/// all_gather of torch.chunk pieces of a dim of full size `total`: every
/// rank pads its piece to the chunk size, and the padding is dropped after.
Tensor allGatherUneven(rt::Communicator &comm, const Tensor &x, int64_t dim,
                       int64_t total) {
  int64_t k = comm.size();
  int64_t chunk = (total + k - 1) / k;
  Tensor gathered = rt::allGatherDim(comm, padDim(x, dim, chunk), dim);
  std::vector<Tensor> pieces;
  for (int64_t j = 0; j < k; ++j) {
    rt::Chunk c = rt::chunkOf(total, k, j);
    pieces.push_back(rt::sliceDim(gathered, dim, j * chunk, c.size));
  }
  return rt::concatDim(pieces, dim);
}

/// reduce_scatter into torch.chunk pieces: pad the dim to a multiple of the
/// group size, reduce-scatter, keep this rank's real size.
Tensor reduceScatterUneven(rt::Communicator &comm, const Tensor &x,
                           int64_t dim, rt::ReduceOp op) {
  int64_t k = comm.size(), total = x.dim(dim);
  int64_t chunk = (total + k - 1) / k;
  Tensor mine = rt::reduceScatterDim(comm, padDim(x, dim, chunk * k), dim, op);
  rt::Chunk c = rt::chunkOf(total, k, comm.rank());
  return rt::sliceDim(mine, dim, 0, c.size);
}

} // namespace

struct Program::Impl {
  std::vector<int64_t> meshShape{1};
  std::vector<Instr> instrs;
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

  rt::Communicator &comm(Frame &f, llvm::ArrayRef<int64_t> axes) const {
    std::vector<int64_t> key(axes.begin(), axes.end());
    if ((int64_t)key.size() == (int64_t)meshShape.size())
      return *f.world;
    return *f.groups.at(key);
  }
};

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

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

static void checkShape(const rt::SafetensorsFile &file, const std::string &name,
                       const std::vector<int64_t> &expected) {
  if (!file.contains(name))
    throw std::runtime_error(file.path() + ": missing tensor '" + name + "'");
  if (file.shape(name) != expected) {
    Tensor probe(file.shape(name));
    Tensor want(expected);
    throw std::runtime_error(file.path() + ": tensor '" + name +
                             "' has shape [" + probe.shapeString() +
                             "] but the model expects [" +
                             want.shapeString() + "]");
  }
}

static Tensor loadParam(const ParamInfo &p, const DataSource &data,
                        rt::SafetensorsFile *file, const Slice *slice) {
  if (file) {
    checkShape(*file, p.name, p.globalShape);
    return (slice ? file->readSlice(p.name, slice->dim, slice->offset,
                                    slice->size)
                  : file->read(p.name))
        .to(p.dtype);
  }
  Tensor t = slice ? rt::initShard(data.seed, p.name, p.globalShape,
                                   slice->dim, slice->offset, slice->size,
                                   p.scale)
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
  return loadParam(p, data, file.get(), nullptr);
}

static Tensor loadInput(const InputInfo &in, const DataSource &data,
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
          throw std::runtime_error(
              file->path() + ": input '" + in.name + "' holds id " +
              std::to_string(v) + " outside [0, " +
              std::to_string(in.vocab) + ")");
      }
    return t;
  }
  if (in.isTokens)
    return rt::initTokens(data.seed, in.name, in.shape, in.vocab);
  return rt::initTensor(data.seed, in.name, in.shape, 1.0f).to(in.dtype);
}

Tensor Program::globalInput(const InputInfo &in, const DataSource &data) {
  std::unique_ptr<rt::SafetensorsFile> file;
  if (!data.inputsFile.empty())
    file = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  return loadInput(in, data, file.get());
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

namespace {

class Compiler {
public:
  Compiler(Program::Impl &impl) : impl(impl) {}

  void compile(func::FuncOp func) {
    ModuleOp module = func->getParentOfType<ModuleOp>();
    if (module)
      module.walk([&](MeshOp mesh) {
        if (impl.meshShape.size() == 1 && impl.meshShape[0] == 1)
          impl.meshShape.assign(mesh.getShape().begin(),
                                mesh.getShape().end());
      });
    if (func.getBody().empty())
      throw std::runtime_error("function @" + func.getName().str() +
                               " has no body");
    Block &block = func.getBody().front();
    for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
      InputInfo in;
      auto name = func.getArgAttrOfType<StringAttr>(i, "model.name");
      in.name = name ? name.getValue().str() : "arg" + std::to_string(i);
      in.shape = shapeOf(arg.getType());
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
    auto resultTypes = func->getAttrOfType<ArrayAttr>("tp.result_types");
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      impl.resultSlots.push_back(slotOf(v));
      ResultLayout layout;
      Type global = resultTypes ? cast<TypeAttr>(resultTypes[i]).getValue()
                                : v.getType();
      if (auto d = dyn_cast<mlir::tp::DTensorType>(global)) {
        layout.globalShape.assign(d.getShape().begin(), d.getShape().end());
        for (Attribute p : d.getPlacements()) {
          if (auto s = dyn_cast<mlir::tp::ShardAttr>(p))
            layout.placements.push_back("S" + std::to_string(s.getDim()));
          else if (auto pa = dyn_cast<mlir::tp::PartialAttr>(p))
            layout.placements.push_back(
                "P" + mlir::tp::stringifyReductionKind(pa.getKind()).str());
          else
            layout.placements.push_back("R");
        }
      } else {
        layout.globalShape = shapeOf(global);
        layout.placements.assign(impl.meshShape.size(), "R");
      }
      impl.results.push_back(layout);
    }
    planLiveness(block);
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
        int64_t v = cast<RankedTensorType>(t.getLogits().getType())
                        .getDimSize(1);
        if (auto full = t->getAttrOfType<IntegerAttr>("tp.num_classes"))
          v = full.getInt();
        vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      if (auto ce = dyn_cast<m::CrossEntropyOp>(user)) {
        int64_t v = cast<RankedTensorType>(ce.getLogits().getType())
                        .getDimSize(1);
        vocab = vocab < 0 ? v : std::min(vocab, v);
        continue;
      }
      if (auto emb = dyn_cast<m::EmbeddingOp>(user)) {
        Value w = emb.getWeight();
        if (auto chunk = w.getDefiningOp<mlir::tp::ChunkOp>())
          w = chunk.getInput();
        int64_t v = cast<RankedTensorType>(w.getType()).getDimSize(0);
        if (auto full = emb->getAttrOfType<IntegerAttr>("tp.vocab_size"))
          v = full.getInt();
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
    p.globalShape = shapeOf(op.getType());
    p.dtype = dtypeOf(op.getType(), op);
    if (p.globalShape.size() >= 2) {
      p.scale = 1.0f / std::sqrt((float)std::max<int64_t>(
                           1, p.globalShape.back()));
    } else if (llvm::StringRef(p.name).ends_with("weight")) {
      p.onesCentred = true;
      p.scale = 0.1f;
    } else {
      p.scale = 0.1f;
    }
    return p;
  }

  void emit(std::function<void(Frame &)> fn) {
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
    Program::Impl &P = impl;
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](m::ParamOp p) { compileParam(p); })
        .Case([&](mlir::tp::ChunkOp c) {
          if (fusedChunks.count(c))
            return;
          int out = slotOf(c.getResult());
          std::vector<int64_t> axes(c.getMeshAxes().begin(),
                                    c.getMeshAxes().end());
          int64_t dim = c.getAxis();
          emit([&P, in, out, axes, dim](Frame &f) {
            f.slots[out] = rt::chunkDim(f.slots[in[0]], dim, P.groupSize(axes),
                                        P.groupIndex(f.coords, axes));
          });
        })
        .Case([&](mlir::tp::AllGatherOp c) {
          int64_t dim = c.getGatherAxis();
          if (!c.getInput().getType().isDynamicDim(dim)) {
            collective(c, in, [dim](rt::Communicator &comm, const Tensor &x) {
              return rt::allGatherDim(comm, x, dim);
            });
            return;
          }
          int64_t total = c.getType().getDimSize(dim);
          std::vector<int64_t> outer;
          if (ShapedType::isDynamic(total)) {
            // The dim is also split on earlier mesh axes: this group's full
            // size is the nested torch.chunk of the global size.
            auto global = c->getAttrOfType<IntegerAttr>("tp.global_size");
            auto axesAttr = c->getAttrOfType<DenseI64ArrayAttr>("tp.outer_axes");
            if (!global || !axesAttr)
              throw std::runtime_error("tp executor cannot gather an uneven "
                                       "dim of unknown full size: " +
                                       describe(op));
            total = global.getInt();
            outer.assign(axesAttr.asArrayRef().begin(),
                         axesAttr.asArrayRef().end());
          }
          Program::Impl &P = impl;
          int64_t src = in[0];
          std::vector<int64_t> axes(c.getMeshAxes().begin(),
                                    c.getMeshAxes().end());
          impl.axisGroups.insert(axes);
          int out = slotOf(c.getResult());
          emit([&P, axes, src, out, dim, total, outer](Frame &f) {
            int64_t size = total;
            for (int64_t a : outer)
              size = rt::chunkOf(size, P.meshShape[a], f.coords[a]).size;
            f.slots[out] =
                allGatherUneven(P.comm(f, axes), f.slots[src], dim, size);
          });
          return;
        })
        .Case([&](mlir::tp::AllReduceOp c) {
          rt::ReduceOp r = reduceOp(c.getReduction());
          collective(c, in, [r](rt::Communicator &comm, const Tensor &x) {
            Tensor y = x;
            rt::allReduceInPlace(comm, y, r);
            return y;
          });
        })
        .Case([&](mlir::tp::ReduceScatterOp c) {
          rt::ReduceOp r = reduceOp(c.getReduction());
          int64_t dim = c.getScatterAxis();
          bool uneven = c.getType().isDynamicDim(dim);
          collective(c, in, [r, dim, uneven](rt::Communicator &comm,
                                             const Tensor &x) {
            return uneven ? reduceScatterUneven(comm, x, dim, r)
                          : rt::reduceScatterDim(comm, x, dim, r);
          });
        })
        .Case([&](mlir::tp::AllToAllOp c) {
          collective(c, in,
                     [s = c.getSplitAxis(), cc = c.getConcatAxis()](
                         rt::Communicator &comm, const Tensor &x) {
                       return rt::allToAllDims(comm, x, s, cc);
                     });
        })
        .Case([&](mlir::tp::BroadcastOp c) {
          collective(c, in, [root = c.getRoot()](rt::Communicator &comm,
                                                 const Tensor &x) {
            return rt::broadcastTensor(comm, x, root);
          });
        })
        .Case([&](m::LinearOp l) {
          bool bias = l.getBias() != nullptr;
          unary(op, in, [bias, in](Frame &f) {
            return rt::linear(f.slots[in[0]], f.slots[in[1]],
                              bias ? &f.slots[in[2]] : nullptr);
          });
        })
        .Case([&](m::EmbeddingOp e) {
          auto axesAttr = e->getAttrOfType<DenseI64ArrayAttr>("tp.vocab_shard");
          auto vocabAttr = e->getAttrOfType<IntegerAttr>("tp.vocab_size");
          if (!axesAttr || !vocabAttr) {
            unary(op, in, [in](Frame &f) {
              return rt::embedding(f.slots[in[0]], f.slots[in[1]]);
            });
            return;
          }
          // This rank holds rows [offset, offset + local rows) of the vocab.
          std::vector<int64_t> axes(axesAttr.asArrayRef().begin(),
                                    axesAttr.asArrayRef().end());
          int64_t vocab = vocabAttr.getInt();
          unary(op, in, [&P, in, axes, vocab](Frame &f) {
            rt::Chunk c = rt::chunkOf(vocab, P.groupSize(axes),
                                      P.groupIndex(f.coords, axes));
            return rt::embeddingMasked(f.slots[in[0]], f.slots[in[1]],
                                       c.offset);
          });
        })
        .Case([&](m::LayerNormOp n) {
          float eps = n.getEps().convertToDouble();
          unary(op, in, [in, eps](Frame &f) {
            return rt::layerNorm(f.slots[in[0]], &f.slots[in[1]],
                                 &f.slots[in[2]], eps);
          });
        })
        .Case([&](m::RMSNormOp n) {
          float eps = n.getEps().convertToDouble();
          unary(op, in, [in, eps](Frame &f) {
            return rt::rmsNorm(f.slots[in[0]], &f.slots[in[1]], eps);
          });
        })
        .Case([&](m::DropoutOp) {
          unary(op, in, [in](Frame &f) { return f.slots[in[0]]; });
        })
        .Case([&](m::ReluOp) {
          unary(op, in, [in](Frame &f) { return rt::relu(f.slots[in[0]]); });
        })
        .Case([&](m::GeluOp) {
          unary(op, in, [in](Frame &f) { return rt::gelu(f.slots[in[0]]); });
        })
        .Case([&](m::SiluOp) {
          unary(op, in, [in](Frame &f) { return rt::silu(f.slots[in[0]]); });
        })
        .Case([&](m::AddOp) {
          unary(op, in, [in](Frame &f) {
            return rt::add(f.slots[in[0]], f.slots[in[1]]);
          });
        })
        .Case([&](m::MulOp) {
          unary(op, in, [in](Frame &f) {
            return rt::mul(f.slots[in[0]], f.slots[in[1]]);
          });
        })
        .Case([&](m::MatmulOp) {
          unary(op, in, [in](Frame &f) {
            return rt::matmul(f.slots[in[0]], f.slots[in[1]]);
          });
        })
        .Case([&](m::SoftmaxOp s) {
          int64_t dim = s.getDim();
          unary(op, in, [in, dim](Frame &f) {
            return rt::softmax(f.slots[in[0]], dim);
          });
        })
        .Case([&](m::ReshapeOp r) {
          std::vector<int64_t> shape = shapeOf(r.getType());
          if (llvm::count(shape, ShapedType::kDynamic) > 1)
            throw std::runtime_error("tp executor cannot reshape to more "
                                     "than one uneven dim: " +
                                     describe(op));
          unary(op, in, [in, shape](Frame &f) {
            // An uneven (dynamic) dim takes what the others leave.
            std::vector<int64_t> s = shape;
            int64_t known = 1;
            for (int64_t d : s)
              if (d != ShapedType::kDynamic)
                known *= d;
            for (int64_t &d : s)
              if (d == ShapedType::kDynamic)
                d = known ? f.slots[in[0]].numel() / known : 0;
            return rt::reshape(f.slots[in[0]], s);
          });
        })
        .Case([&](m::TransposeOp t) {
          std::vector<int64_t> perm(t.getPermutation().begin(),
                                    t.getPermutation().end());
          unary(op, in, [in, perm](Frame &f) {
            return rt::permute(f.slots[in[0]], perm);
          });
        })
        .Case([&](m::RotaryOp r) {
          float theta = r.getTheta().convertToDouble();
          unary(op, in, [in, theta](Frame &f) {
            return rt::rotary(f.slots[in[0]], 0, theta);
          });
        })
        .Case([&](m::AttentionOp a) {
          bool causal = a.getCausal();
          unary(op, in, [in, causal](Frame &f) {
            return rt::attention(f.slots[in[0]], f.slots[in[1]],
                                 f.slots[in[2]], causal);
          });
        })
        .Case([&](m::ArangeOp a) {
          int64_t n = a.getType().getDimSize(0);
          unary(op, in, [n](Frame &) {
            std::vector<float> v(n);
            for (int64_t i = 0; i < n; ++i)
              v[i] = (float)i;
            return Tensor::fromData({n}, std::move(v));
          });
        })
        .Case([&](m::SubOp) {
          unary(op, in, [in](Frame &f) {
            return rt::sub(f.slots[in[0]], f.slots[in[1]]);
          });
        })
        .Case([&](m::ExpOp) {
          unary(op, in, [in](Frame &f) { return rt::exp(f.slots[in[0]]); });
        })
        .Case([&](m::LogOp) {
          unary(op, in, [in](Frame &f) { return rt::log(f.slots[in[0]]); });
        })
        .Case([&](m::ReduceMaxOp r) {
          int64_t dim = r.getDim();
          unary(op, in, [in, dim](Frame &f) {
            return rt::reduceMax(f.slots[in[0]], dim);
          });
        })
        .Case([&](m::ReduceSumOp r) {
          int64_t dim = r.getDim();
          unary(op, in, [in, dim](Frame &f) {
            return rt::reduceSum(f.slots[in[0]], dim);
          });
        })
        .Case([&](m::MeanOp) {
          unary(op, in, [in](Frame &f) { return rt::mean(f.slots[in[0]]); });
        })
        .Case([&](m::TargetLogitOp t) {
          auto axesAttr = t->getAttrOfType<DenseI64ArrayAttr>("tp.class_shard");
          auto numAttr = t->getAttrOfType<IntegerAttr>("tp.num_classes");
          std::vector<int64_t> axes;
          int64_t classes = 0;
          if (axesAttr && numAttr) {
            axes.assign(axesAttr.asArrayRef().begin(),
                        axesAttr.asArrayRef().end());
            classes = numAttr.getInt();
          }
          unary(op, in, [&P, in, axes, classes](Frame &f) {
            int64_t offset = 0;
            if (!axes.empty())
              offset = rt::chunkOf(classes, P.groupSize(axes),
                                   P.groupIndex(f.coords, axes))
                           .offset;
            return rt::targetLogit(f.slots[in[0]], f.slots[in[1]], offset);
          });
        })
        .Case([&](m::CrossEntropyOp) {
          unary(op, in, [in](Frame &f) {
            return rt::crossEntropy(f.slots[in[0]], f.slots[in[1]]);
          });
        })
        .Default([&](Operation *) {
          throw std::runtime_error(
              "tp executor cannot run " + describe(op) +
              (isa<mlir::tp::DTensorType>(op->getResultTypes().empty()
                                              ? Type()
                                              : op->getResult(0).getType())
                   ? " (the program is not partitioned; run tp-pipeline)"
                   : ""));
        });
  }

  /// Ops with one result computed by `fn`, a kernel call on f32 tensors.
  /// Kernels compute in f32: 16-bit operands are widened for the call (the
  /// frame holds them in their dtype again afterwards) and a 16-bit result is
  /// rounded once, as PyTorch's CPU kernels for bf16 and f16 do.
  void unary(Operation *op, const std::vector<int> &in,
             std::function<Tensor(Frame &)> fn) {
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
      emit([out, fn = std::move(fn)](Frame &f) { f.slots[out] = fn(f); });
      return;
    }
    emit([out, outType, widen, fn = std::move(fn)](Frame &f) {
      std::vector<Tensor> held;
      held.reserve(widen.size());
      for (int s : widen) {
        held.push_back(std::move(f.slots[s]));
        f.slots[s] = held.back().to(rt::DType::F32);
      }
      Tensor result = fn(f);
      for (size_t i = 0; i < widen.size(); ++i)
        f.slots[widen[i]] = std::move(held[i]);
      f.slots[out] = result.to(outType);
    });
  }

  template <typename OpT>
  void collective(OpT c, const std::vector<int> &in,
                  std::function<Tensor(rt::Communicator &, const Tensor &)> fn) {
    std::vector<int64_t> axes(c.getMeshAxes().begin(), c.getMeshAxes().end());
    impl.axisGroups.insert(axes);
    int out = slotOf(c.getResult());
    Program::Impl &P = impl;
    int src = in[0];
    emit([&P, axes, src, out, fn = std::move(fn)](Frame &f) {
      f.slots[out] = fn(P.comm(f, axes), f.slots[src]);
    });
  }

  void compileParam(m::ParamOp p) {
    ParamInfo info = paramInfo(p);
    size_t index = impl.params.size();
    impl.params.push_back(info);
    Program::Impl &P = impl;
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
          emit([&P, index, out, axes, dim](Frame &f) {
            const ParamInfo &info = P.params[index];
            int64_t n = info.globalShape[dim], k = P.groupSize(axes);
            rt::Chunk c = rt::chunkOf(n, k, P.groupIndex(f.coords, axes));
            Slice s{dim, c.offset, c.size};
            f.slots[out] = loadParam(info, *f.data, f.weights.get(), &s);
          });
          return;
        }
    int out = slotOf(p.getResult());
    emit([&P, index, out](Frame &f) {
      f.slots[out] =
          loadParam(P.params[index], *f.data, f.weights.get(), nullptr);
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

  Program::Impl &impl;
  llvm::DenseMap<Value, int> slots;
  std::vector<Value> slotValues;
  /// The runtime dtype of each slot.
  std::vector<rt::DType> slotDtypes;
  llvm::DenseSet<Operation *> fusedChunks;
};

} // namespace

Program Program::compile(func::FuncOp func) {
  auto impl = std::make_unique<Impl>();
  Compiler(*impl).compile(func);
  return Program(std::move(impl));
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

std::vector<Tensor> Program::run(rt::Communicator &comm,
                                 const DataSource &data,
                                 int64_t *measuredPeakBytes,
                                 rt::CollectiveStats *stats) const {
  int64_t ranks = 1;
  for (int64_t d : impl->meshShape)
    ranks *= d;
  if (comm.size() != ranks)
    throw std::runtime_error("the program's mesh has " +
                             std::to_string(ranks) + " ranks but the "
                             "communicator has " +
                             std::to_string(comm.size()));
  Frame f;
  f.world = &comm;
  f.data = &data;
  f.slots.resize(impl->numSlots);
  int64_t r = comm.rank();
  f.coords.assign(impl->meshShape.size(), 0);
  for (int64_t a = impl->meshShape.size() - 1; a >= 0; --a) {
    f.coords[a] = r % impl->meshShape[a];
    r /= impl->meshShape[a];
  }
  // Sub-communicators, created in the same order on every rank.
  for (const std::vector<int64_t> &axes : impl->axisGroups) {
    if (axes.size() == impl->meshShape.size())
      continue;
    std::vector<int64_t> others;
    for (int64_t a = 0; a < (int64_t)impl->meshShape.size(); ++a)
      if (llvm::find(axes, a) == axes.end())
        others.push_back(a);
    int color = impl->groupIndex(f.coords, others);
    int key = impl->groupIndex(f.coords, axes);
    f.groups[axes] = comm.split(color, key);
  }
  if (!data.weightsFile.empty())
    f.weights = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.weightsFile));
  if (!data.inputsFile.empty())
    f.inputs = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  for (size_t i = 0; i < impl->inputs.size(); ++i)
    f.slots[impl->inputSlots[i]] =
        loadInput(impl->inputs[i], data, f.inputs.get());
  int64_t live = 0, peak = 0;
  for (int s : impl->inputSlots)
    live += f.slots[s].bytes();
  peak = live;
  for (const Instr &instr : impl->instrs) {
    instr.fn(f);
    live += f.slots[instr.def].bytes();
    peak = std::max(peak, live);
    for (int s : instr.frees) {
      live -= f.slots[s].bytes();
      f.slots[s] = Tensor();
    }
  }
  if (measuredPeakBytes)
    *measuredPeakBytes = peak;
  if (stats) {
    auto add = [&](const rt::CollectiveStats &s) {
      for (auto &[k, v] : s.counts)
        if (k != "split")
          stats->counts[k] += v;
      stats->bytes += s.bytes;
    };
    add(comm.stats());
    for (auto &[axes, group] : f.groups)
      add(group->stats());
  }
  std::vector<Tensor> results;
  for (int s : impl->resultSlots)
    results.push_back(std::move(f.slots[s]));
  return results;
}

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
        dst = std::max(dst, v);
      else
        dst = std::min(dst, v);
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
