//===- Checkpoint.cpp - distributed training checkpoints that reshard
//------===//
//
// Where a rank's training state lies in the global tensors (Program::
// stateShards, from the instructions that load the parameters and the
// optimizer updates that step them), the save (one safetensors file per
// rank, then the metadata, then the rename) and the reader that cuts any
// box of a tensor out of the pieces of another layout.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/Checkpoint.h"

#include "ProgramData.h"

#include "tp/Runtime/Safetensors.h"
#include "tp/Support/JSON.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

using namespace mlir::tp;
using namespace mlir::tp::exec;
using detail::ProgramData;
using detail::RankStateImpl;

namespace rt = mlir::tp::runtime;

/// The metadata file of a checkpoint directory.
static constexpr const char *kMetadataFile = "checkpoint.json";
/// What "format" says in it, and the version this build writes and reads.
static constexpr const char *kFormat = "tp-checkpoint";
static constexpr int64_t kVersion = 1;
/// The largest metadata file read (a 70B model on 64 ranks writes a few MB).
static constexpr uintmax_t kMaxMetadataBytes = uintmax_t(256) << 20;

//===----------------------------------------------------------------------===//
// Boxes and names
//===----------------------------------------------------------------------===//

Box Box::whole(const std::vector<int64_t> &shape) {
  return Box{std::vector<int64_t>(shape.size(), 0), shape};
}

int64_t Box::numel() const { return rt::shapeNumel(sizes); }

static std::string listText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// The intersection of \p a and \p b (sizes 0 where they do not meet).
static Box intersect(const Box &a, const Box &b) {
  Box r;
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    int64_t lo = std::max(a.offsets[d], b.offsets[d]);
    int64_t hi = std::min(a.offsets[d] + a.sizes[d], b.offsets[d] + b.sizes[d]);
    r.offsets.push_back(lo);
    r.sizes.push_back(std::max<int64_t>(0, hi - lo));
  }
  return r;
}

