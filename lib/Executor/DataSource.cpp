//===- DataSource.cpp - parameters and inputs from files or the seed -----===//
//
// Where a program's data comes from (tp/Executor/DataSource.h) and the
// policy of generated data: the init distribution of each parameter (by
// name and shape). The id range of token inputs is found by the compiler
// (tokenRange in CompilerSupport.cpp: only the IR knows the tables the ids
// index); this file is part of the MLIR-free interpreter.
//
//===----------------------------------------------------------------------===//

#include "ProgramData.h"

#include "tp/Executor/Checkpoint.h"
#include "tp/Runtime/Init.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/Safetensors.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace ::mlir::tp::exec;
namespace rt = ::mlir::tp::runtime;

ParamInit DataSource::paramInit(const std::string &name,
                                const std::vector<int64_t> &globalShape) {
  ParamInit init;
  if (globalShape.size() >= 2) {
    init.scale =
        1.0f /
        std::sqrt(static_cast<float>(std::max<int64_t>(1, globalShape.back())));
  } else {
    const std::string suffix = "weight";
    init.onesCentred =
        name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    init.scale = 0.1f;
  }
  return init;
}

static void checkShape(const rt::SafetensorsFile &file, const std::string &name,
                       const std::vector<int64_t> &expected) {
  if (!file.contains(name))
    throw std::runtime_error(file.path() + ": missing tensor '" + name + "'");
  if (file.shape(name) != expected) {
    Tensor probe(file.shape(name));
    Tensor want(expected);
    throw std::runtime_error(file.path() + ": tensor '" + name +
                             "' has shape [" + probe.shapeString() +
                             "] but the model expects [" + want.shapeString() +
                             "]");
  }
}

/// Throws unless \p t, given in memory for \p what, has \p expected shape.
static void checkShape(const Tensor &t, const std::string &what,
                       const std::vector<int64_t> &expected) {
  if (t.shape() != expected)
    throw std::runtime_error(what + " given in memory has shape [" +
                             t.shapeString() + "] but the model expects [" +
                             Tensor(expected).shapeString() + "]");
}

Tensor DataSource::param(const ParamInfo &p, const rt::WeightFiles *weights,
                         const std::vector<Slice> &slices) const {
  // The first slice is cut where the tensor is read or generated, the
  // others from that piece.
  const Slice *first = slices.empty() ? nullptr : &slices.front();
  auto cutRest = [&](Tensor t) {
    for (size_t i = 1; i < slices.size(); ++i)
      t = rt::sliceDim(t, slices[i].dim, slices[i].offset, slices[i].size);
    return t;
  };
  if (checkpoint) {
    if (!checkpoint->contains(p.name))
      throw std::runtime_error("checkpoint " + checkpoint->dir() +
                               " has no parameter '" + p.name + "'");
    if (checkpoint->shape(p.name) != p.globalShape)
      throw std::runtime_error("checkpoint " + checkpoint->dir() +
                               ": parameter '" + p.name + "' has shape [" +
                               Tensor(checkpoint->shape(p.name)).shapeString() +
                               "] but the model expects [" +
                               Tensor(p.globalShape).shapeString() + "]");
    Box box = Box::whole(p.globalShape);
    for (const Slice &s : slices) {
      box.offsets[s.dim] = s.offset;
      box.sizes[s.dim] = s.size;
    }
    return checkpoint->read(p.name, box).to(p.dtype);
  }
  if (auto it = weightTensors.find(p.name); it != weightTensors.end()) {
    const Tensor &t = *it->second;
    checkShape(t, "parameter '" + p.name + "'", p.globalShape);
    return cutRest(first
                       ? rt::sliceDim(t, first->dim, first->offset, first->size)
                       : t)
        .to(p.dtype);
  }
  if (weights) {
    std::string key = weightsPrefix + p.name;
    const rt::SafetensorsFile *file = weights->fileOf(key);
    if (!file)
      throw std::runtime_error("weights index '" + weights->path() +
                               "': its weight_map has no tensor '" + key + "'");
    checkShape(*file, key, p.globalShape);
    return cutRest(first ? file->readSlice(key, first->dim, first->offset,
                                           first->size)
                         : file->read(key))
        .to(p.dtype);
  }
  ParamInit init = paramInit(p.name, p.globalShape);
  Tensor t = first ? rt::initShard(seed, p.name, p.globalShape, first->dim,
                                   first->offset, first->size, init.scale)
                   : rt::initTensor(seed, p.name, p.globalShape, init.scale);
  if (init.onesCentred)
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data()[i] += 1.0f;
  return cutRest(std::move(t)).to(p.dtype);
}

/// "1 batch", "3 batches".
static std::string batchesText(int64_t n) {
  return std::to_string(n) + (n == 1 ? " batch" : " batches");
}

