//===- InterpreterTest.cpp - the interpreter links without MLIR -*- C++ -*-===//
//
// TPInterpreter runs compiled programs on the runtime; this binary links it
// and nothing of MLIR (no dialect, no IR library), so a dependence of the
// interpreter on the compiler or on MLIR fails to link here. It takes the
// address of what each of its files defines, so each is linked in.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/DataSource.h"
#include "tp/Executor/Executor.h"
#include "tp/Executor/Instruction.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir::tp::exec;

TEST(Interpreter, LinksWithoutMLIR) {
  // Executor.cpp, Printer.cpp and DataSource.cpp.
  auto run = &Program::run;
  auto print = &Program::print;
  auto global = &Program::globalParam;
  EXPECT_NE(run, nullptr);
  EXPECT_NE(print, nullptr);
  EXPECT_NE(global, nullptr);
  // The opcode table comes from Opcodes.def, the kernels from their
  // families (HostKernels.cpp).
  EXPECT_EQ(std::string(opcodeName(Opcode::AllGather)), "all_gather");
  EXPECT_TRUE(isKernel(Opcode::Kernel));
  EXPECT_FALSE(isKernel(Opcode::AllReduce));
  int clip = kernelNamed("clip_coefficient");
  ASSERT_GE(clip, 0);
  EXPECT_EQ(std::string(kernelName(clip)), "clip_coefficient");
}
