//===- PlacementTest.cpp - tp placement helpers and plan parser -*- C++ -*-===//
//
// Unit tests of the placement algebra (chunk sizes, local types,
// normalization, PyTorch spelling), FQN token matching, the dtensor and plan
// syntax, and the JSON plan parser with its diagnostics.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::tp;

namespace {

class TPDialectTest : public ::testing::Test {
protected:
  TPDialectTest() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  /// Parses `source` as a module; fails the test if it does not parse.
  OwningOpRef<ModuleOp> parseModule(StringRef source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, ParserConfig(&context));
    EXPECT_TRUE(module) << "cannot parse:\n" << source.str();
    return module;
  }

  /// An empty module.
  OwningOpRef<ModuleOp> emptyModule() {
    return ModuleOp::create(UnknownLoc::get(&context));
  }

  /// Runs `parsePlan` on `json` in a fresh module, collecting the error and
  /// warning messages in `messages`.
  FailureOr<PlanAttr> parsePlanText(StringRef json,
                                    std::vector<std::string> &messages,
                                    OwningOpRef<ModuleOp> &module) {
    module = emptyModule();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      messages.push_back(diag.str());
      return success();
    });
    return parsePlan(*module, json, "plan.json");
  }

  /// parsePlan must fail with exactly one error containing `expected`.
  void expectPlanError(StringRef json, StringRef expected) {
    std::vector<std::string> messages;
    OwningOpRef<ModuleOp> module;
    FailureOr<PlanAttr> plan = parsePlanText(json, messages, module);
    EXPECT_TRUE(failed(plan)) << json.str();
    ASSERT_EQ(messages.size(), 1u) << json.str();
    EXPECT_NE(messages[0].find(expected.str()), std::string::npos)
        << "message: " << messages[0] << "\nexpected: " << expected.str();
  }

  DTensorType dtensor(ArrayRef<int64_t> shape, StringRef mesh,
                      ArrayRef<Attribute> placements) {
    return DTensorType::get(&context, shape, Float32Type::get(&context),
                            FlatSymbolRefAttr::get(&context, mesh), placements);
  }

  Attribute shard(int64_t dim) { return ShardAttr::get(&context, dim); }
  Attribute replicate() { return ReplicateAttr::get(&context); }
  Attribute partial(ReductionKind kind = ReductionKind::Sum) {
    return PartialAttr::get(&context, kind);
  }

  static std::vector<int64_t> chunks(int64_t size, int64_t parts) {
    std::vector<int64_t> result;
    for (int64_t i = 0; i < parts; ++i)
      result.push_back(chunkSize(size, parts, i));
    return result;
  }

  static std::string print(Attribute attr) {
    std::string s;
    llvm::raw_string_ostream os(s);
    attr.print(os);
    return s;
  }

  MLIRContext context;
};

//===----------------------------------------------------------------------===//
// chunkSize: torch.chunk rules
//===----------------------------------------------------------------------===//

