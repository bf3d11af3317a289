//===- tp-plan.cpp - predict what a tensor-parallel plan costs --*- C++ -*-===//
//
// tp-plan --evaluate PLAN.json MODEL: lowers the model with the plan as
// tp-run would (forward, --grad or --train), compiles the per-rank program
// and predicts, without running it, its step time on a hardware profile
// (tp/Executor/CostModel.h) by phase and module, and its memory per rank
// (Program::memoryPlan) against a budget.
//
//===----------------------------------------------------------------------===//

#include "Calibrate.h"

#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Executor/CostModel.h"
#include "tp/Executor/MemoryReport.h"
#include "tp/InitAll.h"
#include "tp/Launch/Prepare.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/JSON.h"
#include "tp/Support/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;
namespace exec = ::mlir::tp::exec;
namespace json = ::mlir::tp::json;

static cl::OptionCategory category("tp-plan options");
static cl::opt<std::string> modelFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<bool> calibrateFlag(
    "calibrate",
    cl::desc("Measure this machine (a few seconds) and write its hardware "
             "profile to -o"),
    cl::cat(category));
static cl::opt<std::string> outputFile("o",
                                       cl::desc("Where --calibrate writes the "
                                                "profile (JSON)"),
                                       cl::value_desc("PROFILE.json"),
                                       cl::cat(category));
static cl::opt<std::string>
    evaluate("evaluate",
             cl::desc("Predict the step time and memory of this plan (a JSON "
                      "plan as tp-run --plan reads)"),
             cl::value_desc("PLAN.json"), cl::cat(category));
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
static cl::opt<bool> grad("grad",
                          cl::desc("Cost the forward and backward pass"),
                          cl::cat(category));
static cl::opt<bool>
    train("train",
          cl::desc("Cost a training step: forward, backward and the "
                   "optimizer's update"),
          cl::cat(category));
static cl::opt<std::string> optimizer("optimizer",
                                      cl::desc("sgd (default) or adamw"),
                                      cl::init("sgd"), cl::cat(category));
static cl::opt<std::string>
    paramDtype("param-dtype",
               cl::desc("Compute in bf16 or f16 on f32 master parameters "
                        "(default f32)"),
               cl::init("f32"), cl::cat(category));
static cl::opt<bool> regather("regather",
                              cl::desc("Gather again in the backward what the "
                                       "forward gathered"),
                              cl::cat(category));
static cl::opt<bool> fsdpPrefetch(
    "fsdp-prefetch",
    cl::desc("Under a plan with an fsdp_axis: prefetch each unit's "
             "parameters (default: true)"),
    cl::init(true), cl::cat(category));
static cl::opt<std::string> memoryPerRank(
    "memory-per-rank",
    cl::desc("The memory budget of one rank (\"80GiB\", \"512MiB\", bytes)"),
    cl::value_desc("SIZE"), cl::cat(category));
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

/// The profile --hardware names.
exec::HardwareProfile loadProfile() {
  if (hardware.empty()) {
    std::string names;
    for (const std::string &n : exec::HardwareProfile::builtinNames())
      names += (names.empty() ? "" : ", ") + n;
    fail("--hardware is required: a profile's JSON file or one of " + names);
  }
  exec::HardwareProfile profile;
  if (exec::HardwareProfile::builtin(hardware, profile))
    return profile;
  auto buffer =
      mlir::tp::readFileBounded(hardware, mlir::tp::kMaxJSONFileBytes);
  if (!buffer) {
    std::string names;
    for (const std::string &n : exec::HardwareProfile::builtinNames())
      names += (names.empty() ? "" : ", ") + n;
    fail("--hardware '" + hardware + "' is neither a built-in profile (" +
         names +
         ") nor a readable file: " + llvm::toString(buffer.takeError()));
  }
  std::string error;
  if (!exec::HardwareProfile::fromJSON((*buffer)->getBuffer(), profile, error))
    fail(hardware + ": " + error);
  return profile;
}