static bool inside(const Box &box, const std::vector<int64_t> &shape) {
  if (box.offsets.size() != shape.size() || box.sizes.size() != shape.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (box.offsets[d] < 0 || box.sizes[d] < 0 || box.offsets[d] > shape[d] ||
        box.sizes[d] > shape[d] - box.offsets[d])
      return false;
  return true;
}

std::string exec::checkpointRankFile(int64_t rank) {
  char name[64];
  std::snprintf(name, sizeof(name), "rank-%05lld.safetensors",
                static_cast<long long>(rank));
  return name;
}

std::string exec::checkpointStepDir(const std::string &root, int64_t step) {
  return (fs::path(root) / ("step-" + std::to_string(step))).string();
}

//===----------------------------------------------------------------------===//
// Where a rank's state lies
//===----------------------------------------------------------------------===//

namespace {

/// One tensor of a rank's state, before its value is looked up: the
/// parameter (by index) or the optimizer state entry it is.
struct StateSlot {
  StateShard shard;
  /// The parameter's index (its value: RankStateImpl::params), or -1.
  int param = -1;
  /// An optimizer state tensor: its name in RankStateImpl::optimizerState.
  std::string stateName;
};

/// The optimizer state tensors update \p in keeps, as torch.optim names
/// them.
std::vector<std::string> optimizerStateNames(const Instruction &in) {
  if (in.op == Opcode::AdamWUpdate)
    return {"exp_avg", "exp_avg_sq"};
  // SGD keeps a momentum buffer only with momentum (hyper[1]).
  if (in.op == Opcode::SGDUpdate && in.hyper.size() > 1 && in.hyper[1] > 0)
    return {"momentum_buffer"};
  return {};
}

/// The state the rank at \p coords holds: a piece of every parameter the
/// program loads (whole, or this rank's chunk of one dim) and, for every
/// optimizer update, of its state tensors (the box of the parameter piece
/// it steps).
std::vector<StateSlot> stateLayout(const ProgramData &P,
                                   const std::vector<int64_t> &coords) {
  std::vector<StateSlot> out;
  // Each parameter's piece, by the slot that loads it.
  std::map<int, size_t> loadedBy;
  std::vector<bool> seen(P.params.size(), false);
  for (const Instruction &in : P.instrs) {
    if (in.op != Opcode::Param && in.op != Opcode::ParamChunk)
      continue;
    const ParamInfo &info = P.params[in.param];
    StateShard s;
    s.key = info.name;
    s.globalShape = info.globalShape;
    s.dtype = info.dtype;
    s.box = Box::whole(info.globalShape);
    // A piece is written by the rank whose coordinates off the axes that
    // cut it are all 0 (the lowest-numbered rank holding that box).
    std::vector<int64_t> cutAxes;
    if (in.op == Opcode::ParamChunk) {
      for (const Slice &c : paramChunkSlices(P, in, coords)) {
        s.box.offsets[c.dim] = c.offset;
        s.box.sizes[c.dim] = c.size;
      }
      cutAxes = in.axes;
    }
    s.owner = s.box.numel() > 0;
    for (size_t a = 0; a < coords.size(); ++a)
      if (coords[a] != 0 && std::find(cutAxes.begin(), cutAxes.end(),
                                      static_cast<int64_t>(a)) == cutAxes.end())
        s.owner = false;
    if (seen[in.param]) {
      // Loaded twice (the RankState keeps one buffer per parameter): the
      // same piece, or the program cannot be checkpointed.
      for (const StateSlot &o : out)
        if (o.param == in.param && !(o.shard.box == s.box))
          throw std::runtime_error(
              "cannot checkpoint parameter '" + info.name +
              "': the program loads two different pieces of it");
      loadedBy[in.result] = out.size();
      continue;
    }
    seen[in.param] = true;
    loadedBy[in.result] = out.size();
    out.push_back({std::move(s), in.param, ""});
  }
  for (const Instruction &in : P.instrs) {
    if (in.op != Opcode::SGDUpdate && in.op != Opcode::AdamWUpdate)
      continue;
    auto it = loadedBy.find(in.operands[0]);
    if (it == loadedBy.end())
      throw std::runtime_error("cannot checkpoint the optimizer update of '" +
                               in.name +
                               "': it steps a value that is not a "
                               "loaded parameter");
    StateShard param = out[it->second].shard;
    for (const std::string &name : optimizerStateNames(in)) {
      StateShard s = param;
      s.key = kOptimizerStatePrefix + in.name + "." + name;
      out.push_back({std::move(s), -1, in.name + "." + name});
    }
  }
  return out;
}

} // namespace

std::vector<StateShard> Program::stateShards(int64_t rank,
                                             const RankState *state) const {
  const ProgramData &P = *data;
  if (rank < 0 || rank >= P.numRanks())
    throw std::out_of_range("rank " + std::to_string(rank) + " of a mesh of " +
                            std::to_string(P.numRanks()) + " ranks");
  const RankStateImpl *impl = state ? state->impl.get() : nullptr;
  if (impl && impl->program && impl->program != &P)
    throw std::runtime_error("a RankState belongs to one program");
  if (impl && impl->backend && std::string(impl->backend) != "host")
    throw std::runtime_error(std::string("checkpoints of ranks on the ") +
                             impl->backend +
                             " backend are not supported (only host ranks)");
  std::vector<StateShard> out;
  for (StateSlot &slot : stateLayout(P, P.coordsOf(rank))) {
    if (impl) {
      std::shared_ptr<void> value;
      if (slot.param >= 0) {
        if (slot.param < static_cast<int>(impl->params.size()))
          value = impl->params[slot.param];
      } else if (auto it = impl->optimizerState.find(slot.stateName);
                 it != impl->optimizerState.end()) {
        value = it->second;
      }
      if (!value)
        throw std::runtime_error("the rank state holds no '" + slot.shard.key +
                                 "' yet (a checkpoint is taken after a "
                                 "training step)");
      slot.shard.value = std::static_pointer_cast<const Tensor>(value);
    }
    out.push_back(std::move(slot.shard));
  }
  return out;
}

int64_t detail::resumeOptimizerState(
    const ProgramData &P, const Checkpoint &ckpt,
    const std::vector<int64_t> &coords,
    std::map<std::string, std::shared_ptr<void>> &optimizerState) {
  int64_t bytes = 0;
  for (StateSlot &slot : stateLayout(P, coords)) {
    if (slot.param >= 0)
      continue; // parameters come through DataSource::param
    if (!ckpt.contains(slot.shard.key))
      throw std::runtime_error(
          "checkpoint " + ckpt.dir() + " has no optimizer state '" +
          slot.shard.key +
          "' (was it saved with another optimizer, or before a step?)");
    if (ckpt.shape(slot.shard.key) != slot.shard.globalShape)
      throw std::runtime_error(
          "checkpoint " + ckpt.dir() + ": optimizer state '" + slot.shard.key +
          "' has shape " + listText(ckpt.shape(slot.shard.key)) +
          " but the parameter has " + listText(slot.shard.globalShape));
    auto t = std::make_shared<Tensor>(
        ckpt.read(slot.shard.key, slot.shard.box).to(slot.shard.dtype));
    bytes += static_cast<int64_t>(t->bytes());
    optimizerState[slot.stateName] = std::move(t);
  }
  return bytes;
}

//===----------------------------------------------------------------------===//
// Saving
//===----------------------------------------------------------------------===//

/// Runs \p fn, turning a filesystem error into one naming \p what.
template <class Fn> static void onDisk(const std::string &what, Fn fn) {
  try {
    fn();
  } catch (const fs::filesystem_error &e) {
    throw std::runtime_error("cannot " + what + ": " + e.code().message());
  }
}

/// Flushes \p path (a file or a directory) to the disk, so that what a
/// rename then publishes survives a crash of the machine, not only of the
/// process.
static void syncToDisk(const fs::path &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    int error = errno;
    if (fd >= 0)
      ::close(fd);
    throw std::runtime_error("cannot flush '" + path.string() +
                             "' to disk: " + std::strerror(error));
  }
  ::close(fd);
}