TEST_F(TPDialectTest, ChunkSizeEven) {
  EXPECT_EQ(chunks(8, 4), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(chunks(32, 2), (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(chunks(7, 1), (std::vector<int64_t>{7}));
}

TEST_F(TPDialectTest, ChunkSizeUneven) {
  // ceil(10/4) = 3 for the first ranks, the remainder for the last.
  EXPECT_EQ(chunks(10, 4), (std::vector<int64_t>{3, 3, 3, 1}));
  // ceil(5/4) = 2: the last rank gets nothing.
  EXPECT_EQ(chunks(5, 4), (std::vector<int64_t>{2, 2, 1, 0}));
  // Fewer elements than ranks.
  EXPECT_EQ(chunks(2, 4), (std::vector<int64_t>{1, 1, 0, 0}));
}

TEST_F(TPDialectTest, ChunkSizesAddUp) {
  for (int64_t size = 0; size <= 17; ++size)
    for (int64_t parts = 1; parts <= 8; ++parts) {
      int64_t total = 0;
      for (int64_t c : chunks(size, parts)) {
        EXPECT_GE(c, 0);
        total += c;
      }
      EXPECT_EQ(total, size) << size << " over " << parts;
    }
}

//===----------------------------------------------------------------------===//
// getLocalType
//===----------------------------------------------------------------------===//

TEST_F(TPDialectTest, LocalTypeEven) {
  OwningOpRef<ModuleOp> module = parseModule(R"mlir(
    tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  )mlir");
  ASSERT_TRUE(module);
  MeshOp mesh = *module->getOps<MeshOp>().begin();

  RankedTensorType local =
      getLocalType(dtensor({8, 16}, "mesh", {shard(1)}), mesh);
  EXPECT_EQ(local.getShape(), ArrayRef<int64_t>({8, 4}));
  EXPECT_TRUE(local.getElementType().isF32());

  // Replicate and Partial keep the global shape.
  EXPECT_EQ(
      getLocalType(dtensor({8, 16}, "mesh", {replicate()}), mesh).getShape(),
      ArrayRef<int64_t>({8, 16}));
  EXPECT_EQ(
      getLocalType(dtensor({8, 16}, "mesh", {partial()}), mesh).getShape(),
      ArrayRef<int64_t>({8, 16}));
}

TEST_F(TPDialectTest, LocalTypeUnevenIsDynamic) {
  OwningOpRef<ModuleOp> module = parseModule(R"mlir(
    tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  )mlir");
  ASSERT_TRUE(module);
  MeshOp mesh = *module->getOps<MeshOp>().begin();

  RankedTensorType local =
      getLocalType(dtensor({10, 16}, "mesh", {shard(0)}), mesh);
  EXPECT_TRUE(ShapedType::isDynamic(local.getShape()[0]));
  EXPECT_EQ(local.getShape()[1], 16);
}

TEST_F(TPDialectTest, LocalType2DMeshSameDimOnTwoAxes) {
  OwningOpRef<ModuleOp> module = parseModule(R"mlir(
    tp.mesh @mesh2d(shape = 2x4) {axis_names = ["dp", "tp"]}
  )mlir");
  ASSERT_TRUE(module);
  MeshOp mesh = *module->getOps<MeshOp>().begin();
  ASSERT_EQ(mesh.getNumRanks(), 8);

  // Dim 0 split by 2, then by 4.
  EXPECT_EQ(getLocalType(dtensor({16, 8}, "mesh2d", {shard(0), shard(0)}), mesh)
                .getShape(),
            ArrayRef<int64_t>({2, 8}));
  // Different dims on the two axes.
  EXPECT_EQ(getLocalType(dtensor({16, 8}, "mesh2d", {shard(1), shard(0)}), mesh)
                .getShape(),
            ArrayRef<int64_t>({4, 4}));
  // One axis only.
  EXPECT_EQ(
      getLocalType(dtensor({16, 8}, "mesh2d", {replicate(), shard(1)}), mesh)
          .getShape(),
      ArrayRef<int64_t>({16, 2}));
  // 12 splits by 2 into 6, which does not split by 4.
  RankedTensorType uneven =
      getLocalType(dtensor({12, 8}, "mesh2d", {shard(0), shard(0)}), mesh);
  EXPECT_TRUE(ShapedType::isDynamic(uneven.getShape()[0]));
  EXPECT_EQ(uneven.getShape()[1], 8);
}

//===----------------------------------------------------------------------===//
// normalizePlacement and placementsToString
//===----------------------------------------------------------------------===//

TEST_F(TPDialectTest, NormalizePlacement) {
  EXPECT_EQ(normalizePlacement(shard(-1), 3), shard(2));
  EXPECT_EQ(normalizePlacement(shard(-3), 3), shard(0));
  EXPECT_EQ(normalizePlacement(shard(1), 3), shard(1));
  EXPECT_EQ(normalizePlacement(replicate(), 3), replicate());
  EXPECT_EQ(normalizePlacement(partial(ReductionKind::Max), 3),
            partial(ReductionKind::Max));
}

TEST_F(TPDialectTest, PlacementsToString) {
  EXPECT_EQ(placementsToString({shard(1), replicate(), partial()}),
            "[Shard(1), Replicate(), Partial()]");
  EXPECT_EQ(placementsToString({partial(ReductionKind::Max)}),
            "[Partial(max)]");
  EXPECT_EQ(placementsToString(
                {partial(ReductionKind::Avg), partial(ReductionKind::Min)}),
            "[Partial(avg), Partial(min)]");
  EXPECT_EQ(placementsToString({}), "[]");
}

TEST_F(TPDialectTest, InnerShardSplitOrderAndCanonicalForm) {
  Attribute inner0 = InnerShardAttr::get(&context, 0);
  // Shards in mesh order first, then inner shards.
  EXPECT_EQ(getSplitOrder({inner0, shard(0)}, 0), (SmallVector<int64_t>{1, 0}));
  EXPECT_EQ(getSplitOrder({shard(0), shard(0)}, 0),
            (SmallVector<int64_t>{0, 1}));
  EXPECT_EQ(getSplitOrder({inner0, shard(1)}, 0), (SmallVector<int64_t>{0}));
  EXPECT_EQ(getSplitDim(inner0), 0);
  EXPECT_EQ(getSplitDim(replicate()), std::nullopt);
  // An inner shard no later axis splits before is a Shard; one that is
  // nested inside a later axis' Shard stays inner.
  EXPECT_EQ(canonicalizePlacements({inner0, replicate()}),
            (SmallVector<Attribute>{shard(0), replicate()}));
  EXPECT_EQ(canonicalizePlacements({inner0, shard(0)}),
            (SmallVector<Attribute>{inner0, shard(0)}));
  EXPECT_EQ(canonicalizePlacements({shard(0), inner0}),
            (SmallVector<Attribute>{shard(0), shard(0)}));
  EXPECT_EQ(placementsToString({inner0, shard(0)}),
            "[InnerShard(0), Shard(0)]");
  EXPECT_EQ(normalizePlacement(InnerShardAttr::get(&context, -1), 2),
            InnerShardAttr::get(&context, 1));
  EXPECT_TRUE(isPlacement(inner0));
}

TEST_F(TPDialectTest, IsPlacement) {
  EXPECT_TRUE(isPlacement(shard(0)));
  EXPECT_TRUE(isPlacement(replicate()));
  EXPECT_TRUE(isPlacement(partial()));
  EXPECT_FALSE(isPlacement(UnitAttr::get(&context)));
  EXPECT_FALSE(isPlacement(Attribute()));
}

//===----------------------------------------------------------------------===//
// fnmatchToken
//===----------------------------------------------------------------------===//

TEST_F(TPDialectTest, FnmatchStar) {
  EXPECT_TRUE(fnmatchToken("*", "layers"));
  EXPECT_TRUE(fnmatchToken("*", "0"));
  EXPECT_TRUE(fnmatchToken("*", ""));
  EXPECT_TRUE(fnmatchToken("w*", "w"));
  EXPECT_TRUE(fnmatchToken("w*", "wq"));
  EXPECT_TRUE(fnmatchToken("*_norm", "attention_norm"));
  EXPECT_FALSE(fnmatchToken("*_norm", "attention"));
  EXPECT_TRUE(fnmatchToken("a*b*c", "aXbYc"));
  EXPECT_FALSE(fnmatchToken("a*b*c", "aXbY"));
}

TEST_F(TPDialectTest, FnmatchQuestionMark) {
  EXPECT_TRUE(fnmatchToken("w?", "wq"));
  EXPECT_FALSE(fnmatchToken("w?", "w"));
  EXPECT_FALSE(fnmatchToken("w?", "wqk"));
  EXPECT_FALSE(fnmatchToken("?", ""));
}

TEST_F(TPDialectTest, FnmatchSets) {
  EXPECT_TRUE(fnmatchToken("[1-2]", "1"));
  EXPECT_TRUE(fnmatchToken("[1-2]", "2"));
  EXPECT_FALSE(fnmatchToken("[1-2]", "3"));
  EXPECT_FALSE(fnmatchToken("[1-2]", "12"));
  EXPECT_TRUE(fnmatchToken("w[qkv]", "wk"));
  EXPECT_FALSE(fnmatchToken("w[qkv]", "wo"));
  EXPECT_TRUE(fnmatchToken("w[!o]", "wq"));
  EXPECT_FALSE(fnmatchToken("w[!o]", "wo"));
  EXPECT_TRUE(fnmatchToken("[!x]", "y"));
  EXPECT_FALSE(fnmatchToken("[!x]", "x"));
  EXPECT_FALSE(fnmatchToken("[!x]", ""));
}

TEST_F(TPDialectTest, FnmatchLiteral) {
  EXPECT_TRUE(fnmatchToken("net1", "net1"));
  EXPECT_FALSE(fnmatchToken("net1", "net2"));
  EXPECT_FALSE(fnmatchToken("net", "net1"));
  EXPECT_FALSE(fnmatchToken("net1", "net"));
  EXPECT_TRUE(fnmatchToken("", ""));
  EXPECT_FALSE(fnmatchToken("", "x"));
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

TEST_F(TPDialectTest, DTensorParseNormalizesNegativeDim) {
  Type type =
      parseType("!tp.dtensor<8x16xf32, @mesh, [#tp.shard<-1>]>", &context);
  ASSERT_TRUE(type);
  auto dt = dyn_cast<DTensorType>(type);
  ASSERT_TRUE(dt);
  EXPECT_EQ(dt.getShape(), ArrayRef<int64_t>({8, 16}));
  ASSERT_EQ(dt.getPlacements().size(), 1u);
  EXPECT_EQ(dt.getPlacements()[0], shard(1));
  EXPECT_EQ(dt, dtensor({8, 16}, "mesh", {shard(1)}));
  EXPECT_EQ(dt.getMesh().getValue(), "mesh");
  EXPECT_EQ(dt.getGlobalType(),
            RankedTensorType::get({8, 16}, Float32Type::get(&context)));
}

TEST_F(TPDialectTest, PlanAttrRoundTrip) {
  Builder b(&context);
  auto plan = PlanAttr::get(
      &context, FlatSymbolRefAttr::get(&context, "mesh"), b.getStringAttr("tp"),
      b.getStrArrayAttr({"net2", "net1"}),
      b.getArrayAttr(
          {RowwiseAttr::get(&context, Attribute(), replicate(), true),
           ColwiseAttr::get(&context, Attribute(), Attribute(), true)}));
  std::string text = print(plan);
  Attribute parsed = parseAttribute(text, &context);
  ASSERT_TRUE(parsed) << text;
  EXPECT_EQ(parsed, plan) << text;
  // Printing is stable and spells the non-default parameters only.
  EXPECT_EQ(print(parsed), text);
  EXPECT_NE(text.find("output_layouts = #tp.replicate"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("use_local_output"), std::string::npos) << text;
}

TEST_F(TPDialectTest, PlanAttrVerifier) {
  Builder b(&context);
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  auto plan = PlanAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(&context)); }, &context,
      FlatSymbolRefAttr::get(&context, "mesh"), StringAttr(),
      b.getStrArrayAttr({"net1", "net2"}),
      b.getArrayAttr(
          {ColwiseAttr::get(&context, Attribute(), Attribute(), true)}));
  EXPECT_FALSE(plan);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "plan has 2 keys but 1 styles");
}

//===----------------------------------------------------------------------===//
// parsePlan
//===----------------------------------------------------------------------===//

TEST_F(TPDialectTest, ParsePlanKeepsKeyOrder) {
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
  FailureOr<PlanAttr> plan = parsePlanText(R"json(
    {"plan": {"net2": {"style": "RowwiseParallel",
                       "output_layouts": "Shard(0)"},
              "net1": {"style": "ColwiseParallel"},
              "layers.*.w[qkv]": {"style": "ColwiseParallel",
                                  "input_layouts": "Shard(-1)"},
              "a": {"style": "PrepareModuleInput",
                    "input_layouts": ["Shard(0)", null],
                    "desired_input_layouts": ["Replicate()", null]}},
     "mesh": {"shape": [4], "axis_names": ["tp"]}}
  )json",
                                           messages, module);
  ASSERT_TRUE(succeeded(plan));
  EXPECT_TRUE(messages.empty()) << messages.front();

  std::vector<std::string> keys;
  for (Attribute k : plan->getKeys())
    keys.push_back(cast<StringAttr>(k).str());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"net2", "net1", "layers.*.w[qkv]", "a"}));

  ArrayRef<Attribute> styles = plan->getStyles().getValue();
  ASSERT_EQ(styles.size(), 4u);
  auto rowwise = dyn_cast<RowwiseAttr>(styles[0]);
  ASSERT_TRUE(rowwise);
  EXPECT_EQ(rowwise.getOutputLayouts(), shard(0));
  EXPECT_FALSE(rowwise.getInputLayouts());
  EXPECT_TRUE(rowwise.getUseLocalOutput());
  EXPECT_TRUE(isa<ColwiseAttr>(styles[1]));
  // Placements keep the dim as written; the styles normalize it later.
  EXPECT_EQ(cast<ColwiseAttr>(styles[2]).getInputLayouts(), shard(-1));
  auto prepare = dyn_cast<PrepareModuleInputAttr>(styles[3]);
  ASSERT_TRUE(prepare);
  EXPECT_EQ(prepare.getInputLayouts(),
            ArrayAttr::get(&context, {shard(0), UnitAttr::get(&context)}));
  EXPECT_FALSE(prepare.getUseLocalOutput());

  // The plan names the mesh it created, with its shape and axis names.
  EXPECT_EQ(plan->getMesh().getValue(), "mesh");
  EXPECT_FALSE(plan->getTpAxis());
  auto mesh = module->lookupSymbol<MeshOp>("mesh");
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh.getShape(), ArrayRef<int64_t>({4}));
  EXPECT_EQ(mesh.getAxisName(0), "tp");
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TPDialectTest, ParsePlanKeyOrderWithEscapesAndNesting) {
  // Escaped quotes in a key and braces inside values must not confuse the
  // order scan.
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
  FailureOr<PlanAttr> plan = parsePlanText(R"json(
    {"mesh": {"shape": [2]},
     "plan": {"z\"{": {"style": "PrepareModuleInput",
                       "input_kwarg_layouts": {"mask": "Shard(0)"},
                       "desired_input_kwarg_layouts": {"mask": "Replicate()"}},
              "m": {"style": "ColwiseParallel"},
              "b": {"style": "SequenceParallel", "sequence_dim": 0}}}
  )json",
                                           messages, module);
  ASSERT_TRUE(succeeded(plan));
  EXPECT_TRUE(messages.empty()) << messages.front();
  std::vector<std::string> keys;
  for (Attribute k : plan->getKeys())
    keys.push_back(cast<StringAttr>(k).str());
  EXPECT_EQ(keys, (std::vector<std::string>{"z\"{", "m", "b"}));
  EXPECT_EQ(cast<SequenceParallelAttr>(plan->getStyles()[2]).getSequenceDim(),
            0);
}

