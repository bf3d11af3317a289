//===- ModelBuilder.cpp - model IR from a JSON config -----------*- C++ -*-===//
//
// Reads a JSON config of PyTorch-style hyperparameters (an MLP, the GPT-style
// transformer of PyTorch's TP tests, or a torchtitan Llama) and builds the
// model as `model` dialect IR with PyTorch FQNs. tp-model and the config
// fuzz target (fuzz/) call it.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/Builder/ModelBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Support/JSON.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::tp;
namespace json = ::mlir::tp::json;

/// Upper bounds of the config keys (docs/guide.md lists them): sizes are
/// tensor dims, so a bound keeps every element count far from overflowing;
/// `n_layers` bounds the size of the IR (and the time to build it).
static constexpr int64_t kMaxWidth = int64_t(1) << 20;  // features, dim
static constexpr int64_t kMaxBatch = int64_t(1) << 20;  // batch
static constexpr int64_t kMaxHeads = int64_t(1) << 16;  // n_heads
static constexpr int64_t kMaxVocab = int64_t(1) << 24;  // vocab_size
static constexpr int64_t kMaxSeqLen = int64_t(1) << 24; // seq lengths
static constexpr int64_t kMaxLayers = 1024;             // n_layers
static constexpr double kMaxNormEps = 1.0;              // norm_eps
static constexpr double kMaxRopeTheta = 1e12;           // rope_theta

//===----------------------------------------------------------------------===//
// Config reading
//===----------------------------------------------------------------------===//

namespace {

/// Reads typed keys of a JSON config object, keeping the first error.
/// After an error the getters return harmless placeholders (sizes are 1).
class ConfigReader {
public:
  explicit ConfigReader(const json::Object &obj) : obj(obj) {}

  /// Fails on the first key of the object (in sorted order) that is not in
  /// `known`.
  void checkKeys(StringRef arch, ArrayRef<StringRef> known) {
    std::vector<std::string> keys;
    for (const auto &kv : obj)
      keys.push_back(kv.first);
    llvm::sort(keys);
    for (const std::string &key : keys)
      if (!llvm::is_contained(known, key))
        return fail("key '" + key + "' is not a config key of arch '" + arch +
                    "' (known keys: " + llvm::join(known, ", ") + ")");
  }

  /// A positive integer of at most `max`, required unless `def` is given.
  int64_t size(StringRef key, int64_t max,
               std::optional<int64_t> def = std::nullopt) {
    const json::Value *v = lookup(key, !def);
    if (!v)
      return def ? *def : 1;
    std::optional<int64_t> i = v->getAsInteger();
    if (!i) {
      fail(llvm::formatv("key '{0}' must be an integer, got {1}", key,
                         json::toString(*v)));
      return 1;
    }
    if (*i <= 0 || *i > max) {
      fail(llvm::formatv("key '{0}' must be a positive integer of at most "
                         "{1}, got {2}",
                         key, max, *i));
      return 1;
    }
    return *i;
  }

  /// A boolean; `def` when absent.
  bool flag(StringRef key, bool def) {
    const json::Value *v = lookup(key, false);
    if (!v)
      return def;
    if (std::optional<bool> flag = v->getAsBoolean())
      return *flag;
    fail(llvm::formatv("key '{0}' must be true or false, got {1}", key,
                       json::toString(*v)));
    return def;
  }

  /// A positive number of at most `max`; `def` when absent.
  double positive(StringRef key, double max, double def) {
    const json::Value *v = lookup(key, false);
    if (!v)
      return def;
    std::optional<double> d = v->getAsNumber();
    if (!d || !std::isfinite(*d) || *d <= 0 || *d > max) {
      fail(llvm::formatv("key '{0}' must be a positive number of at most "
                         "{1}, got {2}",
                         key, llvm::format("%g", max), json::toString(*v)));
      return def;
    }
    return *d;
  }

  /// A probability in [0, 1) (nn.Dropout's p); `def` when absent.
  double probability(StringRef key, double def) {
    const json::Value *v = lookup(key, false);
    if (!v)
      return def;
    std::optional<double> d = v->getAsNumber();
    if (!d || !(*d >= 0 && *d < 1)) {
      fail(llvm::formatv("key '{0}' must be a number in [0, 1), got {1}", key,
                         json::toString(*v)));
      return def;
    }
    return *d;
  }

