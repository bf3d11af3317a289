//===- Planner.cpp - plans that write themselves --------------------------===//
//
// analyzeModel reads the model's module tree; planJSON writes a choice as
// a PyTorch-style plan; search prices the combinations of choices.
//
//===----------------------------------------------------------------------===//

#include "tp/Plan/Planner.h"

#include "tp/Support/JSON.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tp::plan;
namespace json = ::mlir::tp::json;

namespace {

/// \p fqn with its numeric components as "*": "layers.0.attention" ->
/// "layers.*.attention".
std::string patternOf(llvm::StringRef fqn) {
  llvm::SmallVector<llvm::StringRef> parts;
  fqn.split(parts, '.');
  std::string out;
  for (llvm::StringRef p : parts) {
    if (!out.empty())
      out += ".";
    bool number = !p.empty() &&
                  llvm::all_of(p, [](char c) { return c >= '0' && c <= '9'; });
    out += number ? "*" : p.str();
  }
  return out;
}

llvm::StringRef fqnOf(Operation *op) {
  if (auto a = op->getAttrOfType<StringAttr>("fqn"))
    return a.getValue();
  return "";
}

bool isOp(Operation *op, llvm::StringRef name) {
  return op && op->getName().getStringRef() == name;
}

/// The logits a loss reads as \p v, looking through reshapes and the
/// slices that keep every class (a causal LM's shift: `logits[:, :-1]`), so
/// that class-sharded logits stay sharded into the loss.
Value throughRowMoves(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isOp(def, "model.slice")) {
      auto dim = def->getAttrOfType<IntegerAttr>("dim");
      auto type = dyn_cast<ShapedType>(def->getOperand(0).getType());
      if (!dim || !type || !type.hasRank() ||
          dim.getInt() == type.getRank() - 1 || dim.getInt() == -1)
        break;
    } else if (!isOp(def, "model.reshape")) {
      break;
    }
    v = def->getOperand(0);
  }
  return v;
}

/// The value \p v stands for across module boundaries: a module body's
/// argument is the module's operand, a module's result is what its body
/// yields.
Value acrossModules(Value v) {
  for (;;) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (!isOp(owner, "model.module") ||
          arg.getArgNumber() >= owner->getNumOperands())
        return v;
      v = owner->getOperand(arg.getArgNumber());
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!isOp(def, "model.module") || def->getNumRegions() != 1 ||
        def->getRegion(0).empty())
      return v;
    Operation *yield = def->getRegion(0).front().getTerminator();
    unsigned i = cast<OpResult>(v).getResultNumber();
    if (!yield || i >= yield->getNumOperands())
      return v;
    v = yield->getOperand(i);
  }
}

/// The module path of a linear's FQN: "layers.0.attention.wq" ->
/// {"layers", "0", "attention"}.
llvm::SmallVector<llvm::StringRef> modulePath(llvm::StringRef fqn) {
  llvm::SmallVector<llvm::StringRef> parts;
  fqn.split(parts, '.');
  if (!parts.empty())
    parts.pop_back();
  return parts;
}

/// Megatron's pair ending in linear \p out, if there is one: the linears
/// whose results make out's input through anything but another linear
/// (attention, activations, products, reshapes, slices, module
/// boundaries; constants and the model's other inputs such as masks and
/// rotary tables may join) all read one value X, which reaches out's input
/// through them alone. Found from the data flow, so that the linears may
/// sit in sibling modules (BERT's BertSelfAttention and BertSelfOutput) or
/// in modules of their own (GPT-2's Conv1D). Sets \p in to the input
/// linears and returns X, or a null value.
Value pairEndingIn(Operation *out, std::vector<Operation *> &in) {
  in.clear();
  Value x;
  llvm::DenseSet<Value> seen;
  std::vector<Value> work{out->getOperand(0)};
  while (!work.empty()) {
    Value v = acrossModules(work.back());
    work.pop_back();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      continue; // the model's inputs (masks, positions)
    if (isOp(def, "model.linear")) {
      Value reads = acrossModules(def->getOperand(0));
      if (x && reads != x)
        return {}; // the residual stream: linears of other inputs
      x = reads;
      if (!llvm::is_contained(in, def))
        in.push_back(def);
      continue;
    }
    for (Value operand : def->getOperands())
      work.push_back(operand);
    // Ops with regions (a module's body is crossed at its result).
    if (!isOp(def, "model.module") && def->getNumRegions())
      return {};
  }
  // X itself must not reach out's input but through the linears.
  if (!x || seen.contains(x))
    return {};
  return x;
}

