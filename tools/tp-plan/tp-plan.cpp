//===- tp-plan.cpp - predict what a tensor-parallel plan costs --*- C++ -*-===//
//
// Three modes (docs/planner.md):
//   tp-plan MODEL --evaluate PLAN.json --hardware P  lowers the model with
//       the plan as tp-run would (forward, --grad or --train), compiles the
//       per-rank program and predicts, without running it, its step time on
//       a hardware profile (tp/Executor/CostModel.h) by phase and module,
//       and its memory per rank (Program::memoryPlan) against a budget;
//   tp-plan MODEL --mesh-shape N[,M[,K]] --hardware P searches a plan
//       (tp/Plan/Planner.h): every candidate lowered and priced so, the
//       fastest within the budget written;
//   tp-plan --calibrate -o P.json                    measures this
//       machine's profile (Calibrate.cpp).
//
//===----------------------------------------------------------------------===//

#include "Calibrate.h"

#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Executor/CostModel.h"
#include "tp/Executor/MemoryReport.h"
#include "tp/InitAll.h"
#include "tp/Launch/Prepare.h"
#include "tp/Launch/ProgramFlags.h"
#include "tp/Plan/Planner.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/JSON.h"
#include "tp/Support/Version.h"
#if TP_HAVE_MPI
#include "tp/Runtime/MPICommunicator.h"
#endif

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <map>

using namespace mlir;
namespace cl = llvm::cl;
namespace exec = ::mlir::tp::exec;
namespace json = ::mlir::tp::json;

/// A model of more layers than kShortCut + 1 is priced on itself cut to
/// kShortCut layers and to one more, and extrapolated.
constexpr int64_t kShortCut = 3;

static cl::OptionCategory category("tp-plan options");
static cl::opt<std::string> modelFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    backend("backend",
            cl::desc("With --calibrate: the backend whose collectives to "
                     "measure, threads (default) or mpi (run under mpirun)"),
            cl::init("threads"), cl::cat(category));
static cl::opt<bool> calibrateFlag(
    "calibrate",
    cl::desc("Measure this machine (a few seconds) and write its hardware "
             "profile to -o"),
    cl::cat(category));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Where --calibrate writes the profile, or the search "
                        "its plan (JSON)"),
               cl::value_desc("FILE.json"), cl::cat(category));
static cl::opt<std::string>
    evaluate("evaluate",
             cl::desc("Predict the step time and memory of this plan (a JSON "
                      "plan as tp-run --plan reads)"),
             cl::value_desc("PLAN.json"), cl::cat(category));
static cl::opt<std::string>
    meshShape("mesh-shape",
              cl::desc("Search a plan for this mesh: its sizes (\"4\", "
                       "\"2,4\"; \"2,2,4\": hybrid sharding over the first "
                       "two)"),
              cl::value_desc("N[,M[,K]]"), cl::cat(category));
static cl::opt<std::string>
    meshAxes("mesh-axes",
             cl::desc("The mesh's axis names (default: tp; dp,tp on 2-D; "
                      "rep,dp,tp on 3-D); tensor parallelism shards over the "
                      "one named tp (else the last)"),
             cl::value_desc("A[,B[,C]]"), cl::cat(category));
static cl::opt<bool>
    explain("explain",
            cl::desc("With --mesh-shape: list the candidates priced, the "
                     "runner-ups and the standard plans"),
            cl::cat(category));
static cl::opt<std::string>
    hardware("hardware",
             cl::desc("The hardware profile: a JSON file, or a built-in name "
                      "(h100-sxm, h200-sxm, a100-sxm)"),
             cl::value_desc("PROFILE"), cl::cat(category));
static cl::opt<int>
    numRanks("np",
             cl::desc("Number of ranks (default: the plan's mesh size); on a "
                      "1-D mesh this resizes the mesh"),
             cl::init(0), cl::cat(category));
// The flags that shape the program, as tp-run has them: a plan is priced
// as the tp-run command with the same flags runs it.
static exec::ProgramFlags programFlags(category);
static auto &train = programFlags.train;
/// The program's options from the flags (main sets them).
static exec::PrepareOptions programArgs;
/// Model files the search parsed once (the model, its cuts), by path:
/// each candidate's lowering clones them. Owned by the search's scope.
static std::map<std::string, mlir::ModuleOp> parsedModels;
static cl::opt<std::string> memoryPerRank(
    "memory-per-rank",
    cl::desc("The memory budget of one rank (\"80GiB\", \"512MiB\", bytes)"),
    cl::value_desc("SIZE"), cl::cat(category));