TEST_F(TPDialectTest, ParsePlanDuplicateKeysAreErrors) {
  // A plan key twice, or an argument twice in one entry: an error, not
  // "the later one wins".
  for (const char *text : {
           R"json({"mesh": {"shape": [2]},
     "plan": {"net2": {"style": "RowwiseParallel"},
              "net1": {"style": "ColwiseParallel"},
              "net2": {"style": "RowwiseParallel"}}})json",
           R"json({"mesh": {"shape": [2]},
     "plan": {"net1": {"style": "ColwiseParallel",
                       "output_layouts": "Shard(0)",
                       "output_layouts": "Replicate()"}}})json"}) {
    std::vector<std::string> messages;
    OwningOpRef<ModuleOp> module;
    FailureOr<PlanAttr> plan = parsePlanText(text, messages, module);
    EXPECT_TRUE(failed(plan));
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_NE(messages[0].find("duplicate key"), std::string::npos)
        << messages[0];
  }
}

TEST_F(TPDialectTest, ParsePlan2DMeshWithTpAxis) {
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
  FailureOr<PlanAttr> plan = parsePlanText(R"json(
    {"mesh": {"shape": [2, 4], "axis_names": ["dp", "tp"]},
     "tp_axis": "tp",
     "plan": {"net1": {"style": "ColwiseParallel"}}}
  )json",
                                           messages, module);
  ASSERT_TRUE(succeeded(plan));
  ASSERT_TRUE(plan->getTpAxis());
  EXPECT_EQ(plan->getTpAxis().getValue(), "tp");
  auto mesh = module->lookupSymbol<MeshOp>(plan->getMesh().getAttr());
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh.getShape(), ArrayRef<int64_t>({2, 4}));
  EXPECT_EQ(mesh.getAxisName(0), "dp");
  EXPECT_EQ(mesh.getAxisName(1), "tp");
  EXPECT_EQ(mesh.getAxisIndex("tp"), 1);
  EXPECT_EQ(mesh.getNumRanks(), 8);
}

