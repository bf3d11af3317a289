//===- TPModule.cpp - the `tp` Python module over tp's C API ---*- C++ -*-===//
//
// A small Python module (pybind11) written only against the C API
// (tp-c/TP.h and upstream's mlir-c), as an embedder in another language
// would: parse a model, attach a plan, run a pass pipeline, read the
// communication report, compile and run the program on N rank threads.
// Every C API failure becomes a RuntimeError carrying its message.
//
//===----------------------------------------------------------------------===//

#include "tp-c/TP.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// Raises RuntimeError with the C API's message \p error (freed here).
[[noreturn]] void raise(char *error, const std::string &fallback) {
  std::string message = error ? error : fallback;
  tpFreeString(error);
  throw std::runtime_error(message);
}

void appendTo(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

/// An MLIR context with tp's dialects, whose error diagnostics are kept
/// for the exception of the call that caused them.
class Context {
public:
  Context() {
    MlirDialectRegistry registry = mlirDialectRegistryCreate();
    tpRegisterAllDialects(registry);
    context = mlirContextCreateWithRegistry(registry, false);
    mlirDialectRegistryDestroy(registry);
    mlirContextAttachDiagnosticHandler(context, collect, &diagnostics, nullptr);
  }
  ~Context() { mlirContextDestroy(context); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  MlirContext get() const { return context; }
  /// The diagnostics since the last call, cleared.
  std::string takeDiagnostics() { return std::move(diagnostics); }

private:
  static MlirLogicalResult collect(MlirDiagnostic diagnostic, void *userData) {
    if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
      return mlirLogicalResultFailure();
    auto *text = static_cast<std::string *>(userData);
    if (!text->empty())
      text->append("\n");
    mlirDiagnosticPrint(diagnostic, appendTo, text);
    return mlirLogicalResultSuccess();
  }

  MlirContext context;
  std::string diagnostics;
};

/// A run's outputs and measurements.
class Result {
public:
  explicit Result(TpRunResult result) : result(result) {}
  ~Result() { tpRunResultDestroy(result); }
  Result(const Result &) = delete;
  Result &operator=(const Result &) = delete;

  intptr_t numOutputs() const { return tpRunResultGetNumOutputs(result); }
  /// Output \p i as (shape, values): floats for the float dtypes (16-bit
  /// ones widened are not supported: only f32), ints for i64/i32.
  py::tuple output(intptr_t i) const {
    if (i < 0 || i >= numOutputs())
      throw py::index_error("output " + std::to_string(i) + " of " +
                            std::to_string(numOutputs()));
    TpTensor t = tpRunResultGetOutput(result, i);
    py::tuple shape(t.rank);
    int64_t n = 1;
    for (intptr_t d = 0; d < t.rank; ++d) {
      shape[d] = t.shape[d];
      n *= t.shape[d];
    }
    py::list values;
    for (int64_t k = 0; k < n; ++k) {
      switch (t.dtype) {
      case TpDTypeF32:
        values.append(static_cast<const float *>(t.data)[k]);
        break;
      case TpDTypeI64:
        values.append(static_cast<const int64_t *>(t.data)[k]);
        break;
      case TpDTypeI32:
        values.append(static_cast<const int32_t *>(t.data)[k]);
        break;
      default:
        throw std::runtime_error("output " + std::to_string(i) +
                                 " is 16-bit; the Python module reads f32, "
                                 "i64 and i32 outputs");
      }
    }
    return py::make_tuple(shape, values);
  }
  int64_t collectives(const std::string &name) const {
    return tpRunResultGetCollectiveCount(
        result, mlirStringRefCreate(name.data(), name.size()));
  }
  double ms() const { return tpRunResultGetMilliseconds(result); }
  int64_t peakBytes() const { return tpRunResultGetPeakBytes(result); }
  std::vector<double> losses() const {
    std::vector<double> out;
    for (intptr_t i = 0; i < tpRunResultGetNumLosses(result); ++i)
      out.push_back(tpRunResultGetLoss(result, i));
    return out;
  }

private:
  TpRunResult result;
};

/// Caller tensors given from Python as {name: (shape, [floats])}, in f32.
struct Buffers {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<float>> data;
  std::vector<TpNamedTensor> tensors;

  explicit Buffers(const std::map<std::string, py::tuple> &given) {
    for (const auto &[name, value] : given) {
      if (value.size() != 2)
        throw py::value_error("tensor '" + name + "' must be (shape, values)");
      names.push_back(name);
      shapes.push_back(value[0].cast<std::vector<int64_t>>());
      data.push_back(value[1].cast<std::vector<float>>());
    }
    for (size_t i = 0; i < names.size(); ++i) {
      int64_t n = 1;
      for (int64_t d : shapes[i])
        n *= d;
      if (n != static_cast<int64_t>(data[i].size()))
        throw py::value_error("tensor '" + names[i] + "' has " +
                              std::to_string(data[i].size()) +
                              " values for its shape of " + std::to_string(n));
      TpNamedTensor t;
      t.name = names[i].c_str();
      t.tensor.dtype = TpDTypeF32;
      t.tensor.rank = shapes[i].size();
      t.tensor.shape = shapes[i].data();
      t.tensor.data = data[i].data();
      tensors.push_back(t);
    }
  }
};

class Program {
public:
  explicit Program(TpProgram program) : program(program) {}
  ~Program() { tpProgramDestroy(program); }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  int64_t numRanks() const { return tpProgramGetNumRanks(program); }
  std::vector<std::string> inputs() const {
    std::vector<std::string> names;
    for (intptr_t i = 0; i < tpProgramGetNumInputs(program); ++i) {
      MlirStringRef s = tpProgramGetInputName(program, i);
      names.emplace_back(s.data, s.length);
    }
    return names;
  }
  std::vector<std::string> params() const {
    std::vector<std::string> names;
    for (intptr_t i = 0; i < tpProgramGetNumParams(program); ++i) {
      MlirStringRef s = tpProgramGetParamName(program, i);
      names.emplace_back(s.data, s.length);
    }
    return names;
  }
  std::unique_ptr<Result> run(int64_t numRanks, uint64_t seed,
                              const std::string &weightsFile,
                              const std::string &inputsFile,
                              const std::map<std::string, py::tuple> &weights,
                              const std::map<std::string, py::tuple> &inputs,
                              int64_t steps) const {
    Buffers w(weights), in(inputs);
    TpRunOptions o = tpRunOptionsGetDefault();
    o.numRanks = numRanks;
    o.seed = seed;
    o.weightsFile = weightsFile.c_str();
    o.inputsFile = inputsFile.c_str();
    o.weights = w.tensors.data();
    o.numWeights = w.tensors.size();
    o.inputs = in.tensors.data();
    o.numInputs = in.tensors.size();
    o.steps = steps;
    TpRunResult result;
    char *error = nullptr;
    MlirLogicalResult status;
    {
      py::gil_scoped_release release;
      status = tpProgramRun(program, &o, &result, &error);
    }
    if (mlirLogicalResultIsFailure(status))
      raise(error, "tpProgramRun failed");
    return std::make_unique<Result>(result);
  }

private:
  TpProgram program;
};

class Module {
public:
  Module(std::shared_ptr<Context> context, const std::string &text)
      : context(std::move(context)) {
    module = mlirModuleCreateParse(
        this->context->get(), mlirStringRefCreate(text.data(), text.size()));
    if (mlirModuleIsNull(module))
      throw std::runtime_error("cannot parse the module:\n" +
                               this->context->takeDiagnostics());
  }
  ~Module() { mlirModuleDestroy(module); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  void setPlan(const std::string &json, const std::string &source) {
    char *error = nullptr;
    if (mlirLogicalResultIsFailure(tpModuleSetPlan(
            op(), mlirStringRefCreate(json.data(), json.size()),
            mlirStringRefCreate(source.data(), source.size()), &error)))
      raise(error, "invalid plan");
  }
  void runPipeline(const std::string &pipeline) {
    MlirPassManager pm = mlirPassManagerCreate(context->get());
    std::string parseError;
    MlirLogicalResult parsed = mlirParsePassPipeline(
        mlirPassManagerGetAsOpPassManager(pm),
        mlirStringRefCreate(pipeline.data(), pipeline.size()), appendTo,
        &parseError);
    MlirLogicalResult ran = mlirLogicalResultFailure();
    if (mlirLogicalResultIsSuccess(parsed))
      ran = mlirPassManagerRunOnOp(pm, op());
    mlirPassManagerDestroy(pm);
    if (mlirLogicalResultIsFailure(parsed))
      throw std::runtime_error(parseError);
    if (mlirLogicalResultIsFailure(ran))
      throw std::runtime_error("pipeline failed:\n" +
                               context->takeDiagnostics());
  }
  std::string commReport() {
    char *json = nullptr, *error = nullptr;
    if (mlirLogicalResultIsFailure(tpGetCommReport(op(), &json, &error)))
      raise(error, "no communication report");
    std::string text = json;
    tpFreeString(json);
    return text;
  }
  std::unique_ptr<Program> compile() {
    TpProgram program;
    char *error = nullptr;
    if (mlirLogicalResultIsFailure(tpProgramCreate(op(), &program, &error)))
      raise(error, "tpProgramCreate failed");
    return std::make_unique<Program>(program);
  }
  std::string str() {
    std::string text;
    mlirOperationPrint(op(), appendTo, &text);
    return text;
  }

private:
  MlirOperation op() { return mlirModuleGetOperation(module); }
  std::shared_ptr<Context> context;
  MlirModule module;
};

} // namespace

PYBIND11_MODULE(tp, m) {
  m.doc() = "tp through its C API: lower a model with a tensor-parallel plan "
            "and run it on N rank threads";
  tpRegisterAllPasses();
  m.def("version", [] { return std::string(tpGetVersion()); });
  py::class_<Context, std::shared_ptr<Context>>(m, "Context").def(py::init<>());
  py::class_<Module>(m, "Module")
      .def(py::init<std::shared_ptr<Context>, const std::string &>(),
           py::arg("context"), py::arg("text"))
      .def("set_plan", &Module::setPlan, py::arg("json"),
           py::arg("source") = "<plan>")
      .def("run_pipeline", &Module::runPipeline, py::arg("pipeline"))
      .def("comm_report", &Module::commReport)
      .def("compile", &Module::compile)
      .def("__str__", &Module::str);
  py::class_<Program>(m, "Program")
      .def_property_readonly("num_ranks", &Program::numRanks)
      .def_property_readonly("inputs", &Program::inputs)
      .def_property_readonly("params", &Program::params)
      .def("run", &Program::run, py::arg("num_ranks") = 0, py::arg("seed") = 0,
           py::arg("weights_file") = "", py::arg("inputs_file") = "",
           py::arg("weights") = std::map<std::string, py::tuple>(),
           py::arg("inputs") = std::map<std::string, py::tuple>(),
           py::arg("steps") = 1);
  py::class_<Result>(m, "Result")
      .def_property_readonly("num_outputs", &Result::numOutputs)
      .def("output", &Result::output, py::arg("index"))
      .def("collectives", &Result::collectives, py::arg("name"))
      .def_property_readonly("ms", &Result::ms)
      .def_property_readonly("peak_bytes", &Result::peakBytes)
      .def_property_readonly("losses", &Result::losses);
}
