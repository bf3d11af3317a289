//===- LaunchTest.cpp - launching, preparing, verifying, reporting --------===//
//
// The launch library as an embedder uses it: the checks of the launch
// options, a model file prepared with a plan (the mesh sized for the job),
// run on rank threads, its results assembled and verified against one
// rank, and the report of the run.
//
//===----------------------------------------------------------------------===//

#include "tp/Launch/Launcher.h"
#include "tp/Launch/Prepare.h"
#include "tp/Launch/Report.h"
#include "tp/Launch/Verify.h"
#include "tp/Runtime/Safetensors.h"

#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#ifndef TP_HAVE_MPI
#define TP_HAVE_MPI 0
#endif

using namespace mlir;
namespace exec = ::mlir::tp::exec;
using exec::LaunchError;
using exec::LaunchOptions;

namespace {

const std::string kExamples = TP_EXAMPLES_DIR;

/// The message \p fn throws as a LaunchError ("" if it throws none).
template <class Fn> std::string launchError(Fn fn) {
  try {
    fn();
  } catch (const LaunchError &e) {
    return e.what();
  }
  return "";
}

TEST(LaunchOptionsTest, RefusesWhatCannotRun) {
  LaunchOptions o;
  EXPECT_EQ(launchError([&] { o.check(); }), "");

  o.backend = "bogus";
  EXPECT_EQ(launchError([&] { o.check(); })
                .rfind("backend 'bogus' is not available in this build "
                       "(available: threads",
                       0),
            0u);
  o = LaunchOptions();
  o.device = "tpu";
  EXPECT_EQ(launchError([&] { o.check(); }),
            "--device must be cpu or cuda, not 'tpu'");
  o = LaunchOptions();
  o.numRanks = 0;
  EXPECT_EQ(launchError([&] { o.check(); }), "--np must be positive, got 0");
  o.numRanks = 100000;
  EXPECT_NE(launchError([&] {
              o.check();
            }).find("--np 100000 asks for 100000 rank threads"),
            std::string::npos);
  o = LaunchOptions();
  o.timeout = std::chrono::milliseconds(0);
  EXPECT_EQ(launchError([&] { o.check(); }), "--timeout must be positive");
  o = LaunchOptions();
  o.deviceId = -1;
  EXPECT_EQ(launchError([&] { o.check(); }),
            "--device-id must be a CUDA device number (0 or more), got -1");
  o = LaunchOptions();
  o.rendezvous = "tcp://127.0.0.1:29500";
  EXPECT_EQ(launchError([&] { o.check(); }),
            "--nccl-id-file, --rendezvous, --rank and --nranks belong to "
            "--backend nccl");
}

TEST(LaunchOptionsTest, ListsTheBackendsOfThisBuild) {
  std::vector<std::string> names = exec::availableBackends();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names[0], "threads");
  EXPECT_EQ(std::count(names.begin(), names.end(), "mpi"), TP_HAVE_MPI);
}

class LaunchTest : public ::testing::Test {
protected:
  LaunchTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Keep expected diagnostics out of the test log.
    context.getDiagEngine().registerHandler([](Diagnostic &) {});
  }

  /// A threads launcher for \p numRanks ranks (unset: the mesh's).
  std::unique_ptr<exec::Launcher> threads(std::optional<int> numRanks = {}) {
    LaunchOptions o;
    o.numRanks = numRanks;
    return exec::Launcher::create(o, nullptr, nullptr);
  }

  exec::PreparedModel prepare(const exec::Launcher &launcher,
                              const std::string &file,
                              std::optional<std::string> plan,
                              bool reference = false) {
    exec::PrepareOptions o;
    o.modelFile = file;
    o.planFile = std::move(plan);
    o.reference = reference;
    // One source manager per model file: it parses its main buffer.
    sourceMgrs.push_back(std::make_unique<llvm::SourceMgr>());
    return exec::prepareModel(context, *sourceMgrs.back(), o, launcher);
  }

  MLIRContext context;
  std::vector<std::unique_ptr<llvm::SourceMgr>> sourceMgrs;
};

