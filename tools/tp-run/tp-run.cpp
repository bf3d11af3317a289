//===- tp-run.cpp - run a tensor-parallel model on N ranks ------*- C++ -*-===//
//
// Lowers a model with a plan (or takes an already partitioned program), runs
// it on N ranks of a backend, and optionally verifies it against the
// unparallelized model on one rank.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Executor/Checkpoint.h"
#include "tp/Executor/MemoryReport.h"
#include "tp/InitAll.h"
#include "tp/Launch/Prepare.h"
#include "tp/Launch/ProgramFlags.h"
#include "tp/Launch/Report.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;
namespace exec = ::mlir::tp::exec;
static cl::OptionCategory category("tp-run options");
static cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> planFile("plan", cl::desc("JSON plan file"),
                                     cl::value_desc("PLAN.json"),
                                     cl::cat(category));
static cl::opt<int>
    numRanks("np",
             cl::desc("Number of ranks (default: the plan's mesh size); on a "
                      "1-D mesh this resizes the mesh"),
             cl::init(0), cl::cat(category));
static cl::opt<std::string> backend("backend",
                                    cl::desc("threads (default), mpi, nccl"),
                                    cl::init("threads"), cl::cat(category));
static cl::opt<uint64_t>
    seed("seed",
         cl::desc("Seed of generated data and of a training step's dropout "
                  "masks"),
         cl::init(0), cl::cat(category));
static cl::opt<std::string>
    weights("weights",
            cl::desc("Parameters (safetensors), or a Hugging Face sharded "
                     "checkpoint by its index (model.safetensors.index.json)"),
            cl::cat(category));
static cl::opt<std::string> weightsPrefix(
    "weights-prefix",
    cl::desc("--weights holds parameter FQN under the key PREFIX + FQN (a "
             "checkpoint of a wrapping module, e.g. 'model.'); files tp-run "
             "writes keep plain FQNs"),
    cl::value_desc("PREFIX"), cl::cat(category));
static cl::opt<std::string>
    inputs("inputs",
           cl::desc("Inputs (safetensors), under their argument names: one "
                    "batch of the input's shape for every step, or a batch per "
                    "step ([S, ...], S >= --steps; step k reads batch k)"),
           cl::cat(category));
static cl::opt<std::string>
    saveWeights("save-weights",
                cl::desc("Write the global parameters (safetensors)"),
                cl::cat(category));
static cl::opt<std::string> saveInputs(
    "save-inputs",
    cl::desc("Write the global inputs the run reads (safetensors; those "
             "--inputs holds a batch per step as the --steps batches read)"),
    cl::cat(category));
static cl::opt<std::string>
    dumpOutputs("dump-outputs",
                cl::desc("Write the gathered outputs (safetensors)"),
                cl::cat(category));
static cl::opt<std::string> dumpGrads(
    "dump-grads",
    cl::desc("Write the last step's global parameter gradients under their "
             "FQNs (safetensors; with --grad or --train)"),
    cl::cat(category));
static cl::opt<std::string> dumpWeights(
    "dump-weights",
    cl::desc("Write the global parameters after the last step under their "
             "FQNs (safetensors; with --train)"),
    cl::cat(category));
