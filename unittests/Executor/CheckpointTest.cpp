//===- CheckpointTest.cpp - checkpoint files, saved and cut again -*- C++
//-*-===//
//
// The checkpoint format without a program: pieces of a tensor saved by
// several "ranks" are read back as any box of it, whatever the pieces, and
// a checkpoint that is incomplete, inconsistent or unfinished is refused
// with the file and the reason.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/Checkpoint.h"

#include "tp/Runtime/Kernels.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace mlir::tp::exec;
namespace rt = mlir::tp::runtime;
namespace fs = std::filesystem;

namespace {

class CheckpointTest : public ::testing::Test {
protected:
  void SetUp() override {
    root =
        fs::path(::testing::TempDir()) /
        ("tp_ckpt_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root);
    // A 6x5 tensor of distinct values 0..29 and a 5-element one.
    std::vector<float> v(30), b(5);
    for (int i = 0; i < 30; ++i)
      v[i] = static_cast<float>(i);
    for (int i = 0; i < 5; ++i)
      b[i] = 100.0f + static_cast<float>(i);
    weight = std::make_shared<Tensor>(Tensor::fromData({6, 5}, v));
    bias = std::make_shared<Tensor>(Tensor::fromData({5}, b));
  }
  void TearDown() override { fs::remove_all(root); }

  /// A shard of `weight` (or of `bias` when \p key is "b"): rows [r0, r0+nr)
  /// and columns [c0, c0+nc).
  StateShard shard(const std::string &key, std::vector<int64_t> offsets,
                   std::vector<int64_t> sizes, bool owner) {
    StateShard s;
    s.key = key;
    const Tensor &whole = key == "b" ? *bias : *weight;
    s.globalShape = whole.shape();
    s.box = Box{offsets, sizes};
    Tensor piece = whole;
    for (size_t d = 0; d < offsets.size(); ++d)
      piece =
          rt::sliceDim(piece, static_cast<int64_t>(d), offsets[d], sizes[d]);
    s.value = std::make_shared<Tensor>(std::move(piece));
    s.owner = owner;
    return s;
  }

  /// Saves step 7 from \p ranks' shards; returns its directory.
  std::string save(const std::vector<std::vector<StateShard>> &ranks) {
    std::string partial = checkpoint_save::begin(root.string(), 7);
    for (size_t r = 0; r < ranks.size(); ++r)
      checkpoint_save::writeRank(partial, static_cast<int64_t>(r), ranks[r]);
    CheckpointInfo info;
    info.step = 7;
    info.seed = 18446744073709551615ull;
    info.meshShape = {2, 2};
    info.numRanks = 4;
    info.plan = R"({"plan": {}})";
    return checkpoint_save::finish(partial, info, ranks);
  }

  /// The weight cut 2x2 (rows over the first axis, columns over the
  /// second; uneven columns 3 + 2) and the bias replicated: each of the
  /// four ranks' shards, rank 0 writing the bias.
  std::vector<std::vector<StateShard>> grid() {
    std::vector<std::vector<StateShard>> ranks(4);
    for (int r = 0; r < 4; ++r) {
      int64_t row = r / 2, col = r % 2;
      ranks[r].push_back(
          shard("w", {row * 3, col * 3}, {3, col ? 2 : 3}, true));
      ranks[r].push_back(shard("b", {0}, {5}, r == 0));
    }
    return ranks;
  }

  /// Rewrites the metadata of \p dir with \p from replaced by \p to.
  void editMetadata(const std::string &dir, const std::string &from,
                    const std::string &to) {
    fs::path file = fs::path(dir) / "checkpoint.json";
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    std::string s = text.str();
    size_t at = s.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    std::ofstream(file, std::ios::trunc) << s;
  }

  std::string openError(const std::string &path) {
    try {
      Checkpoint::open(path);
    } catch (const std::exception &e) {
      return e.what();
    }
    return "";
  }

  fs::path root;
  std::shared_ptr<Tensor> weight, bias;
};

TEST_F(CheckpointTest, AnyBoxIsCutFromThePiecesThatHoldIt) {
  std::string dir = save(grid());
  EXPECT_EQ(dir, checkpointStepDir(root.string(), 7));
  EXPECT_FALSE(fs::exists(dir + ".partial"));
  // Every rank owned its weight piece; only rank 0 wrote the bias.
  EXPECT_TRUE(fs::exists(fs::path(dir) / checkpointRankFile(3)));

  auto ckpt = Checkpoint::open(root.string());
  EXPECT_EQ(ckpt->dir(), dir);
  EXPECT_EQ(ckpt->info().step, 7);
  EXPECT_EQ(ckpt->info().seed, 18446744073709551615ull);
  EXPECT_EQ(ckpt->info().meshShape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ckpt->info().plan, R"({"plan":{}})");
  EXPECT_EQ(ckpt->keys(), (std::vector<std::string>{"w", "b"}));
  EXPECT_EQ(ckpt->shape("w"), (std::vector<int64_t>{6, 5}));

  // Whole, a row cut of another mesh (two uneven pieces of 4 and 2 rows),
  // a box across all four pieces, a column, an empty box.
  EXPECT_EQ(ckpt->read("w", Box::whole({6, 5})), *weight);
  EXPECT_EQ(ckpt->read("w", Box{{0, 0}, {4, 5}}),
            rt::sliceDim(*weight, 0, 0, 4));
  EXPECT_EQ(ckpt->read("w", Box{{4, 0}, {2, 5}}),
            rt::sliceDim(*weight, 0, 4, 2));
  EXPECT_EQ(ckpt->read("w", Box{{1, 1}, {4, 3}}),
            rt::sliceDim(rt::sliceDim(*weight, 0, 1, 4), 1, 1, 3));
  EXPECT_EQ(ckpt->read("w", Box{{0, 4}, {6, 1}}),
            rt::sliceDim(*weight, 1, 4, 1));
  EXPECT_EQ(ckpt->read("w", Box{{2, 2}, {0, 3}}).numel(), 0);
  EXPECT_EQ(ckpt->read("b", Box{{3}, {2}}), rt::sliceDim(*bias, 0, 3, 2));
}

TEST_F(CheckpointTest, TheLatestCompleteStepIsTaken) {
  save(grid());
  // A later save that did not finish is not a checkpoint.
  fs::create_directories(root / "step-9.partial");
  EXPECT_EQ(Checkpoint::open(root.string())->info().step, 7);
  // Saving the same step again replaces it.
  std::vector<std::vector<StateShard>> one(1);
  one[0].push_back(shard("b", {0}, {5}, true));
  std::string partial = checkpoint_save::begin(root.string(), 7);
  checkpoint_save::writeRank(partial, 0, one[0]);
  CheckpointInfo info;
  info.step = 7;
  checkpoint_save::finish(partial, info, one);
  auto ckpt = Checkpoint::open(root.string());
  EXPECT_EQ(ckpt->keys(), (std::vector<std::string>{"b"}));
  EXPECT_FALSE(fs::exists(root / "step-7.replaced"));
}

TEST_F(CheckpointTest, OnlyAnUnfinishedSaveIsNoCheckpoint) {
  fs::create_directories(root / "step-3.partial");
  std::string error = openError(root.string());
  EXPECT_NE(error.find("no checkpoint.json here"), std::string::npos) << error;
  EXPECT_NE(error.find("step-3.partial is a save that did not finish"),
            std::string::npos)
      << error;
  EXPECT_NE(openError((root / "nothing").string()).find("no such directory"),
            std::string::npos);
}

TEST_F(CheckpointTest, InconsistentMetadataIsRefused) {
  std::string dir = save(grid());
  // Pieces that overlap (rank 1's columns moved onto rank 0's).
  editMetadata(dir, R"("offsets":[0,3])", R"("offsets":[0,2])");
  std::string error = openError(dir);
  EXPECT_NE(error.find("checkpoint.json: tensor 'w': two pieces overlap"),
            std::string::npos)
      << error;
}

TEST_F(CheckpointTest, APieceTheFileDoesNotHoldAsSaidIsRefused) {
  std::string dir = save(grid());
  editMetadata(dir, R"("dtype":"F32")", R"("dtype":"BF16")");
  std::string error = openError(dir);
  EXPECT_TRUE(std::regex_search(
      error, std::regex("tensor 'w': .*rank-00000.safetensors holds it as "
                        "F32\\[3, 3\\], the metadata says BF16\\[3, 3\\]")))
      << error;
}

TEST_F(CheckpointTest, AVersionFromElsewhereIsRefused) {
  std::string dir = save(grid());
  editMetadata(dir, R"("version":1)", R"("version":2)");
  std::string error = openError(dir);
  EXPECT_NE(error.find("version 2, this build reads version 1"),
            std::string::npos)
      << error;
}

TEST_F(CheckpointTest, BoxesOutsideTheTensorAreRefused) {
  save(grid());
  auto ckpt = Checkpoint::open(root.string());
  EXPECT_THROW(ckpt->read("w", Box{{5, 0}, {2, 5}}), std::runtime_error);
  EXPECT_THROW(ckpt->read("missing", Box{{0}, {1}}), std::runtime_error);
}

} // namespace