TEST_F(TPDialectTest, ParsePlanPartialSpellings) {
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
  FailureOr<PlanAttr> plan = parsePlanText(R"json(
    {"mesh": {"shape": [2]},
     "plan": {"a": {"style": "PrepareModuleOutput",
                    "output_layouts": "Partial()",
                    "desired_output_layouts": "Replicate()"},
              "b": {"style": "PrepareModuleOutput",
                    "output_layouts": "Partial(max)",
                    "desired_output_layouts": "Replicate()"}}}
  )json",
                                           messages, module);
  ASSERT_TRUE(succeeded(plan));
  ArrayRef<Attribute> styles = plan->getStyles().getValue();
  EXPECT_EQ(cast<PrepareModuleOutputAttr>(styles[0]).getOutputLayouts(),
            partial(ReductionKind::Sum));
  EXPECT_EQ(cast<PrepareModuleOutputAttr>(styles[1]).getOutputLayouts(),
            partial(ReductionKind::Max));
  // No axis names: the mesh prints its axes by index.
  auto mesh = module->lookupSymbol<MeshOp>("mesh");
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh.getAxisName(0), "axis0");
}

TEST_F(TPDialectTest, ParsePlanRejectsUnknownStyle) {
  expectPlanError(R"json({"mesh": {"shape": [2]},
                          "plan": {"net1": {"style": "DiagonalParallel"}}})json",
                  "plan entry 'net1': unknown style 'DiagonalParallel'");
}