  /// A string, required unless `def` is given.
  std::string string(StringRef key,
                     std::optional<StringRef> def = std::nullopt) {
    const json::Value *v = lookup(key, !def);
    if (!v)
      return def ? def->str() : "";
    if (const std::string *s = v->getAsString())
      return *s;
    fail(llvm::formatv("key '{0}' must be a string, got {1}", key,
                       json::toString(*v)));
    return "";
  }

  /// Records `message` unless an earlier error was recorded.
  void fail(const Twine &message) {
    if (error.empty())
      error = message.str();
  }

  /// True while no error was recorded.
  bool ok() const { return error.empty(); }

  /// The first error, or "".
  std::string error;

private:
  const json::Value *lookup(StringRef key, bool required) {
    const json::Value *v = obj.get(key);
    if (!v && required)
      fail("key '" + key + "' is required");
    return v;
  }

  const json::Object &obj;
};

/// `arch: "mlp"`: Linear, ReLU, Linear.
struct MLPConfig {
  int64_t inFeatures, hidden, outFeatures, batch;
  bool bias;
  /// Also take `targets` and return the mean squared error of the output
  /// against them.
  bool loss = false;
  /// "float32", "bfloat16" or "float16".
  std::string dtype;
};

/// `arch: "transformer"` (PyTorch's TP test model) or `"llama"` (torchtitan).
struct TransformerConfig {
  bool llama;
  int64_t dim, nLayers, nHeads, nKVHeads, vocabSize, hiddenDim, maxSeqLen,
      batch, seqLen;
  double normEps, ropeTheta;
  bool weightTying;
  /// nn.Dropout's p where PyTorch's TP test model has them: after the
  /// embeddings and on the residual branches (attention and feed-forward
  /// outputs); 0: no dropout modules.
  double dropout = 0;
  /// Also take `targets` and return the mean cross entropy of the logits.
  bool loss = false;
  /// "float32", "bfloat16" or "float16".
  std::string dtype;
  int64_t headDim() const { return dim / nHeads; }
};

} // namespace

/// Reads `dtype` (PyTorch's names; default float32) and returns its
/// canonical name: "float32", "bfloat16" or "float16".
static std::string readDtype(ConfigReader &r) {
  std::string dtype = r.string("dtype", StringRef("float32"));
  if (!r.ok())
    return "float32";
  if (llvm::is_contained({"float32", "float", "f32"}, dtype))
    return "float32";
  if (llvm::is_contained({"bfloat16", "bf16"}, dtype))
    return "bfloat16";
  if (llvm::is_contained({"float16", "half", "f16"}, dtype))
    return "float16";
  r.fail("key 'dtype' has unknown value \"" + dtype +
         "\" (expected \"float32\", \"bfloat16\" or \"float16\")");
  return "float32";
}

/// Reads an `mlp` config; none after an error (recorded in `r`).
static std::optional<MLPConfig> readMLP(ConfigReader &r) {
  r.checkKeys("mlp", {"arch", "in_features", "hidden", "out_features", "bias",
                      "batch", "dtype", "loss"});
  MLPConfig c;
  c.inFeatures = r.size("in_features", kMaxWidth);
  c.hidden = r.size("hidden", kMaxWidth);
  c.outFeatures = r.size("out_features", kMaxWidth);
  c.bias = r.flag("bias", true);
  c.batch = r.size("batch", kMaxBatch);
  c.loss = r.flag("loss", false);
  c.dtype = readDtype(r);
  if (!r.ok())
    return std::nullopt;
  return c;
}

/// torchtitan's FFN size: int(2 * 4 * dim / 3) rounded up to a multiple of
/// 256 (multiple_of = 256, no ffn_dim_multiplier).
static int64_t llamaHiddenDim(int64_t dim) {
  int64_t hidden = 2 * 4 * dim / 3;
  return llvm::alignTo(hidden, 256);
}

