//===- MemoryMeter.h - Bytes of the tensors a rank allocates ----*- C++ -*-===//
//
// Measures what a rank's tensors really occupy: every Tensor buffer
// allocated while a meter is installed on the allocating thread counts
// against that meter until the buffer is freed, on whatever thread frees it.
// Kernel temporaries, widened copies of 16-bit operands, collective buffers,
// parameters and optimizer state are all Tensors, so the meter's peak is the
// rank's tensor memory as the runtime used it (what a caching allocator's
// peak would show), not a bookkeeping of the liveness plan.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_MEMORYMETER_H
#define TP_RUNTIME_MEMORYMETER_H

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace mlir::tp::runtime {

namespace detail {
struct MeterState;
} // namespace detail

/// Counts the bytes of Tensor buffers allocated on the threads it is
/// installed on (MemoryMeter::Scope), from their allocation to their free.
/// Thread-safe: buffers may be freed on another thread. A buffer outliving
/// the meter is still subtracted correctly (the shared state lives until
/// its last buffer is freed).
class MemoryMeter {
public:
  MemoryMeter();
  ~MemoryMeter();
  MemoryMeter(const MemoryMeter &) = delete;
  MemoryMeter &operator=(const MemoryMeter &) = delete;

  /// Bytes of the counted buffers that are allocated now.
  int64_t current() const;
  /// The most bytes allocated at once since construction or resetPeak.
  int64_t peak() const;
  /// Restarts the peak at the current bytes.
  void resetPeak();

  /// Installs a meter on the calling thread for the scope's lifetime (the
  /// previous one, if any, comes back after it).
  class Scope {
  public:
    explicit Scope(MemoryMeter &meter);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    detail::MeterState *previous;
  };

private:
  detail::MeterState *state;
};

namespace detail {
/// \p bytes of storage for a Tensor, counted by the calling thread's meter
/// (if any); aligned as ::operator new aligns.
void *meteredAllocate(size_t bytes);
/// Frees what meteredAllocate(\p bytes) returned.
void meteredFree(void *p, size_t bytes) noexcept;
} // namespace detail

/// std::allocator's behaviour, with the storage counted by the calling
/// thread's meter: for the scratch buffers kernels keep besides their
/// tensors (ScratchVector), so that the meter sees them too.
template <typename T> struct MeteredAllocator {
  using value_type = T;
  MeteredAllocator() = default;
  template <typename U> MeteredAllocator(const MeteredAllocator<U> &) {}
  T *allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / 2 / sizeof(T))
      throw std::bad_array_new_length();
    return static_cast<T *>(detail::meteredAllocate(n * sizeof(T)));
  }
  void deallocate(T *p, size_t n) noexcept {
    detail::meteredFree(p, n * sizeof(T));
  }
  template <typename U>
  bool operator==(const MeteredAllocator<U> &) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const MeteredAllocator<U> &) const noexcept {
    return false;
  }
};

/// A kernel's scratch buffer, counted like a tensor.
template <typename T> using ScratchVector = std::vector<T, MeteredAllocator<T>>;

} // namespace mlir::tp::runtime

#endif // TP_RUNTIME_MEMORYMETER_H