TEST_F(TPDialectTest, ParsePlanRejectsUnknownArgument) {
  expectPlanError(
      R"json({"mesh": {"shape": [2]},
              "plan": {"net1": {"style": "ColwiseParallel",
                                "sequence_dim": 0}}})json",
      "plan entry 'net1': unknown argument 'sequence_dim' for "
      "ColwiseParallel (accepted: input_layouts, output_layouts, "
      "use_local_output");
}

TEST_F(TPDialectTest, ParsePlanRejectsTupleLayoutForColwise) {
  expectPlanError(
      R"json({"mesh": {"shape": [2]},
              "plan": {"net1": {"style": "ColwiseParallel",
                                "input_layouts": ["Shard(0)",
                                                  "Replicate()"]}}})json",
      "ColwiseParallel only supports a single input_layouts, not a tuple of "
      "layouts");
}

TEST_F(TPDialectTest, ParsePlanRejectsBadPlacement) {
  expectPlanError(
      R"json({"mesh": {"shape": [2]},
              "plan": {"net2": {"style": "RowwiseParallel",
                                "output_layouts": "Sharded(1)"}}})json",
      "plan entry 'net2': output_layouts: cannot parse placement "
      "'Sharded(1)' (expected Shard(d), Replicate() or Partial(op))");
  expectPlanError(
      R"json({"mesh": {"shape": [2]},
              "plan": {"net2": {"style": "RowwiseParallel",
                                "output_layouts": "Shard(x)"}}})json",
      "plan entry 'net2': output_layouts: bad shard dim in 'Shard(x)'");
  expectPlanError(
      R"json({"mesh": {"shape": [2]},
              "plan": {"net2": {"style": "RowwiseParallel",
                                "output_layouts": "Partial(prod)"}}})json",
      "unknown Partial reduction 'prod' (expected sum, avg, max or min)");
}