/// Reads a `transformer` or `llama` config and checks that its sizes are
/// consistent; none after an error (recorded in `r`).
static std::optional<TransformerConfig> readTransformer(ConfigReader &r,
                                                        bool llama) {
  SmallVector<StringRef> known = {
      "arch",       "dim",          "n_layers",    "n_heads", "n_kv_heads",
      "vocab_size", "hidden_dim",   "max_seq_len", "batch",   "seq_len",
      "norm_eps",   "weight_tying", "dtype",       "loss",    "dropout"};
  if (llama)
    known.push_back("rope_theta");
  r.checkKeys(llama ? "llama" : "transformer", known);
  TransformerConfig c;
  c.llama = llama;
  c.dim = r.size("dim", kMaxWidth);
  c.nLayers = r.size("n_layers", kMaxLayers);
  c.nHeads = r.size("n_heads", kMaxHeads);
  c.nKVHeads = r.size("n_kv_heads", kMaxHeads, c.nHeads);
  c.vocabSize = r.size("vocab_size", kMaxVocab);
  c.hiddenDim = r.size("hidden_dim", kMaxWidth,
                       llama ? llamaHiddenDim(c.dim) : 4 * c.dim);
  c.maxSeqLen = r.size("max_seq_len", kMaxSeqLen);
  c.batch = r.size("batch", kMaxBatch);
  c.seqLen = r.size("seq_len", kMaxSeqLen);
  c.normEps = r.positive("norm_eps", kMaxNormEps, 1e-5);
  c.ropeTheta =
      llama ? r.positive("rope_theta", kMaxRopeTheta, 10000.0) : 10000.0;
  c.weightTying = r.flag("weight_tying", false);
  c.dropout = r.probability("dropout", 0.0);
  c.loss = r.flag("loss", false);
  c.dtype = readDtype(r);
  if (!r.ok())
    return std::nullopt;

  if (c.dim % c.nHeads)
    r.fail(llvm::formatv("key 'dim' ({0}) must be divisible by 'n_heads' "
                         "({1})",
                         c.dim, c.nHeads));
  else if (c.nHeads % c.nKVHeads)
    r.fail(llvm::formatv("key 'n_heads' ({0}) must be divisible by "
                         "'n_kv_heads' ({1})",
                         c.nHeads, c.nKVHeads));
  else if (llama && c.headDim() % 2)
    r.fail(llvm::formatv("key 'dim': head_dim = dim / n_heads = {0} is odd, "
                         "but llama's rotary embedding needs an even "
                         "head_dim",
                         c.headDim()));
  else if (c.seqLen > c.maxSeqLen)
    r.fail(llvm::formatv("key 'seq_len' ({0}) must be at most "
                         "'max_seq_len' ({1})",
                         c.seqLen, c.maxSeqLen));
  if (!r.ok())
    return std::nullopt;
  return c;
}

//===----------------------------------------------------------------------===//
// IR building
//===----------------------------------------------------------------------===//

namespace {

/// Creates model-dialect ops at the builder's insertion point, one helper
/// per PyTorch module or functional op. Parameters are created where the
/// module using them is, i.e. inside the composite module that owns them.
class ModelBuilder {
public:
  ModelBuilder(MLIRContext *ctx, StringRef file)
      : b(ctx), loc(FileLineColLoc::get(ctx, file, 1, 1)),
        elt(Float32Type::get(ctx)), i64(IntegerType::get(ctx, 64)) {}

  OpBuilder b;
  Location loc;
  /// The element type of every float tensor (the config's dtype).
  Type elt;
  Type i64;

  /// Sets the element type from a canonical dtype name.
  void setDtype(StringRef dtype) {
    MLIRContext *ctx = b.getContext();
    elt = dtype == "bfloat16"  ? Type(BFloat16Type::get(ctx))
          : dtype == "float16" ? Type(Float16Type::get(ctx))
                               : Type(Float32Type::get(ctx));
  }