std::string checkpoint_save::begin(const std::string &root, int64_t step) {
  std::string partial = checkpointStepDir(root, step) + ".partial";
  onDisk("create checkpoint directory '" + partial + "'", [&] {
    fs::remove_all(partial);
    fs::create_directories(partial);
  });
  return partial;
}

void checkpoint_save::writeRank(const std::string &partialDir, int64_t rank,
                                const std::vector<StateShard> &shards) {
  std::vector<std::pair<std::string, const Tensor *>> tensors;
  for (const StateShard &s : shards)
    if (s.owner) {
      if (!s.value)
        throw std::invalid_argument("shard '" + s.key + "' has no value");
      tensors.emplace_back(s.key, s.value.get());
    }
  if (tensors.empty())
    return;
  fs::path file = fs::path(partialDir) / checkpointRankFile(rank);
  rt::writeSafetensors(file.string(), tensors, {{"format", "pt"}});
  syncToDisk(file);
}

std::string
checkpoint_save::finish(const std::string &partialDir,
                        const CheckpointInfo &info,
                        const std::vector<std::vector<StateShard>> &layout) {
  // Each key's pieces, in the order of first appearance.
  struct Pieces {
    const StateShard *first = nullptr;
    std::vector<std::pair<int64_t, const Box *>> pieces; // file index, box
  };
  std::vector<std::string> order;
  std::map<std::string, Pieces> byKey;
  std::vector<std::string> files;
  for (size_t rank = 0; rank < layout.size(); ++rank) {
    bool writes = false;
    for (const StateShard &s : layout[rank]) {
      Pieces &p = byKey[s.key];
      if (!p.first) {
        p.first = &s;
        order.push_back(s.key);
      }
      if (s.owner) {
        p.pieces.emplace_back(static_cast<int64_t>(files.size()), &s.box);
        writes = true;
      }
    }
    if (writes)
      files.push_back(checkpointRankFile(static_cast<int64_t>(rank)));
  }
  std::string text;
  json::Writer w(text); // compact: a large model on many ranks has many pieces
  w.objectBegin();
  w.member("format", kFormat);
  w.member("version", kVersion);
  w.member("step", info.step);
  // As a string: a seed is any uint64, more than a JSON reader may keep.
  w.member("seed", std::to_string(info.seed));
  w.key("mesh");
  w.arrayBegin();
  for (int64_t d : info.meshShape)
    w.value(d);
  w.arrayEnd();
  w.member("ranks", info.numRanks);
  w.key("plan");
  if (json::ParseResult plan = json::parse(info.plan);
      !info.plan.empty() && plan)
    w.value(plan.value);
  else
    w.value(nullptr);
  w.key("files");
  w.arrayBegin();
  for (const std::string &f : files)
    w.value(f);
  w.arrayEnd();
  w.key("tensors");
  w.objectBegin();
  for (const std::string &key : order) {
    const Pieces &p = byKey[key];
    w.key(key);
    w.objectBegin();
    w.key("shape");
    w.arrayBegin();
    for (int64_t d : p.first->globalShape)
      w.value(d);
    w.arrayEnd();
    w.member("dtype", rt::dtypeName(p.first->dtype));
    w.key("pieces");
    w.arrayBegin();
    for (auto &[file, box] : p.pieces) {
      w.objectBegin();
      w.member("file", file);
      w.key("offsets");
      w.arrayBegin();
      for (int64_t o : box->offsets)
        w.value(o);
      w.arrayEnd();
      w.key("sizes");
      w.arrayBegin();
      for (int64_t s : box->sizes)
        w.value(s);
      w.arrayEnd();
      w.objectEnd();
    }
    w.arrayEnd();
    w.objectEnd();
  }
  w.objectEnd();
  w.objectEnd();
  text += "\n";

  fs::path tmp = fs::path(partialDir) / (std::string(kMetadataFile) + ".tmp");
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    os.write(text.data(), static_cast<std::streamsize>(text.size()));
    os.close();
    if (!os)
      throw std::runtime_error("cannot write '" + tmp.string() + "'");
  }
  syncToDisk(tmp);
  std::string final = partialDir.substr(0, partialDir.size() - 8);
  onDisk("finish checkpoint '" + final + "'", [&] {
    fs::rename(tmp, fs::path(partialDir) / kMetadataFile);
    // The rank files and the metadata are on the disk before the
    // directory that makes them a checkpoint is.
    syncToDisk(partialDir);
    // A checkpoint of the same step is replaced: moved aside first (a
    // directory cannot be renamed over a non-empty one), removed after.
    std::string replaced = final + ".replaced";
    fs::remove_all(replaced);
    bool had = fs::exists(final);
    if (had)
      fs::rename(final, replaced);
    fs::rename(partialDir, final);
    syncToDisk(fs::path(final).parent_path().empty()
                   ? fs::path(".")
                   : fs::path(final).parent_path());
    if (had)
      fs::remove_all(replaced);
  });
  return final;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

