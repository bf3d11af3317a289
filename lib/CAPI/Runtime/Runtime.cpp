//===- Runtime.cpp - C API: run a partitioned module on N ranks -----------===//
//
// tp-c/Runtime.h over the executor (Program) and the threads launcher. The
// executor and the runtime report errors with C++ exceptions, so this file
// is compiled with them (TPCAPIRuntime, a plain library) and every entry
// point catches them: none crosses the C boundary.
//
//===----------------------------------------------------------------------===//

#include "tp-c/Runtime.h"

#include "CAPISupport.h"

#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Launch/Launcher.h"
#include "tp/Launch/Prepare.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstring>
#include <exception>
#include <limits>
#include <set>

using namespace mlir;
namespace exec = mlir::tp::exec;
namespace rt = mlir::tp::runtime;

namespace {

struct RunResultData {
  std::vector<rt::Tensor> outputs;
  exec::RunResult run;
};

exec::Program &unwrap(TpProgram p) {
  return *static_cast<exec::Program *>(p.ptr);
}
RunResultData &unwrap(TpRunResult r) {
  return *static_cast<RunResultData *>(r.ptr);
}

/// Runs \p body, turning an exception into failure with its message in
/// *\p errorMessage, prefixed by \p function.
template <typename Body>
MlirLogicalResult guarded(const char *function, char **errorMessage,
                          Body &&body) {
  try {
    body();
    return mlirLogicalResultSuccess();
  } catch (const std::exception &e) {
    tp::capi::setError(errorMessage, std::string(function) + ": " + e.what());
  } catch (...) {
    tp::capi::setError(errorMessage,
                       std::string(function) + ": unknown exception");
  }
  return mlirLogicalResultFailure();
}

/// Whether \p pos indexes \p list (the getters answer an empty value
/// otherwise: nothing throws across the C boundary).
template <typename List> bool inRange(intptr_t pos, const List &list) {
  return pos >= 0 && static_cast<size_t>(pos) < list.size();
}

[[noreturn]] void fail(const std::string &message) {
  throw std::invalid_argument(message);
}

/// A copy of the caller's tensor \p t, named \p what in errors.
std::shared_ptr<const rt::Tensor> copyTensor(const TpTensor &t,
                                             const std::string &what) {
  if (t.dtype < TpDTypeF32 || t.dtype > TpDTypeI32)
    fail(what + " has an unknown dtype " + std::to_string(t.dtype));
  if (t.rank < 0 || (t.rank > 0 && !t.shape))
    fail(what + " has a rank of " + std::to_string(t.rank) +
         (t.rank < 0 ? "" : " but no shape"));
  std::vector<int64_t> shape(t.shape, t.shape + t.rank);
  int64_t numel = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(numel, d, &numel) ||
        numel > (int64_t(1) << 40))
      fail(what + " has a bad or too large shape");
  auto dtype = static_cast<rt::DType>(t.dtype);
  auto copy =
      std::make_shared<rt::Tensor>(rt::Tensor::uninitialized(shape, dtype));
  if (numel > 0 && !t.data)
    fail(what + " has no data");
  if (numel > 0)
    std::memcpy(copy->raw(), t.data, copy->bytes());
  return copy;
}

/// The caller's tensors \p given by name, each checked to be one of
/// \p names (what \p kind lists: "parameter", "input").
std::map<std::string, std::shared_ptr<const rt::Tensor>>
namedTensors(const TpNamedTensor *given, intptr_t count,
             const std::set<std::string> &names, const std::string &kind) {
  std::map<std::string, std::shared_ptr<const rt::Tensor>> tensors;
  if (count < 0 || (count > 0 && !given))
    fail("the " + kind + "s given in memory are " +
         (count < 0 ? "a negative count" : "null"));
  for (intptr_t i = 0; i < count; ++i) {
    if (!given[i].name)
      fail(kind + " " + std::to_string(i) + " given in memory has no name");
    std::string name = given[i].name;
    if (!names.count(name)) {
      std::string known;
      for (const std::string &n : names)
        known += (known.empty() ? "" : ", ") + n;
      fail("the program has no " + kind + " '" + name + "' (its " + kind +
           "s: " + (known.empty() ? "none" : known) + ")");
    }
    if (tensors.count(name))
      fail(kind + " '" + name + "' is given in memory twice");
    tensors[name] = copyTensor(given[i].tensor, kind + " '" + name + "'");
  }
  return tensors;
}

} // namespace

MlirLogicalResult tpProgramCreate(MlirOperation op, TpProgram *program,
                                  char **errorMessage) {
  if (program)
    program->ptr = nullptr;
  return guarded("tpProgramCreate", errorMessage, [&] {
    if (!program)
      fail("program is null");
    if (mlirOperationIsNull(op))
      fail("the module is null");
    auto module = dyn_cast<ModuleOp>(unwrap(op));
    if (!module)
      fail("expected a builtin.module, got '" +
           unwrap(op)->getName().getStringRef().str() + "'");
    if (Operation *planned = tp::findUnloweredPlan(module))
      fail("'" + planned->getName().getStringRef().str() +
           "' holds a plan that is not partitioned yet (no tp.spmd function): "
           "run "
           "tp-pipeline first, or the program would run without it");
    // Program::compile reports an op it cannot run (a module not yet
    // partitioned) by exception, naming the op and its location.
    func::FuncOp entry = exec::entryFunction(module, "the module");
    program->ptr = new exec::Program(exec::Program::compile(entry));
  });
}

void tpProgramDestroy(TpProgram program) {
  delete static_cast<exec::Program *>(program.ptr);
}

int64_t tpProgramGetNumRanks(TpProgram program) {
  return unwrap(program).numRanks();
}