  /// A float tensor type of the model's dtype.
  RankedTensorType tensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elt);
  }
  /// The shape of a ranked tensor value.
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }
  /// The location of module `fqn`.
  Location at(StringRef fqn) { return NameLoc::get(b.getStringAttr(fqn), loc); }

  /// `model.param "<name>" : tensor<shape x dtype>`.
  Value param(const Twine &name, ArrayRef<int64_t> shape) {
    return model::ParamOp::create(b, loc, tensor(shape), name.str());
  }

  /// nn.Linear `fqn` to `out` features; `weight` is created unless given.
  Value linear(const Twine &fqn, Value x, int64_t out, bool bias,
               Value weight = {}) {
    std::string name = fqn.str();
    if (!weight)
      weight = param(name + ".weight", {out, shapeOf(x).back()});
    Value biasParam = bias ? param(name + ".bias", {out}) : Value();
    SmallVector<int64_t> shape(shapeOf(x));
    shape.back() = out;
    return model::LinearOp::create(b, at(name), tensor(shape), name, x, weight,
                                   biasParam);
  }

  /// nn.Embedding `fqn` of `ids` with the given [num, dim] `weight`.
  Value embedding(StringRef fqn, Value ids, Value weight) {
    SmallVector<int64_t> shape(shapeOf(ids));
    shape.push_back(shapeOf(weight)[1]);
    return model::EmbeddingOp::create(b, at(fqn), tensor(shape), fqn, ids,
                                      weight);
  }

  /// nn.LayerNorm `fqn` (weight and bias) over the last dim.
  Value layerNorm(const Twine &fqn, Value x, double eps) {
    std::string name = fqn.str();
    int64_t dim = shapeOf(x).back();
    Value w = param(name + ".weight", {dim});
    Value bias = param(name + ".bias", {dim});
    return model::LayerNormOp::create(b, at(name), x.getType(), name, x, w,
                                      bias, llvm::APFloat(eps));
  }

  /// RMSNorm `fqn` (weight only) over the last dim.
  Value rmsNorm(const Twine &fqn, Value x, double eps) {
    std::string name = fqn.str();
    Value w = param(name + ".weight", {shapeOf(x).back()});
    return model::RMSNormOp::create(b, at(name), x.getType(), name, x, w,
                                    llvm::APFloat(eps));
  }

  /// nn.Dropout `fqn` with probability `p` (none at p = 0).
  Value dropout(const Twine &fqn, Value x, double p) {
    if (p == 0)
      return x;
    std::string name = fqn.str();
    return model::DropoutOp::create(b, at(name), x.getType(), name, x,
                                    llvm::APFloat(p));
  }

  /// `model.reshape` of `x` to `shape` (a view, as `.view(...)`).
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return model::ReshapeOp::create(b, loc, tensor(shape), x);
  }

  /// An element-wise op whose result has `lhs`'s type (`rhs` broadcasts).
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(b, loc, lhs.getType(), lhs, rhs);
  }

  /// An element-wise op of one operand (relu, gelu, silu).
  template <typename OpTy> Value unary(Value x) {
    return OpTy::create(b, loc, x.getType(), x);
  }

  /// A shape-preserving composite `model.module "<fqn>"` of class `kind`
  /// taking `x` (named "x", as in `forward(self, x)`); `body` builds its
  /// contents from the block argument and returns what is yielded.
  /// `children`, if given, is the definition order of its child modules
  /// where it differs from the order they are called in.
  Value submodule(const Twine &fqn, StringRef kind, Value x,
                  function_ref<Value(Value)> body,
                  ArrayRef<StringRef> children = {}) {
    std::string name = fqn.str();
    auto sub = model::SubmoduleOp::create(b, at(name), name, ValueRange{x},
                                          TypeRange{x.getType()});
    sub.setKindAttr(b.getStringAttr(kind));
    sub.setArgNamesAttr(b.getStrArrayAttr({"x"}));
    if (!children.empty())
      sub.setChildrenAttr(b.getStrArrayAttr(children));
    OpBuilder::InsertionGuard guard(b);
    Block &block = sub.getBody().front();
    b.setInsertionPointToStart(&block);
    model::YieldOp::create(b, loc, ValueRange{body(block.getArgument(0))});
    return sub.getOutputs()[0];
  }

  /// Adds `func.func @forward(%tokens, %targets) -> loss`: `body` computes
  /// the logits `[B, S, V]` from the tokens; the loss is the mean cross
  /// entropy of the logits, flattened to `[B*S, V]`, against `targets`.
  func::FuncOp forwardWithLoss(ModuleOp module, RankedTensorType tokens,
                               int64_t vocab, function_ref<Value(Value)> body) {
    b.setInsertionPointToEnd(module.getBody());
    int64_t rows = tokens.getNumElements();
    auto targets = RankedTensorType::get({rows}, i64);
    auto lossType = RankedTensorType::get({}, elt);
    auto fn = func::FuncOp::create(
        b, loc, "forward", b.getFunctionType({tokens, targets}, {lossType}));
    fn.setArgAttr(0, "model.name", b.getStringAttr("tokens"));
    fn.setArgAttr(1, "model.name", b.getStringAttr("targets"));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value logits = body(entry->getArgument(0));
    Value flat =
        model::ReshapeOp::create(b, loc, tensor({rows, vocab}), logits);
    Value loss = model::CrossEntropyOp::create(
        b, loc, lossType, flat, entry->getArgument(1), /*valid=*/Value(),
        /*count=*/nullptr);
    func::ReturnOp::create(b, loc, loss);
    return fn;
  }

  /// Adds `func.func @forward(%arg: argType {model.name = argName})` to
  /// `module`, its body built by `body`, and returns it.
  func::FuncOp forward(ModuleOp module, RankedTensorType argType,
                       StringRef argName, Type resultType,
                       function_ref<Value(Value)> body) {
    b.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(b, loc, "forward",
                                   b.getFunctionType({argType}, {resultType}));
    fn.setArgAttr(0, "model.name", b.getStringAttr(argName));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    func::ReturnOp::create(b, loc, body(entry->getArgument(0)));
    return fn;
  }

  /// Adds `func.func @forward(%x, %targets) -> loss`: `body` computes the
  /// output from `x`; the loss is the mean squared error against `targets`
  /// (torch.nn.functional.mse_loss: mean((y - t)^2)).
  func::FuncOp forwardWithMSE(ModuleOp module, RankedTensorType xType,
                              RankedTensorType yType,
                              function_ref<Value(Value)> body) {
    b.setInsertionPointToEnd(module.getBody());
    auto lossType = RankedTensorType::get({}, elt);
    auto fn = func::FuncOp::create(
        b, loc, "forward", b.getFunctionType({xType, yType}, {lossType}));
    fn.setArgAttr(0, "model.name", b.getStringAttr("x"));
    fn.setArgAttr(1, "model.name", b.getStringAttr("targets"));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value diff = binary<model::SubOp>(body(entry->getArgument(0)),
                                      entry->getArgument(1));
    Value loss = model::MeanOp::create(
        b, loc, lossType, binary<model::MulOp>(diff, diff), /*count=*/nullptr);
    func::ReturnOp::create(b, loc, loss);
    return fn;
  }
};

} // namespace

