//===- ProgramFlagsTest.cpp - the flags that shape a run's program --------===//
//
// ProgramFlags::apply: the options a tp-run or tp-plan command line makes,
// and the problems it names.
//
//===----------------------------------------------------------------------===//

#include "tp/Launch/ProgramFlags.h"

#include <gtest/gtest.h>

using namespace mlir::tp::exec;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("test");
ProgramFlags flags(category);

/// Parses \p args as a command line, then applies the flags.
std::string applyArgs(std::vector<const char *> args, PrepareOptions &out) {
  cl::ResetAllOptionOccurrences();
  args.insert(args.begin(), "test");
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (!cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                                   "", &os))
    return "parse: " + errors;
  return flags.apply(out);
}

TEST(ProgramFlagsTest, TrainingMakesTheOptimizer) {
  PrepareOptions p;
  ASSERT_EQ(applyArgs({"--train", "--momentum", "0.9", "--param-dtype", "bf16",
                       "--max-grad-norm", "1"},
                      p),
            "");
  EXPECT_TRUE(p.differentiate);
  EXPECT_EQ(p.paramDtype, "bf16");
  ASSERT_TRUE(p.optimizer);
  EXPECT_EQ(p.optimizer->kind, "sgd");
  EXPECT_DOUBLE_EQ(p.optimizer->momentum, 0.9);
  EXPECT_DOUBLE_EQ(p.optimizer->maxGradNorm, 1);
  // FSDP2's default: reduced in the param dtype.
  EXPECT_EQ(p.optimizer->reduceDtype, "bf16");
  EXPECT_TRUE(p.optimizer->isGiven("momentum"));
  EXPECT_FALSE(p.optimizer->isGiven("lr"));
}

TEST(ProgramFlagsTest, ForwardAndGradient) {
  PrepareOptions p;
  ASSERT_EQ(applyArgs({}, p), "");
  EXPECT_FALSE(p.differentiate);
  EXPECT_FALSE(p.optimizer);
  EXPECT_EQ(p.paramDtype, "f32");
  EXPECT_TRUE(p.fsdpPrefetch);
  ASSERT_EQ(applyArgs({"--grad", "--regather", "--fsdp-prefetch=false"}, p),
            "");
  EXPECT_TRUE(p.differentiate);
  EXPECT_TRUE(p.regather);
  EXPECT_FALSE(p.fsdpPrefetch);
  EXPECT_FALSE(p.optimizer);
}

TEST(ProgramFlagsTest, ProblemsNameTheirFlag) {
  PrepareOptions p;
  EXPECT_EQ(applyArgs({"--eps", "1e-3"}, p), "--eps belongs to --train");
  EXPECT_EQ(applyArgs({"--regather"}, p),
            "--regather belongs to --grad or --train");
  EXPECT_EQ(applyArgs({"--param-dtype", "f64"}, p),
            "--param-dtype must be bf16, f16 or f32, not 'f64'");
  EXPECT_EQ(
      applyArgs({"--train", "--param-dtype", "bf16", "--reduce-dtype", "f16"},
                p),
      "--reduce-dtype f16 with --param-dtype bf16: the gradients are "
      "computed in the --param-dtype and reduced in it or in f32");
  EXPECT_EQ(applyArgs({"--train", "--betas", "0.9"}, p),
            "--betas must be two numbers in [0, 1) as B1,B2, not '0.9'");
  EXPECT_EQ(
      applyArgs({"--train", "--optimizer", "adamw", "--momentum", "0.9"}, p),
      "--momentum belongs to --optimizer sgd");
}

} // namespace
