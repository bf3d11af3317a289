//===- OptimizerOptions.cpp - the training options' one check ----*- C++
//-*-===//
//
// What tp-run's flags, tp-pipeline's options (the C API's path) and
// tp-optimizer-step's options may hold, checked in one place, so that no
// entry point accepts what another refuses (an infinite lr, AdamW's
// momentum silently ignored, an optimizer without grad=true).
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/PassRegistry.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;

namespace {
/// Names options in one syntax.
struct Speller {
  OptionSyntax syntax;
  /// `--lr` or `lr`; tp-run's --betas holds beta1 and beta2.
  std::string name(StringRef option) const {
    if (syntax == OptionSyntax::PassOptions)
      return option.str();
    if (option == "beta1" || option == "beta2")
      return "--betas";
    return ("--" + option).str();
  }
  /// `--optimizer sgd` or `optimizer=sgd`.
  std::string setting(StringRef option, StringRef value) const {
    return name(option) + (syntax == OptionSyntax::Flags ? " " : "=") +
           value.str();
  }
};

std::string number(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  std::string text;
  llvm::raw_string_ostream(text) << v;
  return text;
}
} // namespace

std::string mlir::tp::checkOptimizerOptions(const OptimizerOptions &o,
                                            OptionSyntax syntax) {
  Speller spell{syntax};
  if (o.kind != "sgd" && o.kind != "adamw")
    return spell.name("optimizer") + " must be sgd or adamw, not '" + o.kind +
           "'";
  // Finite and at least 0, as PyTorch's constructors want them (they accept
  // an infinite lr; tp does not, it would only make NaN parameters).
  auto atLeastZero = [&](StringRef option, double v) -> std::string {
    if (std::isfinite(v) && v >= 0)
      return "";
    return spell.name(option) + " must be a finite number of at least 0, got " +
           number(v);
  };
  std::pair<StringRef, double> numbers[] = {{"lr", o.lr},
                                            {"momentum", o.momentum},
                                            {"dampening", o.dampening},
                                            {"eps", o.eps},
                                            {"max-grad-norm", o.maxGradNorm}};
  for (auto [option, v] : numbers)
    if (std::string problem = atLeastZero(option, v); !problem.empty())
      return problem;
  // Negative and not given: the optimizer's default.
  if (o.isGiven("weight-decay") || std::isnan(o.weightDecay))
    if (std::string problem = atLeastZero("weight-decay", o.weightDecay);
        !problem.empty())
      return problem;
  for (auto [option, v] :
       {std::pair<StringRef, double>{"beta1", o.beta1}, {"beta2", o.beta2}})
    if (!(v >= 0 && v < 1))
      return spell.name(option) + " must be in [0, 1), got " + number(v);
  if (o.isGiven("max-grad-norm") && o.maxGradNorm == 0)
    return spell.name("max-grad-norm") +
           " must be positive (leave it out for no clipping)";
  // What the other optimizer reads is an error, not ignored.
  static constexpr StringLiteral adamwOnly[] = {"beta1", "beta2", "eps"};
  static constexpr StringLiteral sgdOnly[] = {"momentum", "dampening",
                                              "nesterov"};
  bool sgd = o.kind == "sgd";
  for (StringRef option : sgd ? ArrayRef<StringLiteral>(adamwOnly)
                              : ArrayRef<StringLiteral>(sgdOnly))
    if (o.isGiven(option))
      return spell.name(option) + " belongs to " +
             spell.setting("optimizer", sgd ? "adamw" : "sgd");
  if (!o.reduceDtype.empty() && canonicalComputeDtype(o.reduceDtype).empty())
    return spell.name("reduce-dtype") + " must be f32, bf16 or f16, not '" +
           o.reduceDtype + "'";
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0))
    return spell.name("nesterov") + " needs a positive " +
           spell.name("momentum") + " and a " + spell.name("dampening") +
           " of 0";
  return "";
}

OptimizerOptions mlir::tp::getOptimizerOptions(const TPPipelineOptions &p) {
  OptimizerOptions o;
  o.kind = p.optimizer;
  o.lr = p.lr;
  o.momentum = p.momentum;
  o.dampening = p.dampening;
  o.weightDecay = p.weightDecay;
  o.nesterov = p.nesterov;
  o.beta1 = p.beta1;
  o.beta2 = p.beta2;
  o.eps = p.eps;
  o.maxGradNorm = p.maxGradNorm;
  // FSDP2's default: the gradients are reduced in the param dtype.
  StringRef param = canonicalComputeDtype(p.paramDtype);
  o.reduceDtype = !p.reduceDtype.empty() ? p.reduceDtype.getValue()
                  : param != "f32"       ? param.str()
                                         : std::string();
  auto mark = [&](const auto &option) {
    if (option.hasValue())
      o.given.push_back(option.getArgStr().str());
  };
  mark(p.lr);
  mark(p.momentum);
  mark(p.dampening);
  mark(p.weightDecay);
  mark(p.nesterov);
  mark(p.beta1);
  mark(p.beta2);
  mark(p.eps);
  mark(p.maxGradNorm);
  return o;
}

std::string mlir::tp::checkTPPipelineOptions(const TPPipelineOptions &p) {
  OptimizerOptions o = getOptimizerOptions(p);
  if (p.optimizer.empty()) {
    // Options of an optimizer that is not there.
    if (!o.given.empty())
      return o.given.front() + " belongs to an optimizer (optimizer=sgd or "
                               "optimizer=adamw, with grad=true)";
  } else {
    if (!p.grad)
      return "optimizer=" + p.optimizer +
             " updates the parameters from their gradients: give grad=true "
             "too";
    if (std::string problem =
            checkOptimizerOptions(o, OptionSyntax::PassOptions);
        !problem.empty())
      return problem;
  }
  StringRef param = canonicalComputeDtype(p.paramDtype);
  if (param.empty())
    return "param-dtype must be bf16, f16 or f32, not '" + p.paramDtype + "'";
  if (!p.reduceDtype.empty()) {
    StringRef reduce = canonicalComputeDtype(p.reduceDtype);
    if (reduce.empty())
      return "reduce-dtype must be f32, bf16 or f16, not '" + p.reduceDtype +
             "'";
    if (p.optimizer.empty())
      return "reduce-dtype says how an optimizer's gradients are reduced: "
             "give optimizer=sgd or optimizer=adamw (with grad=true) too";
    if (param != "f32" && reduce != "f32" && reduce != param)
      return "reduce-dtype=" + reduce.str() +
             " with param-dtype=" + param.str() +
             ": the gradients are computed in the param-dtype and reduced in "
             "it or in f32";
  }
  if (p.regather && !p.grad)
    return "regather belongs to grad=true";
  if (p.bucketBytes < 0)
    return "bucket-bytes must be at least 0 (0: no limit), got " +
           std::to_string(p.bucketBytes);
  if (!p.memoryReport.empty()) {
    if (p.memoryReport.find('"') != std::string::npos)
      return "memory-report: a file name with '\"' is not supported";
    if (!PassInfo::lookup("tp-memory-report"))
      return "memory-report needs the tp-memory-report pass, which is not "
             "registered (mlir::tp::registerAllPasses registers it)";
  }
  return "";
}