Checkpoint::~Checkpoint() = default;

/// The step of a directory named "step-<N>", or -1.
static int64_t stepOfName(const std::string &name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5 || name.size() > 23)
    return -1;
  int64_t n = 0;
  for (char c : name.substr(5)) {
    if (c < '0' || c > '9')
      return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

/// The checkpoint directory \p path names: itself when it holds the
/// metadata, else its latest complete "step-<N>".
static fs::path findCheckpointDir(const std::string &path) {
  std::error_code ec;
  fs::path p(path);
  if (fs::is_regular_file(p / kMetadataFile, ec))
    return p;
  if (!fs::is_directory(p, ec))
    throw std::runtime_error(
        "checkpoint '" + path +
        "': " + (fs::exists(p, ec) ? "not a directory" : "no such directory"));
  int64_t best = -1;
  fs::path found;
  std::vector<std::string> partial;
  for (const fs::directory_entry &e : fs::directory_iterator(p, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".partial") == 0)
      partial.push_back(name);
    int64_t step = stepOfName(name);
    if (step > best && fs::is_regular_file(e.path() / kMetadataFile, ec)) {
      best = step;
      found = e.path();
    }
  }
  if (best < 0) {
    std::string why = "checkpoint '" + path + "': no " + kMetadataFile +
                      " here, and no step-<N> directory holding one";
    std::sort(partial.begin(), partial.end());
    if (!partial.empty())
      why += " (" + partial.front() + " is a save that did not finish)";
    throw std::runtime_error(why);
  }
  return found;
}