/// Whether \p linear's output features are cut into slices (GPT-2's fused
/// c_attn, split into q, k and v): its ColwiseParallel shards each piece.
bool slicedFeatures(Operation *linear) {
  auto type = dyn_cast<ShapedType>(linear->getResult(0).getType());
  if (!type || !type.hasRank())
    return false;
  int64_t last = type.getRank() - 1;
  std::vector<Value> work{linear->getResult(0)};
  for (size_t i = 0; i < work.size() && i < 64; ++i)
    for (OpOperand &use : work[i].getUses()) {
      Operation *user = use.getOwner();
      if (isOp(user, "model.slice"))
        if (auto dim = user->getAttrOfType<IntegerAttr>("dim"))
          if (dim.getInt() == last || dim.getInt() == -1)
            return true;
      // Out of a module through its yield.
      if (isOp(user, "model.yield") &&
          isOp(user->getParentOp(), "model.module"))
        work.push_back(user->getParentOp()->getResult(use.getOperandNumber()));
    }
  return false;
}

/// The pairs of \p model, one per instance, in program order: each
/// linear that ends a pair (pairEndingIn) and whose linears no earlier
/// pair took. `module` is the instance's FQN (the common module path of
/// its linears; "" at the root) and the names are relative to it.
std::vector<LinearPair> pairInstances(func::FuncOp model) {
  std::vector<LinearPair> pairs;
  llvm::DenseSet<Operation *> taken;
  std::vector<Operation *> in;
  llvm::StringMap<Operation *> modules;
  model.walk([&](Operation *m) {
    if (isOp(m, "model.module"))
      modules.try_emplace(fqnOf(m), m);
  });
  model.walk([&](Operation *out) {
    if (!isOp(out, "model.linear") || out->getNumOperands() < 1 ||
        taken.contains(out))
      return;
    Value x = pairEndingIn(out, in);
    if (!x || llvm::any_of(in, [&](Operation *l) { return taken.contains(l); }))
      return;
    llvm::SmallVector<llvm::StringRef> common = modulePath(fqnOf(out));
    for (Operation *l : in) {
      llvm::SmallVector<llvm::StringRef> path = modulePath(fqnOf(l));
      size_t n = 0;
      while (n < common.size() && n < path.size() && common[n] == path[n])
        ++n;
      common.resize(n);
    }
    LinearPair pair;
    pair.module = llvm::join(common, ".");
    size_t prefix = pair.module.empty() ? 0 : pair.module.size() + 1;
    auto relative = [&](Operation *l) {
      return fqnOf(l).drop_front(prefix).str();
    };
    if (fqnOf(out).empty() ||
        llvm::any_of(in, [](Operation *l) { return fqnOf(l).empty(); }))
      return;
    for (Operation *l : in) {
      pair.in.push_back(relative(l));
      if (slicedFeatures(l))
        pair.pieces.push_back(relative(l));
      taken.insert(l);
    }
    llvm::sort(pair.in);
    llvm::sort(pair.pieces);
    pair.out = relative(out);
    taken.insert(out);
    // The module form (the module's first input is X): sequence parallel
    // gathers X once at the module's entry.
    auto m = modules.find(pair.module);
    pair.moduleInput = m != modules.end() && m->second->getNumOperands() > 0 &&
                       acrossModules(m->second->getOperand(0)) == x;
    if (pair.moduleInput)
      pair.moduleInputs.push_back(
          {pair.module, static_cast<int64_t>(m->second->getNumOperands())});
    pairs.push_back(std::move(pair));
  });
  return pairs;
}

