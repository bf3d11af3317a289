//===- MemoryMeter.cpp - Bytes of the tensors a rank allocates ------------===//
//
// Each metered buffer carries, in a header before its elements, the state of
// the meter it was counted against (or null), so that its free subtracts
// from the same meter on any thread. The state is reference-counted by the
// meter and by its live buffers.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/MemoryMeter.h"

#include <atomic>
#include <new>

namespace mlir::tp::runtime {

namespace detail {

struct MeterState {
  std::atomic<int64_t> current{0}, peak{0};
  /// The meter itself and each live buffer counted against it.
  std::atomic<int64_t> refs{1};

  void release() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }
  void add(int64_t bytes) {
    refs.fetch_add(1, std::memory_order_relaxed);
    int64_t now = current.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t high = peak.load(std::memory_order_relaxed);
    while (now > high &&
           !peak.compare_exchange_weak(high, now, std::memory_order_relaxed))
      ;
  }
  void subtract(int64_t bytes) {
    current.fetch_sub(bytes, std::memory_order_relaxed);
    release();
  }
};

} // namespace detail

namespace {
thread_local detail::MeterState *installed = nullptr;

/// The header before a metered buffer's elements: the meter's state, padded
/// so that the elements keep ::operator new's alignment.
constexpr size_t kHeader = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
static_assert(kHeader >= sizeof(detail::MeterState *),
              "the header holds a pointer");
} // namespace

MemoryMeter::MemoryMeter() : state(new detail::MeterState) {}
MemoryMeter::~MemoryMeter() { state->release(); }

int64_t MemoryMeter::current() const {
  return state->current.load(std::memory_order_relaxed);
}
int64_t MemoryMeter::peak() const {
  return state->peak.load(std::memory_order_relaxed);
}
void MemoryMeter::resetPeak() {
  state->peak.store(current(), std::memory_order_relaxed);
}

MemoryMeter::Scope::Scope(MemoryMeter &meter) : previous(installed) {
  installed = meter.state;
}
MemoryMeter::Scope::~Scope() { installed = previous; }

void *detail::meteredAllocate(size_t bytes) {
  auto *base = static_cast<char *>(::operator new(bytes + kHeader));
  MeterState *meter = installed;
  *reinterpret_cast<MeterState **>(base) = meter;
  if (meter)
    meter->add(static_cast<int64_t>(bytes));
  return base + kHeader;
}

void detail::meteredFree(void *p, size_t bytes) noexcept {
  char *base = static_cast<char *>(p) - kHeader;
  if (MeterState *meter = *reinterpret_cast<MeterState **>(base))
    meter->subtract(static_cast<int64_t>(bytes));
  ::operator delete(base);
}

} // namespace mlir::tp::runtime