intptr_t tpProgramGetNumInputs(TpProgram program) {
  return unwrap(program).inputs().size();
}

MlirStringRef tpProgramGetInputName(TpProgram program, intptr_t pos) {
  const auto &inputs = unwrap(program).inputs();
  if (!inRange(pos, inputs))
    return mlirStringRefCreate(nullptr, 0);
  return wrap(llvm::StringRef(inputs[pos].name));
}

intptr_t tpProgramGetNumParams(TpProgram program) {
  return unwrap(program).params().size();
}

MlirStringRef tpProgramGetParamName(TpProgram program, intptr_t pos) {
  const auto &params = unwrap(program).params();
  if (!inRange(pos, params))
    return mlirStringRefCreate(nullptr, 0);
  return wrap(llvm::StringRef(params[pos].name));
}

intptr_t tpProgramGetNumResults(TpProgram program) {
  return unwrap(program).results().size();
}

void tpProgramPrint(TpProgram program, MlirStringCallback callback,
                    void *userData) {
  // Nothing to print to (the callback is the only way out).
  if (!program.ptr || !callback)
    return;
  mlir::detail::CallbackOstream stream(callback, userData);
  unwrap(program).print(stream);
  stream.flush();
}

TpRunOptions tpRunOptionsGetDefault(void) {
  TpRunOptions o;
  std::memset(&o, 0, sizeof(o));
  o.steps = 1;
  return o;
}

MlirLogicalResult tpProgramRun(TpProgram handle, const TpRunOptions *options,
                               TpRunResult *result, char **errorMessage) {
  if (result)
    result->ptr = nullptr;
  return guarded("tpProgramRun", errorMessage, [&] {
    if (!handle.ptr)
      fail("the program is null");
    if (!result)
      fail("result is null");
    const exec::Program &program = unwrap(handle);
    TpRunOptions o = options ? *options : tpRunOptionsGetDefault();
    if (o.numRanks < 0)
      fail("numRanks must be 0 (the program's mesh) or positive, got " +
           std::to_string(o.numRanks));
    if (o.numRanks && o.numRanks != program.numRanks())
      fail("numRanks " + std::to_string(o.numRanks) +
           " does not match the program's mesh of " +
           std::to_string(program.numRanks()) +
           " ranks (partition the module for that mesh)");
    if (o.steps < 1)
      fail("steps must be at least 1, got " + std::to_string(o.steps));
    if (o.steps > std::numeric_limits<int>::max())
      fail("steps must be at most " +
           std::to_string(std::numeric_limits<int>::max()) + ", got " +
           std::to_string(o.steps));
    if (o.timeoutMs < 0)
      fail("timeoutMs must not be negative, got " +
           std::to_string(o.timeoutMs));

    exec::LaunchOptions launch;
    launch.toolName = "tpProgramRun";
    launch.backend = "threads";
    if (o.device && *o.device)
      launch.device = o.device;
    if (o.timeoutMs)
      launch.timeout = std::chrono::milliseconds(o.timeoutMs);
    std::unique_ptr<exec::Launcher> launcher =
        exec::Launcher::create(launch, nullptr, nullptr);

    exec::DataSource data;
    data.seed = o.seed;
    if (o.weightsFile)
      data.weightsFile = o.weightsFile;
    if (o.inputsFile)
      data.inputsFile = o.inputsFile;
    std::set<std::string> params, inputs;
    for (const exec::ParamInfo &p : program.params())
      params.insert(p.name);
    for (const exec::InputInfo &in : program.inputs())
      inputs.insert(in.name);
    data.weightTensors =
        namedTensors(o.weights, o.numWeights, params, "parameter");
    data.inputTensors = namedTensors(o.inputs, o.numInputs, inputs, "input");
    int steps = static_cast<int>(o.steps);
    // A file that lacks an input, or holds too few batches, fails here,
    // before any rank starts.
    data.checkInputs(program.inputs(), steps);

    auto run = std::make_unique<RunResultData>();
    run->run = launcher->run(program, data, steps);
    run->outputs = run->run.assemble(program);
    // The per-rank pieces are not needed once assembled.
    run->run.perRank.clear();
    result->ptr = run.release();
  });
}

void tpRunResultDestroy(TpRunResult result) {
  delete static_cast<RunResultData *>(result.ptr);
}

intptr_t tpRunResultGetNumOutputs(TpRunResult result) {
  return unwrap(result).outputs.size();
}

TpTensor tpRunResultGetOutput(TpRunResult result, intptr_t pos) {
  TpTensor view;
  std::memset(&view, 0, sizeof(view));
  const auto &outputs = unwrap(result).outputs;
  if (!inRange(pos, outputs))
    return view;
  const rt::Tensor &t = outputs[pos];
  view.dtype = static_cast<TpDType>(t.dtype());
  view.rank = t.rank();
  view.shape = t.shape().data();
  view.data = t.raw();
  return view;
}

int64_t tpRunResultGetCollectiveCount(TpRunResult result, MlirStringRef name) {
  const auto &counts = unwrap(result).run.collectives;
  auto it = counts.find(std::string(name.data, name.length));
  return it == counts.end() ? 0 : it->second;
}

double tpRunResultGetMilliseconds(TpRunResult result) {
  return unwrap(result).run.ms;
}

int64_t tpRunResultGetPeakBytes(TpRunResult result) {
  return unwrap(result).run.peakBytes;
}

intptr_t tpRunResultGetNumLosses(TpRunResult result) {
  return unwrap(result).run.losses.size();
}

double tpRunResultGetLoss(TpRunResult result, intptr_t pos) {
  const std::vector<double> &losses = unwrap(result).run.losses;
  return inRange(pos, losses) ? losses[pos]
                              : std::numeric_limits<double>::quiet_NaN();
}