static cl::opt<std::string> candidatesDir(
    "candidates-dir",
    cl::desc("Also write the plan of every candidate the search priced to "
             "DIR/N.json, N its number in --explain and --json"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("Print the prediction as JSON"),
                                cl::cat(category));
static cl::list<std::string>
    stylePlugins("load-style-plugin",
                 cl::desc("Load a shared library of custom styles"),
                 cl::value_desc("PATH"), cl::cat(category));

namespace {

[[noreturn]] void fail(const std::string &message) {
  llvm::errs() << "tp-plan: error: " << message << "\n";
  std::exit(1);
}

/// "80GiB", "1.5 GB", "4096": bytes, or nullopt.
std::optional<int64_t> parseSize(llvm::StringRef text) {
  text = text.trim();
  size_t end = 0;
  while (
      end < text.size() &&
      (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  double number;
  if (end == 0 || text.take_front(end).getAsDouble(number))
    return std::nullopt;
  llvm::StringRef unit = text.drop_front(end).trim();
  static const std::pair<const char *, double> kUnits[] = {
      {"", 1},          {"B", 1},         {"KiB", 1024.0},
      {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1099511627776.0},
      {"KB", 1e3},      {"MB", 1e6},      {"GB", 1e9},
      {"TB", 1e12}};
  for (auto [name, scale] : kUnits)
    if (unit == name) {
      double bytes = number * scale;
      if (!std::isfinite(bytes) || bytes > 9.0e18)
        return std::nullopt;
      return static_cast<int64_t>(bytes);
    }
  return std::nullopt;
}

/// The built-in profiles' names: "h100-sxm, h200-sxm, a100-sxm".
std::string builtinList() {
  std::string names;
  for (const std::string &n : exec::HardwareProfile::builtinNames())
    names += (names.empty() ? "" : ", ") + n;
  return names;
}

/// The profile --hardware names.
exec::HardwareProfile loadProfile() {
  if (hardware.empty()) {
    fail("--hardware is required: a profile's JSON file or one of " +
         builtinList());
  }
  exec::HardwareProfile profile;
  if (exec::HardwareProfile::builtin(hardware, profile))
    return profile;
  auto buffer =
      mlir::tp::readFileBounded(hardware, mlir::tp::kMaxJSONFileBytes);
  if (!buffer) {
    fail("--hardware '" + hardware + "' is neither a built-in profile (" +
         builtinList() +
         ") nor a readable file: " + llvm::toString(buffer.takeError()));
  }
  std::string error;
  if (!exec::HardwareProfile::fromJSON((*buffer)->getBuffer(), profile, error))
    fail(hardware + ": " + error);
  return profile;
}

using exec::formatSeconds;

/// FLOPs with an SI prefix: "1.23 GFLOP".
std::string formatFlops(double f) {
  const char *prefix[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (f >= 1000 && i < 6) {
    f /= 1000;
    ++i;
  }
  return llvm::formatv("{0:f2} {1}FLOP", f, prefix[i]).str();
}

void printRow(llvm::raw_ostream &os, llvm::StringRef name,
              const exec::CostBreakdown &b) {
  os << llvm::formatv("{0,-28} {1,12} {2,14} {3,12} {4,14} {5,5} {6,12}\n",
                      name, formatSeconds(b.computeSeconds),
                      formatSeconds(b.communicationSeconds),
                      formatSeconds(b.exposedSeconds), formatFlops(b.flops),
                      b.collectives, exec::formatBytes(b.communicationBytes));
}

void printHeader(llvm::raw_ostream &os, llvm::StringRef first) {
  os << llvm::formatv("{0,-28} {1,12} {2,14} {3,12} {4,14} {5,5} {6,12}\n",
                      first, "compute", "communication", "exposed", "flops",
                      "colls", "comm bytes");
}

void printText(llvm::raw_ostream &os, const exec::Program &program,
               const exec::HardwareProfile &hw, const exec::CostEstimate &est,
               const exec::MemoryPlan &memory, std::optional<int64_t> budget) {
  os << "plan " << evaluate << " on mesh [";
  llvm::interleaveComma(program.meshShape(), os);
  os << "], " << program.numRanks() << " rank"
     << (program.numRanks() == 1 ? "" : "s") << ", hardware '" << hw.name
     << "'";
  if (est.coreShare < 1)
    os << llvm::formatv(" ({0} ranks on {1} cores: each computes at {2:f3} "
                        "of the profile's rates)",
                        program.numRanks(), hw.sharedCores, est.coreShare);
  os << "\n";
  const exec::CostBreakdown &t = est.total;
  os << "predicted step time: " << formatSeconds(est.stepSeconds) << "\n";
  os << "  compute " << formatSeconds(t.computeSeconds) << ", communication "
     << formatSeconds(t.communicationSeconds) << " (exposed "
     << formatSeconds(t.exposedSeconds) << "), " << formatFlops(t.flops) << ", "
     << t.collectives << " collectives of "
     << exec::formatBytes(t.communicationBytes) << "\n";
  os << "predicted memory per rank: peak "
     << exec::formatBytes(memory.peakBytes) << " (parameters "
     << exec::formatBytes(memory.parameterBytes) << ", gradients "
     << exec::formatBytes(memory.gradientBytes) << ", optimizer state "
     << exec::formatBytes(memory.optimizerBytes) << ")";
  if (budget)
    os << "; budget " << exec::formatBytes(*budget) << ": "
       << (memory.peakBytes <= *budget ? "fits" : "does not fit");
  os << "\n\n";
  printHeader(os, "phase");
  for (const auto &[name, b] : est.phases)
    printRow(os, name, b);
  os << "\n";
  printHeader(os, "module");
  for (const auto &[name, b] : est.modules)
    printRow(os, name, b);
  os << "\nhow it is predicted (docs/planner.md):\n"
     << llvm::formatv(
            "  an instruction: {0} + max(flops / rate, bytes / {1}); rate "
            "= {2} (matrix products{3}) or {4} (the rest)\n",
            formatSeconds(hw.instructionOverhead),
            exec::formatBytes(static_cast<int64_t>(hw.memoryBandwidth)) + "/s",
            formatFlops(hw.matmulFlops) + "/s",
            hw.matmulFlops16 > 0
                ? ", " + formatFlops(hw.matmulFlops16) + "/s in 16 bits"
                : std::string(),
            formatFlops(hw.vectorFlops) + "/s");
  if (hw.matmulCallOverhead > 0)
    os << "  and " << formatSeconds(hw.matmulCallOverhead)
       << " per library GEMM call of a matrix product\n";
  os << llvm::formatv(
      "  a collective of n ranks: steps * {0} + bus bytes / {1}/s; "
      "ring steps and bus bytes: all_reduce 2(n-1), 2(n-1)/n B; "
      "all_gather, reduce_scatter, all_to_all n-1, (n-1)/n B\n",
      formatSeconds(hw.intraNode.latency),
      exec::formatBytes(static_cast<int64_t>(hw.intraNode.bandwidth)));
  if (est.coreShare < 1 && hw.oversubscribed.bandwidth > 0)
    os << llvm::formatv(
        "  more ranks than cores: steps * {0} + bus bytes / {1}/s{2}\n",
        formatSeconds(hw.oversubscribed.latency),
        exec::formatBytes(static_cast<int64_t>(hw.oversubscribed.bandwidth)),
        hw.oversubscribed.callLatency > 0
            ? ", + " + formatSeconds(hw.oversubscribed.callLatency) +
                  " per call of a group smaller than all the ranks"
            : std::string());
  if (hw.ranksPerNode > 0)
    os << llvm::formatv(
        "  between nodes ({0} ranks each): steps * {1} + bus "
        "bytes / {2}/s\n",
        hw.ranksPerNode, formatSeconds(hw.interNode.latency),
        exec::formatBytes(static_cast<int64_t>(hw.interNode.bandwidth)));
  if (est.overlap)
    os << "  async collectives run while the rank computes, until their "
          "first reader\n";
  else if (hw.overlap)
    os << "  async collectives do not overlap the compute: the ranks use "
          "every core, none is left for a communication thread\n";
  else
    os << "  async collectives do not overlap the compute on this "
          "hardware\n";
}

void writeBreakdown(json::Writer &w, const exec::CostBreakdown &b) {
  w.objectBegin();
  w.member("collectives", b.collectives);
  w.member("communication_bytes", b.communicationBytes);
  w.member("communication_seconds", b.communicationSeconds);
  w.member("compute_seconds", b.computeSeconds);
  w.member("exposed_seconds", b.exposedSeconds);
  w.member("flops", b.flops);
  w.objectEnd();
}

void printJSON(llvm::raw_ostream &os, const exec::Program &program,
               const exec::HardwareProfile &hw, const exec::CostEstimate &est,
               const exec::MemoryPlan &memory, int runs,
               std::optional<int64_t> budget) {
  std::string out;
  json::Writer w(out, 2);
  w.objectBegin();
  if (budget) {
    w.member("budget_bytes", *budget);
    w.member("fits", memory.peakBytes <= *budget);
  }
  w.member("core_share", est.coreShare);
  w.member("overlap", est.overlap);
  w.member("hardware", hw.name);
  w.key("memory");
  w.value(json::parse(exec::memoryJSON(program, memory, runs)).value);
  w.key("modules");
  w.arrayBegin();
  for (const auto &[name, b] : est.modules) {
    w.objectBegin();
    w.member("module", name);
    w.key("cost");
    writeBreakdown(w, b);
    w.objectEnd();
  }
  w.arrayEnd();
  w.member("np", program.numRanks());
  w.key("phases");
  w.objectBegin();
  for (const auto &[name, b] : est.phases) {
    w.key(name);
    writeBreakdown(w, b);
  }
  w.objectEnd();
  w.member("plan", evaluate);
  w.member("step_seconds", est.stepSeconds);
  w.key("total");
  writeBreakdown(w, est.total);
  w.objectEnd();
  os << out << "\n";
}

/// How the model is lowered with the plan in \p planFile: as tp-run lowers
/// it with the same flags (ProgramFlags: the optimizer and its options,
/// momentum's state, clipping's all_reduce, the reduce dtype, mixed
/// precision, regather, FSDP prefetch).
exec::PrepareOptions prepareOptions(const std::string &planFile,
                                    const std::string &model = modelFile) {
  exec::PrepareOptions prepare = programArgs;
  prepare.modelFile = model;
  prepare.planFile = planFile;
  // The lowered program is verified once, after the pipeline.
  prepare.verifyEachPass = false;
  auto parsed = parsedModels.find(model);
  if (parsed != parsedModels.end())
    prepare.parsedModel = parsed->second;
  return prepare;
}

/// The mesh of --mesh-shape and --mesh-axes.
mlir::tp::plan::MeshSpec meshSpec() {
  mlir::tp::plan::MeshSpec mesh;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(meshShape).split(parts, ',');
  for (llvm::StringRef p : parts) {
    int64_t n;
    if (p.trim().getAsInteger(10, n) || n < 1 || n > 65536)
      fail("--mesh-shape must be one to three sizes of at least 1, as 4, "
           "2,4 or 2,2,4, not '" +
           meshShape + "'");
    mesh.shape.push_back(n);
  }
  if (mesh.shape.size() > 3)
    fail("--mesh-shape: the planner searches 1-D, 2-D and 3-D meshes, not " +
         std::to_string(mesh.shape.size()) + "-D");
  if (meshAxes.getNumOccurrences()) {
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(meshAxes).split(names, ',');
    for (llvm::StringRef n : names)
      mesh.axisNames.push_back(n.trim().str());
  } else {
    static const std::vector<std::string> defaults[] = {
        {"tp"}, {"dp", "tp"}, {"rep", "dp", "tp"}};
    mesh.axisNames = defaults[mesh.shape.size() - 1];
  }
  if (mesh.axisNames.size() != mesh.shape.size())
    fail("--mesh-axes names " + std::to_string(mesh.axisNames.size()) +
         " axes for a " + std::to_string(mesh.shape.size()) + "-D mesh");
  for (size_t a = 0; a < mesh.axisNames.size(); ++a) {
    if (mesh.axisNames[a].empty())
      fail("--mesh-axes: an axis name is empty");
    if (mesh.axisNames[a] == "tp")
      mesh.tpAxis = static_cast<int>(a);
  }
  for (size_t a = 0; a < mesh.axisNames.size(); ++a)
    for (size_t b = a + 1; b < mesh.axisNames.size(); ++b)
      if (mesh.axisNames[a] == mesh.axisNames[b])
        fail("--mesh-axes: two axes named '" + mesh.axisNames[a] + "'");
  if (mesh.tpAxis < 0)
    mesh.tpAxis = static_cast<int>(mesh.shape.size()) - 1;
  // The other axes carry data parallelism: on a 3-D mesh the first
  // replicates the FSDP shards of the second (HSDP).
  std::vector<int> data;
  for (int a = 0; a < static_cast<int>(mesh.shape.size()); ++a)
    if (a != mesh.tpAxis)
      data.push_back(a);
  if (data.size() == 1)
    mesh.dataAxis = data[0];
  if (data.size() == 2) {
    mesh.replicaAxis = data[0];
    mesh.dataAxis = data[1];
  }
  return mesh;
}

/// Lowers and compiles \p planText as tp-run would, and prices it.
mlir::tp::plan::Evaluation price(MLIRContext &context,
                                 const std::string &planText,
                                 const exec::HardwareProfile &profile,
                                 exec::Launcher &launcher,
                                 const std::string &model) {
  mlir::tp::plan::Evaluation e;
  llvm::SmallString<128> path;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tp-plan", "json", fd, path)) {
    e.error = "cannot write a temporary plan: " + ec.message();
    return e;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << planText;
  }
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return success();
  });
  try {
    exec::PreparedModel prepared = exec::prepareModel(
        context, sourceMgr, prepareOptions(path.str().str(), model), launcher);
    exec::Program program =
        exec::Program::compile(exec::entryFunction(*prepared.module, model));
    exec::MemoryPlan memory = program.memoryPlan(train ? 2 : 1);
    e.peakBytes = memory.peakBytes;
    e.stagePeakBytes.assign(memory.stagePeakBytes.begin(),
                            memory.stagePeakBytes.end());
    exec::CostEstimate cost = program.estimateCost(profile);
    e.stepSeconds = cost.stepSeconds;
    const std::vector<exec::Instruction> &instrs = program.instructions();
    for (size_t i = 0; i < instrs.size(); ++i)
      if (instrs[i].op == exec::Opcode::Kernel ||
          instrs[i].op == exec::Opcode::SGDUpdate ||
          instrs[i].op == exec::Opcode::AdamWUpdate)
        e.kernelSeconds += cost.instructions[i].seconds;
    e.ok = true;
  } catch (const std::exception &ex) {
    e.error = diagnostics.empty() ? ex.what() : diagnostics;
  }
  llvm::sys::fs::remove(path);
  return e;
}

/// Why the search left \p u out.
std::string unpricedWhy(const mlir::tp::plan::Unpriced &u) {
  using Bound = mlir::tp::plan::Unpriced::Bound;
  switch (u.bound) {
  case Bound::State:
    return "the parameters, optimizer state, inputs and results alone need " +
           exec::formatBytes(u.stateBytes) +
           " per rank, which neither recompute nor finer units lower";
  case Bound::Work:
    return "without recompute it takes " + formatSeconds(u.boundSeconds) +
           ", no less than a plan that fits (" + formatSeconds(u.fitSeconds) +
           "), and recompute only adds work";
  case Bound::Kernels:
    break;
  }
  return "its kernels alone take " + formatSeconds(u.boundSeconds) +
         ", no less than a plan that fits (" + formatSeconds(u.fitSeconds) +
         "), which finer units do not lessen";
}

std::string formatEvaluation(const mlir::tp::plan::Evaluation &e) {
  if (!e.ok)
    return "does not lower: " + e.error;
  return formatSeconds(e.stepSeconds) + ", peak " +
         exec::formatBytes(e.peakBytes);
}

/// --mesh-shape: searches a plan, writes it to -o (or stdout).
int runSearch(const exec::HardwareProfile &profile,
              std::optional<int64_t> budget) {
  mlir::tp::plan::MeshSpec mesh = meshSpec();
  int64_t ranks = 1;
  for (int64_t d : mesh.shape)
    ranks *= d;
  exec::LaunchOptions options;
  options.toolName = "tp-plan";
  options.numRanks = static_cast<int>(ranks);
  std::unique_ptr<exec::Launcher> launcher;
  try {
    options.check();
    launcher = exec::Launcher::create(options, nullptr, nullptr);
  } catch (const std::exception &e) {
    fail(e.what());
  }
  // The model's structure, from the file as written.
  mlir::tp::plan::ModelStructure structure;
  // The model cut to kShortCut and kShortCut + 1 of its layerCount layers
  // (none: the whole model is priced).
  std::vector<std::string> cutModels;
  int64_t layerCount = 0;
  // One context for the model and every candidate's lowering.
  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // The model and its cuts, parsed once (parsedModels points at them).
  std::vector<OwningOpRef<ModuleOp>> parsed;
  llvm::scope_exit forgetParsed([] { parsedModels.clear(); });
  {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(modelFile);
    if (!buffer)
      fail("cannot read '" + modelFile + "': " + buffer.getError().message());
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      fail("cannot parse '" + modelFile + "'");
    func::FuncOp entry;
    try {
      entry = exec::entryFunction(*module, modelFile);
    } catch (const std::exception &e) {
      fail(e.what());
    }
    if (entry->hasAttr("tp.spmd"))
      fail("'" + modelFile +
           "' is already partitioned: the planner needs the model as "
           "written");
    structure = mlir::tp::plan::analyzeModel(entry);
    // Repeated layers are planned once: each choice is priced on the
    // model cut to kShortCut and to one more layer, and extrapolated. The
    // first and the last layer are no guide: the first layer's FSDP unit
    // has no prefetch to pay for, the last one's stays gathered from its
    // forward to its backward (tp-regather); the cuts' difference is a
    // layer between them.
    for (int64_t keep : {kShortCut, kShortCut + 1}) {
      OwningOpRef<ModuleOp> cut = module->clone();
      func::FuncOp cutEntry = exec::entryFunction(*cut, modelFile);
      int64_t count =
          mlir::tp::plan::keepLayers(cutEntry, structure.layers, keep);
      if (count < kShortCut + 2)
        break;
      layerCount = count;
      llvm::SmallString<128> path;
      int fd;
      if (llvm::sys::fs::createTemporaryFile("tp-plan-model", "mlir", fd, path))
        break;
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      cut->print(os);
      cutModels.push_back(path.str().str());
      parsedModels[cutModels.back()] = *cut;
      parsed.push_back(std::move(cut));
    }
    if (cutModels.size() != 2) {
      for (const std::string &path : cutModels) {
        llvm::sys::fs::remove(path);
        parsedModels.erase(path);
      }
      cutModels.clear();
      layerCount = 0;
    }
    parsedModels[modelFile] = *module;
    parsed.push_back(std::move(module));
  }
  mlir::tp::plan::SearchOptions search;
  search.train = train;
  search.budget = budget.value_or(0);
  auto priceWhole = [&](const mlir::tp::plan::Choice &c) {
    return price(context, mlir::tp::plan::planJSON(structure, mesh, c), profile,
                 *launcher, modelFile);
  };
  // A choice priced on the model cut to kShortCut layers and to one more
  // (each plan once: partial recompute asks for its twins again).
  std::map<std::string,
           std::pair<mlir::tp::plan::Evaluation, mlir::tp::plan::Evaluation>>
      cutPrices;
  auto priceOnCuts = [&](const mlir::tp::plan::Choice &c) {
    std::string plan = mlir::tp::plan::planJSON(structure, mesh, c);
    auto it = cutPrices.find(plan);
    if (it != cutPrices.end())
      return it->second;
    mlir::tp::plan::Evaluation shorter =
        price(context, plan, profile, *launcher, cutModels[0]);
    mlir::tp::plan::Evaluation longer =
        shorter.ok ? price(context, plan, profile, *launcher, cutModels[1])
                   : shorter;
    return cutPrices[plan] = {shorter, longer};
  };
  int64_t allLayers = static_cast<int64_t>(structure.layerNames.size());
  auto priceCut = [&](const mlir::tp::plan::Choice &c) {
    if (cutModels.empty())
      return priceWhole(c);
    // Recomputing the first k of the layers: each of them changes the
    // step by what recomputing changes one layer by (the per-layer growth
    // with every layer recomputed less that without), so that it is
    // extrapolated from the shorter twins.
    bool partial = c.recompute > 0 && c.recompute < allLayers;
    mlir::tp::plan::Choice base = c;
    if (partial)
      base.recompute = 0;
    auto [shorter, longer] = priceOnCuts(base);
    if (!shorter.ok || !longer.ok)
      return shorter.ok ? longer : shorter;
    // Each more layer adds what the cuts' one more added: to the time, and
    // to the peak of each stage of the step (the peak may move from one stage
    // to another as layers are added: from the backward's activations in a
    // short model to the optimizer's state and the results in a long one).
    using Evaluation = mlir::tp::plan::Evaluation;
    const std::array<double Evaluation::*, 2> times{&Evaluation::stepSeconds,
                                                    &Evaluation::kernelSeconds};
    double n = static_cast<double>(layerCount - kShortCut);
    Evaluation e = shorter;
    for (double Evaluation::*t : times)
      e.*t += n * (longer.*t - shorter.*t);
    std::vector<double> stages(shorter.stagePeakBytes.size());
    for (size_t i = 0; i < stages.size(); ++i)
      stages[i] = static_cast<double>(shorter.stagePeakBytes[i]) +
                  n * static_cast<double>(longer.stagePeakBytes[i] -
                                          shorter.stagePeakBytes[i]);
    if (partial) {
      mlir::tp::plan::Choice all = c;
      all.recompute = allLayers;
      auto [allShort, allLong] = priceOnCuts(all);
      if (!allShort.ok || !allLong.ok)
        return allShort.ok ? allLong : allShort;
      double k = static_cast<double>(c.recompute);
      for (double Evaluation::*t : times)
        e.*t += k * ((allLong.*t - allShort.*t) - (longer.*t - shorter.*t));
      for (size_t i = 0; i < stages.size(); ++i)
        stages[i] +=
            k * static_cast<double>(
                    (allLong.stagePeakBytes[i] - allShort.stagePeakBytes[i]) -
                    (longer.stagePeakBytes[i] - shorter.stagePeakBytes[i]));
    }
    e.peakBytes = 0;
    e.stagePeakBytes.clear();
    for (double b : stages) {
      e.stagePeakBytes.push_back(static_cast<int64_t>(b));
      e.peakBytes = std::max(e.peakBytes, e.stagePeakBytes.back());
    }
    return e;
  };
  mlir::tp::plan::SearchResult result =
      mlir::tp::plan::search(structure, mesh, search, priceCut);
  auto &tried = result.tried;
  // Which candidates' numbers are of the whole model (all of them without
  // cut models).
  std::vector<bool> pricedWhole(tried.size(), cutModels.empty());
  for (const std::string &path : cutModels)
    llvm::sys::fs::remove(path);
  if (!cutModels.empty()) {
    // The extrapolation ranks the candidates; the chosen one is priced
    // whole. When it does not fit after all, the next ones are: those the
    // extrapolation fits first, by time, then the others, by time, so that
    // a budget nothing fits ends with every candidate priced whole (and
    // the smallest exact).
    std::vector<size_t> order;
    for (size_t i = 0; i < tried.size(); ++i)
      if (tried[i].second.ok)
        order.push_back(i);
    auto fits = [&](size_t i) {
      return !search.budget || tried[i].second.peakBytes <= search.budget;
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (fits(a) != fits(b))
        return fits(a);
      return tried[a].second.stepSeconds < tried[b].second.stepSeconds;
    });
    result.best.reset();
    for (size_t i : order) {
      tried[i].second = priceWhole(tried[i].first);
      pricedWhole[i] = true;
      // Recomputing the first k layers, extrapolated to fit but not fitting
      // whole: one layer more, while fewer than all.
      while (tried[i].second.ok && !fits(i) && tried[i].first.recompute > 0 &&
             tried[i].first.recompute + 1 < allLayers) {
        ++tried[i].first.recompute;
        tried[i].second = priceWhole(tried[i].first);
      }
      if (tried[i].second.ok && fits(i)) {
        result.best = i;
        break;
      }
    }
    if (!result.best) {
      // The ones the search's bounds left out (the extrapolation fitted
      // some other plan): priced too, for an exact smallest.
      for (const mlir::tp::plan::Unpriced &u : result.unpriced) {
        tried.emplace_back(u.choice, priceWhole(u.choice));
        pricedWhole.push_back(true);
      }
      result.unpriced.clear();
      result.smallest.reset();
      for (size_t i = 0; i < tried.size(); ++i)
        if (tried[i].second.ok &&
            (!result.smallest || tried[i].second.peakBytes <
                                     tried[*result.smallest].second.peakBytes))
          result.smallest = i;
    }
  }
  if (!candidatesDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(candidatesDir))
      fail("cannot create --candidates-dir '" + candidatesDir.getValue() +
           "': " + ec.message());
    for (size_t i = 0; i < tried.size(); ++i) {
      std::string path = candidatesDir + "/" + std::to_string(i) + ".json";
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (!ec) {
        os << mlir::tp::plan::planJSON(structure, mesh, tried[i].first);
        os.close();
      }
      if (ec || os.has_error())
        fail("cannot write '" + path +
             "': " + (ec ? ec : os.error()).message());
    }
  }
  if (!result.best) {
    if (!result.smallest) {
      // The simplest candidate's reason (nothing sharded): what every plan
      // runs into, rather than what one style does.
      std::string why =
          tried.empty() ? "no candidate" : tried.front().second.error;
      mlir::tp::plan::Choice plain;
      plain.pairs.assign(structure.pairs.size(), false);
      for (const auto &[c, e] : tried)
        if (c == plain)
          why = e.error;
      fail("no plan lowers for this model on mesh " + meshShape.getValue() +
           ": " + why);
    }
    const auto &[c, e] = tried[*result.smallest];
    fail("no plan fits --memory-per-rank " + exec::formatBytes(search.budget) +
         ": the smallest needs " + exec::formatBytes(e.peakBytes) +
         " per rank (" + mlir::tp::plan::describe(structure, c) + ")");
  }
  const auto &[best, bestEval] = tried[*result.best];
  std::string plan = mlir::tp::plan::planJSON(structure, mesh, best);
  if (jsonOutput) {
    // The plan (also in -o when given) and every candidate priced.
    std::string out;
    json::Writer w(out, 2);
    w.objectBegin();
    if (search.budget)
      w.member("budget_bytes", search.budget);
    w.key("candidates");
    w.arrayBegin();
    for (size_t i = 0; i < tried.size(); ++i) {
      const auto &[c, e] = tried[i];
      w.objectBegin();
      w.member("number", static_cast<int64_t>(i));
      w.member("chosen", i == *result.best);
      w.member("description", mlir::tp::plan::describe(structure, c));
      if (train && allLayers > 0)
        w.member("recompute_layers", c.recompute);
      if (e.ok) {
        w.member("fits", !search.budget || e.peakBytes <= search.budget);
        w.member("peak_bytes", e.peakBytes);
        w.member("priced", pricedWhole[i] ? "whole" : "extrapolated");
        w.member("step_seconds", e.stepSeconds);
      } else {
        w.member("error", e.error);
      }
      w.objectEnd();
    }
    w.arrayEnd();
    // Those the search's bounds left out, and why.
    w.key("unpriced");
    w.arrayBegin();
    for (const mlir::tp::plan::Unpriced &u : result.unpriced) {
      w.objectBegin();
      w.member("description", mlir::tp::plan::describe(structure, u.choice));
      w.member("why", unpricedWhy(u));
      w.objectEnd();
    }
    w.arrayEnd();
    w.member("hardware", profile.name);
    w.member("layers", layerCount);
    w.key("plan");
    w.value(json::parse(plan).value);
    w.objectEnd();
    llvm::outs() << out << "\n";
  }
  if (outputFile.empty()) {
    if (!jsonOutput)
      llvm::outs() << plan;
  } else {
    std::error_code ec;
    llvm::raw_fd_ostream os(outputFile, ec);
    if (ec)
      fail("cannot write '" + outputFile.getValue() + "': " + ec.message());
    os << plan;
    os.close();
    if (os.has_error())
      fail("cannot write '" + outputFile.getValue() +
           "': " + os.error().message());
  }
  if (jsonOutput) {
    llvm::outs().flush();
    return 0;
  }
  llvm::raw_ostream &os = outputFile.empty() ? llvm::errs() : llvm::outs();
  os << "tp-plan: " << mlir::tp::plan::describe(structure, best) << ": "
     << formatEvaluation(bestEval) << " predicted on '" << profile.name << "' ("
     << tried.size() << " candidates";
  if (layerCount)
    os << ", priced on " << kShortCut << " and " << kShortCut + 1 << " of the "
       << layerCount << " layers and extrapolated";
  os << ")\n";
  bool shardsAny = best.dataOnly || best.embedding || best.output > 0 ||
                   llvm::is_contained(best.pairs, true);
  if (!shardsAny && mesh.shape[mesh.tpAxis] > 1)
    os << "tp-plan: note: nothing is sharded over '"
       << mesh.axisNames[mesh.tpAxis] << "': its " << mesh.shape[mesh.tpAxis]
       << " ranks compute the same; the model is too small for tensor "
          "parallelism on this hardware, and a mesh with that many more "
          "data-parallel ranks would use them\n";
  if (explain) {
    std::vector<size_t> order(tried.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto &ea = tried[a].second, &eb = tried[b].second;
      if (ea.ok != eb.ok)
        return ea.ok;
      return ea.ok && ea.stepSeconds < eb.stepSeconds;
    });
    os << "candidates, fastest first (* fits the budget"
       << (layerCount ? "; extrapolated from " + std::to_string(kShortCut) +
                            " and " + std::to_string(kShortCut + 1) +
                            " layers, except those priced whole to choose"
                      : "")
       << "):\n";
    for (size_t i : order) {
      const auto &[c, e] = tried[i];
      bool fits = e.ok && (!search.budget || e.peakBytes <= search.budget);
      os << (i == *result.best ? "> "
             : fits            ? "* "
                               : "  ")
         << mlir::tp::plan::describe(structure, c) << ": "
         << formatEvaluation(e);
      if (!candidatesDir.empty())
        os << " (" << i << ".json)";
      os << "\n";
    }
    // The runner-ups per decision: the chosen plan with one choice
    // changed.
    os << "each choice against its alternatives (the chosen plan with only "
          "that changed):\n";
    auto deltaOf = [&](const mlir::tp::plan::Evaluation &e) {
      double delta = (e.stepSeconds - bestEval.stepSeconds) * 1e3;
      return llvm::formatv(" ({0}{1:f3} ms{2})", delta >= 0 ? "+" : "", delta,
                           search.budget && e.peakBytes > search.budget
                               ? ", does not fit"
                               : "")
          .str();
    };
    auto alternative = [&](const std::string &what,
                           mlir::tp::plan::Choice other) {
      const mlir::tp::plan::Evaluation *found = nullptr;
      int64_t foundLayers = 0;
      std::string how;
      for (const auto &[c, e] : tried)
        if (c == other)
          found = &e;
      // With recompute, the search keeps each choice's fewest recomputed
      // layers that fit: compare with those.
      if (!found && other.recompute > 0)
        for (const auto &[c, e] : tried) {
          mlir::tp::plan::Choice same = c;
          same.recompute = other.recompute;
          if (c.recompute > 0 && same == other &&
              (!found || c.recompute < foundLayers)) {
            found = &e;
            foundLayers = c.recompute;
            how = mlir::tp::plan::describe(structure, c);
            how = " (" + how.substr(how.rfind(" + recompute") + 3) + ")";
          }
        }
      if (found) {
        os << "  " << what << how << ": " << formatEvaluation(*found)
           << (found->ok ? deltaOf(*found) : "") << "\n";
        return;
      }
      for (const mlir::tp::plan::Unpriced &u : result.unpriced)
        if (u.choice == other) {
          os << "  " << what << ": not priced (" << unpricedWhy(u) << ")\n";
          return;
        }
      // Not a candidate: sequence parallel needs every pair, the embedding
      // and the head sharded; recompute is priced only where the plan
      // without it does not fit.
      bool spWithout =
          other.sequenceParallel && (llvm::is_contained(other.pairs, false) ||
                                     !other.embedding || other.output == 0);
      os << "  " << what << ": not priced ("
         << (spWithout && best.sequenceParallel ? "sequence parallel needs it"
             : spWithout
                 ? "it needs every pair, the embedding and the head sharded"
             : other.recompute              ? "the plan fits without recompute"
             : other.keepGathered && !train ? "priced only for training"
                                            : "not a candidate")
         << ")\n";
    };
    // The fastest candidate (within the budget when one fits) of another
    // kind: tensor parallelism against data parallelism over a 1-D mesh.
    auto fastestWhere = [&](auto pred) -> std::optional<size_t> {
      std::optional<size_t> pick;
      for (size_t i = 0; i < tried.size(); ++i) {
        const auto &[c, e] = tried[i];
        if (!e.ok || !pred(c))
          continue;
        bool fits = !search.budget || e.peakBytes <= search.budget;
        if (!pick) {
          pick = i;
          continue;
        }
        const auto &p = tried[*pick].second;
        bool pickFits = !search.budget || p.peakBytes <= search.budget;
        if ((fits && !pickFits) ||
            (fits == pickFits && e.stepSeconds < p.stepSeconds))
          pick = i;
      }
      return pick;
    };
    if (best.dataOnly) {
      std::optional<size_t> tp = fastestWhere(
          [](const mlir::tp::plan::Choice &c) { return !c.dataOnly; });
      if (tp)
        os << "  tensor parallelism instead, at its fastest ("
           << mlir::tp::plan::describe(structure, tried[*tp].first)
           << "): " << formatEvaluation(tried[*tp].second)
           << deltaOf(tried[*tp].second) << "\n";
    } else {
      for (size_t i = 0; i < structure.pairs.size(); ++i) {
        mlir::tp::plan::Choice o = best;
        o.pairs[i] = !o.pairs[i];
        alternative((structure.pairs[i].module.empty()
                         ? std::string("<root>")
                         : structure.pairs[i].module) +
                        (o.pairs[i] ? " sharded" : " replicated"),
                    o);
      }
      if (!structure.embedding.empty()) {
        mlir::tp::plan::Choice o = best;
        o.embedding = !o.embedding;
        alternative(structure.embedding +
                        (o.embedding ? " rowwise" : " replicated"),
                    o);
      }
      for (int out = 0; out < 3 && !structure.output.empty(); ++out) {
        if (out == best.output)
          continue;
        mlir::tp::plan::Choice o = best;
        o.output = out;
        const char *how[] = {" replicated", " colwise",
                             " colwise, loss_parallel"};
        alternative(structure.output + how[out], o);
      }
      if (!structure.pairs.empty() && !structure.norms.empty()) {
        mlir::tp::plan::Choice o = best;
        o.sequenceParallel = !o.sequenceParallel;
        alternative(std::string("sequence parallel") +
                        (o.sequenceParallel ? " on" : " off"),
                    o);
      }
      if (mesh.shape.size() == 1) {
        std::optional<size_t> dp = fastestWhere(
            [](const mlir::tp::plan::Choice &c) { return c.dataOnly; });
        if (dp)
          os << "  data parallelism instead, at its fastest ("
             << mlir::tp::plan::describe(structure, tried[*dp].first)
             << "): " << formatEvaluation(tried[*dp].second)
             << deltaOf(tried[*dp].second) << "\n";
      }
    }
    if (mesh.shape.size() > 1 || best.dataOnly) {
      mlir::tp::plan::Choice o = best;
      o.fsdp = !o.fsdp;
      o.keepGathered = false;
      o.fineUnits = false;
      // A 3-D mesh's data axes are HSDP's, always.
      if (mesh.replicaAxis < 0)
        alternative(o.fsdp ? "fsdp on" : "fsdp off", o);
      if (best.fsdp && train) {
        o = best;
        o.keepGathered = !best.keepGathered;
        alternative(o.keepGathered ? "fsdp kept gathered to the backward"
                                   : "fsdp resharded after the forward",
                    o);
      }
      if (best.fsdp && !structure.fineUnits.empty()) {
        o = best;
        o.fineUnits = !best.fineUnits;
        alternative(o.fineUnits ? "fsdp per pair module" : "fsdp per layer", o);
      }
    }
    if (train && allLayers > 0) {
      mlir::tp::plan::Choice o = best;
      o.recompute = best.recompute ? 0 : allLayers;
      alternative(o.recompute ? "recompute on" : "recompute off", o);
      if (best.recompute > 0 && best.recompute < allLayers) {
        o.recompute = allLayers;
        alternative("recompute of every layer", o);
      }
    }
    os << "(tp-plan --evaluate on the plan shows its time and memory by "
          "phase and module)\n";
    for (auto [name, choice] :
         {std::make_pair("Megatron-LM",
                         mlir::tp::plan::megatronChoice(structure, mesh)),
          std::make_pair("torchtitan",
                         mlir::tp::plan::torchtitanChoice(structure, mesh))})
      for (const auto &[c, e] : tried)
        if (c == choice && e.ok)
          os << llvm::formatv(
              "the {0} plan: {1} ({2:f2}x the chosen "
              "plan's time{3})\n",
              name, formatEvaluation(e), e.stepSeconds / bestEval.stepSeconds,
              search.budget && e.peakBytes > search.budget ? "; it does not fit"
                                                           : "");
  }
  llvm::outs().flush();
  return 0;
}

