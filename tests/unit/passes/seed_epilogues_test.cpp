// The passes on epilogues parsed from source: every epilogue of the seed
// documents runs through the pipeline with the verifier after each pass, and
// source-level mistakes (a reduction used as a value) report their position.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "dag_fixture.hpp"
#include "epigemm/error.hpp"
#include "frontend/parser.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using testing::tensor;

struct SeedCase {
  const char* label;
  const char* source;
};

const SeedCase kSeedEpilogues[] = {
    {"aux_store",
     "def my_epilogue(accum, C, alpha, beta, extra_scalar):\n"
     "    Aux = (alpha * accum) + (beta * C)\n"
     "    D = extra_scalar * Aux\n"
     "    return D, Aux\n"},
    {"relu_aux_store",
     "def relu_aux_store(accum, alpha, C):\n"
     "    F = (accum * alpha) + (C * 2.0)\n"
     "    D = relu(F)\n"
     "    return D, F\n"},
    {"aux_normalize",
     "def aux_normalize(accum, aux):\n"
     "    D = accum / aux\n"
     "    return D\n"},
    {"bias_add",
     "def bias_add(accum, row_bias, col_bias):\n"
     "    D = accum + row_bias + col_bias\n"
     "    return D\n"},
    {"relu_scale_return_acc",
     "def relu_scale_return_acc(accum, alpha, beta, C, scale):\n"
     "    F = relu((accum * alpha) + (C * beta))\n"
     "    D = F * scale\n"
     "    return D, F, accum\n"},
    {"one_line_string", "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F"},
    {"broadcast_epilogue",
     "def broadcast_epilogue(accum, row_bias, col_bias, alpha):\n"
     "    D = (accum * alpha) + row_bias + col_bias\n"
     "    return D\n"},
    {"alpha_beta_x",
     "def epilogue_operation(accum, C, X, alpha, beta, x_factor):\n"
     "    Y = accum\n"
     "    D = accum * alpha + C * beta + X * x_factor\n"
     "    return D, Y\n"},
    {"complex",
     "def epilogue_complex(accum, C, X, bias, scale):\n"
     "    result = (accum + bias) * scale\n"
     "    result2 = result + C\n"
     "    result3 = result2 + tanh(X)\n"
     "    D = gelu(result3)\n"
     "    return D\n"},
    {"multi_output",
     "def epilogue_multi_output(accum, C):\n"
     "    D = accum + C\n"
     "    D_squared = D * D\n"
     "    return D, D_squared\n"},
};