static cl::opt<std::string> saveCheckpoint(
    "save-checkpoint",
    cl::desc("With --train: save checkpoints under DIR, one DIR/step-N per "
             "save (after the last step, and every --checkpoint-every steps): "
             "each rank writes only its own shards of the parameters and "
             "optimizer state, rank 0 the metadata; --resume reads them under "
             "any plan, mesh and number of ranks"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<int64_t> checkpointEvery(
    "checkpoint-every",
    cl::desc("With --save-checkpoint: also save after every K optimizer "
             "steps (counted from the training's first step)"),
    cl::value_desc("K"), cl::init(0), cl::cat(category));
static cl::opt<std::string> resume(
    "resume",
    cl::desc("With --train: continue from a checkpoint (a DIR/step-N "
             "directory, or DIR for its latest complete one), under this "
             "run's plan, mesh and number of ranks: parameters, optimizer "
             "state, step count and seed (--seed overrides it); --steps more "
             "steps are run"),
    cl::value_desc("PATH"), cl::cat(category));
static cl::opt<bool> dumpProgram(
    "dump-program",
    cl::desc("Print the compiled program (its instructions, slots and "
             "frees; one program serves every rank) and exit without "
             "running it"),
    cl::cat(category));
static cl::opt<bool> memoryReport(
    "memory-report",
    cl::desc("Print each rank's predicted tensor memory (parameters, "
             "gradients, optimizer state, inputs, and the peak by kind and "
             "instruction) before running; the run's report then adds the "
             "measured peak (with --json: a \"memory\" object)"),
    cl::cat(category));
static cl::opt<bool> profileRun(
    "profile",
    cl::desc("Time every instruction on every rank and report the time per "
             "step by phase and module (compute and communication, the "
             "rows tp-plan --evaluate predicts) and the longest "
             "instructions; steps after the first when there are several "
             "(with --json: a \"profile\" object). CPU ranks only"),
    cl::cat(category));
static cl::opt<bool> noRun(
    "no-run",
    cl::desc("Lower and compile the program, print what --memory-report or "
             "--dump-program asks for, and exit without running it (no "
             "tensor of the model's sizes is allocated)"),
    cl::cat(category));
static cl::opt<bool>
    verify("verify",
           cl::desc("Also run the unparallelized model on one rank and "
                    "compare"),
           cl::cat(category));
// The flags that shape the program, as tp-plan has them.
static exec::ProgramFlags programFlags(category);
static auto &grad = programFlags.grad;
static auto &train = programFlags.train;
static auto &optimizer = programFlags.optimizer;
static auto &paramDtype = programFlags.paramDtype;
static cl::opt<int> steps("steps",
                          cl::desc("Training steps of --train (default 1)"),
                          cl::init(1), cl::cat(category));
static cl::opt<double>
    rtol("rtol",
         cl::desc("Largest relative error --verify accepts (default 1e-5; for "
                  "bf16 and f16 models: 4e-2 and 5e-3)"),
         cl::init(1e-5), cl::cat(category));
static cl::opt<std::string> referenceDtype(
    "reference-dtype",
    cl::desc("What --verify compares a bf16/f16 model with: f32 (default: "
             "the model computed in f32 on one rank) or model (the model in "
             "its own dtype on one rank); with --param-dtype: model "
             "(default: one rank under the same policy) or f32 (the model "
             "as written)"),
    cl::init("f32"), cl::cat(category));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("Print one JSON object as summary"),
                                cl::cat(category));
static cl::opt<bool> checkCollectives(
    "check-collectives",
    cl::desc("mpi backend: before every collective, check that all ranks "
             "make the same call (one small extra all-gather; default on, "
             "=false to skip)"),
    cl::init(true), cl::cat(category));
static cl::opt<std::string>
    device("device",
           cl::desc("Where the ranks compute: cpu (default) or cuda (with "
                    "--backend threads: every rank on one GPU, --device-id; "
                    "--backend nccl implies cuda)"),
           cl::init("cpu"), cl::cat(category));
static cl::opt<int> deviceId(
    "device-id",
    cl::desc("CUDA device of --device cuda with threads (default 0), or of "
             "this process with --backend nccl (default: rank modulo the "
             "number of devices)"),
    cl::init(-1), cl::cat(category));
static cl::opt<std::string> ncclIdFile(
    "nccl-id-file",
    cl::desc("--backend nccl without MPI: share the NCCL id through this "
             "file (rank 0 writes it, the others wait for it; a fresh path "
             "per job, on a file system every host sees)"),
    cl::cat(category));
static cl::opt<std::string> rendezvous(
    "rendezvous",
    cl::desc("--backend nccl without MPI: share the NCCL id over TCP, "
             "tcp://HOST:PORT of rank 0 (which listens there)"),
    cl::cat(category));
static cl::opt<int> processRank(
    "rank",
    cl::desc("--backend nccl with --nccl-id-file or --rendezvous: this "
             "process's rank (default: $RANK)"),
    cl::init(-1), cl::cat(category));
static cl::opt<int> processCount(
    "nranks",
    cl::desc("--backend nccl with --nccl-id-file or --rendezvous: the number "
             "of processes (default: $WORLD_SIZE)"),
    cl::init(-1), cl::cat(category));
static cl::opt<int>
    timeoutSeconds("timeout",
                   cl::desc("Seconds a rank waits in a collective before "
                            "failing (default 30)"),
                   cl::init(30), cl::cat(category));
static cl::list<std::string> stylePlugins(
    "load-style-plugin",
    cl::desc("Load a shared library that registers parallel styles (see "
             "examples/style-plugin)"),
    cl::value_desc("file.so"), cl::cat(category));

namespace {

/// The job's launcher once it exists: failures then go through it (in an
/// mpi job they abort every rank).
exec::Launcher *launcher = nullptr;

[[noreturn]] void fail(const std::string &message) {
  if (launcher)
    launcher->fail(message);
  llvm::errs() << "tp-run: error: " << message << "\n";
  std::exit(1);
}

/// Test hook, honoured only with --backend mpi: TP_TEST_FAIL_RANK=R makes
/// rank R fail right after the ranks synchronized before the run (the
/// others are then inside the program's first collectives), or with
/// TP_TEST_FAIL_STEP=K right before training step K, in the way
/// TP_TEST_FAIL_MODE says: "throw" (default; an exception like any runtime
/// error), "kill" (SIGKILL: a crashed process), "stop" (SIGSTOP: a process
/// that stops answering, its own watchdog stopped with it) or "hang"
/// (sleeps, so that the peers' --timeout fires). Used by
/// test/tp-run/mpi-faults.test.
void testFailureHook(int rank, int64_t step) {
  const char *failRank = std::getenv("TP_TEST_FAIL_RANK");
  if (!failRank || std::atoi(failRank) != rank)
    return;
  const char *failStep = std::getenv("TP_TEST_FAIL_STEP");
  if (failStep ? std::atoll(failStep) != step : step != 0)
    return;
  const char *mode = std::getenv("TP_TEST_FAIL_MODE");
  if (mode && !std::strcmp(mode, "kill"))
    std::raise(SIGKILL);
  if (mode && !std::strcmp(mode, "stop"))
    std::raise(SIGSTOP);
  if (mode && !std::strcmp(mode, "hang"))
    for (;;)
      std::this_thread::sleep_for(std::chrono::hours(1));
  throw std::runtime_error("TP_TEST_FAIL_RANK test hook");
}

/// The backend options as the launcher takes them (unset: not given).
exec::LaunchOptions launchOptions() {
  exec::LaunchOptions o;
  o.backend = backend;
  if (device.getNumOccurrences())
    o.device = device;
  if (numRanks.getNumOccurrences())
    o.numRanks = numRanks;
  o.timeout = std::chrono::seconds(timeoutSeconds);
  o.checkCollectives = checkCollectives;
  o.profile = profileRun;
  if (deviceId.getNumOccurrences())
    o.deviceId = deviceId;
  o.ncclIdFile = ncclIdFile;
  o.rendezvous = rendezvous;
  if (processRank.getNumOccurrences())
    o.processRank = processRank;
  if (processCount.getNumOccurrences())
    o.processCount = processCount;
  if (backend == "mpi") {
    o.beforeRun = [](int rank) { testFailureHook(rank, 0); };
    o.beforeStep = testFailureHook;
  }
  return o;
}

/// Checks the options of --verify and --plan.
void checkRunOptions() {
  if (profileRun && (noRun || dumpProgram))
    fail(std::string("--profile times a run, and ") +
         (noRun ? "--no-run" : "--dump-program") + " runs nothing");
  if (referenceDtype != "f32" && referenceDtype != "model")
    fail("--reference-dtype must be f32 or model, not '" + referenceDtype +
         "'");
  if (referenceDtype.getNumOccurrences() && !verify)
    fail("--reference-dtype chooses what --verify compares with; give "
         "--verify too");
  if (!std::isfinite(rtol) || rtol < 0) {
    std::ostringstream text;
    text << rtol;
    fail("--rtol must be a finite number of at least 0, got " + text.str());
  }
  if (planFile.getNumOccurrences() && planFile.empty())
    fail("--plan needs a file name");
  if (weightsPrefix.getNumOccurrences() && weights.empty())
    fail("--weights-prefix names the keys of --weights; give --weights too");
  if (checkpointEvery.getNumOccurrences() && saveCheckpoint.empty())
    fail("--checkpoint-every belongs to --save-checkpoint");
  if (checkpointEvery < 0)
    fail("--checkpoint-every must be at least 0, got " +
         std::to_string(checkpointEvery));
  if (saveCheckpoint.getNumOccurrences() && saveCheckpoint.empty())
    fail("--save-checkpoint needs a directory");
  if (resume.getNumOccurrences() && resume.empty())
    fail("--resume needs a checkpoint directory");
  if (!resume.empty() && !weights.empty())
    fail("--resume takes the parameters from the checkpoint; --weights "
         "cannot be given with it");
}

/// The text of the plan file (for a checkpoint's metadata), or "".
std::string planText() {
  if (!planFile.getNumOccurrences())
    return "";
  auto buffer =
      mlir::tp::readFileBounded(planFile, mlir::tp::kMaxJSONFileBytes);
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return ""; // the pipeline has read it already and reported any problem
  }
  return (*buffer)->getBuffer().str();
}

/// The program's flags checked (the optimizer's options as PyTorch's
/// constructors check them), with tp-run's own that belong to --train.
exec::PrepareOptions programOptions() {
  if (steps.getNumOccurrences() && !train)
    fail("--steps belongs to --train");
  if (steps < 1)
    fail("--steps must be at least 1, got " + std::to_string(steps));
  exec::PrepareOptions prepare;
  if (std::string problem = programFlags.apply(prepare); !problem.empty())
    fail(problem);
  for (const cl::Option *o :
       std::initializer_list<const cl::Option *>{&saveCheckpoint, &resume})
    if (o->getNumOccurrences() && !train)
      fail("--" + o->ArgStr.str() + " belongs to --train");
  return prepare;
}

/// Flushes stdout (a full disk is an error) and returns the job's exit
/// code: rank 0's.
int finish(int code) {
  if (llvm::Error e = mlir::tp::finishOutput(llvm::outs(), "<stdout>")) {
    llvm::errs() << "tp-run: error: " << llvm::toString(std::move(e)) << "\n";
    code = 1;
  }
  return launcher->shareExitCode(code);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tp version " << mlir::tp::getVersion() << "\n";
  });
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tp-run: run a tensor-parallel model on N "
                              "ranks\n");
  for (const std::string &plugin : stylePlugins)
    if (llvm::Error e = mlir::tp::loadStylePlugin(plugin))
      fail(llvm::toString(std::move(e)));
  exec::LaunchOptions options = launchOptions();
  try {
    options.check();
  } catch (const std::exception &e) {
    fail(e.what());
  }
  checkRunOptions();
  // Training steps reuse freed activations' memory instead of faulting it in
  // again.
  mlir::tp::runtime::keepFreedTensorMemory();
  exec::PrepareOptions programArgs = programOptions();
  // With mpi this process becomes one rank of the job: every rank lowers
  // the model (deterministically), rank 0 reports.
  std::unique_ptr<exec::Launcher> job;
  try {
    job = exec::Launcher::create(options, &argc, &argv);
  } catch (const std::exception &e) {
    fail(e.what());
  }
  launcher = job.get();
  bool isRoot = launcher->isRoot();

  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Only rank 0 prints warnings; every rank prints its errors.
  if (!isRoot)
    context.getDiagEngine().registerHandler([](Diagnostic &d) {
      return success(d.getSeverity() != DiagnosticSeverity::Error);
    });

  try {
    exec::PrepareOptions prepare = programArgs;
    prepare.modelFile = modelFile;
    if (planFile.getNumOccurrences())
      prepare.planFile = planFile;
    prepare.reference = verify;
    // A mixed-precision run is verified against one rank under the same
    // policy, unless --reference-dtype f32 asks for the model as written.
    prepare.referenceInF32 =
        referenceDtype.getNumOccurrences() || prepare.paramDtype == "f32"
            ? referenceDtype == "f32"
            : false;
    // Mixed precision: the report and the tolerance follow the dtype the
    // model computes in.
    std::optional<mlir::tp::runtime::DType> computeDType;
    if (prepare.paramDtype != "f32") {
      mlir::tp::runtime::DType t;
      if (mlir::tp::runtime::parseDType(prepare.paramDtype, t))
        computeDType = t;
    }
    exec::PreparedModel model =
        exec::prepareModel(context, sourceMgr, prepare, *launcher);
    exec::Program program =
        exec::Program::compile(exec::entryFunction(*model.module, modelFile));
    exec::checkProgramRanks(program, *launcher, model.partitioned);
    int runSteps = train ? steps : 1;
    exec::MemoryPlan memory = program.memoryPlan(runSteps);
    // As a table now; with --json, in the run's report (or alone, with
    // --no-run).
    if (memoryReport && isRoot && !jsonOutput)
      exec::printMemoryPlan(llvm::outs(), program, memory, runSteps);
    if (memoryReport && isRoot && jsonOutput && noRun)
      llvm::outs() << exec::memoryJSON(program, memory, runSteps) << "\n";
    if (dumpProgram) {
      // SPMD: every rank runs this list, so the root prints it once.
      if (isRoot)
        program.print(llvm::outs());
      return finish(0);
    }
    if (noRun)
      return finish(0);
    exec::DataSource data;
    data.seed = seed;
    if (!resume.empty()) {
      data.checkpoint = exec::Checkpoint::open(resume);
      // The run continues with the checkpoint's seed (its dropout masks and
      // generated inputs) unless --seed chooses another.
      if (!seed.getNumOccurrences())
        data.seed = data.checkpoint->info().seed;
    }
    data.weightsFile = weights;
    data.weightsPrefix = weightsPrefix;
    data.inputsFile = inputs;
    // A file with a batch per step has one for every step (before any rank
    // starts).
    data.checkInputs(program.inputs(),
                     runSteps +
                         (data.checkpoint ? data.checkpoint->info().step : 0));
    if (isRoot && !saveWeights.empty())
      exec::writeParams(program, data, saveWeights);
    if (isRoot && !saveInputs.empty())
      exec::writeInputs(program, data, saveInputs, runSteps);

    exec::CheckpointSaving saving;
    saving.dir = saveCheckpoint;
    saving.every = checkpointEvery;
    saving.seed = data.seed;
    if (!saving.dir.empty())
      saving.plan = planText();
    exec::RunResult run = launcher->run(program, data, runSteps, saving);
    if (!isRoot)
      return finish(0);
    std::vector<exec::Tensor> outputs = run.assemble(program);
    if (!dumpOutputs.empty())
      exec::writeOutputs(outputs, dumpOutputs);
    if (!dumpGrads.empty())
      exec::writeTrainingOutputs(program, outputs, /*updated=*/false,
                                 dumpGrads);
    if (!dumpWeights.empty())
      exec::writeTrainingOutputs(program, outputs, /*updated=*/true,
                                 dumpWeights, &data);
    std::optional<exec::Verification> verification;
    if (verify) {
      exec::Program reference = exec::Program::compile(
          exec::entryFunction(*model.reference, modelFile));
      std::optional<double> tolerance;
      if (rtol.getNumOccurrences())
        tolerance = rtol;
      else if (computeDType)
        tolerance = exec::defaultTolerance(*computeDType);
      verification = exec::verifyOutputs(program, outputs, reference, data,
                                         tolerance, runSteps, &run.losses);
    }
    exec::RunReport report;
    report.backend = backend;
    report.program = &program;
    report.run = &run;
    report.verification = verification ? &*verification : nullptr;
    report.referenceInF32 = prepare.referenceInF32;
    report.computeDType = computeDType;
    report.resumedFrom = data.checkpoint.get();
    if (memoryReport) {
      report.memory = &memory;
      report.memoryRuns = runSteps;
    }
    if (jsonOutput)
      report.printJSON(llvm::outs());
    else
      report.print(llvm::outs());
    // After the summary, also when both streams go to one pipe.
    llvm::outs().flush();
    if (!verification)
      return finish(0);
    const exec::NonFinite &nonFinite = verification->nonFinite;
    if (nonFinite.count && !nonFinite.mismatch)
      llvm::errs() << "tp-run: warning: " << nonFinite.describe() << "\n";
    if (!verification->passed) {
      llvm::errs() << "tp-run: error: " << verification->failure() << "\n";
      return finish(1);
    }
    return finish(0);
  } catch (const std::exception &e) {
    fail(e.what());
  }
}
