//===- Init.h - Deterministic parameter initialization ----------*- C++ -*-===//
//
// Seeded values that depend only on (seed, name, global flat index), so any
// rank can generate exactly its shard without materializing the whole tensor.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_INIT_H
#define TP_RUNTIME_INIT_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// The counter stream of tensor \p name under \p seed: bits(i) are 64
/// pseudo-random bits for element i, splitmix64 of a key made of \p seed and
/// the FNV-1a hash of \p name plus i. No state carries between elements.
class InitStream {
public:
  InitStream(uint64_t seed, const std::string &name);
  uint64_t bits(int64_t globalIndex) const;

private:
  uint64_t key;
};

/// InitStream(seed, name).bits(globalIndex).
uint64_t initBits(uint64_t seed, const std::string &name, int64_t globalIndex);

/// A value uniform in [-scale, scale) for element \p globalIndex (row-major
/// index into the global tensor) of tensor \p name.
float initValue(uint64_t seed, const std::string &name, int64_t globalIndex,
                float scale);

/// The whole tensor: element i is initValue(seed, name, i, scale).
Tensor initTensor(uint64_t seed, const std::string &name,
                  const std::vector<int64_t> &globalShape, float scale);

/// Exactly sliceDim(initTensor(seed, name, globalShape, scale), dim, offset,
/// size), computed without generating the rest of the tensor.
Tensor initShard(uint64_t seed, const std::string &name,
                 const std::vector<int64_t> &globalShape, int64_t dim,
                 int64_t offset, int64_t size, float scale);

/// Token ids uniform in [0, vocab) as an I64 tensor (vocab <= 2^24: each id
/// is drawn from 24 random bits); element i depends only on (seed, name, i).
Tensor initTokens(uint64_t seed, const std::string &name,
                  const std::vector<int64_t> &shape, int64_t vocab);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_INIT_H
