//===- InputLimitsTest.cpp - bounded file reading and checked output ------===//
//
// readFileBounded stops at its limit on regular files, devices and pipes;
// finishOutput reports write errors. (The JSON nesting and duplicate-key
// checks are mlir::tp::json's: JSONTest.cpp.)
//
//===----------------------------------------------------------------------===//

#include "tp/Support/InputLimits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

using namespace mlir::tp;

namespace {

std::string errorOf(llvm::Error e) {
  return e ? llvm::toString(std::move(e)) : std::string();
}

std::string writeTemp(const std::string &text) {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(
      llvm::sys::fs::createTemporaryFile("input-limits", "json", fd, path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  return path.str().str();
}

TEST(ReadFileBoundedTest, ReadsUpToTheLimit) {
  std::string path = writeTemp("0123456789");
  auto exact = readFileBounded(path, 10);
  ASSERT_TRUE(!!exact) << llvm::toString(exact.takeError());
  EXPECT_EQ((*exact)->getBuffer(), "0123456789");
  auto over = readFileBounded(path, 9);
  ASSERT_FALSE(!!over);
  EXPECT_EQ(llvm::toString(over.takeError()),
            "its size of 10 bytes is more than the limit of 9 bytes");
  llvm::sys::fs::remove(path);
}

// Regular files are read at their size, memory-mapped when large: the whole
// content, null-terminated (the MLIR parser relies on it), named by the path;
// sizes on and off a page boundary (LLVM maps only the latter).
TEST(ReadFileBoundedTest, ReadsLargeFilesWhole) {
  for (size_t size : {size_t(3 * 4096), size_t(200 * 1024 + 17)}) {
    std::string text(size, ' ');
    for (size_t i = 0; i < size; ++i)
      text[i] = char('a' + i % 23);
    std::string path = writeTemp(text);
    auto buffer = readFileBounded(path, size);
    ASSERT_TRUE(!!buffer) << llvm::toString(buffer.takeError());
    EXPECT_EQ((*buffer)->getBuffer(), text) << size;
    EXPECT_EQ((*buffer)->getBufferEnd()[0], '\0') << size;
    EXPECT_EQ((*buffer)->getBufferIdentifier(), path);
    auto over = readFileBounded(path, size - 1);
    EXPECT_FALSE(!!over);
    llvm::consumeError(over.takeError());
    llvm::sys::fs::remove(path);
  }
}

TEST(ReadFileBoundedTest, StopsOnEndlessDevices) {
  auto zero = readFileBounded("/dev/zero", uint64_t(1) << 20);
  ASSERT_FALSE(!!zero);
  EXPECT_EQ(llvm::toString(zero.takeError()),
            "its content is more than the limit of 1 MiB");
}

TEST(ReadFileBoundedTest, NamesWhatIsWrong) {
  auto missing = readFileBounded("/nonexistent/x.json", 100);
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(llvm::toString(missing.takeError()), "No such file or directory");
  auto dir = readFileBounded("/", 100);
  ASSERT_FALSE(!!dir);
  EXPECT_EQ(llvm::toString(dir.takeError()), "is a directory");
}

TEST(FinishOutputTest, ReportsWriteErrors) {
  std::error_code ec;
  llvm::raw_fd_ostream full("/dev/full", ec);
  ASSERT_FALSE(ec);
  full << std::string(1 << 16, 'x');
  EXPECT_EQ(errorOf(finishOutput(full, "/dev/full")),
            "cannot write '/dev/full': No space left on device");
  EXPECT_FALSE(full.has_error());
}

} // namespace
