//===- LocalResults.cpp - use_local_output at the model's boundary -*- C++
//-*-===//
//
// PyTorch's use_local_output / use_local_input decide whether a module hands
// on local torch.Tensors or DTensors. Inside a tp program every value keeps
// its layout either way, so the choice shows only where values leave it: a
// model result PyTorch would return as a local tensor is marked `tp.local`
// (each rank's piece is the result), one it would return as a DTensor is
// not (the pieces make one global tensor). Where the flag is set to a
// non-default value and cannot change anything, a warning says so.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

StyleLocality mlir::tp::getStyleLocality(Attribute style) {
  const StyleDefinition *definition = getStyleDefinition(style);
  if (!definition || !definition->locality)
    return StyleLocality();
  return definition->locality(style);
}

namespace {

/// Whether PyTorch would hold a value as a DTensor or a local tensor: the
/// last style it came out of decides; an op of local tensors and DTensors
/// gives a DTensor (PyTorch would reject the mix; tp computes it), and
/// parameters and constants take either side.
enum class Kind { Neutral, Local, DTensor };

class Locality {
public:
  explicit Locality(const llvm::StringMap<StyleLocality> &styles)
      : styles(styles) {}

  Kind of(Value v) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    Kind k = compute(v);
    memo[v] = k;
    return k;
  }

  /// The kind of result `i` of the model function `func`.
  Kind ofResult(func::FuncOp func, unsigned i) {
    if (auto root = lookup(""); root && root->outputsLocal)
      return *root->outputsLocal ? Kind::Local : Kind::DTensor;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    return of(ret.getOperand(i));
  }

private:
  const StyleLocality *lookup(StringRef fqn) {
    auto it = styles.find(fqn);
    return it == styles.end() ? nullptr : &it->second;
  }

  static Kind kindOf(bool local) { return local ? Kind::Local : Kind::DTensor; }

  Kind compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      StringRef fqn = isa<func::FuncOp>(owner) ? "" : m::getModuleFQN(owner);
      if (const StyleLocality *s = lookup(fqn); s && s->inputsLocal)
        return kindOf(*s->inputsLocal);
      if (auto sub = dyn_cast<m::SubmoduleOp>(owner))
        return of(sub.getInputs()[arg.getArgNumber()]);
      return Kind::Local; // A model input: a plain tensor.
    }
    Operation *def = v.getDefiningOp();
    if (isa<m::ParamOp>(def))
      return Kind::Neutral;
    if (StringRef fqn = m::getModuleFQN(def); !fqn.empty())
      if (const StyleLocality *s = lookup(fqn); s && s->outputsLocal)
        return kindOf(*s->outputsLocal);
    if (auto sub = dyn_cast<m::SubmoduleOp>(def)) {
      auto yield = cast<m::YieldOp>(sub.getBody().front().getTerminator());
      return of(yield.getValues()[cast<OpResult>(v).getResultNumber()]);
    }
    Kind k = Kind::Neutral;
    for (Value operand : def->getOperands())
      k = std::max(k, of(operand));
    return k;
  }

  const llvm::StringMap<StyleLocality> &styles;
  DenseMap<Value, Kind> memo;
};

} // namespace

/// Whether a value leaving module `fqn` (its outputs) reaches a model result
/// without entering another styled module, whose input preparation decides
/// anew.
static bool reachesResult(func::FuncOp func, StringRef fqn,
                          const llvm::StringMap<StyleLocality> &styles) {
  if (fqn.empty())
    return true;
  SmallVector<Value> work;
  func.walk([&](Operation *op) {
    if ((isa<m::SubmoduleOp>(op) || m::isLeafModule(op)) &&
        m::getModuleFQN(op) == fqn)
      work.append(op->result_begin(), op->result_end());
  });
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<func::ReturnOp>(user))
        return true;
      if (isa<m::YieldOp>(user)) {
        work.push_back(user->getParentOp()->getResult(use.getOperandNumber()));
        continue;
      }
      StringRef userFqn = m::getModuleFQN(user);
      if (!userFqn.empty() && styles.count(userFqn))
        continue;
      work.append(user->result_begin(), user->result_end());
    }
  }
  return false;
}

void mlir::tp::markLocalResults(ModuleOp module,
                                ArrayRef<StyledModule> styled) {
  // Per model function: each is a program of its own.
  llvm::DenseMap<Operation *, llvm::StringMap<StyleLocality>> styles;
  for (const StyledModule &s : styled)
    styles[s.func][s.fqn] = getStyleLocality(s.style);
  Builder b(module.getContext());
  TPDialect::LocalAttrHelper local(module.getContext());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    Locality locality(styles[func]);
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      auto type = dyn_cast<DTensorType>(func.getResultTypes()[i]);
      bool distributed =
          type && llvm::any_of(type.getPlacements(), [](Attribute p) {
            return !isa<ReplicateAttr>(p);
          });
      if (distributed && locality.ofResult(func, i) != Kind::DTensor)
        func.setResultAttr(i, local.getName(), b.getUnitAttr());
    }
  }
  for (const StyledModule &entry : styled) {
    const std::string &fqn = entry.fqn;
    const StyleLocality &s = styles[entry.func][fqn];
    StringRef name =
        cast<ParallelStyleAttrInterface>(entry.style).getStyleName();
    std::string where = fqn.empty() ? "the root module" : "'" + fqn + "'";
    if (s.outputsLocal && *s.outputsLocal != s.outputsDefault &&
        !reachesResult(cast<func::FuncOp>(entry.func), fqn, styles[entry.func]))
      emitWarning(entry.loc)
          << name << " on " << where
          << ": use_local_output = " << (*s.outputsLocal ? "true" : "false")
          << " has no effect: its output reaches no model result, and inside "
             "the program a local tensor and a DTensor keep the same layout";
    if (s.inputsLocal && *s.inputsLocal != s.inputsDefault)
      emitWarning(entry.loc)
          << name << " on " << where << ": " << s.inputsFlag << " = "
          << (*s.inputsLocal ? "true" : "false")
          << " has no effect: the module's inputs keep their layout inside "
             "the program either way";
  }
}
