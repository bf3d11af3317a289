//===- CommReport.cpp - collectives per module ------------------*- C++ -*-===//
//
// tp-comm-report: counts the collectives of a partitioned program and the
// bytes each rank feeds into them, in total and per module (the FQN whose
// style caused them), and both per phase of a training step (the
// collective's tp.phase: forward, backward, optimizer), like PyTorch's
// CommDebugMode.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinTypes.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Support/JSON.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCOMMREPORTPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

constexpr const char *kKinds[] = {"all_reduce", "all_gather", "reduce_scatter",
                                  "all_to_all", "broadcast"};

struct Counts {
  std::map<std::string, int64_t> count;
  /// Bytes per collective kind, for the table's rows.
  std::map<std::string, int64_t> bytesOfKind;
  int64_t bytes = 0;
};

int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.hasStaticShape())
    return 0;
  return t.getNumElements() *
         std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

/// The phases by name, in sorted order (the JSON's key order).
SmallVector<Phase> phasesByName() {
  SmallVector<Phase> phases(allPhases());
  llvm::sort(phases, [](Phase a, Phase b) {
    return stringifyPhase(a) < stringifyPhase(b);
  });
  return phases;
}

struct Report {
  Counts total;
  /// Per phase of a training step (indexed by Phase): the totals, and the
  /// modules in program order.
  Counts phases[3];
  llvm::MapVector<StringRef, Counts> modulesOfPhase[3];
  llvm::MapVector<StringRef, Counts> modules;
  /// Whether the program is a training step (some op has a phase), whose
  /// table shows each phase's total.
  bool training = false;

  void add(Operation *op) {
    StringRef kind = op->getName().stripDialect();
    StringRef module = "<root>";
    if (auto m = op->getAttrOfType<StringAttr>("module"))
      module = m.getValue();
    int64_t bytes = bytesOf(op->getOperand(0));
    // An uneven (dynamic) gather input is at most one chunk of the result.
    if (auto gather = dyn_cast<AllGatherOp>(op); gather && bytes == 0)
      if (MeshOp mesh = lookupMesh(op, gather.getMeshAttr())) {
        int64_t n = 1;
        for (int64_t a : gather.getMeshAxes())
          n *= mesh.getShape()[a];
        bytes = (bytesOf(gather.getResult()) + n - 1) / n;
      }
    auto phase = static_cast<size_t>(getPhase(op));
    for (Counts *c : {&total, &phases[phase], &modules[module],
                      &modulesOfPhase[phase][module]}) {
      c->count[kind.str()]++;
      c->bytesOfKind[kind.str()] += bytes;
      c->bytes += bytes;
    }
  }

  /// One count per collective kind, in sorted order, zeros included.
  static void writeKinds(json::Writer &w, const Counts &c) {
    std::vector<StringRef> kinds(std::begin(kKinds), std::end(kKinds));
    llvm::sort(kinds);
    w.objectBegin();
    for (StringRef k : kinds) {
      auto it = c.count.find(k.str());
      w.member(k, it == c.count.end() ? int64_t(0) : it->second);
    }
    w.objectEnd();
  }

  /// One object per module, by name: its collectives and bytes.
  static void writeModules(json::Writer &w,
                           const llvm::MapVector<StringRef, Counts> &modules) {
    w.objectBegin();
    std::vector<const std::pair<StringRef, Counts> *> sorted;
    for (const auto &entry : modules)
      sorted.push_back(&entry);
    llvm::sort(sorted, [](auto *a, auto *b) { return a->first < b->first; });
    for (const auto *entry : sorted) {
      const Counts &c = entry->second;
      // "bytes_per_rank" sorts among the collective names.
      std::map<std::string, int64_t> fields(c.count.begin(), c.count.end());
      fields["bytes_per_rank"] = c.bytes;
      w.key(entry->first);
      w.objectBegin();
      for (const auto &[k, n] : fields)
        w.member(k, n);
      w.objectEnd();
    }
    w.objectEnd();
  }

