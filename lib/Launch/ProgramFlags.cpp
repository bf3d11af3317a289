//===- ProgramFlags.cpp - the flags that shape a run's program ------------===//

#include "tp/Launch/ProgramFlags.h"

#include "tp/Dialect/TP/Transforms/Passes.h"

using namespace mlir::tp::exec;
namespace cl = llvm::cl;

ProgramFlags::ProgramFlags(cl::OptionCategory &category)
    : grad("grad",
           cl::desc("The training step's forward and backward "
                    "(tp-differentiate): the outputs are the scalar loss and "
                    "every parameter's gradient"),
           cl::cat(category)),
      train("train",
            cl::desc("A training step: the forward, the backward and the "
                     "optimizer's update of every parameter on its shard, "
                     "parameters and optimizer state resident between steps"),
            cl::cat(category)),
      optimizer("optimizer",
                cl::desc("--train's optimizer: sgd (default), adamw"),
                cl::init("sgd"), cl::cat(category)),
      lr("lr", cl::desc("Learning rate (default 0.01)"), cl::init(0.01),
         cl::cat(category)),
      momentum("momentum", cl::desc("SGD momentum (default 0)"), cl::init(0),
               cl::cat(category)),
      weightDecay("weight-decay",
                  cl::desc("Weight decay (default: 0 for sgd, 0.01 for adamw, "
                           "as PyTorch)"),
                  cl::init(-1), cl::cat(category)),
      betas("betas", cl::desc("AdamW betas B1,B2 (default 0.9,0.999)"),
            cl::init("0.9,0.999"), cl::cat(category)),
      eps("eps", cl::desc("AdamW eps (default 1e-8)"), cl::init(1e-8),
          cl::cat(category)),
      maxGradNorm("max-grad-norm",
                  cl::desc("Clip the gradients to this global 2-norm before "
                           "each update (clip_grad_norm_; default: no "
                           "clipping)"),
                  cl::init(0), cl::cat(category)),
      paramDtype("param-dtype",
                 cl::desc("Mixed precision (FSDP2's param_dtype): compute in "
                          "bf16 or f16 on f32 master parameters, optimizer "
                          "state and checkpoints (default f32: as the model "
                          "is written)"),
                 cl::init("f32"), cl::cat(category)),
      reduceDtype("reduce-dtype",
                  cl::desc("With --train: reduce the gradients over ranks in "
                           "f32 or in the --param-dtype (FSDP2's "
                           "reduce_dtype; default: the --param-dtype)"),
                  cl::cat(category)),
      regather("regather",
               cl::desc("With --grad/--train: gather again in the backward "
                        "what the forward gathered (Megatron's sequence "
                        "parallelism: only shards live across the step, for "
                        "one more all_gather each)"),
               cl::cat(category)),
      fsdpPrefetch("fsdp-prefetch",
                   cl::desc("Under a plan with an fsdp_axis: gather each FSDP "
                            "unit's parameters while the unit before it "
                            "computes, as FSDP2 prefetches (default: true; "
                            "one more unit's parameters live)"),
                   cl::init(true), cl::cat(category)) {}

std::vector<const cl::Option *> ProgramFlags::all() const {
  return {&grad,        &train,    &optimizer,   &lr,          &momentum,
          &weightDecay, &betas,    &eps,         &maxGradNorm, &paramDtype,
          &reduceDtype, &regather, &fsdpPrefetch};
}

std::string ProgramFlags::apply(PrepareOptions &prepare) const {
  for (const cl::Option *o : std::initializer_list<const cl::Option *>{
           &optimizer, &lr, &momentum, &weightDecay, &betas, &eps, &maxGradNorm,
           &reduceDtype})
    if (o->getNumOccurrences() && !train)
      return "--" + o->ArgStr.str() + " belongs to --train";
  if (regather && !grad && !train)
    return "--regather belongs to --grad or --train";
  llvm::StringRef param = mlir::tp::canonicalComputeDtype(paramDtype);
  if (param.empty())
    return "--param-dtype must be bf16, f16 or f32, not '" + paramDtype + "'";
  prepare.paramDtype = param.str();
  prepare.differentiate = grad || train;
  prepare.regather = regather;
  prepare.fsdpPrefetch = fsdpPrefetch;
  prepare.optimizer.reset();
  if (!train)
    return "";
  mlir::tp::OptimizerOptions o;
  o.kind = optimizer;
  o.lr = lr;
  o.momentum = momentum;
  o.weightDecay = weightDecay;
  o.eps = eps;
  o.maxGradNorm = maxGradNorm;
  // FSDP2's default: the gradients are reduced in the param dtype.
  if (reduceDtype.getNumOccurrences()) {
    llvm::StringRef reduce = mlir::tp::canonicalComputeDtype(reduceDtype);
    if (reduce.empty())
      return "--reduce-dtype must be f32, bf16 or f16, not '" + reduceDtype +
             "'";
    if (param != "f32" && reduce != "f32" && reduce != param)
      return "--reduce-dtype " + reduce.str() + " with --param-dtype " +
             param.str() +
             ": the gradients are computed in the --param-dtype and reduced "
             "in it or in f32";
    o.reduceDtype = reduce.str();
  } else if (param != "f32") {
    o.reduceDtype = param.str();
  }
  llvm::StringRef b1, b2;
  std::tie(b1, b2) = llvm::StringRef(betas).split(',');
  if (b1.trim().getAsDouble(o.beta1) || b2.trim().getAsDouble(o.beta2) ||
      !(o.beta1 >= 0 && o.beta1 < 1 && o.beta2 >= 0 && o.beta2 < 1))
    return "--betas must be two numbers in [0, 1) as B1,B2, not '" + betas +
           "'";
  // The flags given, by the pass options' names.
  for (auto [flag, option] :
       std::initializer_list<std::pair<const cl::Option *, const char *>>{
           {&lr, "lr"},
           {&momentum, "momentum"},
           {&weightDecay, "weight-decay"},
           {&betas, "beta1"},
           {&betas, "beta2"},
           {&eps, "eps"},
           {&maxGradNorm, "max-grad-norm"}})
    if (flag->getNumOccurrences())
      o.given.push_back(option);
  // tp-pipeline and tp-optimizer-step check the same way.
  if (std::string problem =
          mlir::tp::checkOptimizerOptions(o, mlir::tp::OptionSyntax::Flags);
      !problem.empty())
    return problem;
  prepare.optimizer = o;
  return "";
}
