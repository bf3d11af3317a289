//===- Report.cpp - what a run says and writes ----------------------------===//

#include "tp/Launch/Report.h"

#include "tp/Executor/Checkpoint.h"
#include "tp/Executor/CostModel.h"
#include "tp/Executor/MemoryReport.h"
#include "tp/Runtime/Compare.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace rt = ::mlir::tp::runtime;

namespace mlir::tp::exec {
namespace {

/// "2x2" for a mesh of shape [2, 2].
std::string meshString(const Program &program) {
  std::string text;
  for (size_t i = 0; i < program.meshShape().size(); ++i)
    text += (i ? "x" : "") + std::to_string(program.meshShape()[i]);
  return text;
}

/// One line per distributed result: what each rank returns, as PyTorch
/// would hand it out (use_local_output).
void printDistributedResults(llvm::raw_ostream &os, const Program &program) {
  for (auto [i, r] : llvm::enumerate(program.results())) {
    if (llvm::all_of(r.placements,
                     [](const std::string &p) { return p == "R"; }))
      continue;
    os << "output " << i;
    if (!r.gradOf.empty())
      os << " (gradient of '" << r.gradOf << "')";
    else if (!r.updated.empty())
      os << " ('" << r.updated << "' updated)";
    os << ": " << (r.local ? "each rank's local tensor" : "a DTensor") << ", [";
    llvm::interleaveComma(r.placements, os, [&](const std::string &p) {
      if (p[0] == 'S')
        os << "Shard(" << p.substr(1) << ")";
      else if (p[0] == 'I')
        os << "InnerShard(" << p.substr(1) << ")";
      else if (p[0] == 'P')
        os << "Partial(" << p.substr(1) << ")";
      else
        os << "Replicate()";
    });
    os << "] of " << rt::shapeToString(r.globalShape) << "\n";
  }
}

/// Writes \p tensors under \p names to \p path.
void writeNamed(const std::string &path, const std::vector<std::string> &names,
                const std::vector<Tensor> &tensors) {
  std::vector<std::pair<std::string, const Tensor *>> named;
  for (size_t i = 0; i < tensors.size(); ++i)
    named.push_back({names[i], &tensors[i]});
  rt::writeSafetensors(path, named);
}

/// A loss as the text report prints it: 6 digits, or "nan", "inf", "-inf"
/// (never the C library's "-nan").
std::string lossString(double l) {
  if (!std::isfinite(l))
    return rt::valueString(static_cast<float>(l));
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.6g", l);
  return text;
}

/// " all_reduce=1 all_gather=2", or " none".
void printCounts(llvm::raw_ostream &os,
                 const std::map<std::string, int64_t> &counts) {
  if (counts.empty())
    os << " none";
  for (auto &[k, v] : counts)
    os << " " << k << "=" << v;
}

/// Whether \p program is a training step (it returns gradients).
bool isTrainingStep(const Program &program) {
  return llvm::any_of(program.results(),
                      [](const ResultLayout &r) { return !r.gradOf.empty(); });
}

/// The five collectives, zeros included, in sorted order.
void writeCollectives(json::Writer &w,
                      const std::map<std::string, int64_t> &counts) {
  w.objectBegin();
  for (const char *k : {"all_gather", "all_reduce", "all_to_all", "broadcast",
                        "reduce_scatter"})
    w.member(k, counts.count(k) ? counts.at(k) : 0);
  w.objectEnd();
}

/// The profile's rows as text: a header, then one line per row.
void printProfileRows(llvm::raw_ostream &os, const char *first,
                      const std::vector<MeasuredProfile::Row> &rows) {
  os << llvm::format("  %-30s %12s %14s %6s\n", first, "compute",
                     "communication", "colls");
  for (const MeasuredProfile::Row &r : rows)
    os << llvm::format("  %-30s %12s %14s %6lld\n", r.name.c_str(),
                       formatSeconds(r.computeSeconds).c_str(),
                       formatSeconds(r.communicationSeconds).c_str(),
                       static_cast<long long>(r.collectives));
}

void writeProfileRows(json::Writer &w, const char *key,
                      const std::vector<MeasuredProfile::Row> &rows) {
  w.key(key);
  w.arrayBegin();
  for (const MeasuredProfile::Row &r : rows) {
    w.objectBegin();
    w.member("collectives", r.collectives);
    w.member("communication_seconds", r.communicationSeconds);
    w.member("compute_seconds", r.computeSeconds);
    w.member("name", r.name);
    w.objectEnd();
  }
  w.arrayEnd();
}

/// How an instruction names itself in the profile: "linear 'fc'"
/// (its module when it has no name of its own).
std::string instructionLabel(const Instruction &in) {
  std::string label = in.op == Opcode::Kernel && in.kernel >= 0
                          ? kernelName(in.kernel)
                          : opcodeName(in.op);
  const std::string &name = in.name.empty() ? in.module : in.name;
  if (!name.empty())
    label += " '" + name + "'";
  return label;
}

} // namespace

MeasuredProfile measuredProfile(const Program &program, const RunResult &run,
                                size_t slowest) {
  MeasuredProfile p;
  p.steps = std::max(run.profiledSteps, 1);
  const std::vector<Instruction> &instrs = program.instructions();
  double steps = p.steps;
  // Rows named per instruction, in the order given; each figure the
  // slowest rank's.
  auto rowsOf = [&](const std::vector<std::string> &rowOf,
                    const std::vector<std::string> &order) {
    std::vector<MeasuredProfile::Row> rows(order.size());
    std::map<std::string, size_t> position;
    for (size_t k = 0; k < order.size(); ++k) {
      rows[k].name = order[k];
      position[order[k]] = k;
    }
    for (size_t i = 0; i < instrs.size(); ++i)
      if (isCollective(instrs[i].op))
        ++rows[position[rowOf[i]]].collectives;
    for (const std::vector<double> &rank : run.instructionSeconds) {
      std::vector<double> compute(order.size()), communication(order.size());
      for (size_t i = 0; i < instrs.size() && i < rank.size(); ++i)
        (isCollective(instrs[i].op) ? communication
                                    : compute)[position[rowOf[i]]] +=
            rank[i] / steps;
      for (size_t k = 0; k < order.size(); ++k) {
        rows[k].computeSeconds = std::max(rows[k].computeSeconds, compute[k]);
        rows[k].communicationSeconds =
            std::max(rows[k].communicationSeconds, communication[k]);
      }
    }
    return rows;
  };
  // Phases in step order, modules in the order the program reaches them.
  std::vector<std::string> phases, phaseOrder, moduleOrder;
  std::vector<std::string> modules = instructionModules(instrs);
  for (const Instruction &in : instrs)
    phases.push_back(phaseName(in.phase));
  for (Phase ph : {Phase::Forward, Phase::Backward, Phase::Optimizer})
    if (llvm::is_contained(phases, phaseName(ph)))
      phaseOrder.push_back(phaseName(ph));
  for (const std::string &m : modules)
    if (!llvm::is_contained(moduleOrder, m))
      moduleOrder.push_back(m);
  p.phases = rowsOf(phases, phaseOrder);
  p.modules = rowsOf(modules, moduleOrder);
  std::vector<double> longest(instrs.size(), 0.0);
  for (const std::vector<double> &rank : run.instructionSeconds) {
    double total = 0;
    for (size_t i = 0; i < instrs.size() && i < rank.size(); ++i) {
      total += rank[i];
      longest[i] = std::max(longest[i], rank[i] / steps);
    }
    p.stepSeconds = std::max(p.stepSeconds, total / steps);
  }
  for (size_t i = 0; i < instrs.size(); ++i)
    p.slowest.push_back({i, longest[i]});
  std::stable_sort(
      p.slowest.begin(), p.slowest.end(),
      [](const auto &a, const auto &b) { return a.second > b.second; });
  if (p.slowest.size() > slowest)
    p.slowest.resize(slowest);
  return p;
}

namespace {

void printProfile(llvm::raw_ostream &os, const Program &program,
                  const RunResult &run) {
  MeasuredProfile p = measuredProfile(program, run);
  os << "measured per step (" << p.steps
     << (p.steps == 1 ? " step" : " steps after the first")
     << "; each figure the slowest rank's): " << formatSeconds(p.stepSeconds)
     << "\n";
  printProfileRows(os, "phase", p.phases);
  printProfileRows(os, "module", p.modules);
  os << "  longest instructions:\n";
  const std::vector<Instruction> &instrs = program.instructions();
  for (auto [i, seconds] : p.slowest)
    os << llvm::format("    %%%-5d %-44s %12s\n", instrs[i].result,
                       instructionLabel(instrs[i]).c_str(),
                       formatSeconds(seconds).c_str());
}

} // namespace

void RunReport::print(llvm::raw_ostream &os) const {
  rt::DType dtype = computeDType.value_or(programDType(*program));
  os << toolName << ": " << program->numRanks() << " rank(s), mesh "
     << meshString(*program) << ", backend " << backend << ", "
     << rt::dtypeName(dtype);
  if (computeDType)
    os << " compute on " << rt::dtypeName(programDType(*program))
       << " parameters";
  os << ", " << program->size() << " instructions, peak " << run->peakBytes
     << " bytes/rank, " << llvm::format("%.2f", run->ms) << " ms\n";
  // A training step's loss, every step's (a forward program that returns a
  // scalar has it in the JSON report only).
  if (resumedFrom)
    os << "resumed from " << resumedFrom->dir() << " after step "
       << resumedFrom->info().step << "\n";
  if (!run->losses.empty() && isTrainingStep(*program)) {
    os << (run->losses.size() > 1 ? "losses:" : "loss:");
    for (double l : run->losses)
      os << " " << lossString(l);
    os << "\n";
  }
  for (const std::string &dir : run->checkpoints)
    os << "checkpoint saved: " << dir << "\n";
  // The steps after the first (which loads the parameters): their median
  // is the steady step a cost model predicts, less the machine's noise.
  if (run->stepMs.size() > 1) {
    std::vector<double> later(run->stepMs.begin() + 1, run->stepMs.end());
    std::sort(later.begin(), later.end());
    size_t n = later.size();
    double median =
        n % 2 ? later[n / 2] : (later[n / 2 - 1] + later[n / 2]) / 2;
    os << "step ms: median " << llvm::format("%.3f", median) << " of steps 2-"
       << run->stepMs.size() << " (min " << llvm::format("%.3f", later.front())
       << ", max " << llvm::format("%.3f", later.back()) << "), first "
       << llvm::format("%.3f", run->stepMs.front()) << "\n";
  }
  os << "collectives per rank:";
  printCounts(os, run->collectives);
  os << "\n";
  if (isTrainingStep(*program))
    for (Phase p : {Phase::Forward, Phase::Backward, Phase::Optimizer}) {
      os << "  " << phaseName(p) << ":";
      auto it = run->collectivesByPhase.find(phaseName(p));
      printCounts(os, it == run->collectivesByPhase.end()
                          ? std::map<std::string, int64_t>()
                          : it->second);
      os << "\n";
    }
  if (memory)
    os << "memory per rank: predicted peak " << formatBytes(memory->peakBytes)
       << ", measured " << formatBytes(run->allocatedPeakBytes) << " ("
       << llvm::format("%+.1f", memoryErrorPercent(memory->peakBytes,
                                                   run->allocatedPeakBytes))
       << "%)\n";
  if (const Verification *v = verification)
    os << "verify against 1 rank"
       << (dtype != rt::DType::F32 && referenceInF32 ? " in F32" : "")
       << ": max abs error " << llvm::format("%.3g", v->maxAbsError)
       << ", max rel error " << llvm::format("%.3g", v->maxRelError)
       << (v->passed ? " (ok)" : " (FAILED)") << "\n";
  if (!run->instructionSeconds.empty())
    printProfile(os, *program, *run);
  printDistributedResults(os, *program);
}

void RunReport::printJSON(llvm::raw_ostream &os) const {
  const Verification *v = verification;
  std::string text;
  json::Writer w(text, /*indent=*/2);
  w.objectBegin();
  w.member("backend", backend);
  if (!run->checkpoints.empty()) {
    w.key("checkpoints");
    w.arrayBegin();
    for (const std::string &dir : run->checkpoints)
      w.value(dir);
    w.arrayEnd();
  }
  w.key("collectives");
  writeCollectives(w, run->collectives);
  // Measured like "collectives" (one step, this rank), by phase.
  w.key("collectives_by_phase");
  w.objectBegin();
  for (Phase p : {Phase::Backward, Phase::Forward, Phase::Optimizer}) {
    auto it = run->collectivesByPhase.find(phaseName(p));
    w.key(phaseName(p));
    writeCollectives(w, it == run->collectivesByPhase.end()
                            ? std::map<std::string, int64_t>()
                            : it->second);
  }
  w.objectEnd();
  // The parameters' dtype, and the one the model computes in.
  w.member("compute_dtype",
           rt::dtypeName(computeDType.value_or(programDType(*program))));
  w.member("dtype", rt::dtypeName(programDType(*program)));
  if (!run->losses.empty()) {
    w.key("losses");
    w.arrayBegin();
    // JSON has no NaN or infinity: such a loss is the string "nan", "inf"
    // or "-inf", as in "non_finite".
    for (double l : run->losses)
      std::isfinite(l) ? w.value(l) : w.value(lossString(l));
    w.arrayEnd();
  }
  w.key("max_abs_error");
  v ? w.value(v->maxAbsError) : w.value(nullptr);
  w.key("max_rel_error");
  v ? w.value(v->maxRelError) : w.value(nullptr);
  if (resumedFrom) {
    w.key("resumed_from");
    w.objectBegin();
    w.member("checkpoint", resumedFrom->dir());
    w.member("step", resumedFrom->info().step);
    w.objectEnd();
  }
  if (memory) {
    // The measured peak is the host tensors' (a GPU run's device buffers
    // are in peak_bytes_per_rank).
    w.key("memory");
    w.value(json::parse(memoryJSON(*program, *memory, memoryRuns,
                                   run->allocatedPeakBytes))
                .value);
  }
  w.member("mesh", meshString(*program));
  if (v && v->nonFinite.count) {
    w.key("non_finite");
    v->nonFinite.writeJSON(w);
  }
  w.member("np", program->numRanks());
  w.member("peak_bytes_per_rank", run->peakBytes);
  if (!run->instructionSeconds.empty()) {
    MeasuredProfile p = measuredProfile(*program, *run);
    w.key("profile");
    w.objectBegin();
    writeProfileRows(w, "modules", p.modules);
    writeProfileRows(w, "phases", p.phases);
    w.key("slowest");
    w.arrayBegin();
    const std::vector<Instruction> &instrs = program->instructions();
    for (auto [i, seconds] : p.slowest) {
      w.objectBegin();
      w.member("instruction", static_cast<int64_t>(i));
      w.member("label", instructionLabel(instrs[i]));
      w.member("module", instrs[i].module);
      w.member("seconds", seconds);
      w.objectEnd();
    }
    w.arrayEnd();
    w.member("step_seconds", p.stepSeconds);
    w.member("steps", static_cast<int64_t>(p.steps));
    w.objectEnd();
  }
  // Each step's wall milliseconds on the slowest rank.
  w.key("step_ms");
  w.arrayBegin();
  for (double ms : run->stepMs)
    w.value(ms);
  w.arrayEnd();
  w.member("time_ms", run->ms);
  w.member("verified", v && v->passed);
  w.objectEnd();
  os << text << "\n";
}

void writeParams(const Program &program, const DataSource &data,
                 const std::string &path) {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (const ParamInfo &p : program.params()) {
    names.push_back(p.name);
    tensors.push_back(Program::globalParam(p, data));
  }
  writeNamed(path, names, tensors);
}

void writeInputs(const Program &program, const DataSource &data,
                 const std::string &path, int steps) {
  std::unique_ptr<rt::SafetensorsFile> file;
  if (data.checkInputs(program.inputs(), steps) > 0)
    file = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (const InputInfo &in : program.inputs()) {
    names.push_back(in.name);
    if (!file || DataSource::batchesOf(in, *file) == 0) {
      tensors.push_back(Program::globalInput(in, data));
      continue;
    }
    std::vector<Tensor> batches;
    DataSource step = data;
    for (step.step = 0; step.step < steps; ++step.step) {
      std::vector<int64_t> shape{1};
      shape.insert(shape.end(), in.shape.begin(), in.shape.end());
      batches.push_back(Program::globalInput(in, step).reshaped(shape));
    }
    tensors.push_back(rt::concatDim(batches, 0));
  }
  writeNamed(path, names, tensors);
}

void writeOutputs(const std::vector<Tensor> &outputs, const std::string &path) {
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs.size(); ++i)
    names.push_back(outputs.size() == 1 ? std::string("output")
                                        : "output" + std::to_string(i));
  writeNamed(path, names, outputs);
}

void writeTrainingOutputs(const Program &program,
                          const std::vector<Tensor> &outputs, bool updated,
                          const std::string &path, const DataSource *data) {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ResultLayout &r = program.results()[i];
    const std::string &fqn = updated ? r.updated : r.gradOf;
    if (fqn.empty())
      continue;
    names.push_back(fqn);
    tensors.push_back(outputs[i]);
  }
  if (names.empty())
    throw std::runtime_error(
        std::string("the program returns no ") +
        (updated ? "updated parameters (train it: --train)"
                 : "gradients (differentiate it: --grad or --train)") +
        ", so " + path + " would be empty");
  // Frozen parameters: unchanged by the steps.
  if (updated && data)
    for (const ParamInfo &p : program.params())
      if (llvm::find(names, p.name) == names.end()) {
        names.push_back(p.name);
        tensors.push_back(Program::globalParam(p, *data));
      }
  writeNamed(path, names, tensors);
}

} // namespace mlir::tp::exec