/// The plan key of \p name in \p pair's module.
std::string keyOf(const LinearPair &pair, const std::string &name) {
  return pair.module.empty() ? name : pair.module + "." + name;
}

/// A regex-free key of a plan for names: "w[qkv]"-style groups are not
/// needed, each linear is named.
void styleEntry(
    json::Writer &w, const std::string &key, const char *style,
    std::initializer_list<std::pair<const char *, const char *>> layouts = {}) {
  w.key(key);
  w.objectBegin();
  w.member("style", style);
  for (auto [k, v] : layouts)
    w.member(k, v);
  w.objectEnd();
}

} // namespace

bool Choice::operator==(const Choice &o) const {
  return pairs == o.pairs && embedding == o.embedding && output == o.output &&
         sequenceParallel == o.sequenceParallel && fsdp == o.fsdp &&
         keepGathered == o.keepGathered && fineUnits == o.fineUnits &&
         recompute == o.recompute && dataOnly == o.dataOnly;
}

ModelStructure mlir::tp::plan::analyzeModel(func::FuncOp model) {
  ModelStructure s;
  // Norms by pattern; modules counted by pattern.
  std::set<std::string> normSet;
  std::vector<std::string> norms;
  std::map<std::string, int64_t> moduleCount;
  model.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name == "model.module")
      ++moduleCount[patternOf(fqnOf(op))];
    if (name == "model.rms_norm" || name == "model.layer_norm") {
      std::string pattern = patternOf(fqnOf(op));
      if (!pattern.empty() && normSet.insert(pattern).second)
        norms.push_back(pattern);
    }
  });
  // Pairs by pattern: a pattern is a pair when every instance of its
  // module is the same pair.
  std::map<std::string, std::pair<std::optional<LinearPair>, int64_t>>
      byPattern;
  std::vector<std::string> order;
  for (LinearPair &p : pairInstances(model)) {
    std::string pattern = patternOf(p.module);
    auto [it, inserted] = byPattern.try_emplace(pattern);
    auto &[pair, count] = it->second;
    ++count;
    if (inserted) {
      order.push_back(pattern);
      p.module = pattern;
      pair = std::move(p);
    } else if (pair && (pair->in != p.in || pair->out != p.out ||
                        pair->pieces != p.pieces ||
                        pair->moduleInput != p.moduleInput)) {
      pair.reset();
    } else if (pair) {
      llvm::append_range(pair->moduleInputs, p.moduleInputs);
    }
  }
  for (const std::string &m : order) {
    auto &[pair, count] = byPattern[m];
    auto modules = moduleCount.find(m);
    if (!pair || (modules != moduleCount.end() && modules->second != count))
      continue;
    // Instances that agree on their inputs take one entry, the pattern's.
    auto &inputs = pair->moduleInputs;
    if (!inputs.empty() && llvm::all_of(inputs, [&](const auto &i) {
          return i.second == inputs.front().second;
        }))
      inputs = {{pair->module, inputs.front().second}};
    s.pairs.push_back(*pair);
    size_t star = m.find('*');
    if (s.layers.empty() && star != std::string::npos)
      s.layers = m.substr(0, star + 1);
  }
  s.norms = norms;
  if (!s.layers.empty())
    for (const LinearPair &p : s.pairs)
      if (llvm::StringRef(p.module).starts_with(s.layers + ".") &&
          !llvm::is_contained(s.fineUnits, p.module))
        s.fineUnits.push_back(p.module);
  if (!s.layers.empty())
    model.walk([&](Operation *op) {
      if (isOp(op, "model.module") && patternOf(fqnOf(op)) == s.layers &&
          !llvm::is_contained(s.layerNames, fqnOf(op).str()))
        s.layerNames.push_back(fqnOf(op).str());
    });
  // The token embedding: the first one, at any depth (Hugging Face's sits
  // in the `model` module); the output head: the last linear at the top.
  model.walk([&](Operation *op) {
    if (isOp(op, "model.embedding") && s.embedding.empty())
      s.embedding = fqnOf(op).str();
  });
  for (Operation &op : model.getBody().front())
    if (isOp(&op, "model.linear"))
      s.output = fqnOf(&op).str();
  // The root pair's linears are not a head.
  for (const LinearPair &p : s.pairs)
    if (p.module.empty() &&
        (s.output == p.out || llvm::is_contained(p.in, s.output)))
      s.output.clear();
  if (!s.output.empty())
    model.walk([&](Operation *op) {
      if (isOp(op, "model.cross_entropy"))
        for (Value v : op->getOperands())
          if (Operation *def = throughRowMoves(v).getDefiningOp())
            if (isOp(def, "model.linear") && fqnOf(def) == s.output)
              s.crossEntropy = true;
    });
  return s;
}

