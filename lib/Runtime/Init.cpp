//===- Init.cpp - Deterministic parameter initialization --------*- C++ -*-===//
//
// Counter-based generation: no state carries between elements, which is what
// makes shards reproducible independently of the partitioning.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Init.h"

#include <cmath>
#include <stdexcept>

using namespace mlir::tp::runtime;

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static uint64_t fnv1a(const std::string &s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

/// The per-tensor stream key; element i is splitmix64(key + i).
static uint64_t streamKey(uint64_t seed, const std::string &name) {
  return splitmix64(splitmix64(seed) ^ fnv1a(name));
}

InitStream::InitStream(uint64_t seed, const std::string &name)
    : key(streamKey(seed, name)) {}

uint64_t InitStream::bits(int64_t globalIndex) const {
  return splitmix64(key + static_cast<uint64_t>(globalIndex));
}

static float uniformFromBits(uint64_t bits, float scale) {
  // 24 random bits give a float in [0, 1) exactly, then [-1, 1) exactly.
  float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
  float v = (2.0f * unit - 1.0f) * scale;
  // Rounding of the product may reach +scale; keep the interval half-open.
  return v >= scale && scale > 0.0f ? std::nextafter(scale, 0.0f) : v;
}

uint64_t mlir::tp::runtime::initBits(uint64_t seed, const std::string &name,
                                     int64_t globalIndex) {
  return InitStream(seed, name).bits(globalIndex);
}

float mlir::tp::runtime::initValue(uint64_t seed, const std::string &name,
                                   int64_t globalIndex, float scale) {
  return uniformFromBits(initBits(seed, name, globalIndex), scale);
}

Tensor mlir::tp::runtime::initTensor(uint64_t seed, const std::string &name,
                                     const std::vector<int64_t> &globalShape,
                                     float scale) {
  Tensor t(globalShape);
  uint64_t key = streamKey(seed, name);
  for (int64_t i = 0, e = t.numel(); i < e; ++i)
    t.data()[i] = uniformFromBits(splitmix64(key + i), scale);
  return t;
}

Tensor mlir::tp::runtime::initShard(uint64_t seed, const std::string &name,
                                    const std::vector<int64_t> &globalShape,
                                    int64_t dim, int64_t offset, int64_t size,
                                    float scale) {
  int64_t rank = static_cast<int64_t>(globalShape.size());
  dim = normalizeDim(dim, rank);
  int64_t extent = globalShape[dim];
  if (offset < 0 || size < 0 || offset > extent || size > extent - offset)
    throw std::invalid_argument(
        "initShard '" + name + "': slice of size " + std::to_string(size) +
        " at " + std::to_string(offset) + " out of range for dimension " +
        std::to_string(dim) + " of shape " + shapeToString(globalShape));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i)
    outer *= globalShape[i];
  for (int64_t i = dim + 1; i < rank; ++i)
    inner *= globalShape[i];
  std::vector<int64_t> shape = globalShape;
  shape[dim] = size;
  Tensor t(shape);
  uint64_t key = streamKey(seed, name);
  float *out = t.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < size; ++j) {
      uint64_t base = (o * extent + offset + j) * inner;
      for (int64_t i = 0; i < inner; ++i)
        *out++ = uniformFromBits(splitmix64(key + base + i), scale);
    }
  return t;
}

Tensor mlir::tp::runtime::initTokens(uint64_t seed, const std::string &name,
                                     const std::vector<int64_t> &shape,
                                     int64_t vocab) {
  if (vocab <= 0 || vocab > (int64_t(1) << 24))
    throw std::invalid_argument("initTokens '" + name + "': vocabulary size " +
                                std::to_string(vocab) +
                                " must be in [1, 2^24]");
  Tensor t(shape, DType::I64);
  int64_t *ids = t.dataI64();
  uint64_t key = streamKey(seed, name);
  for (int64_t i = 0, e = t.numel(); i < e; ++i) {
    // 24 random bits times vocab <= 2^24 fits in 48 bits; the top 24 bits
    // of the product are uniform in [0, vocab) up to a bias below 2^-24.
    uint64_t bits = splitmix64(key + i) >> 40;
    ids[i] = static_cast<int64_t>((bits * static_cast<uint64_t>(vocab)) >> 24);
  }
  return t;
}
