//===- MemoryMeterTest.cpp - MemoryMeter counts tensor buffers ------------===//

#include "tp/Runtime/MemoryMeter.h"
#include "tp/Runtime/Tensor.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

using namespace mlir::tp::runtime;

TEST(MemoryMeterTest, CountsTensorsFromAllocationToFree) {
  MemoryMeter meter;
  {
    MemoryMeter::Scope scope(meter);
    Tensor a({16, 8});                                  // 512 bytes
    Tensor b = Tensor::uninitialized({4}, DType::BF16); // 8 bytes
    EXPECT_EQ(meter.current(), 520);
    {
      Tensor c({100}, DType::I64); // 800 bytes
      EXPECT_EQ(meter.current(), 1320);
    }
    EXPECT_EQ(meter.current(), 520);
    EXPECT_EQ(meter.peak(), 1320);
    Tensor moved = std::move(a); // a move allocates nothing
    EXPECT_EQ(meter.current(), 520);
    Tensor copy = moved; // a copy does
    EXPECT_EQ(meter.current(), 1032);
  }
  EXPECT_EQ(meter.current(), 0);
  EXPECT_EQ(meter.peak(), 1320);
  meter.resetPeak();
  EXPECT_EQ(meter.peak(), 0);
}

TEST(MemoryMeterTest, CountsOnlyWhereInstalled) {
  MemoryMeter outer, inner;
  MemoryMeter::Scope a(outer);
  Tensor x({10}); // outer: 40
  {
    MemoryMeter::Scope b(inner);
    Tensor y({20}); // inner: 80
    EXPECT_EQ(inner.current(), 80);
    EXPECT_EQ(outer.current(), 40);
  }
  Tensor z({5}); // outer again: 60
  EXPECT_EQ(outer.current(), 60);
  EXPECT_EQ(inner.peak(), 80);
  // Another thread has no meter installed: its tensors count nowhere.
  std::thread([] { Tensor w({1000}); }).join();
  EXPECT_EQ(outer.peak(), 60);
}

TEST(MemoryMeterTest, FreesOnAnotherThreadAndAfterTheMeter) {
  auto kept = std::make_unique<Tensor>();
  {
    MemoryMeter meter;
    std::unique_ptr<Tensor> t;
    {
      MemoryMeter::Scope scope(meter);
      t = std::make_unique<Tensor>(std::vector<int64_t>{256});
      *kept = Tensor({64});
    }
    EXPECT_EQ(meter.current(), 1280);
    // Freed by another thread: subtracted from the meter it was counted in.
    std::thread([&] { t.reset(); }).join();
    EXPECT_EQ(meter.current(), 256);
  }
  // The meter is gone; its last buffer still frees cleanly (the sanitizer
  // builds would catch a use after free here).
  EXPECT_EQ(kept->numel(), 64);
  kept.reset();
}