int64_t mlir::tp::plan::keepLayers(func::FuncOp model,
                                   const std::string &layers, int64_t keep) {
  if (layers.empty() || keep < 1)
    return 0;
  std::vector<Operation *> chain;
  for (Operation &op : model.getBody().front())
    if (isOp(&op, "model.module") && patternOf(fqnOf(&op)) == layers)
      chain.push_back(&op);
  int64_t count = static_cast<int64_t>(chain.size());
  if (count <= keep)
    return 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    if (chain[i]->getNumResults() != 1 || chain[i]->getNumOperands() < 1)
      return 0;
    if (i > 0 && chain[i]->getOperand(0) != chain[i - 1]->getResult(0))
      return 0;
    // Only the next layer may read a layer's result.
    if (i + 1 < chain.size() && !chain[i]->getResult(0).hasOneUse())
      return 0;
  }
  chain.back()->getResult(0).replaceAllUsesWith(chain[keep - 1]->getResult(0));
  for (int64_t i = count - 1; i >= keep; --i)
    chain[i]->erase();
  return count;
}

namespace {
std::string describeRecompute(const ModelStructure &s, const Choice &c) {
  if (!c.recompute)
    return "";
  if (c.recompute >= static_cast<int64_t>(s.layerNames.size()))
    return " + recompute";
  if (c.recompute == 1)
    return " + recompute of the first layer";
  return " + recompute of the first " + std::to_string(c.recompute) + " layers";
}
} // namespace

std::string mlir::tp::plan::describe(const ModelStructure &s, const Choice &c) {
  std::string out;
  if (c.dataOnly)
    return std::string("data parallel (") +
           (c.fsdp
                ? std::string("FSDP") +
                      (c.fineUnits ? " per pair module" : "") +
                      (c.keepGathered ? ", kept gathered to the backward" : "")
                : std::string("DDP")) +
           ")" + describeRecompute(s, c);
  std::string sharded;
  for (size_t i = 0; i < s.pairs.size(); ++i)
    if (c.pairs[i])
      sharded += (sharded.empty() ? "" : ", ") + (s.pairs[i].module.empty()
                                                      ? std::string("<root>")
                                                      : s.pairs[i].module);
  out = sharded.empty() ? "no pair sharded" : "tp(" + sharded + ")";
  if (c.sequenceParallel)
    out += " + sequence parallel";
  if (c.embedding)
    out += " + " + s.embedding + " rowwise";
  if (c.output == 1)
    out += " + " + s.output + " colwise";
  if (c.output == 2)
    out += " + " + s.output + " colwise, loss_parallel";
  if (c.fsdp)
    out += std::string(" + fsdp") + (c.fineUnits ? " per pair module" : "") +
           (c.keepGathered ? " kept gathered to the backward" : "");
  return out + describeRecompute(s, c);
}

