//===- ModelInterfaces.td - model dialect op interfaces ----*- tablegen -*-===//
//
// What an op of a model can do, declared on the op's record: how it is
// differentiated, whether it is a leaf module, which runtime kernel runs it.
// (Its sharding rule is tp's ShardingRuleOpInterface, TPInterfaces.td.) An op's implementation of each lives next to the op, so
// adding an op never means editing a list of every op.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_IR_MODELINTERFACES_TD
#define TP_DIALECT_MODEL_IR_MODELINTERFACES_TD

include "mlir/IR/OpBase.td"

def Model_DifferentiableOpInterface
    : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::tp::model";
  let description = [{
    An op tp-differentiate can take the gradient of: given the gradient of
    its one result, it emits the ops that compute the gradients of its
    operands (usually backward ops of ModelGradOps.td, typed with the
    operands' global shapes) and hands each to the `GradientBuilder`, which
    sums the contributions a value receives. Operands no parameter reaches
    get nothing: ask `isActive` before building for an operand. Nothing
    here decides placements or communication; the backward ops' sharding
    rules do.

    Ops of other dialects (tp's layout ops) join through external models
    (`registerModelExternalModels`).
  }];
  let methods = [
    InterfaceMethod<[{
      Emits the gradients of the operands from `grad`, the gradient of the
      op's result, through `builder` (its insertion point is set).
    }], "::llvm::LogicalResult", "backward",
    (ins "::mlir::tp::model::GradientBuilder &":$builder,
         "::mlir::Value":$grad)>,
    InterfaceMethod<[{
      Whether a gradient flows through the op at all: false for
      `model.detach`, whose result depends on no parameter whatever its
      operand does.
    }], "bool", "passesGradient", (ins), /*methodBody=*/"",
    /*defaultImplementation=*/"return true;">,
  ];
}

def Model_LeafModuleOpInterface : OpInterface<"LeafModuleOpInterface"> {
  let cppNamespace = "::mlir::tp::model";
  let description = [{
    A leaf `nn.Module` (Linear, Embedding, LayerNorm, RMSNorm, Dropout): an
    op that carries the module's FQN and takes its named parameters as
    operands in PyTorch's layouts. Plans address it by FQN, styles and
    messages by its PyTorch class. `Model_LeafOp<mnemonic, class>` gives it
    to an op.
  }];
  let methods = [
    InterfaceMethod<"The PyTorch class name, e.g. `Linear`.",
      "::llvm::StringRef", "getTorchClassName", (ins), /*methodBody=*/"",
      /*defaultImplementation=*/"return ConcreteOp::kTorchClassName;">,
  ];
}

def Model_KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let cppNamespace = "::mlir::tp::model";
  let description = [{
    An op the executor (`tp-run`, `Program::compile`) runs as one runtime
    kernel: the one of that name that a kernel family registers
    (lib/Executor/Kernels/), by default the op's mnemonic (`model.layer_norm` runs `layer_norm`); an op
    whose kernel has another name sets `kKernelName` in its record
    (`model.detach` runs `copy`). The kernel's static arguments are the op's
    attributes, read by the argument kinds the kernel declares (`dim`,
    `eps`, `theta`, `causal`, `count`, `max_norm`, `value`, `permutation`;
    shapes come from the result type). An attribute the kernel does not read
    is an error when the program is compiled (only `fqn`, the module's
    name, is not an argument), so an attribute added to an op cannot be
    dropped on the way to the kernel.
  }];
  let methods = [
    StaticInterfaceMethod<"The name of the kernel that runs the op.",
      "::llvm::StringRef", "getKernelName", (ins), /*methodBody=*/"",
      /*defaultImplementation=*/
      "return ::mlir::tp::model::detail::kernelNameOf<ConcreteOp>();">,
  ];
}

#endif // TP_DIALECT_MODEL_IR_MODELINTERFACES_TD