int64_t DataSource::batchesOf(const InputInfo &in,
                              const rt::SafetensorsFile &inputs) {
  if (!inputs.contains(in.name))
    throw std::runtime_error(inputs.path() + ": missing tensor '" + in.name +
                             "'");
  const std::vector<int64_t> &shape = inputs.shape(in.name);
  if (shape == in.shape)
    return 0;
  if (shape.size() == in.shape.size() + 1 && shape[0] >= 1 &&
      std::equal(in.shape.begin(), in.shape.end(), shape.begin() + 1))
    return shape[0];
  std::string want = Tensor(in.shape).shapeString();
  throw std::runtime_error(
      inputs.path() + ": tensor '" + in.name + "' has shape [" +
      Tensor(shape).shapeString() + "] but the model expects [" + want +
      "], or [S" + (want.empty() ? "" : "x" + want) + "] for a batch per step");
}

int64_t DataSource::checkInputs(const std::vector<InputInfo> &inputs,
                                int64_t steps) const {
  if (inputsFile.empty())
    return 0;
  rt::SafetensorsFile file = rt::SafetensorsFile::open(inputsFile);
  int64_t batches = 0;
  const InputInfo *first = nullptr;
  for (const InputInfo &in : inputs) {
    if (inputTensors.count(in.name))
      continue;
    int64_t n = batchesOf(in, file);
    if (!n)
      continue;
    if (first && n != batches)
      throw std::runtime_error(
          file.path() + ": input '" + in.name + "' holds " + batchesText(n) +
          " but '" + first->name + "' holds " + std::to_string(batches) +
          "; the inputs given a batch per step need as many batches");
    if (!first) {
      first = &in;
      batches = n;
    }
  }
  if (batches && batches < steps)
    throw std::runtime_error(file.path() + ": input '" + first->name +
                             "' holds " + batchesText(batches) +
                             " (one per step), fewer than the " +
                             std::to_string(steps) + " steps to run");
  return batches;
}

Tensor DataSource::input(const InputInfo &in,
                         rt::SafetensorsFile *inputs) const {
  auto held = inputTensors.find(in.name);
  if (held != inputTensors.end() || inputs) {
    std::string where;
    Tensor t;
    if (held != inputTensors.end()) {
      where = "input '" + in.name + "' given in memory";
      checkShape(*held->second, "input '" + in.name + "'", in.shape);
      t = *held->second;
    } else {
      where = inputs->path() + ": input '" + in.name + "'";
      if (int64_t batches = batchesOf(in, *inputs); batches == 0) {
        t = inputs->read(in.name);
      } else {
        if (step < 0 || step >= batches)
          throw std::runtime_error(where + " holds " + batchesText(batches) +
                                   ", none for step " + std::to_string(step));
        // Only this step's bytes.
        t = inputs->readSlice(in.name, 0, step, 1).reshaped(in.shape);
        where += " (batch " + std::to_string(step) + ")";
      }
    }
    if (!in.isTokens)
      return std::move(t).to(in.dtype);
    if (!rt::isIntegerDType(t.dtype()) && t.dtype() != rt::DType::F32)
      throw std::runtime_error(where + " holds token ids as " +
                               rt::dtypeName(t.dtype()) +
                               "; ids must be I64, I32 or F32 holding "
                               "integers");
    std::string range = " outside [0, " + std::to_string(in.vocab) + ")" +
                        (in.ignoreIndex ? " (or -100, ignored)" : "");
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (t.dtype() == rt::DType::F32) {
        // Old files: f32 ids, exact only as integers.
        float v = t.data()[i];
        if (v != std::floor(v) || v < 0 || v >= in.vocab)
          throw std::runtime_error(
              where + " holds id " + std::to_string(v) +
              (v != std::floor(v) ? ", not an integer" : range));
        continue;
      }
      int64_t v = t.atInt(i);
      if (v == kIgnoreIndex && in.ignoreIndex)
        continue;
      if (v < 0 || v >= in.vocab)
        throw std::runtime_error(where + " holds id " + std::to_string(v) +
                                 range);
    }
    // In range (or -100), so exact in every integer dtype.
    return std::move(t).to(in.dtype);
  }
  if (in.isTokens)
    return rt::initTokens(seed, in.name, in.shape, in.vocab).to(in.dtype);
  Tensor values = rt::initTensor(seed, in.name, in.shape, 1.0f);
  if (in.dtype == rt::DType::Bool) {
    // A mask: true where the seeded normal value is positive (about half).
    for (int64_t i = 0; i < values.numel(); ++i)
      values.data()[i] = values.data()[i] > 0.0f ? 1.0f : 0.0f;
  }
  return std::move(values).to(in.dtype);
}

Tensor DataSource::localInput(const InputInfo &in, Tensor global,
                              const std::vector<int64_t> &meshShape,
                              const std::vector<int64_t> &coords) {
  // Nested in split order, as the partitioner chunks.
  std::vector<int64_t> offsets, sizes;
  rt::placementBox(global.shape(), in.placements, meshShape, coords, offsets,
                   sizes);
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != global.shape()[d])
      global =
          rt::sliceDim(global, static_cast<int64_t>(d), offsets[d], sizes[d]);
  for (size_t a = 0; a < in.placements.size() && a < meshShape.size(); ++a)
    if (in.placements[a] == "Psum" && coords[a] != 0)
      global = Tensor(global.shape(), global.dtype());
  return global;
}
