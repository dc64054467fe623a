// Every epilogue of the two seed documents: the valid ones parse and lower to
// the expected DAG (checked structurally and by evaluation on random
// numbers), the failure examples give the seed's exact messages, and the
// second seed's method-style epilogues fail or, rewritten, parse.
#include <gtest/gtest.h>

#include <random>

#include "frontend_test_helpers.hpp"
#include "ir/verifier.hpp"

namespace epigemm::frontend {
namespace {

using testing::count_kind;
using testing::evaluate;
using testing::fails_with;
using testing::output_text;

class SeedEpilogues : public ::testing::Test {
 protected:
  void SetUp() override {
    unsigned seed = std::random_device{}();
    RecordProperty("seed", static_cast<int>(seed));
    rng_.seed(seed);
  }
  double random_value() { return std::uniform_real_distribution<double>(-3.0, 3.0)(rng_); }
  std::mt19937 rng_;
};

TEST_F(SeedEpilogues, FirstExampleAuxOutput) {
  const ir::Dag dag = parse_epilogue(
      "def my_epilogue(accum, C, alpha, beta, extra_scalar):\n"
      "    Aux = (alpha * accum) + (beta * C)\n"
      "    D = extra_scalar * Aux\n"
      "    return D, Aux\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(dag.function_name, "my_epilogue");
  EXPECT_EQ(dag.params, (std::vector<std::string>{"C", "alpha", "beta", "extra_scalar"}));
  EXPECT_EQ(dag.outputs, (std::vector<std::string>{"D", "Aux"}));
  EXPECT_EQ(output_text(dag, "Aux"), "add(mul(alpha,accum),mul(beta,C))");
  EXPECT_EQ(output_text(dag, "D"), "mul(extra_scalar,add(mul(alpha,accum),mul(beta,C)))");
  EXPECT_EQ(count_kind(dag, ir::NodeKind::AccFetch), 1);
  EXPECT_EQ(count_kind(dag, ir::NodeKind::Load), 4);
  EXPECT_EQ(count_kind(dag, ir::NodeKind::Compute), 4);
  EXPECT_EQ(count_kind(dag, ir::NodeKind::Store), 2);

  const double acc = random_value(), c = random_value(), alpha = random_value(), beta = random_value(),
               extra = random_value();
  auto out = evaluate(dag, acc, {{"C", c}, {"alpha", alpha}, {"beta", beta}, {"extra_scalar", extra}});
  EXPECT_DOUBLE_EQ(out.at("Aux"), alpha * acc + beta * c);
  EXPECT_DOUBLE_EQ(out.at("D"), extra * (alpha * acc + beta * c));
}

TEST_F(SeedEpilogues, DiagramEpilogue) {
  const ir::Dag dag = parse_epilogue(
      "def epi(accum, alpha, beta, C):\n"
      "    D = (accum * alpha) + (beta * C)\n"
      "    return D\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(output_text(dag, "D"), "add(mul(accum,alpha),mul(beta,C))");
  EXPECT_EQ(dag.outputs, std::vector<std::string>{"D"});
}

TEST_F(SeedEpilogues, ReluAuxStoreWithComments) {
  const ir::Dag dag = parse_epilogue(
      "def relu_aux_store(accum, alpha, C):\n"
      "    # Note that the function definition itself does not indicate the types and\n"
      "    # ranks of alpha and C.\n"
      "    F = (accum * alpha) + (C * 2.0) # Constant beta of 2.0\n"
      "    D = relu(F)\n"
      "    return D, F\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(output_text(dag, "F"), "add(mul(accum,alpha),mul(C,2))");
  EXPECT_EQ(output_text(dag, "D"), "relu(add(mul(accum,alpha),mul(C,2)))");
  EXPECT_EQ(count_kind(dag, ir::NodeKind::Constant), 1);
  const double acc = random_value(), alpha = random_value(), c = random_value();
  auto out = evaluate(dag, acc, {{"alpha", alpha}, {"C", c}});
  EXPECT_DOUBLE_EQ(out.at("F"), acc * alpha + c * 2.0);
  EXPECT_DOUBLE_EQ(out.at("D"), std::max(acc * alpha + c * 2.0, 0.0));
}

TEST_F(SeedEpilogues, AuxNormalizeAndBiasAdd) {
  const ir::Dag norm = parse_epilogue("def aux_normalize(accum, aux):\n    D = accum / aux\n    return D\n");
  EXPECT_EQ(output_text(norm, "D"), "div(accum,aux)");
  const ir::Dag bias = parse_epilogue(
      "def bias_add(accum, row_bias, col_bias):\n"
      "    # row_bias has shape (N,) and col_bias has shape (M, 1).\n"
      "    D = accum + row_bias + col_bias\n"
      "    return D\n");
  ir::verify(bias, ir::Stage::raw);
  EXPECT_EQ(output_text(bias, "D"), "add(add(accum,row_bias),col_bias)");
}

TEST_F(SeedEpilogues, ReluScaleReturnAccum) {
  const ir::Dag dag = parse_epilogue(
      "def relu_scale_return_acc(accum, alpha, beta, C, scale):\n"
      "    F = relu((accum * alpha) + (C * beta))\n"
      "    D = F * scale\n"
      "    return D, F, accum\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(dag.outputs, (std::vector<std::string>{"D", "F", "accum"}));
  EXPECT_EQ(output_text(dag, "accum"), "accum");
  EXPECT_EQ(output_text(dag, "D"), "mul(relu(add(mul(accum,alpha),mul(C,beta))),scale)");
  EXPECT_EQ(count_kind(dag, ir::NodeKind::AccFetch), 1);
  // Store slots follow the return order.
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Store) {
      EXPECT_EQ(dag.outputs.at(static_cast<std::size_t>(n.slot)), n.name);
    }
  }
}

TEST_F(SeedEpilogues, StringFormOnOneLine) {
  const ir::Dag dag = parse_epilogue(
      "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(dag.params, (std::vector<std::string>{"alpha", "beta", "C"}));
  EXPECT_EQ(output_text(dag, "D"), "relu(add(mul(accum,alpha),mul(C,beta)))");
  EXPECT_EQ(output_text(dag, "F"), "add(mul(accum,alpha),mul(C,beta))");
}

TEST_F(SeedEpilogues, RowAndColumnBroadcast) {
  const ir::Dag dag = parse_epilogue(
      "def broadcast_epilogue(accum, row_bias, col_bias, alpha):\n"
      "    # row_bias shape (N,): same bias added to every row.\n"
      "    D = (accum * alpha) + row_bias + col_bias\n"
      "    return D\n");
  EXPECT_EQ(output_text(dag, "D"), "add(add(mul(accum,alpha),row_bias),col_bias)");
}

TEST_F(SeedEpilogues, MyEpiFromTheArgumentsSection) {
  for (const char* src : {"def my_epi(accum, alpha, C, beta):\n"
                          "    F = (accum * alpha) + (C * beta)\n    D = relu(F)\n    return D, F\n",
                          "def my_epi(accum, alpha, beta, C):\n"
                          "    F = (accum * alpha) + (C * beta)\n    D = relu(F)\n    return D\n"}) {
    const ir::Dag dag = parse_epilogue(src);
    ir::verify(dag, ir::Stage::raw);
    EXPECT_EQ(output_text(dag, "D"), "relu(add(mul(accum,alpha),mul(C,beta)))");
  }
}

TEST_F(SeedEpilogues, FailureExamplesGiveTheSeedMessages) {
  EXPECT_TRUE(fails_with("def fail_missing_accum(alpha, beta, C):\n    D = C * beta\n    return D\n",
                         ErrorKind::Syntax, "accum must be an input to the epilogue function", 1, 5));
  EXPECT_TRUE(fails_with("def fail_missing_D(accum, alpha, beta, C):\n"
                         "    F = (accum * alpha) + (C * beta)\n"
                         "    return F\n",
                         ErrorKind::Output, "Output node D is not found in the epilogue function.", 3, 5));
  EXPECT_TRUE(fails_with("def fail_ssa(accum):\n"
                         "    tmp = accum * 2.0\n"
                         "    # Redefine tmp, which violates SSA form.\n"
                         "    tmp = tmp - 1.0\n"
                         "    D = tmp / 4.0\n"
                         "    return D, tmp\n",
                         ErrorKind::Syntax, "Variable 'tmp' cannot be defined twice.", 4, 5));
}

TEST_F(SeedEpilogues, GenericSignatureFromTheFirstSeed) {
  // `*args` is not part of the language.
  EXPECT_TRUE(testing::syntax_error_contains(
      "def custom_epi_name(accum, *args) -> Union[TensorType, tuple[TensorType]]:\n    return D\n",
      "only plain parameter names", 1, 28));
  // With plain parameters, the docstring and annotation are skipped and D is undefined.
  EXPECT_TRUE(fails_with("def custom_epi_name(accum, C) -> Union[TensorType, tuple[TensorType]]:\n"
                         "    \"\"\"\n"
                         "    :param accum: result of matrix multiplication, convolution, etc. before the epilogue\n"
                         "    :rtype: Union[TensorType, tuple[TensorType]]\n"
                         "    \"\"\"\n"
                         "    # Do some compute\n"
                         "    return D # and potentially other values\n",
                         ErrorKind::Syntax, "Name 'D' is not defined", 7, 12));
}

TEST_F(SeedEpilogues, SecondSeedMethodFormsFail) {
  // A method's `self` and a differently named accumulator: no accum.
  EXPECT_TRUE(fails_with("@cute.jit\n"
                         "def epilogue_operation(\n"
                         "    self,\n    accumulator: cute.Tensor,\n    c: cute.Tensor,\n"
                         "    alpha: float,\n) -> tuple:\n"
                         "    y = accumulator\n    d = accumulator * alpha + c\n    return (d, y)\n",
                         ErrorKind::Syntax, "accum must be an input to the epilogue function", 2, 5));
  // Reassigning d breaks SSA.
  EXPECT_TRUE(fails_with("def epilogue_with_relu(accum, c, alpha, beta):\n"
                         "    d = accum * alpha + c * beta\n"
                         "    d = cute.where(d > 0, d, cute.full_like(d, 0))\n"
                         "    return d\n",
                         ErrorKind::Syntax, "Variable 'd' cannot be defined twice.", 3, 5));
  // cute.norm is not a function of the language.
  EXPECT_TRUE(fails_with("def epilogue_multi_output(accum, c):\n"
                         "    D = accum + c\n    d_squared = D * D\n    d_norm = D / cute.norm(D)\n"
                         "    return (D, d_squared, d_norm)\n",
                         ErrorKind::Syntax, "Unknown function 'norm'; the language reference lists the functions an "
                         "epilogue may call", 4, 18));
  // The legacy interface's activation has no accum.
  EXPECT_TRUE(fails_with("def relu(x):\n    return np.maximum(0, x)\n", ErrorKind::Syntax,
                         "accum must be an input to the epilogue function", 1, 5));
}

TEST_F(SeedEpilogues, SecondSeedEpiloguesRewrittenInTheLanguage) {
  const ir::Dag alpha_beta = parse_epilogue(
      "@cute.jit\n"
      "def epilogue_operation(\n"
      "    accum: cute.Tensor,\n    c: cute.Tensor,\n    x: cute.Tensor,\n"
      "    alpha: float,\n    beta: float,\n    x_factor: float,\n) -> tuple:\n"
      "    # Store a copy of the accumulator to Y\n"
      "    Y = accum\n"
      "    D = accum * alpha + c * beta + x * x_factor\n"
      "    return (D, Y)\n");
  ir::verify(alpha_beta, ir::Stage::raw);
  EXPECT_EQ(alpha_beta.params, (std::vector<std::string>{"c", "x", "alpha", "beta", "x_factor"}));
  EXPECT_EQ(output_text(alpha_beta, "D"), "add(add(mul(accum,alpha),mul(c,beta)),mul(x,x_factor))");
  EXPECT_EQ(output_text(alpha_beta, "Y"), "accum");

  const ir::Dag with_relu = parse_epilogue(
      "def epilogue_with_relu(accum, c, alpha, beta):\n"
      "    d = accum * alpha + c * beta\n"
      "    D = cute.where(d > 0, d, 0.0)\n"
      "    return D\n");
  EXPECT_EQ(output_text(with_relu, "D"),
            "where(gt(add(mul(accum,alpha),mul(c,beta)),0),add(mul(accum,alpha),mul(c,beta)),0)");

  const ir::Dag complex_epi = parse_epilogue(
      "def epilogue_complex(accum, c, x, bias, scale):\n"
      "    # Compute: (A * B + bias) * scale + C + tanh(X)\n"
      "    r1 = (accum + bias) * scale\n    r2 = r1 + c\n    r3 = r2 + cute.tanh(x)\n"
      "    # Apply GELU activation\n    D = cute.gelu(r3)\n    return D\n");
  ir::verify(complex_epi, ir::Stage::raw);
  EXPECT_EQ(output_text(complex_epi, "D"), "gelu(add(add(mul(add(accum,bias),scale),c),tanh(x)))");
  const double acc = random_value(), c = random_value(), x = random_value(), bias = random_value(),
               scale = random_value();
  const double r3 = (acc + bias) * scale + c + std::tanh(x);
  auto out = evaluate(complex_epi, acc, {{"c", c}, {"x", x}, {"bias", bias}, {"scale", scale}});
  EXPECT_NEAR(out.at("D"), 0.5 * r3 * (1.0 + std::erf(r3 / std::sqrt(2.0))), 1e-12);
}

TEST_F(SeedEpilogues, DesignDocumentExample) {
  const ir::Dag dag = parse_epilogue(
      "def epi(accum, alpha, C):\n"
      "    F = accum * alpha + C * 2.0\n"
      "    D = relu(F)\n"
      "    return D, F\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(output_text(dag, "D"), "relu(add(mul(accum,alpha),mul(C,2)))");
  // Compute nodes are named after the variable they were assigned to.
  for (const ir::Node& n : dag.nodes) {
    if (n.kind != ir::NodeKind::Compute) continue;
    const char* expected = n.op == ir::OpCode::relu ? "D" : n.op == ir::OpCode::add ? "F" : "";
    EXPECT_EQ(n.name, expected);
  }
}

}  // namespace
}  // namespace epigemm::frontend