std::string mlir::tp::plan::planJSON(const ModelStructure &s,
                                     const MeshSpec &mesh, const Choice &c) {
  std::string out;
  json::Writer w(out, 2);
  w.objectBegin();
  w.key("mesh");
  w.objectBegin();
  w.key("shape");
  w.arrayBegin();
  for (int64_t d : mesh.shape)
    w.value(d);
  w.arrayEnd();
  w.key("axis_names");
  w.arrayBegin();
  for (const std::string &n : mesh.axisNames)
    w.value(n);
  w.arrayEnd();
  w.objectEnd();
  if (mesh.replicaAxis >= 0) {
    // HSDP: the batch split over both data axes, the parameters sharded
    // over one and replicated over the other.
    w.member("tp_axis", mesh.axisNames[mesh.tpAxis]);
    w.member("dp_axis", mesh.axisNames[mesh.replicaAxis]);
    w.member("fsdp_axis", mesh.axisNames[mesh.dataAxis]);
  } else if (mesh.axisNames.size() > 1) {
    w.member("tp_axis", mesh.axisNames[mesh.tpAxis]);
    w.member(c.fsdp ? "fsdp_axis" : "dp_axis", mesh.axisNames[mesh.dataAxis]);
  } else if (c.dataOnly) {
    w.member(c.fsdp ? "fsdp_axis" : "dp_axis", mesh.axisNames[0]);
  }
  if (c.fsdp && c.keepGathered)
    w.member("reshard_after_forward", false);
  // FSDP's units are the repeated layers, named (the default, layers.*, is
  // torchtitan's name: a Hugging Face model's model.layers.* would
  // otherwise be one unit with the root, the whole model gathered at once).
  if (c.fsdp && !s.layers.empty()) {
    w.key("fsdp_units");
    w.arrayBegin();
    // Finer units first: a parameter belongs to the first that holds it
    // (the layer's norms to the layer's unit).
    if (c.fineUnits)
      for (const std::string &u : s.fineUnits)
        w.value(u);
    w.value(s.layers);
    w.arrayEnd();
  }
  bool sp = c.sequenceParallel;
  w.key("plan");
  w.objectBegin();
  if (c.embedding) {
    if (sp)
      styleEntry(
          w, s.embedding, "RowwiseParallel",
          {{"input_layouts", "Replicate()"}, {"output_layouts", "Shard(1)"}});
    else
      styleEntry(w, s.embedding, "RowwiseParallel",
                 {{"input_layouts", "Replicate()"}});
  }
  if (sp)
    for (const std::string &n : s.norms)
      styleEntry(w, n, "SequenceParallel");
  for (size_t i = 0; i < s.pairs.size(); ++i) {
    if (!c.pairs[i])
      continue;
    const LinearPair &p = s.pairs[i];
    if (sp) {
      // X, the module's first input, is gathered; its other inputs (T5's
      // position bias) are left as they are.
      for (const auto &[module, inputs] : p.moduleInputs) {
        w.key(module);
        w.objectBegin();
        w.member("style", "PrepareModuleInput");
        for (auto [key, layout] :
             {std::make_pair("input_layouts", "Shard(1)"),
              std::make_pair("desired_input_layouts", "Replicate()")}) {
          w.key(key);
          w.arrayBegin();
          w.value(layout);
          for (int64_t i = 1; i < inputs; ++i)
            w.value(nullptr);
          w.arrayEnd();
        }
        w.objectEnd();
      }
    }
    for (const std::string &in : p.in) {
      if (!llvm::is_contained(p.pieces, in)) {
        styleEntry(w, keyOf(p, in), "ColwiseParallel");
        continue;
      }
      w.key(keyOf(p, in));
      w.objectBegin();
      w.member("style", "ColwiseParallel");
      w.member("shard_pieces", true);
      w.objectEnd();
    }
    if (sp)
      styleEntry(w, keyOf(p, p.out), "RowwiseParallel",
                 {{"output_layouts", "Shard(1)"}});
    else
      styleEntry(w, keyOf(p, p.out), "RowwiseParallel");
  }
  if (c.output == 1)
    styleEntry(
        w, s.output, "ColwiseParallel",
        sp ? std::initializer_list<
                 std::pair<const char *, const char *>>{{"input_layouts",
                                                         "Shard(1)"},
                                                        {"output_layouts",
                                                         "Replicate()"}}
           : std::initializer_list<std::pair<const char *, const char *>>{
                 {"output_layouts", "Replicate()"}});
  if (c.output == 2) {
    w.key(s.output);
    w.objectBegin();
    w.member("style", "ColwiseParallel");
    if (sp)
      w.member("input_layouts", "Shard(1)");
    w.member("use_local_output", false);
    w.objectEnd();
  }
  w.objectEnd();
  if (c.output == 2)
    w.member("loss_parallel", true);
  if (c.recompute) {
    w.key("recompute");
    w.arrayBegin();
    if (c.recompute >= static_cast<int64_t>(s.layerNames.size()))
      w.value(s.layers);
    else
      for (int64_t i = 0; i < c.recompute; ++i)
        w.value(s.layerNames[i]);
    w.arrayEnd();
  }
  w.objectEnd();
  out += "\n";
  return out;
}