/// Seconds in the unit that suits them: "1.234 ms".
std::string formatSeconds(double s) {
  if (s >= 1)
    return llvm::formatv("{0:f3} s", s).str();
  if (s >= 1e-3)
    return llvm::formatv("{0:f3} ms", s * 1e3).str();
  return llvm::formatv("{0:f3} us", s * 1e6).str();
}

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
            formatFlops(hw.vectorFlops) + "/s")
     << llvm::formatv(
            "  a collective of n ranks: steps * {0} + bus bytes / {1}/s; "
            "ring steps and bus bytes: all_reduce 2(n-1), 2(n-1)/n B; "
            "all_gather, reduce_scatter, all_to_all n-1, (n-1)/n B\n",
            formatSeconds(hw.intraNode.latency),
            exec::formatBytes(static_cast<int64_t>(hw.intraNode.bandwidth)));
  if (hw.ranksPerNode > 0)
    os << llvm::formatv(
        "  between nodes ({0} ranks each): steps * {1} + bus "
        "bytes / {2}/s\n",
        hw.ranksPerNode, formatSeconds(hw.interNode.latency),
        exec::formatBytes(static_cast<int64_t>(hw.interNode.bandwidth)));
  os << (hw.overlap ? "  async collectives run while the rank computes, "
                      "until their first reader\n"
                    : "  async collectives do not overlap the compute on "
                      "this hardware\n");
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

/// --calibrate: measures, writes the profile (whole or not at all: a
/// temporary file renamed over -o).
int runCalibrate() {
  std::string tmp = outputFile + ".tmp";
  std::error_code ec;
  // Opened first: an unwritable -o fails before the measurements.
  llvm::raw_fd_ostream os(tmp, ec);
  if (ec)
    fail("cannot write '" + tmp + "': " + ec.message());
  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::outs() << "tp-plan: calibrating (one rank, one OpenBLAS thread)\n";
  exec::HardwareProfile profile;
  try {
    profile = calibrate(context, llvm::outs());
  } catch (const std::exception &e) {
    os.close();
    llvm::sys::fs::remove(tmp);
    fail(std::string("calibration failed: ") + e.what());
  }
  os << profile.toJSON();
  os.close();
  if (os.has_error()) {
    llvm::sys::fs::remove(tmp);
    fail("cannot write '" + tmp + "': " + os.error().message());
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
             &evaluate, &hardware, &numRanks, &grad, &train, &optimizer,
             &paramDtype, &regather, &fsdpPrefetch, &memoryPerRank,
             &jsonOutput})
      if (o->getNumOccurrences())
        fail("--" + o->ArgStr.str() + " does not go with --calibrate");
    if (!modelFile.empty())
      fail("--calibrate measures the machine, not a model: give no model");
    if (outputFile.empty())
      fail("--calibrate needs -o PROFILE.json");
    return runCalibrate();
  }
  if (outputFile.getNumOccurrences())
    fail("-o belongs to --calibrate");
  if (modelFile.empty())
    fail("a model file is required: tp-plan MODEL.mlir --evaluate PLAN.json "
         "--hardware PROFILE");
  if (evaluate.empty())
    fail("--evaluate PLAN.json is required (the plan to predict)");
  if (optimizer.getNumOccurrences() && !train)
    fail("--optimizer belongs to --train");
  if (regather && !grad && !train)
    fail("--regather belongs to --grad or --train");
  llvm::StringRef dtype = mlir::tp::canonicalComputeDtype(paramDtype);
  if (dtype.empty())
    fail("--param-dtype must be bf16, f16 or f32, not '" + paramDtype + "'");
  std::optional<int64_t> budget;
  if (memoryPerRank.getNumOccurrences()) {
    budget = parseSize(memoryPerRank);
    if (!budget || *budget <= 0)
      fail("--memory-per-rank must be a size such as 80GiB, 512MiB or a "
           "number of bytes, not '" +
           memoryPerRank + "'");
  }
  exec::HardwareProfile profile = loadProfile();

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
    exec::PrepareOptions prepare;
    prepare.modelFile = modelFile;
    prepare.planFile = evaluate;
    prepare.paramDtype = dtype.str();
    prepare.differentiate = grad || train;
    prepare.regather = regather;
    prepare.fsdpPrefetch = fsdpPrefetch;
    if (train) {
      mlir::tp::OptimizerOptions o;
      o.kind = optimizer;
      if (dtype != "f32")
        o.reduceDtype = dtype.str();
      if (std::string problem =
              mlir::tp::checkOptimizerOptions(o, mlir::tp::OptionSyntax::Flags);
          !problem.empty())
        fail(problem);
      prepare.optimizer = o;
    }
    exec::PreparedModel model =
        exec::prepareModel(context, sourceMgr, prepare, *launcher);
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
