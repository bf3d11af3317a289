//===- Interpreter.h - one loop over the instruction list -------*- C++ -*-===//
//
// Runs a compiled program (ProgramData) as one rank, on a backend B that
// owns the buffers: HostBackend (Executor.cpp: runtime::Tensor and the CPU
// kernels) and DeviceBackend (DeviceExecutor.cpp: gpu::DeviceTensor and the
// CUDA kernels). The loop, the liveness frees, parameter residency, widening
// for kernels and statistics are written once here; a backend only supplies
// buffers and kernels. Private to lib/Executor; no MLIR.
//
// A backend provides
//   using Buffer;                       // movable, with shape(), dim(),
//                                       // numel(), bytes(), dtype()
//   static constexpr const char *kName; // "host", "device"
//   static constexpr bool kHostOnlyKernels; // has the host-only kernels
//   static const KernelsById<B> &kernels(); // its kernels (KernelTable.h)
//   static Buffer fromHost(Tensor);     // parameters, inputs, constants
//   static Tensor toHost(const Buffer &);
//   static Buffer clone(const Buffer &);
//   static Buffer convert(const Buffer &, runtime::DType);
//   static Buffer convert(Buffer &&, runtime::DType); // moves when equal
//   static Buffer zeros(std::vector<int64_t>, runtime::DType);
// and the tensor collectives, found by argument-dependent lookup on Buffer
// (runtime:: for Tensor, runtime::gpu:: for DeviceTensor) under the names
// of tp/Runtime/Communicator.h and UnevenCollectives.h: allGatherDim(comm,
// x, dim), allGatherUneven, ... A kernel instruction runs the backend's
// kernel of its id; one the backend has none for runs on the host.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_INTERPRETER_H
#define TP_LIB_EXECUTOR_INTERPRETER_H

#include "Frame.h"
#include "HostBackend.h"
#include "KernelTable.h"