  /// The report as JSON, indented by 2. Keys are written in sorted order
  /// (the layout llvm::json gave it, which scripts may rely on).
  std::string toJSON() const {
    std::string text;
    ::mlir::tp::json::Writer w(text, /*indent=*/2);
    w.objectBegin();
    w.member("bytes_per_rank", total.bytes);
    w.key("collectives");
    writeKinds(w, total);
    w.key("collectives_by_phase");
    w.objectBegin();
    for (Phase p : phasesByName()) {
      w.key(stringifyPhase(p));
      writeKinds(w, phases[static_cast<size_t>(p)]);
    }
    w.objectEnd();
    w.key("modules");
    writeModules(w, modules);
    w.key("modules_by_phase");
    w.objectBegin();
    for (Phase p : phasesByName()) {
      w.key(stringifyPhase(p));
      writeModules(w, modulesOfPhase[static_cast<size_t>(p)]);
    }
    w.objectEnd();
    w.objectEnd();
    return text;
  }

  /// One row per module, phase and collective (modules in program order,
  /// then phases in the order a step runs them); a training step adds each
  /// phase's total before the grand total.
  void printTable(llvm::raw_ostream &os) const {
    auto row = [&](StringRef module, StringRef kind, int64_t count,
                   int64_t bytes, StringRef phase) {
      std::string line = llvm::formatv("{0,-32} {1,-16} {2,6} {3,14}  {4}",
                                       module, kind, count, bytes, phase);
      os << StringRef(line).rtrim() << "\n";
    };
    os << llvm::formatv("{0,-32} {1,-16} {2,6} {3,14}  {4}\n", "module",
                        "collective", "count", "bytes/rank", "phase");
    for (auto &entry : modules)
      for (Phase p : allPhases()) {
        const auto &ofPhase = modulesOfPhase[static_cast<size_t>(p)];
        auto it = ofPhase.find(entry.first);
        if (it == ofPhase.end())
          continue;
        for (auto &[k, n] : it->second.count)
          row(entry.first, k, n, it->second.bytesOfKind.at(k),
              stringifyPhase(p));
      }
    auto sum = [](const Counts &c) {
      int64_t count = 0;
      for (auto &[k, n] : c.count)
        count += n;
      return count;
    };
    if (training)
      for (Phase p : allPhases()) {
        const Counts &c = phases[static_cast<size_t>(p)];
        row("total", "", sum(c), c.bytes, stringifyPhase(p));
      }
    row("total", "", sum(total), total.bytes, "");
  }
};

/// The collectives of `module` counted, or failure (with a diagnostic) when
/// it is not a partitioned program.
FailureOr<Report> collectReport(ModuleOp module) {
  if (failed(checkPassPrecondition(module, TPPass::CommReport)))
    return failure();
  Report report;
  module.walk([&](Operation *op) {
    report.training |= getPhase(op) != Phase::Forward;
    if (isa<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp, BroadcastOp>(
            op))
      report.add(op);
  });
  return report;
}

struct CommReportPass
    : public mlir::tp::impl::TPCommReportPassBase<CommReportPass> {
  using Base::Base;
  void runOnOperation() override {
    FailureOr<Report> report = collectReport(getOperation());
    if (failed(report))
      return signalPassFailure();
    if (printTable)
      report->printTable(llvm::errs());
    if (jsonFile.empty())
      return;
    std::string text = report->toJSON() + "\n";
    if (jsonFile == "-") {
      llvm::outs() << text;
      llvm::outs().flush();
      return;
    }
    std::error_code ec;
    llvm::raw_fd_ostream file(jsonFile, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      getOperation().emitError()
          << "cannot write report '" << jsonFile << "': " << ec.message();
      return signalPassFailure();
    }
    file << text;
  }
};

} // namespace

FailureOr<std::string> mlir::tp::getCommReportJSON(ModuleOp module) {
  FailureOr<Report> report = collectReport(module);
  if (failed(report))
    return failure();
  return report->toJSON();
}