TEST_F(LaunchTest, RunsTheMLPOnRankThreadsAndVerifiesIt) {
  auto launcher = threads();
  exec::PreparedModel model = prepare(*launcher, kExamples + "/mlp.mlir",
                                      kExamples + "/mlp_plan.json", true);
  EXPECT_FALSE(model.partitioned);
  exec::Program program =
      exec::Program::compile(exec::entryFunction(*model.module, "mlp"));
  EXPECT_EQ(program.meshShape(), std::vector<int64_t>{4});
  exec::checkProgramRanks(program, *launcher, model.partitioned);

  exec::DataSource data;
  data.seed = 7;
  exec::RunResult run = launcher->run(program, data);
  ASSERT_EQ(run.perRank.size(), 4u);
  EXPECT_EQ(run.collectives.at("all_reduce"), 1);
  EXPECT_GT(run.peakBytes, 0);
  std::vector<exec::Tensor> outputs = run.assemble(program);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape(), (std::vector<int64_t>{4, 8}));

  exec::Program reference =
      exec::Program::compile(exec::entryFunction(*model.reference, "mlp"));
  exec::Verification v =
      exec::verifyOutputs(program, outputs, reference, data, std::nullopt);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.tolerance, 1e-5);
  EXPECT_LE(v.maxRelError, 1e-5);
  EXPECT_EQ(v.failure(), "");

  // A wrong output fails, and says by how much.
  std::vector<exec::Tensor> wrong = outputs;
  wrong[0].data()[5] += 1.0f;
  exec::Verification bad =
      exec::verifyOutputs(program, wrong, reference, data, std::nullopt);
  EXPECT_FALSE(bad.passed);
  EXPECT_GT(bad.maxAbsError, 0.99);
  EXPECT_EQ(bad.failure().rfind("verification failed: max relative error ", 0),
            0u);
  EXPECT_NE(bad.failure().find("exceeds 1.000000e-05"), std::string::npos);

  // A NaN where the reference has a number is a mismatch, found by index.
  wrong = outputs;
  wrong[0].data()[9] = std::numeric_limits<float>::quiet_NaN();
  bad = exec::verifyOutputs(program, wrong, reference, data, 0.5);
  EXPECT_FALSE(bad.passed);
  EXPECT_TRUE(bad.nonFinite.mismatch);
  EXPECT_EQ(bad.nonFinite.index, "[1, 1]");
  EXPECT_NE(bad.failure().find("output 0 is not finite at [1, 1]: the "
                               "parallel run has nan"),
            std::string::npos);
  EXPECT_NE(bad.failure().find("every input and weight is finite"),
            std::string::npos);

  // The report.
  exec::RunReport report;
  report.backend = "threads";
  report.program = &program;
  report.run = &run;
  report.verification = &v;
  std::string text, json;
  llvm::raw_string_ostream textOs(text), jsonOs(json);
  report.print(textOs);
  report.printJSON(jsonOs);
  EXPECT_EQ(text.rfind("tp-run: 4 rank(s), mesh 4, backend threads, F32, ", 0),
            0u);
  EXPECT_NE(text.find("collectives per rank: all_reduce=1\n"),
            std::string::npos);
  EXPECT_NE(text.find("(ok)"), std::string::npos);
  EXPECT_NE(json.find("\"all_reduce\": 1"), std::string::npos);
  EXPECT_NE(json.find("\"verified\": true"), std::string::npos);
}

TEST_F(LaunchTest, SizesA1DMeshForTheRequestedRanks) {
  auto launcher = threads(2);
  exec::PreparedModel model =
      prepare(*launcher, kExamples + "/mlp.mlir", kExamples + "/mlp_plan.json");
  exec::Program program =
      exec::Program::compile(exec::entryFunction(*model.module, "mlp"));
  EXPECT_EQ(program.meshShape(), std::vector<int64_t>{2});
  exec::RunResult run = launcher->run(program, exec::DataSource());
  EXPECT_EQ(run.perRank.size(), 2u);
}

TEST_F(LaunchTest, PreparesAParsedModelWithoutChangingIt) {
  // Parsed once, prepared twice (as tp-plan lowers its candidates): each
  // preparation lowers a clone, the parse stays the model as written, and
  // the file named is not read.
  auto launcher = threads(2);
  OwningOpRef<ModuleOp> parsed =
      parseSourceFile<ModuleOp>(kExamples + "/mlp.mlir", &context);
  ASSERT_TRUE(parsed);
  std::string before;
  llvm::raw_string_ostream beforeOs(before);
  parsed->print(beforeOs);
  for (int i = 0; i < 2; ++i) {
    exec::PrepareOptions o;
    o.modelFile = "no-such-file.mlir";
    o.planFile = kExamples + "/mlp_plan.json";
    o.parsedModel = *parsed;
    o.verifyEachPass = i == 0;
    llvm::SourceMgr sourceMgr;
    exec::PreparedModel model =
        exec::prepareModel(context, sourceMgr, o, *launcher);
    exec::Program program =
        exec::Program::compile(exec::entryFunction(*model.module, "mlp"));
    EXPECT_EQ(program.meshShape(), std::vector<int64_t>{2});
    EXPECT_EQ(launcher->run(program, exec::DataSource()).perRank.size(), 2u);
  }
  std::string after;
  llvm::raw_string_ostream afterOs(after);
  parsed->print(afterOs);
  EXPECT_EQ(before, after);
  // A module of another context is refused, by name.
  MLIRContext other;
  OwningOpRef<ModuleOp> foreign = ModuleOp::create(UnknownLoc::get(&other));
  exec::PrepareOptions o;
  o.modelFile = "foreign.mlir";
  o.parsedModel = *foreign;
  llvm::SourceMgr sourceMgr;
  try {
    exec::prepareModel(context, sourceMgr, o, *launcher);
    ADD_FAILURE() << "a module of another context was prepared";
  } catch (const std::exception &e) {
    EXPECT_EQ(std::string(e.what()),
              "the parsed foreign.mlir is of another context");
  }
}