// Binds every parameter of `dag` to a random choice of number, one-element
// tensor, row, column or tile (recording the kind each must get) and every
// output to a full tile.
std::map<std::string, Binding> bind_all(const ir::Dag& dag, std::mt19937& rng, std::int64_t L, std::int64_t M,
                                        std::int64_t N, std::map<std::string, ir::LoadKind>& expected) {
  std::map<std::string, Binding> bindings;
  std::uniform_int_distribution<int> pick(0, 4);
  for (const std::string& p : dag.params) {
    switch (pick(rng)) {
      case 0:
        bindings.emplace(p, std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
        expected[p] = ir::LoadKind::ScalarValue;
        break;
      case 1:
        bindings.emplace(p, tensor(DType::f16, {N}));
        expected[p] = ir::LoadKind::Row;
        break;
      case 2:
        bindings.emplace(p, tensor(DType::bf16, {L, M, 1}));
        expected[p] = ir::LoadKind::Column;
        break;
      case 3:
        bindings.emplace(p, tensor(DType::f32, {1}));
        expected[p] = ir::LoadKind::ScalarTensor;
        break;
      default:
        bindings.emplace(p, tensor(DType::f16, {L, M, N}));
        expected[p] = ir::LoadKind::Tile;
        break;
    }
  }
  for (const std::string& o : dag.outputs) bindings.emplace(o, tensor(DType::f16, {L, M, N}));
  return bindings;
}

TEST(SeedEpilogues, PipelineVerifiesAfterEachPass) {
  const std::uint32_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (const SeedCase& c : kSeedEpilogues) {
    SCOPED_TRACE(c.label);
    std::int64_t L = 1, M = 1, N = 1;
    testing::random_extents(rng, L, M, N);
    const ir::Dag raw = frontend::parse_epilogue(c.source);
    std::map<std::string, ir::LoadKind> expected;
    const auto bindings = bind_all(raw, rng, L, M, N, expected);
    ir::Dag out;
    ASSERT_NO_THROW(out = run_pipeline(raw, bindings, ProblemExtents{L, M, N}, DType::f32, DType::f32, true));
    EXPECT_EQ(out.outputs, raw.outputs);
    EXPECT_EQ(testing::count_nodes(out, ir::NodeKind::Store), static_cast<int>(raw.outputs.size()));
    for (const ir::Node& n : out.nodes) {
      if (n.kind == ir::NodeKind::Load) {
        EXPECT_EQ(n.load_kind, expected.at(n.name)) << n.name;
      }
      if (n.kind == ir::NodeKind::Store) {
        EXPECT_EQ(n.store_kind, ir::StoreKind::Tile) << n.name;
      }
    }
  }
}

TEST(SeedEpilogues, ReductionsFromSource) {
  const ir::Dag raw = frontend::parse_epilogue(
      "def epi(accum, bias):\n"
      "    D = relu(accum + bias)\n"
      "    row_max = amax(D)\n"
      "    col_sum = sum(D)\n"
      "    total = max(D)\n"
      "    return D, row_max, col_sum, total\n");
  std::map<std::string, Binding> bindings{{"bias", tensor(DType::f16, {3, 1, 40})},
                                          {"D", tensor(DType::e4m3, {3, 24, 40})},
                                          {"row_max", tensor(DType::f32, {3, 24, 1})},
                                          {"col_sum", tensor(DType::f32, {3, 1, 40})},
                                          {"total", tensor(DType::f32, {3, 1, 1})}};
  ir::Dag out = run_pipeline(raw, bindings, ProblemExtents{3, 24, 40}, DType::f32, DType::f32, true);
  auto store = [&](const char* name) { return out.node(testing::find_node(out, ir::NodeKind::Store, name)); };
  EXPECT_EQ(store("row_max").store_kind, ir::StoreKind::RowReduce);
  EXPECT_EQ(store("row_max").op, ir::OpCode::amax);
  EXPECT_EQ(store("col_sum").store_kind, ir::StoreKind::ColumnReduce);
  EXPECT_EQ(store("col_sum").op, ir::OpCode::sum);
  EXPECT_EQ(store("total").store_kind, ir::StoreKind::ScalarReduce);
  EXPECT_EQ(store("total").op, ir::OpCode::max);
  EXPECT_EQ(store("D").inputs, store("total").inputs);
  EXPECT_EQ(out.node(testing::find_node(out, ir::NodeKind::Load, "bias")).load_kind, ir::LoadKind::Row);
}

TEST(SeedEpilogues, ReductionUsedAsValueFromSource) {
  const ir::Dag raw = frontend::parse_epilogue(
      "def epi(accum):\n"
      "    D = relu(accum)\n"
      "    x = sum(D) + 1.0\n"
      "    return D, x\n");
  std::map<std::string, Binding> bindings{{"D", tensor(DType::f16, {24, 40})}, {"x", tensor(DType::f32, {1})}};
  try {
    run_pipeline(raw, bindings, ProblemExtents{1, 24, 40}, DType::f32, DType::f32, true);
    ADD_FAILURE() << "sum(D) + 1.0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'sum(D)'"), std::string::npos) << e.message();
    EXPECT_EQ(e.line(), 3);
    EXPECT_GT(e.column(), 4);
  }
}

TEST(SeedEpilogues, FoldingAndCseFromSource) {
  const ir::Dag raw = frontend::parse_epilogue(
      "def epi(accum, a, b):\n"
      "    D = a * b * (2.0 * 3.0) + b * a * 6.0 + accum\n"
      "    return D\n");
  std::map<std::string, Binding> bindings{
      {"a", 1.5}, {"b", tensor(DType::f16, {24, 40})}, {"D", tensor(DType::f16, {24, 40})}};
  ir::Dag out = run_pipeline(raw, bindings, ProblemExtents{1, 24, 40}, DType::f32, DType::f32, true);
  int muls = 0;
  for (const ir::Node& n : out.nodes) muls += n.kind == ir::NodeKind::Compute && n.op == ir::OpCode::mul;
  // a*b once, (a*b)*6 once: the two summands become one node.
  EXPECT_EQ(muls, 2);
  EXPECT_EQ(testing::count_nodes(out, ir::NodeKind::Constant), 1);
}

}  // namespace
}  // namespace epigemm::passes