namespace {

/// Reads the members of the metadata file, naming it in every error.
struct MetadataReader {
  std::string file;

  [[noreturn]] void fail(const std::string &what) const {
    throw std::runtime_error(file + ": " + what);
  }
  int64_t integer(const json::Value *v, const std::string &what) const {
    std::optional<int64_t> i = v ? v->getAsInteger() : std::nullopt;
    if (!i)
      fail(what + " must be an integer");
    return *i;
  }
  std::vector<int64_t> integers(const json::Value *v,
                                const std::string &what) const {
    const json::Array *a = v ? v->getAsArray() : nullptr;
    if (!a)
      fail(what + " must be an array of integers");
    std::vector<int64_t> out;
    for (const json::Value &e : *a)
      out.push_back(integer(&e, what));
    return out;
  }
};

} // namespace

std::shared_ptr<const Checkpoint> Checkpoint::open(const std::string &path) {
  fs::path dir = findCheckpointDir(path);
  std::shared_ptr<Checkpoint> c(new Checkpoint());
  c->dir_ = dir.string();
  MetadataReader m{(dir / kMetadataFile).string()};

  std::error_code ec;
  uintmax_t size = fs::file_size(m.file, ec);
  if (ec)
    m.fail(ec.message());
  if (size > kMaxMetadataBytes)
    m.fail("larger than " + std::to_string(kMaxMetadataBytes) + " bytes");
  std::ifstream is(m.file, std::ios::binary);
  std::stringstream text;
  text << is.rdbuf();
  if (!is)
    m.fail("cannot read it");
  json::ParseResult parsed = json::parse(text.str());
  if (!parsed)
    m.fail("not JSON: " + parsed.error->message);
  const json::Object *root = parsed.value.getAsObject();
  if (!root)
    m.fail("not a JSON object");
  const std::string *format = root->getString("format");
  if (!format || *format != kFormat)
    m.fail(std::string("not a tp checkpoint (\"format\" is not \"") + kFormat +
           "\")");
  if (int64_t v = m.integer(root->get("version"), "'version'"); v != kVersion)
    m.fail("version " + std::to_string(v) + ", this build reads version " +
           std::to_string(kVersion));

  CheckpointInfo &info = c->info_;
  info.step = m.integer(root->get("step"), "'step'");
  if (info.step < 0)
    m.fail("'step' is negative");
  const std::string *seed = root->getString("seed");
  if (!seed || seed->empty() || seed->size() > 20 ||
      seed->find_first_not_of("0123456789") != std::string::npos)
    m.fail("'seed' must be a string of decimal digits");
  errno = 0;
  unsigned long long s = std::strtoull(seed->c_str(), nullptr, 10);
  if (errno == ERANGE)
    m.fail("'seed' is out of range");
  info.seed = s;
  info.meshShape = m.integers(root->get("mesh"), "'mesh'");
  info.numRanks = m.integer(root->get("ranks"), "'ranks'");
  if (const json::Value *plan = root->get("plan"); plan && !plan->isNull())
    info.plan = json::toString(*plan);

  const json::Array *files = root->getArray("files");
  if (!files)
    m.fail("'files' must be an array of file names");
  for (const json::Value &f : *files) {
    const std::string *name = f.getAsString();
    if (!name || name->empty() || name->find('/') != std::string::npos ||
        *name == "." || *name == "..")
      m.fail("'files' must name files of the checkpoint's directory");
    c->files_.push_back(std::make_unique<rt::SafetensorsFile>(
        rt::SafetensorsFile::open((dir / *name).string())));
  }

  const json::Object *tensors = root->getObject("tensors");
  if (!tensors)
    m.fail("'tensors' must be an object");
  for (const auto &[key, value] : *tensors) {
    std::string what = "tensor '" + key + "'";
    const json::Object *t = value.getAsObject();
    if (!t)
      m.fail(what + " must be an object");
    Entry e;
    e.shape = m.integers(t->get("shape"), what + ": 'shape'");
    for (int64_t d : e.shape)
      if (d < 0)
        m.fail(what + ": 'shape' has a negative extent");
    const std::string *dtype = t->getString("dtype");
    if (!dtype || !rt::parseDType(*dtype, e.dtype))
      m.fail(what + ": 'dtype' must name a dtype");
    const json::Array *pieces = t->getArray("pieces");
    if (!pieces)
      m.fail(what + ": 'pieces' must be an array");
    int64_t covered = 0;
    for (const json::Value &pv : *pieces) {
      const json::Object *po = pv.getAsObject();
      if (!po)
        m.fail(what + ": a piece must be an object");
      Piece p;
      int64_t file = m.integer(po->get("file"), what + ": a piece's 'file'");
      if (file < 0 || file >= static_cast<int64_t>(c->files_.size()))
        m.fail(what + ": a piece's 'file' " + std::to_string(file) +
               " is not an index into 'files'");
      p.file = static_cast<size_t>(file);
      p.box.offsets = m.integers(po->get("offsets"), what + ": 'offsets'");
      p.box.sizes = m.integers(po->get("sizes"), what + ": 'sizes'");
      if (!inside(p.box, e.shape))
        m.fail(what + ": the piece at " + listText(p.box.offsets) +
               " of size " + listText(p.box.sizes) + " is outside its shape " +
               listText(e.shape));
      for (const Piece &q : e.pieces)
        if (intersect(p.box, q.box).numel() > 0)
          m.fail(what + ": two pieces overlap at " + listText(p.box.offsets));
      const rt::SafetensorsFile &sf = *c->files_[p.file];
      if (!sf.contains(key))
        m.fail(what + ": " + sf.path() + " does not hold it");
      rt::DType stored;
      if (sf.shape(key) != p.box.sizes ||
          !rt::parseDType(sf.dtype(key), stored) || stored != e.dtype)
        m.fail(what + ": " + sf.path() + " holds it as " + sf.dtype(key) +
               listText(sf.shape(key)) + ", the metadata says " +
               rt::dtypeName(e.dtype) + listText(p.box.sizes));
      covered += p.box.numel();
      e.pieces.push_back(std::move(p));
    }
    if (covered != rt::shapeNumel(e.shape))
      m.fail(what + ": its pieces hold " + std::to_string(covered) +
             " of its " + std::to_string(rt::shapeNumel(e.shape)) +
             " elements");
    c->keys_.push_back(key);
    c->entries_.emplace(key, std::move(e));
  }
  return c;
}