/// --calibrate: measures, writes the profile (whole or not at all: a
/// temporary file renamed over -o).
int runCalibrate(int argc, char **argv) {
  std::unique_ptr<mlir::tp::runtime::Communicator> world;
#if TP_HAVE_MPI
  std::optional<mlir::tp::runtime::MPIEnvironment> mpi;
#endif
  if (backend == "mpi") {
#if TP_HAVE_MPI
    mpi.emplace(&argc, &argv);
    world = mlir::tp::runtime::MPICommunicator::world();
#else
    fail("--backend mpi: this tp-plan was built without MPI");
#endif
  } else if (backend != "threads") {
    fail("--backend must be threads or mpi, not '" + backend + "'");
  }
  // Rank 0 of an MPI job reports and writes.
  bool root = !world || world->rank() == 0;
  std::string tmp = outputFile + ".tmp";
  std::error_code ec;
  // Opened first: an unwritable -o fails before the measurements.
  std::optional<llvm::raw_fd_ostream> os;
  if (root) {
    os.emplace(tmp, ec);
    if (ec)
      fail("cannot write '" + tmp + "': " + ec.message());
  }
  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::raw_ostream &log = root ? llvm::outs() : llvm::nulls();
  log << "tp-plan: calibrating (one rank, one OpenBLAS thread)\n";
  exec::HardwareProfile profile;
  try {
    profile = calibrate(context, log, world.get());
  } catch (const std::exception &e) {
    if (os) {
      os->close();
      llvm::sys::fs::remove(tmp);
    }
    fail(std::string("calibration failed: ") + e.what());
  }
  if (!root)
    return 0;
  *os << profile.toJSON();
  os->close();
  if (os->has_error()) {
    llvm::sys::fs::remove(tmp);
    fail("cannot write '" + tmp + "': " + os->error().message());
  }
  if (std::error_code rc = llvm::sys::fs::rename(tmp, outputFile))
    fail("cannot write '" + outputFile.getValue() + "': " + rc.message());
  llvm::outs() << "wrote " << outputFile << "\n";
  llvm::outs().flush();
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tp version " << mlir::tp::getVersion() << "\n";
  });
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "tp-plan: predict the step time and memory of a plan\n");
  for (const std::string &plugin : stylePlugins)
    if (llvm::Error e = mlir::tp::loadStylePlugin(plugin))
      fail(llvm::toString(std::move(e)));
  if (calibrateFlag) {
    for (const cl::Option *o : std::initializer_list<const cl::Option *>{
             &evaluate, &hardware, &numRanks, &memoryPerRank, &jsonOutput,
             &candidatesDir})
      if (o->getNumOccurrences())
        fail("--" + o->ArgStr.str() + " does not go with --calibrate");
    for (const cl::Option *o : programFlags.all())
      if (o->getNumOccurrences())
        fail("--" + o->ArgStr.str() + " does not go with --calibrate");
    if (!modelFile.empty())
      fail("--calibrate measures the machine, not a model: give no model");
    if (outputFile.empty())
      fail("--calibrate needs -o PROFILE.json");
    return runCalibrate(argc, argv);
  }
  if (backend.getNumOccurrences())
    fail("--backend belongs to --calibrate (the plans are priced on a "
         "profile's collectives)");
  if (modelFile.empty())
    fail("a model file is required: tp-plan MODEL.mlir --evaluate PLAN.json "
         "--hardware PROFILE, or tp-plan MODEL.mlir --mesh-shape N[,M[,K]] "
         "--hardware PROFILE -o PLAN.json");
  if (!evaluate.empty() && meshShape.getNumOccurrences())
    fail("--evaluate prices a given plan, --mesh-shape searches one: give "
         "one of them");
  if (evaluate.empty() && !meshShape.getNumOccurrences())
    fail(
        "--evaluate PLAN.json (price a plan) or --mesh-shape N[,M[,K]] (search "
        "one) is required");
  if (!evaluate.empty()) {
    if (outputFile.getNumOccurrences())
      fail("-o writes --calibrate's profile or the search's plan; "
           "--evaluate prints its prediction");
    for (const cl::Option *o : std::initializer_list<const cl::Option *>{
             &meshAxes, &explain, &candidatesDir})
      if (o->getNumOccurrences())
        fail("--" + o->ArgStr.str() + " belongs to the search (--mesh-shape)");
  } else if (numRanks.getNumOccurrences()) {
    fail("--np does not go with --mesh-shape: the mesh gives the ranks");
  }
  if (std::string problem = programFlags.apply(programArgs); !problem.empty())
    fail(problem);
  std::optional<int64_t> budget;
  if (memoryPerRank.getNumOccurrences()) {
    budget = parseSize(memoryPerRank);
    if (!budget || *budget <= 0)
      fail("--memory-per-rank must be a size such as 80GiB, 512MiB or a "
           "number of bytes, not '" +
           memoryPerRank + "'");
  }
  exec::HardwareProfile profile = loadProfile();
  if (meshShape.getNumOccurrences())
    return runSearch(profile, budget);

  exec::LaunchOptions options;
  options.toolName = "tp-plan";
  if (numRanks.getNumOccurrences())
    options.numRanks = numRanks;
  std::unique_ptr<exec::Launcher> launcher;
  try {
    options.check();
    launcher = exec::Launcher::create(options, &argc, &argv);
  } catch (const std::exception &e) {
    fail(e.what());
  }

  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  try {
    exec::PreparedModel model = exec::prepareModel(
        context, sourceMgr, prepareOptions(evaluate), *launcher);
    exec::Program program =
        exec::Program::compile(exec::entryFunction(*model.module, modelFile));
    exec::checkProgramRanks(program, *launcher, model.partitioned);
    // A training loop's steady state: the second step on.
    int runs = train ? 2 : 1;
    exec::MemoryPlan memory = program.memoryPlan(runs);
    exec::CostEstimate est = program.estimateCost(profile);
    if (jsonOutput)
      printJSON(llvm::outs(), program, profile, est, memory, runs, budget);
    else
      printText(llvm::outs(), program, profile, est, memory, budget);
  } catch (const std::exception &e) {
    fail(e.what());
  }
  llvm::outs().flush();
  return 0;
}