#include "tp/Executor/Checkpoint.h"

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace mlir::tp::exec::detail {

template <class B> void execute(const Instruction &in, Frame<B> &f);

/// Steps \p p, the value of optimizer update \p in's parameter (host
/// tensors), by runtime::sgdStep or adamwStep, whose state (zero at first)
/// the frame keeps by FQN.
template <class B>
void optimizerUpdate(const Instruction &in, Frame<B> &f, Tensor &p) {
  const Tensor &g = f.at(in.operands[1]);
  auto state = [&](const char *what) -> Tensor & {
    std::shared_ptr<void> &s = (*f.optimizerState)[in.name + "." + what];
    if (!s) {
      s = std::make_shared<Tensor>(p.shape(), p.dtype());
      f.optimizerBytes += static_cast<int64_t>(p.bytes());
    }
    return *std::static_pointer_cast<Tensor>(s);
  };
  const std::vector<double> &h = in.hyper;
  if (in.op == Opcode::SGDUpdate) {
    rt::SGDOptions o;
    o.lr = static_cast<float>(h[0]);
    o.momentum = static_cast<float>(h[1]);
    o.dampening = static_cast<float>(h[2]);
    o.weightDecay = static_cast<float>(h[3]);
    o.nesterov = h[4] != 0;
    rt::sgdStep(p, g, o.momentum > 0 ? &state("momentum_buffer") : nullptr,
                f.step, o);
  } else {
    rt::AdamWOptions o;
    o.lr = static_cast<float>(h[0]);
    o.beta1 = static_cast<float>(h[1]);
    o.beta2 = static_cast<float>(h[2]);
    o.eps = static_cast<float>(h[3]);
    o.weightDecay = static_cast<float>(h[4]);
    rt::adamwStep(p, g, state("exp_avg"), state("exp_avg_sq"), f.step, o);
  }
}

/// Executes \p in, an instruction backend B has no kernel for (the
/// host-only kernels: transpose, the loss and backward kernels; the
/// optimizer updates), on the host: its operands copied there, the host
/// backend's instruction, its result copied back. The same values as the
/// host computes; not fast (each copy crosses to the host and back).
template <class B> void executeOnHost(const Instruction &in, Frame<B> &f) {
  Frame<HostBackend> h;
  h.program = f.program;
  h.world = f.world;
  h.groups = f.groups;
  h.coords = f.coords;
  h.data = f.data;
  h.step = f.step;
  // The optimizers' state lives on the host; the updated parameter is
  // recorded below, as a buffer of B.
  h.optimizerState = f.optimizerState;
  h.slots.resize(f.slots.size());
  h.resident.assign(f.slots.size(), false);
  h.paramOf.assign(f.slots.size(), -1);
  // Gradients one kernel computes together stay (as host tensors) for the
  // instructions that take them.
  h.sharedGrads = std::move(f.sharedGrads);
  for (int s : in.operands)
    if (!h.slots[s])
      h.slots[s] = std::make_shared<Tensor>(B::toHost(f.at(s)));
  execute(in, h);
  f.sharedGrads = std::move(h.sharedGrads);
  f.optimizerBytes += h.optimizerBytes;
  f.set(in.result, B::fromHost(std::move(*h.slots[in.result])));
  if (f.state && (in.op == Opcode::SGDUpdate || in.op == Opcode::AdamWUpdate)) {
    // Later runs read the updated parameter where this one read it.
    int p = in.operands[0];
    f.state->updated[p] = f.slots[in.result];
    if (f.paramOf[p] >= 0)
      f.state->params[f.paramOf[p]] = f.slots[in.result];
  }
}

/// Starts \p in, an async collective (Instruction::async), on the
/// communicators of the async collectives when the frame has them (host
/// buffers only): on the rank's communication thread, when it has one (its
/// result buffer is allocated here and set into its slot, filled by the
/// thread; the instructions that read it wait for it, Frame::awaitSlot), or
/// here and now. Either way every rank calls it on the same communicator,
/// so ranks that decided differently still meet. Returns false when \p in
/// is to run as any other instruction.
template <class B> bool startAsync(const Instruction &in, Frame<B> &f) {
  if constexpr (!B::kHostOnlyKernels) {
    return false;
  } else {
    if (!in.async || !f.asyncGroups)
      return false;
    rt::Communicator &comm = *f.asyncGroups->at(in.axes);
    std::shared_ptr<Tensor> x = f.slots[in.operands[0]], out;
    int64_t n = comm.size();
    if (in.op == Opcode::AllReduce) {
      // In place, on the operand's buffer when this is its last reader.
      out = f.dyingOperand(in, 0)
                ? std::make_shared<Tensor>(f.takeOperand(in, 0))
                : std::make_shared<Tensor>(B::clone(*x));
      x.reset();
    } else {
      if (x->rank() == 0)
        return false;
      std::vector<int64_t> shape = x->shape();
      if (in.op == Opcode::AllGather) {
        shape[0] *= n;
      } else {
        if (shape[0] % n != 0)
          throw std::invalid_argument(
              in.origin + ": reduce_scatter of dim 0 of size " +
              std::to_string(shape[0]) + " over " + std::to_string(n) +
              " ranks, which does not divide it");
        shape[0] /= n;
      }
      out = std::make_shared<Tensor>(
          Tensor::uninitialized(std::move(shape), x->dtype()));
    }
    f.slots[in.result] = out;
    const void *src = x ? x->raw() : out->raw();
    void *dst = out->raw();
    size_t count = static_cast<size_t>(x ? x->numel() : out->numel());
    if (in.op == Opcode::ReduceScatter)
      count = static_cast<size_t>(out->numel());
    rt::DType dtype = out->dtype();
    Opcode op = in.op;
    rt::ReduceOp reduce = in.reduce;
    auto task = [&comm, x, out, src, dst, count, dtype, op,
                 reduce]() mutable -> CommWorker::Counts {
      CommWorker::Counts before = comm.stats().counts, calls;
      if (op == Opcode::AllGather)
        comm.allGather(src, count, dst, dtype);
      else if (op == Opcode::ReduceScatter)
        comm.reduceScatter(src, dst, count, dtype, reduce);
      else
        comm.allReduce(dst, dst, count, dtype, reduce);
      for (auto &[name, k] : comm.stats().counts)
        if (int64_t d = k - before[name])
          calls[name] = d;
      // Let go of the buffers before the waiting thread sees the end, so
      // that it may take them over.
      x.reset();
      out.reset();
      return calls;
    };
    if (!f.worker) {
      // No core for a communication thread: run it where it stands.
      CommWorker::Counts calls = task();
      if (f.byPhase)
        for (auto &[name, n] : calls)
          (*f.byPhase)[phaseName(in.phase)][name] += n;
      return true;
    }
    f.pending[in.result] = {f.worker->start(std::move(task)), in.phase};
    return true;
  }
}

/// Executes \p in: sets its result slot.
template <class B> void execute(const Instruction &in, Frame<B> &f) {
  using Buffer = typename B::Buffer;
  const KernelEntry<B> *kernel = nullptr;
  if (in.op == Opcode::Kernel) {
    kernel = B::kernels()[in.kernel];
    if (!kernel) {
      if constexpr (!B::kHostOnlyKernels) {
        executeOnHost(in, f);
        return;
      }
      throw std::runtime_error(std::string("the ") + B::kName +
                               " backend has no kernel for " + in.origin);
    }
  } else if constexpr (!B::kHostOnlyKernels) {
    if (opcodeInfo(in.op).hostOnly) {
      executeOnHost(in, f);
      return;
    }
  }
  const ProgramData &P = *f.program;
  auto arg = [&](size_t i) -> const Buffer & { return f.at(in.operands[i]); };
  if (in.async && startAsync(in, f))
    return;
  switch (in.op) {
  case Opcode::Param:
    f.loadParam(in.result, in.param, [&] {
      return f.data->param(P.params[in.param], f.weights.get());
    });
    return;
  case Opcode::ParamChunk: {
    const ParamInfo &info = P.params[in.param];
    std::vector<Slice> slices = paramChunkSlices(P, in, f.coords);
    f.loadParam(in.result, in.param,
                [&] { return f.data->param(info, f.weights.get(), slices); });
    return;
  }
  case Opcode::Chunk:
    f.set(in.result, chunkDim(arg(0), in.dim, P.groupSize(in.axes),
                              P.groupIndex(f.coords, in.axes)));
    return;
  case Opcode::PartialFromReplicate: {
    // sum: the value on coordinate 0 of the axes, zeros elsewhere; the other
    // reductions of equal values are the value.
    const Buffer &x = arg(0);
    bool keep =
        in.reduce != rt::ReduceOp::Sum || P.groupIndex(f.coords, in.axes) == 0;
    f.set(in.result, keep ? B::clone(x) : B::zeros(x.shape(), x.dtype()));
    return;
  }
  case Opcode::Pack: {
    // A bucket's tensors, one after another, for one collective.
    if constexpr (B::kHostOnlyKernels) {
      // Copied straight into the bucket (no flattened copies first).
      int64_t total = 0;
      for (size_t i = 0; i < in.operands.size(); ++i)
        total += arg(i).numel();
      Tensor bucket = Tensor::uninitialized({total}, arg(0).dtype());
      auto *to = static_cast<char *>(bucket.raw());
      for (size_t i = 0; i < in.operands.size(); ++i) {
        if (arg(i).dtype() != bucket.dtype())
          throw std::runtime_error("a bucket of " + in.origin +
                                   " mixes dtypes");
        std::memcpy(to, arg(i).raw(), arg(i).bytes());
        to += arg(i).bytes();
      }
      f.set(in.result, std::move(bucket));
      return;
    }
    std::vector<Buffer> flat;
    flat.reserve(in.operands.size());
    for (size_t i = 0; i < in.operands.size(); ++i)
      flat.push_back(reshape(arg(i), {arg(i).numel()}));
    f.set(in.result, concatDim(flat, 0));
    return;
  }
  case Opcode::Unpack: {
    int64_t n = 1;
    for (int64_t d : in.shape)
      n *= d;
    if constexpr (B::kHostOnlyKernels)
      f.set(in.result, sliceDim(arg(0), 0, in.size, n).reshaped(in.shape));
    else
      f.set(in.result, reshape(sliceDim(arg(0), 0, in.size, n), in.shape));
    return;
  }
  case Opcode::AllGather:
    f.set(in.result, allGatherDim(f.comm(in.axes), arg(0), in.dim));
    return;
  case Opcode::AllGatherUneven: {
    int64_t size = in.size;
    for (int64_t a : in.outerAxes)
      size = rt::chunkOf(size, P.meshShape[a], f.coords[a]).size;
    f.set(in.result, allGatherUneven(f.comm(in.axes), arg(0), in.dim, size));
    return;
  }
  case Opcode::AllReduce: {
    // In place on the operand's buffer when this is its last reader.
    Buffer y = f.dyingOperand(in, 0) ? f.takeOperand(in, 0) : B::clone(arg(0));
    allReduceInPlace(f.comm(in.axes), y, in.reduce);
    f.set(in.result, std::move(y));
    return;
  }
  case Opcode::ReduceScatter:
    f.set(in.result,
          reduceScatterDim(f.comm(in.axes), arg(0), in.dim, in.reduce));
    return;
  case Opcode::ReduceScatterUneven:
    f.set(in.result,
          reduceScatterUneven(f.comm(in.axes), arg(0), in.dim, in.reduce));
    return;
  case Opcode::AllToAll:
    f.set(in.result,
          allToAllDims(f.comm(in.axes), arg(0), in.dim, in.concatDim));
    return;
  case Opcode::Broadcast:
    f.set(in.result,
          broadcastTensor(f.comm(in.axes), arg(0), static_cast<int>(in.root)));
    return;
  case Opcode::SGDUpdate:
  case Opcode::AdamWUpdate:
    if constexpr (B::kHostOnlyKernels) {
      // In place when the update is the parameter's last reader (as PyTorch's
      // optimizers step): no copy of the parameter per step.
      int p = in.operands[0];
      bool inPlace = f.updatableInPlace(in);
      std::shared_ptr<Buffer> value =
          inPlace ? f.slots[p] : std::make_shared<Buffer>(B::clone(f.at(p)));
      optimizerUpdate(in, f, *value);
      f.slots[in.result] = value;
      if (f.state) {
        // Later runs read the updated parameter where this one read it; the
        // value it replaces is not read again.
        f.state->updated[p] = value;
        if (f.paramOf[p] >= 0)
          f.state->params[f.paramOf[p]] = value;
        // Still the resident parameter's bytes.
        f.resident[in.result] = inPlace && f.resident[p];
      }
      return;
    }
    break;
  default:
    break;
  }
  if (!kernel)
    throw std::runtime_error(std::string("the ") + B::kName +
                             " backend cannot run " + in.origin);
  // A kernel: 16-bit operands are widened for the call (the frame holds
  // them in their dtype again afterwards) and a 16-bit result is rounded
  // once, as PyTorch's CPU kernels for bf16 and f16 do.
  rt::DType outType = P.slots[in.result].dtype;
  KernelCall<B> call{in, f};
  if (in.widen.empty()) {
    f.set(in.result, B::convert(kernel->fn(call), outType));
    return;
  }
  std::vector<std::shared_ptr<Buffer>> held;
  held.reserve(in.widen.size());
  for (int s : in.widen) {
    held.push_back(std::move(f.slots[s]));
    f.set(s, B::convert(*held.back(), rt::DType::F32));
  }
  Buffer result = kernel->fn(call);
  for (size_t i = 0; i < in.widen.size(); ++i)
    f.slots[in.widen[i]] = std::move(held[i]);
  f.set(in.result, B::convert(std::move(result), outType));
}

/// Runs \p fn and adds the calls it made on \p comm to \p counts, by
/// collective name.
template <class Fn>
void countCalls(const rt::Communicator &comm,
                std::map<std::string, int64_t> &counts, Fn fn) {
  std::map<std::string, int64_t> before = comm.stats().counts;
  fn();
  for (auto &[k, v] : comm.stats().counts)
    if (int64_t n = v - before[k])
      counts[k] += n;
}

/// Runs \p program as rank comm.rank(); see Program::run.
template <class B>
std::vector<typename B::Buffer>
runProgram(const ProgramData &program, rt::Communicator &comm,
           const DataSource &data, RankStateImpl *state,
           int64_t *measuredPeakBytes, rt::CollectiveStats *stats,
           PhaseCounts *byPhase = nullptr,
           std::vector<double> *instructionSeconds = nullptr) {
  if (comm.size() != program.numRanks())
    throw std::runtime_error(
        "the program's mesh has " + std::to_string(program.numRanks()) +
        " ranks but the communicator has " + std::to_string(comm.size()));
  if (state && state->program &&
      (state->program != &program || state->world != &comm ||
       std::strcmp(state->backend, B::kName) != 0))
    throw std::runtime_error("a RankState belongs to one program, one "
                             "communicator and one backend");
  Frame<B> f;
  f.program = &program;
  f.world = &comm;
  f.data = &data;
  f.state = state;
  f.slots.resize(program.slots.size());
  f.resident.assign(program.slots.size(), false);
  f.paramOf.assign(program.slots.size(), -1);
  f.coords = program.coordsOf(comm.rank());
  // Sub-communicators, created in the same order on every rank (once per
  // RankState).
  Groups &groups = state ? state->groups : f.ownGroups;
  Groups &asyncGroups = state ? state->asyncGroups : f.ownAsyncGroups;
  if (!state || !state->program) {
    for (const std::vector<int64_t> &axes : program.axisGroups) {
      if (axes.size() == program.meshShape.size())
        continue;
      std::vector<int64_t> others;
      for (int64_t a = 0; a < (int64_t)program.meshShape.size(); ++a)
        if (std::find(axes.begin(), axes.end(), a) == axes.end())
          others.push_back(a);
      int color = static_cast<int>(program.groupIndex(f.coords, others));
      int key = static_cast<int>(program.groupIndex(f.coords, axes));
      groups[axes] = comm.split(color, key);
    }
    // A second communicator per group of the async collectives, for the
    // communication thread (the whole mesh's too).
    if constexpr (B::kHostOnlyKernels)
      if (comm.allowsConcurrentThreads())
        for (const std::vector<int64_t> &axes : program.asyncAxisGroups) {
          std::vector<int64_t> others;
          for (int64_t a = 0; a < (int64_t)program.meshShape.size(); ++a)
            if (std::find(axes.begin(), axes.end(), a) == axes.end())
              others.push_back(a);
          asyncGroups[axes] =
              comm.split(static_cast<int>(program.groupIndex(f.coords, others)),
                         static_cast<int>(program.groupIndex(f.coords, axes)));
        }
    if (state) {
      state->program = &program;
      state->backend = B::kName;
      state->world = &comm;
    }
  }
  f.groups = &groups;
  f.byPhase = byPhase;
  if (!asyncGroups.empty()) {
    f.asyncGroups = &asyncGroups;
    if (overlapCollectives(comm.ranksSharingCores()))
      f.worker = std::make_unique<CommWorker>();
  }
  rt::CollectiveStats worldBefore = comm.stats();
  std::map<std::vector<int64_t>, rt::CollectiveStats> statsBefore,
      asyncStatsBefore;
  for (auto &[axes, group] : groups)
    statsBefore[axes] = group->stats();
  for (auto &[axes, group] : asyncGroups)
    asyncStatsBefore[axes] = group->stats();
  if (!data.weightsFile.empty() &&
      !(state && state->params.size() == program.params.size()))
    f.weights = std::make_unique<rt::WeightFiles>(
        rt::WeightFiles::open(data.weightsFile));
  if (!data.inputsFile.empty())
    f.inputs = std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open(data.inputsFile));
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const InputInfo &in = program.inputs[i];
    f.set(program.inputSlots[i],
          B::fromHost(DataSource::localInput(in, data.input(in, f.inputs.get()),
                                             program.meshShape, f.coords)));
  }
  // Resuming from a checkpoint: the run (a RankState's first) starts at
  // the step after the checkpoint's, with its optimizer state (parameters
  // are read through DataSource::param).
  int64_t resumedBytes = 0;
  if (data.checkpoint && (!state || state->runs == 0)) {
    resumedBytes = resumeOptimizerState(program, *data.checkpoint, f.coords,
                                        state ? state->optimizerState
                                              : f.ownOptimizerState);
    if (state) {
      state->runs = data.checkpoint->info().step;
      state->optimizerBytes += resumedBytes;
      resumedBytes = 0;
    } else {
      f.step = data.checkpoint->info().step + 1;
    }
  }
  // Live bytes: resident parameters and optimizer state count from the
  // start, other values from their definition to their last use.
  int64_t live =
              state ? state->paramBytes + state->optimizerBytes : resumedBytes,
          peak = 0;
  for (int s : program.inputSlots)
    live += f.at(s).bytes();
  peak = live;
  if (state) {
    f.step = ++state->runs;
    f.optimizerState = &state->optimizerState;
  }
  using Clock = std::chrono::steady_clock;
  if (instructionSeconds)
    instructionSeconds->resize(program.instrs.size(), 0.0);
  Clock::time_point started = Clock::now();
  for (size_t index = 0; index < program.instrs.size(); ++index) {
    const Instruction &instr = program.instrs[index];
    if (instructionSeconds && index > 0) {
      Clock::time_point now = Clock::now();
      (*instructionSeconds)[index - 1] +=
          std::chrono::duration<double>(now - started).count();
      started = now;
    }
    int64_t before = state ? state->paramBytes : 0;
    int64_t optimizerBefore = f.optimizerBytes;
    // What this instruction frees, measured before it runs (it may take a
    // dying operand's buffer).
    int64_t freed = 0;
    for (int s : instr.awaits)
      f.awaitSlot(s);
    for (int s : instr.frees)
      if (!f.resident[s])
        freed += f.at(s).bytes();
    auto updated = state ? state->updated.find(instr.result)
                         : std::map<int, std::shared_ptr<void>>::iterator();
    if (state && updated != state->updated.end()) {
      // A parameter the last run's optimizer updated: resident, in place of
      // the one it updated.
      f.slots[instr.result] =
          std::static_pointer_cast<typename B::Buffer>(updated->second);
      f.resident[instr.result] = true;
      f.paramOf[instr.result] = instr.param;
    } else if (byPhase && program.axisGroups.count(instr.axes)) {
      // On a group's communicator: its calls count in the instruction's
      // phase.
      countCalls(f.comm(instr.axes), (*byPhase)[phaseName(instr.phase)],
                 [&] { execute(instr, f); });
    } else {
      execute(instr, f);
    }
    if (!f.resident[instr.result])
      live += f.at(instr.result).bytes();
    else if (state)
      live += state->paramBytes - before; // loaded by this run
    live += f.optimizerBytes - optimizerBefore;
    peak = std::max(peak, live);
    live -= freed;
    for (int s : instr.frees)
      f.slots[s].reset();
  }
  // The async results nobody read (a gradient the program returns).
  f.awaitAll();
  if (instructionSeconds && !program.instrs.empty())
    instructionSeconds->back() +=
        std::chrono::duration<double>(Clock::now() - started).count();
  f.worker.reset();
  if (state)
    state->optimizerBytes += f.optimizerBytes;
  if (measuredPeakBytes)
    *measuredPeakBytes = peak;
  if (byPhase)
    for (Phase p : {Phase::Forward, Phase::Backward, Phase::Optimizer})
      (*byPhase)[phaseName(p)]; // every phase, also one without calls
  if (stats) {
    // This run's calls: the communicators may have been used before.
    auto add = [&](const rt::CollectiveStats &now,
                   const rt::CollectiveStats &then) {
      for (auto &[k, v] : now.counts)
        if (k != "split") {
          auto it = then.counts.find(k);
          stats->counts[k] += v - (it == then.counts.end() ? 0 : it->second);
        }
      stats->bytes += now.bytes - then.bytes;
    };
    add(comm.stats(), worldBefore);
    for (auto &[axes, group] : groups)
      add(group->stats(), statsBefore[axes]);
    for (auto &[axes, group] : asyncGroups)
      add(group->stats(), asyncStatsBefore[axes]);
  }
  std::vector<typename B::Buffer> results;
  for (size_t i = 0; i < program.resultSlots.size(); ++i)
    if (state && !state->returnsUpdated && !program.results[i].updated.empty())
      results.emplace_back(); // kept in the RankState, not copied out
    else
      results.push_back(f.take(program.resultSlots[i]));
  return results;
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_INTERPRETER_H
