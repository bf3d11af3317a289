//===- Verify.cpp - compare a parallel run with one rank ------------------===//

#include "tp/Launch/Verify.h"

#include "Launchers.h"

#include "tp/Runtime/ThreadCommunicator.h"
#include "tp/Support/JSON.h"

#include <cmath>
#include <cstdio>

namespace rt = ::mlir::tp::runtime;

namespace mlir::tp::exec {

void NonFinite::add(size_t i, const Tensor &a, const Tensor &b,
                    const rt::Comparison &c) {
  int64_t e = c.firstMismatch >= 0 ? c.firstMismatch : c.firstNonFinite;
  if (e >= 0 && (count == 0 || (!mismatch && c.firstMismatch >= 0))) {
    output = i;
    index = rt::indexString(a.shape(), e);
    parallel = a.at(e);
    reference = b.at(e);
  }
  mismatch |= c.firstMismatch >= 0;
  count += c.nonFinite;
}

std::string NonFinite::describe() const {
  std::string s = "output " + std::to_string(output) + " is not finite" +
                  (index == "[]" ? "" : " at " + index) + ": ";
  if (mismatch)
    s += std::isfinite(parallel)
             ? "the reference has " + rt::valueString(reference) +
                   " where the parallel run has " + rt::valueString(parallel)
             : "the parallel run has " + rt::valueString(parallel) +
                   " where the reference has " + rt::valueString(reference);
  else
    s += rt::valueString(parallel) + " in both runs (" + std::to_string(count) +
         " non-finite element" + (count == 1 ? "" : "s") +
         ", all where the reference has them: compared as equal)";
  return s + "; " +
         (source.empty() ? "every input and weight is finite" : source);
}

void NonFinite::writeJSON(json::Writer &w) const {
  w.objectBegin();
  w.member("count", count);
  w.member("index", index);
  w.member("matches_reference", !mismatch);
  w.member("output", static_cast<int64_t>(output));
  w.member("parallel", rt::valueString(parallel));
  w.member("reference", rt::valueString(reference));
  w.key("source");
  if (source.empty())
    w.value(nullptr);
  else
    w.value(source);
  w.objectEnd();
}

std::string Verification::failure() const {
  if (passed)
    return "";
  if (nonFinite.mismatch)
    return "verification failed: " + nonFinite.describe();
  // Both in %e, as LLVM's streams print doubles.
  char text[96];
  std::snprintf(text, sizeof(text),
                "verification failed: max relative error %e exceeds %e",
                maxRelError, tolerance);
  return text;
}

rt::DType programDType(const Program &program) {
  for (const ParamInfo &p : program.params())
    if (p.dtype != rt::DType::F32)
      return p.dtype;
  return rt::DType::F32;
}

double defaultTolerance(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::BF16:
    return 4e-2;
  case rt::DType::F16:
    return 5e-3;
  default:
    return 1e-5;
  }
}

Verification verifyOutputs(const Program &program,
                           const std::vector<Tensor> &outputs,
                           const Program &reference, const DataSource &data,
                           std::optional<double> rtol, int steps,
                           const std::vector<double> *losses) {
  Verification v;
  std::vector<std::vector<float>> pieces(1);
  RunResult ref = detail::runOnRankThreads(
      1,
      [](int n, const std::function<void(rt::Communicator &)> &fn) {
        rt::runRanks(n, fn);
      },
      detail::runSteps(reference, data, steps, &pieces, nullptr));
  v.referenceLosses = detail::assembleLosses(reference, pieces);
  const std::vector<Tensor> &expected = ref.perRank[0];
  if (expected.size() != outputs.size())
    throw LaunchError("the reference returns a different number of results");
  double maxRef = 0;
  if (losses) {
    if (losses->size() != v.referenceLosses.size())
      throw LaunchError("the reference ran " +
                        std::to_string(v.referenceLosses.size()) +
                        " steps, not " + std::to_string(losses->size()));
    for (size_t i = 0; i < losses->size(); ++i) {
      double a = (*losses)[i], b = v.referenceLosses[i];
      if (std::isfinite(a) && std::isfinite(b)) {
        v.maxAbsError = std::max(v.maxAbsError, std::fabs(a - b));
        maxRef = std::max(maxRef, std::fabs(b));
      }
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor &a = outputs[i], &b = expected[i];
    if (a.shape() != b.shape())
      throw LaunchError("result " + std::to_string(i) + " has shape [" +
                        a.shapeString() + "] but the reference has [" +
                        b.shapeString() + "]");
    rt::Comparison c = rt::compareWithReference(a, b);
    v.maxAbsError = std::max(v.maxAbsError, c.maxAbsError);
    maxRef = std::max(maxRef, c.maxReference);
    v.nonFinite.add(i, a, b, c);
  }
  if (v.nonFinite.count)
    v.nonFinite.source = findNonFiniteSource(program, data);
  v.maxRelError = maxRef > 0 ? v.maxAbsError / maxRef : v.maxAbsError;
  v.tolerance = rtol ? *rtol : defaultTolerance(programDType(program));
  v.passed = !v.nonFinite.mismatch && v.maxRelError <= v.tolerance;
  return v;
}

std::string findNonFiniteSource(const Program &program,
                                const DataSource &data) {
  auto describe = [](const char *what, const std::string &name, const Tensor &t,
                     int64_t e) {
    return std::string(what) + " '" + name + "' has " +
           rt::valueString(t.at(e)) + " at " + rt::indexString(t.shape(), e);
  };
  for (const InputInfo &in : program.inputs()) {
    Tensor t = Program::globalInput(in, data);
    if (int64_t e = rt::findNonFinite(t); e >= 0)
      return describe("input", in.name, t, e);
  }
  for (const ParamInfo &p : program.params()) {
    Tensor t = Program::globalParam(p, data);
    if (int64_t e = rt::findNonFinite(t); e >= 0)
      return describe("weight", p.name, t, e);
  }
  return "";
}

} // namespace mlir::tp::exec
