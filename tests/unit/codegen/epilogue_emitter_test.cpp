// The generated epilogue code for the seed epilogues and the coverage set:
// one local per node, every op through its table function, loads, stores
// and reductions through the context, traits matching the bound operands.
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "api/epilogue_program.hpp"
#include "api/problem.hpp"
#include "codegen/epilogue_emitter.hpp"
#include "ir/names.hpp"
#include "ir/op_table.hpp"
#include "nvrtc/catalog_problem.hpp"

namespace epigemm::testing {
namespace {

class EpilogueEmitter : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kF16{"f16", DType::f16, DType::f16, DType::f32, DType::f32};

  std::string emit(const EpilogueCase& c, const DTypeCombo& combo, detail::Problem& p) {
    problems_.push_back(std::make_unique<HostCatalogProblem>(c, combo, 2, 5, 7, 3, rng));
    detail::analyze(problems_.back()->args, p);
    return codegen::emit_epilogue(*p.dag, p.accumulator, p.compute);
  }

  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  std::vector<std::unique_ptr<HostCatalogProblem>> problems_;
};

TEST_F(EpilogueEmitter, EverySeedEpilogueHasOneLoadPerUsedInputAndOneStorePerOutput) {
  for (const EpilogueCase& c : seed_epilogues()) {
    SCOPED_TRACE(c.name);
    detail::Problem p;
    const std::string code = emit(c, kF16, p);
    int loads = 0, stores = 0;
    for (const ir::Node& n : p.dag->nodes) {
      if (n.kind == ir::NodeKind::Load) ++loads;
      if (n.kind == ir::NodeKind::Store) ++stores;
    }
    EXPECT_GT(stores, 0);
    EXPECT_EQ(count(code, "ctx.template load<"), loads);
    EXPECT_EQ(count(code, "ctx.template store<"), stores);
    EXPECT_EQ(count(code, "ctx.template reduce<"), 0);
    EXPECT_NE(code.find("struct EpgEpilogue {"), std::string::npos);
    EXPECT_NE(code.find("__device__ __forceinline__ void epilogue_apply(Ctx& ctx, EpgEpilogue::Acc acc)"),
              std::string::npos);
    EXPECT_NE(code.find("using Acc = float;"), std::string::npos);
    EXPECT_NE(code.find("using Compute = float;"), std::string::npos);
    EXPECT_NE(code.find("kNumInputs = " + std::to_string(p.dag->params.size()) + ";"), std::string::npos);
    EXPECT_NE(code.find("kNumOutputs = " + std::to_string(p.dag->outputs.size()) + ";"), std::string::npos);
  }
}

TEST_F(EpilogueEmitter, SeedReluAuxStoreComputesThroughTableFunctions) {
  detail::Problem p;
  const std::string code = emit(epilogue_case(seed_epilogues(), "relu_aux_store"), kF16, p);
  EXPECT_NE(code.find("epg_relu("), std::string::npos);
  EXPECT_NE(code.find("epg_mul("), std::string::npos);
  EXPECT_NE(code.find("epg_add("), std::string::npos);
  EXPECT_NE(code.find("T(2.0)"), std::string::npos) << code;
  EXPECT_NE(code.find("kInLoadKind[2] = {kEpgLoadScalarValue, kEpgLoadTile}"), std::string::npos) << code;
  EXPECT_NE(code.find("kOutDType[2] = {kEpgF16, kEpgF16}"), std::string::npos) << code;
}

TEST_F(EpilogueEmitter, ReturnedAccumulatorIsStoredAsItIs) {
  detail::Problem p;
  const std::string code = emit(epilogue_case(seed_epilogues(), "relu_scale_return_acc"), kF16, p);
  EXPECT_EQ(count(code, "template store<2>(acc);"), 1) << code;
  EXPECT_EQ(count(code, "template store<0>(acc);") + count(code, "template store<1>(acc);"), 0) << code;
  EXPECT_NE(code.find("kOutDType[3] = {kEpgF16, kEpgF16, kEpgF32}"), std::string::npos) << code;
}

TEST_F(EpilogueEmitter, EveryOpOfTheTableIsEmittedByTheCoverageSet) {
  std::string all;
  for (const EpilogueCase& c : coverage_epilogues()) {
    SCOPED_TRACE(c.name);
    detail::Problem p;
    all += emit(c, kF16, p);
  }
  for (const ir::OpInfo& info : ir::all_ops()) {
    if (info.op_class == ir::OpClass::reduction) {
      // Reductions are stores: their op shows in the traits.
      const std::string name(info.name);
      const std::string constant = "kEpgReduce" + std::string(1, static_cast<char>(std::toupper(name[0]))) +
                                   name.substr(1);
      EXPECT_NE(all.find(constant), std::string::npos) << constant;
    } else {
      EXPECT_NE(all.find(std::string(info.cuda_function) + "("), std::string::npos) << info.cuda_function;
    }
  }
}

TEST_F(EpilogueEmitter, EveryLoadKindAndDTypeReachesTheTraits) {
  detail::Problem p;
  const std::string code = emit(epilogue_case(coverage_epilogues(), "load_kinds"), kF16, p);
  for (const char* kind : {"kEpgLoadScalarValue", "kEpgLoadScalarTensor", "kEpgLoadRow", "kEpgLoadColumn",
                           "kEpgLoadTile"}) {
    EXPECT_NE(code.find(kind), std::string::npos) << kind;
  }
  detail::Problem q;
  const std::string dtypes = emit(epilogue_case(coverage_epilogues(), "load_dtypes"), kF16, q);
  EXPECT_NE(dtypes.find("kInDType[10] = {kEpgF32, kEpgTf32, kEpgF16, kEpgBf16, kEpgE4m3, kEpgE5m2, kEpgI8, kEpgU8, "
                        "kEpgI32, kEpgF64}"),
            std::string::npos)
      << dtypes;
}

TEST_F(EpilogueEmitter, ReductionsGoThroughReduceWithSlots) {
  detail::Problem p;
  const std::string code = emit(epilogue_case(coverage_epilogues(), "reductions"), kF16, p);
  EXPECT_EQ(count(code, "ctx.template reduce<"), 5) << code;
  EXPECT_EQ(count(code, "ctx.template store<"), 1) << code;
  EXPECT_EQ(count(code, "visitor.template visit<"), 5) << code;
  EXPECT_NE(code.find("kNumReduce = 5;"), std::string::npos);
  EXPECT_NE(code.find("kOutStoreKind[6] = {kEpgStoreTile, kEpgStoreRowReduce, kEpgStoreColumnReduce, "
                      "kEpgStoreScalarReduce, kEpgStoreRowReduce, kEpgStoreColumnReduce}"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("kOutReduceOp[6] = {kEpgReduceNone, kEpgReduceSum, kEpgReduceMax, kEpgReduceAmax, "
                      "kEpgReduceMin, kEpgReduceSum}"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("kOutReduceSlot[6] = {-1, 0, 1, 2, 3, 4}"), std::string::npos) << code;
  // sum(accum) reduces the accumulator in the compute type, not as it is.
  EXPECT_EQ(count(code, "(acc);  // cs"), 0) << code;
  EXPECT_TRUE(std::regex_search(code, std::regex(R"(reduce<5>\(v\d+\);  // cs)"))) << code;
}

TEST_F(EpilogueEmitter, OmittedArgumentsTakeTheTableDefaults) {
  detail::Problem p;
  emit(epilogue_case(coverage_epilogues(), "activations"), kF16, p);
  // The front end writes defaults as constants; drop them to see the
  // generator fill them from the op table itself.
  ir::Dag dag = *p.dag;
  int dropped = 0;
  for (ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Compute && (n.op == ir::OpCode::leaky_relu || n.op == ir::OpCode::elu)) {
      n.inputs.resize(1);
      ++dropped;
    }
  }
  ASSERT_EQ(dropped, 4);
  const std::string code = codegen::emit_epilogue(dag, DType::f32, DType::f32);
  EXPECT_EQ(count(code, "T(0.01))"), 2) << code;
  EXPECT_TRUE(std::regex_search(code, std::regex(R"(epg_elu\(v\d+, T\(1\.0\)\))"))) << code;
}

TEST_F(EpilogueEmitter, NarrowComputeTypesRoundEveryValue) {
  detail::Problem p;
  const DTypeCombo f16_compute{"c16", DType::f16, DType::f16, DType::f32, DType::f16};
  const std::string code = emit(epilogue_case(seed_epilogues(), "relu_aux_store"), f16_compute, p);
  int locals = 0;
  for (const ir::Node& n : p.dag->nodes) locals += n.kind != ir::NodeKind::Store;
  EXPECT_EQ(count(code, "epg_round_to<kEpgF16>("), locals) << code;
  EXPECT_NE(code.find("using Compute = float;"), std::string::npos);

  detail::Problem q;
  const DTypeCombo f64{"f64", DType::f64, DType::f64, DType::f64, DType::f64};
  const std::string wide = emit(epilogue_case(seed_epilogues(), "relu_aux_store"), f64, q);
  EXPECT_NE(wide.find("using Compute = double;"), std::string::npos);
  EXPECT_NE(wide.find("using Acc = double;"), std::string::npos);
  EXPECT_EQ(count(wide, "epg_round_to<"), 0);
}

TEST_F(EpilogueEmitter, AccumulatorTypesMapToDeviceTypes) {
  EXPECT_EQ(codegen::device_accumulator_type(DType::f16), "__half");
  EXPECT_EQ(codegen::device_accumulator_type(DType::i32), "int");
  EXPECT_EQ(codegen::device_accumulator_type(DType::bf16), "");
  EXPECT_EQ(codegen::device_compute_type(DType::i8), "");
  EXPECT_EQ(codegen::device_dtype_name(DType::e5m2), "kEpgE5m2");
}

TEST_F(EpilogueEmitter, UnboundDagIsRefusedWithAReason) {
  detail::Problem p;
  emit(epilogue_case(seed_epilogues(), "aux_normalize"), kF16, p);
  ir::Dag raw = p.program->raw;
  const Status s = codegen::can_emit(raw, DType::f32, DType::f32);
  ASSERT_FALSE(s);
  EXPECT_NE(s.reason().find("aux"), std::string::npos) << s.reason();
  EXPECT_THROW(codegen::emit_epilogue(raw, DType::f32, DType::f32), Error);
  EXPECT_FALSE(codegen::can_emit(*p.dag, DType::bf16, DType::f32));
  EXPECT_FALSE(codegen::can_emit(*p.dag, DType::f32, DType::i8));
}

}  // namespace
}  // namespace epigemm::testing