TEST_F(LaunchTest, RefusesWhatTheJobCannotRun) {
  // Several ranks need a plan.
  auto two = threads(2);
  EXPECT_EQ(launchError(
                [&] { prepare(*two, kExamples + "/mlp.mlir", std::nullopt); }),
            "no plan: give --plan PLAN.json (or a tp.plan attribute in the "
            "model) to run on 2 ranks");
  // A missing file names itself.
  EXPECT_EQ(
      launchError([&] {
        prepare(*two, kExamples + "/missing.mlir", std::nullopt);
      }).rfind("cannot read model file '" + kExamples + "/missing.mlir'", 0),
      0u);

  // A partitioned program runs on its own mesh.
  std::string path = ::testing::TempDir() + "/launch-partitioned.mlir";
  {
    auto launcher = threads();
    exec::PreparedModel model = prepare(*launcher, kExamples + "/mlp.mlir",
                                        kExamples + "/mlp_plan.json");
    std::string text;
    llvm::raw_string_ostream os(text);
    model.module->print(os);
    std::ofstream(path) << text;
  }
  exec::PreparedModel spmd = prepare(*two, path, std::nullopt);
  EXPECT_TRUE(spmd.partitioned);
  exec::Program program =
      exec::Program::compile(exec::entryFunction(*spmd.module, path));
  EXPECT_EQ(launchError([&] {
              exec::checkProgramRanks(program, *two, spmd.partitioned);
            }),
            "--np 2 does not match the program's mesh of 4 ranks");
  EXPECT_EQ(launchError([&] {
              prepare(*two, path, kExamples + "/mlp_plan.json");
            }).find(" is already partitioned (@forward has tp.spmd)"),
            ("--plan " + kExamples + "/mlp_plan.json: " + path).size());
  EXPECT_EQ(launchError([&] { prepare(*two, path, std::nullopt, true); }),
            "--verify needs the model before lowering, not a partitioned "
            "program");
}

// An embedder's Launcher::run checks the data before any rank starts, as
// tp-run does: an inputs file without the model's input, one with too few
// batches for the steps, and a step count below 1 are errors from run()
// itself, naming the file and the input.
TEST_F(LaunchTest, RunChecksTheInputsBeforeTheRanksStart) {
  auto launcher = threads();
  exec::PreparedModel model =
      prepare(*launcher, kExamples + "/mlp.mlir", kExamples + "/mlp_plan.json");
  exec::Program program =
      exec::Program::compile(exec::entryFunction(*model.module, "mlp"));
  ASSERT_EQ(program.inputs().size(), 1u);
  const std::string input = program.inputs()[0].name;

  // A file holding another name only.
  std::string other = ::testing::TempDir() + "/launch-other-input.safetensors";
  exec::Tensor x({4, 8});
  mlir::tp::runtime::writeSafetensors(other, {{"not_" + input, &x}});
  exec::DataSource data;
  data.inputsFile = other;
  std::string message;
  try {
    launcher->run(program, data);
  } catch (const std::exception &e) {
    message = e.what();
  }
  EXPECT_NE(message.find(other), std::string::npos) << message;
  EXPECT_NE(message.find("'" + input + "'"), std::string::npos) << message;

  // Two batches, one per step, for three steps.
  std::string twoBatches =
      ::testing::TempDir() + "/launch-2-batches.safetensors";
  exec::Tensor batches({2, 4, 8});
  mlir::tp::runtime::writeSafetensors(twoBatches, {{input, &batches}});
  data.inputsFile = twoBatches;
  message.clear();
  try {
    launcher->run(program, data, 3);
  } catch (const std::exception &e) {
    message = e.what();
  }
  EXPECT_NE(message.find("fewer than the 3 steps to run"), std::string::npos)
      << message;
  // The same file serves two steps.
  EXPECT_EQ(launcher->run(program, data, 2).perRank.size(), 4u);

  EXPECT_EQ(launchError([&] { launcher->run(program, data, 0); }),
            "the number of steps must be at least 1, not 0");
}

// Under `using namespace mlir`, as embedders write it, `tp::` names one
// namespace: the dialects', the runtime's and the executor's alike (this
// file would not compile if `tp::` were ambiguous).
TEST(NamespaceTest, OneTpUnderUsingNamespaceMlir) {
  tp::runtime::Tensor t = tp::runtime::Tensor::full({2}, 3.0f);
  tp::exec::LaunchOptions o;
  EXPECT_EQ(t.at(1), 3.0f);
  EXPECT_EQ(o.backend, "threads");
  EXPECT_EQ(tp::TPDialect::getDialectNamespace(), "tp");
}

TEST(VerifyTest, TolerancesFollowTheDtype) {
  EXPECT_EQ(exec::defaultTolerance(::mlir::tp::runtime::DType::F32), 1e-5);
  EXPECT_EQ(exec::defaultTolerance(::mlir::tp::runtime::DType::BF16), 4e-2);
  EXPECT_EQ(exec::defaultTolerance(::mlir::tp::runtime::DType::F16), 5e-3);
}

} // namespace