TEST_F(TPDialectTest, ParsePlanRejectsMissingTpAxisOn2DMesh) {
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
  FailureOr<PlanAttr> plan = parsePlanText(
      R"json({"mesh": {"shape": [2, 2], "axis_names": ["dp", "tp"]},
              "plan": {"net1": {"style": "ColwiseParallel"}}})json",
      messages, module);
  EXPECT_TRUE(failed(plan));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "plan plan.json: the mesh has 2 axes: name the "
                         "tensor-parallel one with tp_axis");
  // Nothing was added to the module.
  EXPECT_TRUE(module->getOps<MeshOp>().empty());
}

TEST_F(TPDialectTest, ParsePlanRejectsUnknownTpAxis) {
  expectPlanError(
      R"json({"mesh": {"shape": [2, 2], "axis_names": ["dp", "tp"]},
              "tp_axis": "model",
              "plan": {"net1": {"style": "ColwiseParallel"}}})json",
      "tp_axis 'model' is not an axis of the mesh (its axes: dp, tp)");
}

TEST_F(TPDialectTest, ParsePlanRejectsMalformedJSON) {
  expectPlanError(R"json({"mesh": {"shape": [2]}, "plan": {)json",
                  "plan plan.json: malformed JSON");
  expectPlanError(R"json([1, 2])json",
                  "the top level must be an object with \"mesh\" and "
                  "\"plan\"");
  expectPlanError(R"json({"plan": {}})json", "missing \"mesh\"");
  expectPlanError(R"json({"mesh": {"shape": [0]}, "plan": {}})json",
                  "mesh.shape must be a non-empty list of positive integers");
}

} // namespace