/// `forward(x) = net2(relu(net1(x)))`, all at function scope.
static void buildMLP(ModelBuilder &m, ModuleOp module, const MLPConfig &c) {
  m.setDtype(c.dtype);
  auto body = [&](Value x) {
    Value h = m.linear("net1", x, c.hidden, c.bias);
    h = m.unary<model::ReluOp>(h);
    return m.linear("net2", h, c.outFeatures, c.bias);
  };
  RankedTensorType in = m.tensor({c.batch, c.inFeatures}),
                   out = m.tensor({c.batch, c.outFeatures});
  if (c.loss)
    m.forwardWithMSE(module, in, out, body);
  else
    m.forward(module, in, "x", out, body);
}

/// The final or a block's norm: LayerNorm (transformer) or RMSNorm (llama).
static Value buildNorm(ModelBuilder &m, const TransformerConfig &c,
                       const Twine &fqn, Value x) {
  return c.llama ? m.rmsNorm(fqn, x, c.normEps)
                 : m.layerNorm(fqn, x, c.normEps);
}

/// The body of `<prefix>` (kind Attention): causal multi-head attention with
/// n_kv_heads key/value heads, rotary on q and k for llama.
static Value buildAttention(ModelBuilder &m, const TransformerConfig &c,
                            const std::string &prefix, Value x) {
  int64_t hd = c.headDim();
  auto heads = [&](StringRef name, int64_t n) {
    Value y = m.linear(prefix + "." + name, x, n * hd, /*bias=*/false);
    return m.reshape(y, {c.batch, c.seqLen, n, hd});
  };
  Value q = heads("wq", c.nHeads);
  Value k = heads("wk", c.nKVHeads);
  Value v = heads("wv", c.nKVHeads);
  if (c.llama) {
    llvm::APFloat theta(c.ropeTheta);
    q = model::RotaryOp::create(m.b, m.loc, q.getType(), q, theta);
    k = model::RotaryOp::create(m.b, m.loc, k.getType(), k, theta);
  }
  Value o = model::AttentionOp::create(m.b, m.loc, q.getType(), q, k, v,
                                       /*causal=*/true);
  o = m.reshape(o, {c.batch, c.seqLen, c.dim});
  return m.dropout(prefix + ".resid_dropout",
                   m.linear(prefix + ".wo", o, c.dim, /*bias=*/false),
                   c.dropout);
}

/// The body of `<prefix>` (kind FeedForward): `w2(gelu(w1 x))` with biases
/// (transformer) or SwiGLU `w2(silu(w1 x) * w3 x)` without (llama).
static Value buildFeedForward(ModelBuilder &m, const TransformerConfig &c,
                              const std::string &prefix, Value x) {
  bool bias = !c.llama;
  Value h = m.linear(prefix + ".w1", x, c.hiddenDim, bias);
  if (c.llama) {
    h = m.unary<model::SiluOp>(h);
    h = m.binary<model::MulOp>(
        h, m.linear(prefix + ".w3", x, c.hiddenDim, /*bias=*/false));
  } else {
    h = m.unary<model::GeluOp>(h);
  }
  return m.dropout(prefix + ".resid_dropout",
                   m.linear(prefix + ".w2", h, c.dim, bias), c.dropout);
}