Choice mlir::tp::plan::megatronChoice(const ModelStructure &s,
                                      const MeshSpec &mesh) {
  Choice c;
  c.pairs.assign(s.pairs.size(), true);
  c.embedding = !s.embedding.empty();
  c.output = s.output.empty() ? 0 : 1;
  // On a 3-D mesh its data axes are HSDP's (as torchtitan's).
  c.fsdp = mesh.replicaAxis >= 0;
  return c;
}

Choice mlir::tp::plan::torchtitanChoice(const ModelStructure &s,
                                        const MeshSpec &mesh) {
  Choice c = megatronChoice(s, mesh);
  c.sequenceParallel =
      !s.pairs.empty() && c.embedding && c.output > 0 && !s.norms.empty() &&
      llvm::all_of(s.pairs, [](const LinearPair &p) { return p.moduleInput; });
  if (s.crossEntropy && c.output > 0)
    c.output = 2;
  return c;
}

int64_t mlir::tp::plan::stateBytes(const Evaluation &e) {
  // MemoryPlan::stagePeakBytes: the inputs read, the forward, the
  // backward, the optimizer, the results handed out. The optimizer's
  // stage is not among them: its instructions may run while the
  // backward's activations live (a gradient bucket's all_reduce).
  if (e.stagePeakBytes.size() != 5)
    return 0;
  return std::max(e.stagePeakBytes[0], e.stagePeakBytes[4]);
}