bool Checkpoint::contains(const std::string &key) const {
  return entries_.count(key) != 0;
}

const Checkpoint::Entry &Checkpoint::entry(const std::string &key) const {
  auto it = entries_.find(key);
  if (it == entries_.end())
    throw std::runtime_error("checkpoint " + dir_ + " has no tensor '" + key +
                             "'");
  return it->second;
}

const std::vector<int64_t> &Checkpoint::shape(const std::string &key) const {
  return entry(key).shape;
}

rt::DType Checkpoint::dtype(const std::string &key) const {
  return entry(key).dtype;
}

Tensor Checkpoint::read(const std::string &key, const Box &box) const {
  const Entry &e = entry(key);
  if (!inside(box, e.shape))
    throw std::runtime_error("checkpoint " + dir_ + ": the box at " +
                             listText(box.offsets) + " of size " +
                             listText(box.sizes) + " is outside '" + key +
                             "' of shape " + listText(e.shape));
  Tensor out = Tensor::uninitialized(box.sizes, e.dtype);
  for (const Piece &p : e.pieces) {
    Box common = intersect(box, p.box);
    if (common.numel() == 0)
      continue;
    std::vector<int64_t> from, at;
    for (size_t d = 0; d < box.offsets.size(); ++d) {
      from.push_back(common.offsets[d] - p.box.offsets[d]);
      at.push_back(common.offsets[d] - box.offsets[d]);
    }
    files_[p.file]->copyBox(key, from, common.sizes, out, at);
  }
  return out;
}