/// The body of `layers.<i>` (kind TransformerBlock), pre-norm residual.
static Value buildBlock(ModelBuilder &m, const TransformerConfig &c,
                        const std::string &prefix, Value x) {
  Value a =
      m.submodule(prefix + ".attention", "Attention",
                  buildNorm(m, c, prefix + ".attention_norm", x), [&](Value y) {
                    return buildAttention(m, c, prefix + ".attention", y);
                  });
  Value h = m.binary<model::AddOp>(x, a);
  // torchtitan's FeedForward defines w1, w2, w3 but calls w3 before w2.
  SmallVector<StringRef> ffnChildren;
  if (c.llama)
    ffnChildren = {"w1", "w2", "w3"};
  Value f = m.submodule(
      prefix + ".feed_forward", "FeedForward",
      buildNorm(m, c, prefix + ".ffn_norm", h),
      [&](Value y) {
        return buildFeedForward(m, c, prefix + ".feed_forward", y);
      },
      ffnChildren);
  return m.binary<model::AddOp>(h, f);
}

/// `forward(tokens)`: embeddings, `n_layers` blocks, final norm and `output`
/// producing the logits.
static void buildTransformer(ModelBuilder &m, ModuleOp module,
                             const TransformerConfig &c) {
  m.setDtype(c.dtype);
  auto tokens = RankedTensorType::get({c.batch, c.seqLen}, m.i64);
  auto logits = m.tensor({c.batch, c.seqLen, c.vocabSize});
  auto body = [&](Value ids) {
    // Created at function scope so that a tied `output` can use it too.
    Value embW = m.param("tok_embeddings.weight", {c.vocabSize, c.dim});
    Value h = m.embedding("tok_embeddings", ids, embW);
    if (!c.llama) {
      Value posW = m.param("pos_embeddings.weight", {c.maxSeqLen, c.dim});
      Value pos = model::ArangeOp::create(
          m.b, m.loc, RankedTensorType::get({c.seqLen}, m.i64));
      h = m.binary<model::AddOp>(h, m.embedding("pos_embeddings", pos, posW));
    }
    h = m.dropout("dropout", h, c.dropout);
    for (int64_t i = 0; i < c.nLayers; ++i) {
      std::string prefix = "layers." + std::to_string(i);
      h = m.submodule(prefix, "TransformerBlock", h,
                      [&](Value x) { return buildBlock(m, c, prefix, x); });
    }
    h = buildNorm(m, c, "norm", h);
    return m.linear("output", h, c.vocabSize, /*bias=*/false,
                    c.weightTying ? embW : Value());
  };
  if (c.loss)
    m.forwardWithLoss(module, tokens, c.vocabSize, body);
  else
    m.forward(module, tokens, "tokens", logits, body);
}

/// Parses `text` and builds its model into `module`; returns the error
/// message on failure.
static std::optional<std::string>
buildFromConfig(ModelBuilder &m, ModuleOp module, StringRef text) {
  // A key twice is an error (the later value would silently win).
  json::ParseResult parsed = json::parse(std::string_view(text));
  if (!parsed)
    return "invalid JSON: " + parsed.error->message;
  const json::Object *obj = parsed.value.getAsObject();
  if (!obj)
    return std::string("the config must be a JSON object");

  ConfigReader r(*obj);
  std::string arch = r.string("arch");
  if (!r.ok())
    return obj->get("arch")
               ? r.error
               : r.error + " (one of \"mlp\", \"transformer\", \"llama\")";
  if (arch == "mlp") {
    if (std::optional<MLPConfig> c = readMLP(r))
      buildMLP(m, module, *c);
  } else if (arch == "transformer" || arch == "llama") {
    if (std::optional<TransformerConfig> c =
            readTransformer(r, arch == "llama"))
      buildTransformer(m, module, *c);
  } else {
    r.fail("key 'arch' has unknown value \"" + arch +
           "\" (expected \"mlp\", \"transformer\" or \"llama\")");
  }
  if (!r.ok())
    return r.error;
  return std::nullopt;
}

std::optional<std::string>
mlir::tp::model::buildModelFromConfig(ModuleOp module, StringRef text,
                                      StringRef source) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<model::ModelDialect, func::FuncDialect>();
  ModelBuilder m(ctx, source);
  return buildFromConfig(m, module, text);
}