SearchResult
mlir::tp::plan::search(const ModelStructure &s, const MeshSpec &mesh,
                       const SearchOptions &options,
                       const std::function<Evaluation(const Choice &)> &eval) {
  // Every combination, the standard plans first (so that a tie keeps
  // them).
  std::vector<Choice> candidates{torchtitanChoice(s, mesh)};
  if (!(megatronChoice(s, mesh) == candidates.front()))
    candidates.push_back(megatronChoice(s, mesh));
  size_t pairCombos = size_t(1) << s.pairs.size();
  std::vector<int> outputs{0};
  if (!s.output.empty()) {
    outputs.push_back(1);
    if (s.crossEntropy)
      outputs.push_back(2);
  }
  bool twoD = mesh.shape.size() > 1;
  int64_t allLayers = static_cast<int64_t>(s.layerNames.size());
  bool canRecompute = options.train && !s.layers.empty() && allLayers > 0;
  bool allModuleInputs =
      llvm::all_of(s.pairs, [](const LinearPair &p) { return p.moduleInput; });
  for (size_t mask = 0; mask < pairCombos; ++mask)
    for (int embedding = 0; embedding < (s.embedding.empty() ? 1 : 2);
         ++embedding)
      for (int output : outputs)
        for (int sp = 0; sp < 2; ++sp)
          for (int fsdp = mesh.replicaAxis >= 0 ? 1 : 0; fsdp < (twoD ? 2 : 1);
               ++fsdp)
            for (int recompute = 0; recompute < (canRecompute ? 2 : 1);
                 ++recompute) {
              Choice c;
              for (size_t i = 0; i < s.pairs.size(); ++i)
                c.pairs.push_back((mask >> i) & 1);
              c.embedding = embedding;
              c.output = output;
              c.sequenceParallel = sp;
              c.fsdp = fsdp;
              c.recompute = recompute ? allLayers : 0;
              // Sequence parallel shards the activations between the
              // pairs: every pair, the embedding and the head take part.
              if (sp &&
                  (s.pairs.empty() || mask + 1 != pairCombos || !embedding ||
                   output == 0 || s.norms.empty() || !allModuleInputs))
                continue;
              if (llvm::is_contained(candidates, c))
                continue;
              candidates.push_back(std::move(c));
            }
  // Under training every FSDP choice also keeping its units gathered from
  // the forward to the backward (a forward has no backward to keep them
  // for). It saves a gather per unit; its memory may be more (each unit's
  // whole parameters live across the step) or less (no unit gathered
  // again, nor prefetched, while the backward's activations live).
  auto withKeptGathered = [&]() {
    if (!options.train)
      return;
    for (size_t i = 0, n = candidates.size(); i < n; ++i)
      if (candidates[i].fsdp) {
        Choice kept = candidates[i];
        kept.keepGathered = true;
        candidates.push_back(std::move(kept));
      }
  };
  // A 1-D mesh may serve data parallelism instead: DDP or FSDP over it.
  if (mesh.shape.size() == 1)
    for (int fsdp = 0; fsdp < 2; ++fsdp)
      for (int recompute = 0; recompute < (canRecompute ? 2 : 1); ++recompute) {
        Choice c;
        c.pairs.assign(s.pairs.size(), false);
        c.dataOnly = true;
        c.fsdp = fsdp;
        c.recompute = recompute ? allLayers : 0;
        candidates.push_back(std::move(c));
      }
  withKeptGathered();
  SearchResult result;
  auto price = [&](const Choice &c, const Evaluation *known = nullptr) {
    Evaluation e = known ? *known : eval(c);
    result.tried.push_back({c, e});
    size_t i = result.tried.size() - 1;
    if (!e.ok)
      return;
    if (!result.smallest ||
        e.peakBytes < result.tried[*result.smallest].second.peakBytes)
      result.smallest = i;
    if (options.budget > 0 && e.peakBytes > options.budget)
      return;
    if (!result.best) {
      result.best = i;
      return;
    }
    const Evaluation &b = result.tried[*result.best].second;
    if (e.stepSeconds < b.stepSeconds ||
        (e.stepSeconds == b.stepSeconds && e.peakBytes < b.peakBytes))
      result.best = i;
  };
  // Recompute only adds work: a choice with it is priced only where the
  // same choice without it runs and does not fit the budget.
  for (const Choice &c : candidates)
    if (!c.recompute)
      price(c);
  // Recompute and finer units lower the activations and the parameters
  // gathered at once, not what lives before the first instruction and
  // after the last: where that alone exceeds the budget, neither is priced.
  auto overBudget = [&](const Choice &c, const Evaluation &without) {
    int64_t state = stateBytes(without);
    if (!options.budget || state <= options.budget)
      return false;
    Unpriced u;
    u.choice = c;
    u.bound = Unpriced::Bound::State;
    u.stateBytes = state;
    result.unpriced.push_back(std::move(u));
    return true;
  };
  auto bestSeconds = [&]() {
    return result.best ? result.tried[*result.best].second.stepSeconds
                       : std::numeric_limits<double>::infinity();
  };
  // A time bound: \p c takes no less than \p seconds, and that is no
  // less than the best plan that fits.
  auto noFaster = [&](const Choice &c, double seconds, Unpriced::Bound bound) {
    if (seconds < bestSeconds())
      return false;
    Unpriced u;
    u.choice = c;
    u.bound = bound;
    u.boundSeconds = seconds;
    u.fitSeconds = bestSeconds();
    result.unpriced.push_back(std::move(u));
    return true;
  };
  // The candidates priced so far that \p pred takes, by \p key (least
  // first).
  auto pricedBy = [&](auto pred, double Evaluation::*key) {
    std::vector<size_t> picked;
    for (size_t i = 0; i < result.tried.size(); ++i)
      if (result.tried[i].second.ok && pred(result.tried[i]))
        picked.push_back(i);
    llvm::stable_sort(picked, [&](size_t a, size_t b) {
      return result.tried[a].second.*key < result.tried[b].second.*key;
    });
    return picked;
  };
  // Finer FSDP units gather fewer parameters at once, in more and smaller
  // collectives: less memory, and a step that may be faster (the smaller
  // gathers hide better behind the compute) or slower. They do not lessen
  // the kernels (the same products, each parameter sliced out of its
  // unit's gather as often): a choice whose kernels alone take no less
  // than a plan that fits cannot win with them; the cheapest kernels
  // first, so that the bound tightens as they are priced.
  for (size_t i : pricedBy(
           [&](const std::pair<Choice, Evaluation> &t) {
             return t.first.fsdp && !s.fineUnits.empty();
           },
           &Evaluation::kernelSeconds)) {
    // Copies: pricing appends to tried.
    Choice c = result.tried[i].first;
    Evaluation e = result.tried[i].second;
    c.fineUnits = true;
    if (noFaster(c, e.kernelSeconds, Unpriced::Bound::Kernels))
      continue;
    if (e.peakBytes <= options.budget || !overBudget(c, e)) {
      price(c);
      continue;
    }
    if (canRecompute) {
      Choice twin = c;
      twin.recompute = allLayers;
      overBudget(twin, e);
    }
  }
  // Those that do not fit, fastest first: recomputing only adds work, so
  // once one is no faster than the best that fits, neither it nor any
  // after it can win with recompute (a bound, not a guess).
  for (size_t i : pricedBy(
           [&](const std::pair<Choice, Evaluation> &t) {
             return canRecompute && options.budget &&
                    t.second.peakBytes > options.budget;
           },
           &Evaluation::stepSeconds)) {
    // Copies: pricing appends to tried.
    Choice c = result.tried[i].first;
    Evaluation without = result.tried[i].second;
    Choice twin = c;
    twin.recompute = allLayers;
    if (noFaster(twin, without.stepSeconds, Unpriced::Bound::Work) ||
        overBudget(twin, without))
      continue;
    price(twin);
    Evaluation all = result.tried.back().second;
    if (!all.ok || allLayers < 2)
      continue;
    // The fewest first layers recomputed that fit, in [1, allLayers - 1]:
    // each one more only adds work. Each count is priced (from the twins,
    // where the model is cut: no lowering), whether every layer recomputed
    // fits or not: the peak need not fall with each layer recomputed (a
    // recomputed layer's backward holds its activations again, next to
    // those of the layers kept), so that fewer may fit where all do not.
    // Only the first that fits is kept.
    for (int64_t k = 1; k < allLayers; ++k) {
      Choice partial = c;
      partial.recompute = k;
      Evaluation e = eval(partial);
      if (e.ok && e.peakBytes <= options.budget) {
        // Recorded (and ranked) like any other candidate.
        price(partial, &e);
        break;
      }
    }
  }
  // Nothing fits: the smallest may be one the bounds left out, or the
  // smallest choice with fewer layers recomputed: the peak need not fall
  // with each one (a recomputed layer's backward holds its activations
  // again, next to those of the layers kept), so each count is priced.
  if (!result.best) {
    for (const Unpriced &u : result.unpriced)
      price(u.choice);
    result.unpriced.clear();
    if (result.smallest &&
        result.tried[*result.smallest].first.recompute >= allLayers) {
      Choice c = result.tried[*result.smallest].first;
      for (int64_t k = 1; k < allLayers; ++k) {
        c.recompute = k;
        price(c);
      }
    }
  }
  return result;
}
