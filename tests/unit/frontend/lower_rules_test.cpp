// Lowering tests: the language rules (accum first, SSA, defined names, known
// functions with the right arity and keywords, returns of names, an output
// D) with exact messages and positions, the order in which they are checked,
// and the shape of the raw DAG (loads for every parameter, defaults filled
// in, negative literals, reductions, slots, positions).
#include <gtest/gtest.h>

#include <random>

#include "frontend_test_helpers.hpp"
#include "ir/verifier.hpp"

namespace epigemm::frontend {
namespace {

using testing::count_kind;
using testing::fails_with;
using testing::output_text;

constexpr ErrorKind kSyntax = ErrorKind::Syntax;

TEST(LowerRules, AccumMustBeTheFirstParameter) {
  EXPECT_TRUE(fails_with("def e(): return", kSyntax, "accum must be an input to the epilogue function", 1, 5));
  EXPECT_TRUE(fails_with("def e(alpha, accum):\n    D = accum * alpha\n    return D\n", kSyntax,
                         "accum must be the first parameter of the epilogue function, but it is parameter 2 of 'e'", 1,
                         14));
}

TEST(LowerRules, SingleAssignment) {
  EXPECT_TRUE(fails_with("def e(accum):\n    t = accum\n    t = t + 1\n    D = t\n    return D\n", kSyntax,
                         "Variable 't' cannot be defined twice.", 3, 5));
  EXPECT_TRUE(fails_with("def e(accum, alpha):\n    alpha = alpha * 2\n    D = alpha\n    return D\n", kSyntax,
                         "Variable 'alpha' cannot be defined twice. 'alpha' is a parameter of 'e'; assign the value "
                         "to a new name.",
                         2, 5));
  EXPECT_TRUE(fails_with("def e(accum): accum = accum * 2; D = accum; return D", kSyntax,
                         "Variable 'accum' cannot be defined twice. 'accum' is a parameter of 'e'; assign the value "
                         "to a new name.",
                         1, 15));
}

TEST(LowerRules, NamesMustBeDefinedBeforeUse) {
  EXPECT_TRUE(fails_with("def e(accum):\n    D = accum * scale\n    return D\n", kSyntax, "Name 'scale' is not defined",
                         2, 17));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = T + accum\n    T = accum\n    return D\n", kSyntax,
                         "Name 'T' is not defined", 2, 9));
  EXPECT_TRUE(fails_with("def e(accum): x = x + 1; D = x; return D", kSyntax, "Name 'x' is not defined", 1, 19));
}

TEST(LowerRules, FunctionsAndArity) {
  EXPECT_TRUE(fails_with("def e(accum):\n    D = relux(accum)\n    return D\n", kSyntax,
                         "Unknown function 'relux'; did you mean 'relu'?", 2, 9));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = torch.sigmod(accum)\n    return D\n", kSyntax,
                         "Unknown function 'sigmod'; did you mean 'sigmoid'?", 2, 9));
  EXPECT_TRUE(fails_with("def e(accum): D = relu(accum, 2); return D", kSyntax, "relu takes 1 argument (2 given)", 1,
                         19));
  EXPECT_TRUE(fails_with("def e(accum): D = clamp(accum); return D", kSyntax, "clamp takes 3 arguments (1 given)", 1,
                         19));
  EXPECT_TRUE(fails_with("def e(accum): D = leaky_relu(accum, 1, 2); return D", kSyntax,
                         "leaky_relu takes 1 or 2 arguments (3 given)", 1, 19));
  EXPECT_TRUE(fails_with("def e(accum): D = where(); return D", kSyntax, "where takes 3 arguments (0 given)", 1, 19));
  EXPECT_TRUE(fails_with("def e(accum, b): D = max(accum, b); return D", kSyntax,
                         "max takes 1 argument (2 given); it reduces one value over rows, columns or the whole "
                         "output: for the elementwise maximum of two values use maximum(a, b)",
                         1, 22));
  EXPECT_TRUE(fails_with("def e(accum, b): D = min(accum, b); return D", kSyntax,
                         "min takes 1 argument (2 given); it reduces one value over rows, columns or the whole "
                         "output: for the elementwise minimum of two values use minimum(a, b)",
                         1, 22));
  // The infix operators' table names are not callable.
  EXPECT_TRUE(testing::syntax_error_contains("def e(accum): D = add(accum, 1); return D", "Unknown function 'add'", 1,
                                             19));
}

TEST(LowerRules, KeywordArguments) {
  EXPECT_EQ(output_text(parse_epilogue("def e(accum): D = leaky_relu(accum, negative_slope=0.2); return D"), "D"),
            "leaky_relu(accum,0.2)");
  EXPECT_EQ(output_text(parse_epilogue("def e(accum): D = F.leaky_relu(accum, slope=0.3); return D"), "D"),
            "leaky_relu(accum,0.3)");
  EXPECT_EQ(output_text(parse_epilogue("def e(accum): D = elu(accum, alpha=0.5); return D"), "D"), "elu(accum,0.5)");
  EXPECT_EQ(output_text(parse_epilogue("def e(accum): D = clamp(accum, max=6, min=-1); return D"), "D"),
            "clamp(accum,-1,6)");
  EXPECT_TRUE(fails_with("def e(accum): D = relu(accum, inplace=1); return D", kSyntax,
                         "relu has no keyword argument 'inplace'; pass its arguments by position", 1, 31));
  EXPECT_TRUE(fails_with("def e(accum): D = leaky_relu(accum, alpha=1); return D", kSyntax,
                         "leaky_relu has no keyword argument 'alpha'; it accepts 'negative_slope', 'slope'", 1, 37));
  EXPECT_TRUE(fails_with("def e(accum): D = leaky_relu(accum, 0.1, slope=0.2); return D", kSyntax,
                         "leaky_relu got two values for argument 2 ('slope')", 1, 42));
  EXPECT_TRUE(fails_with("def e(accum): D = clamp(accum, max=1); return D", kSyntax,
                         "clamp takes 3 arguments (2 given)", 1, 19));
}

TEST(LowerRules, OptionalArgumentsTakeTheTableDefaults) {
  const ir::Dag dag = parse_epilogue("def e(accum): L = leaky_relu(accum); D = elu(L); return D");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(output_text(dag, "D"), "elu(leaky_relu(accum,0.01),1)");
  // The default constants carry the call's position.
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Constant) {
      EXPECT_EQ(n.loc.line, 1);
      EXPECT_TRUE(n.loc.column == 19 || n.loc.column == 42) << n.loc.column;
    }
  }
}

TEST(LowerRules, ReturnRules) {
  const char* kNamesOnly =
      "return must list names of outputs, not expressions or numbers: assign the value to a name and return the "
      "name, as in 'D = ...; return D'";
  EXPECT_TRUE(fails_with("def e(accum):\n    return accum * 2\n", kSyntax, kNamesOnly, 2, 18));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = accum\n    return D, 1.0\n", kSyntax, kNamesOnly, 3, 15));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = accum\n    return D, relu(D)\n", kSyntax, kNamesOnly, 3, 15));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = accum\n    return D, D\n", kSyntax, "Output 'D' is returned twice", 3,
                         15));
  EXPECT_TRUE(fails_with("def e(accum, C):\n    D = accum\n    return D, C\n", kSyntax,
                         "Input 'C' cannot also be an output; assign it to a new name (e.g. 'C_out = C') and return "
                         "that name",
                         3, 15));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = accum\n", kSyntax,
                         "function 'e' has no return statement; end it with 'return D' (and any other outputs)", 1, 5));
  EXPECT_TRUE(fails_with("def e(accum):\n    D = accum\n    return D\n    E = D\n", kSyntax,
                         "statements after return are not allowed: 'return' must be the last statement of 'e'", 4, 5));
  EXPECT_TRUE(fails_with("def e(accum): D = accum; return D; return D", kSyntax,
                         "statements after return are not allowed: 'return' must be the last statement of 'e'", 1, 36));
  EXPECT_TRUE(fails_with("def e(accum): D = accum; return", kSyntax,
                         "return must list the names of the outputs, e.g. 'return D' or 'return D, F'", 1, 26));
  EXPECT_TRUE(fails_with("def e(accum):\n    return D\n", kSyntax, "Name 'D' is not defined", 2, 12));
}

TEST(LowerRules, ChecksComeInTheSeedsOrder) {
  // accum before everything else in the body.
  EXPECT_TRUE(fails_with("def e(x):\n    y = x\n    y = 2\n    return y\n", kSyntax,
                         "accum must be an input to the epilogue function", 1, 5));
  // Then body errors in source order, before the check for D.
  EXPECT_TRUE(fails_with("def e(accum):\n    t = foo(accum)\n    t = 1\n    return t\n", kSyntax,
                         "Unknown function 'foo'; the language reference lists the functions an epilogue may call", 2,
                         9));
  EXPECT_TRUE(fails_with("def e(accum):\n    t = accum\n    t = foo(accum)\n    return t\n", kSyntax,
                         "Variable 't' cannot be defined twice.", 3, 5));
  EXPECT_TRUE(fails_with("def e(accum):\n    t = accum\n    return t, u\n", kSyntax, "Name 'u' is not defined", 3, 15));
  EXPECT_TRUE(fails_with("def e(accum):\n    t = accum\n    return t\n", ErrorKind::Output,
                         "Output node D is not found in the epilogue function.", 3, 5));
}

TEST(LowerRules, RawDagShape) {
  const ir::Dag dag = parse_epilogue(
      "def e(accum, alpha, unused, bias):\n"
      "    T = accum * alpha - 2.5\n"
      "    D = T + bias * -(3)\n"
      "    return T, D\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(dag.params, (std::vector<std::string>{"alpha", "unused", "bias"}));
  EXPECT_EQ(dag.outputs, (std::vector<std::string>{"T", "D"}));
  EXPECT_EQ(output_text(dag, "D"), "add(sub(mul(accum,alpha),2.5),mul(bias,-3))");
  EXPECT_EQ(count_kind(dag, ir::NodeKind::Load), 3);  // `unused` too
  EXPECT_EQ(count_kind(dag, ir::NodeKind::Constant), 2);
  int loads = 0;
  for (const ir::Node& n : dag.nodes) {
    EXPECT_GT(n.loc.line, 0) << n.name;
    EXPECT_GT(n.loc.column, 0) << n.name;
    if (n.kind == ir::NodeKind::Load) {
      EXPECT_EQ(n.slot, loads);
      EXPECT_EQ(n.name, dag.params[static_cast<std::size_t>(loads)]);
      ++loads;
    }
    if (n.kind == ir::NodeKind::Store) {
      EXPECT_EQ(dag.outputs[static_cast<std::size_t>(n.slot)], n.name);
    }
  }
  // The unused parameter's load sits where it was declared.
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Load && n.name == "unused") {
      EXPECT_EQ(n.loc.line, 1);
      EXPECT_EQ(n.loc.column, 21);
    }
  }
}

TEST(LowerRules, NoAccFetchWhenAccumIsUnused) {
  const ir::Dag dag = parse_epilogue("def e(accum, C): D = C * 2; return D");
  EXPECT_EQ(count_kind(dag, ir::NodeKind::AccFetch), 0);
  EXPECT_EQ(output_text(dag, "D"), "mul(C,2)");
}

TEST(LowerRules, AliasesAndReturnedAccum) {
  const ir::Dag dag = parse_epilogue("def e(accum, C): Y = accum; K = 4; D = Y + K; return D, Y, accum");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(output_text(dag, "Y"), "accum");
  EXPECT_EQ(output_text(dag, "accum"), "accum");
  EXPECT_EQ(output_text(dag, "D"), "add(accum,4)");
  EXPECT_EQ(count_kind(dag, ir::NodeKind::AccFetch), 1);
}

TEST(LowerRules, ReductionsCastsAndFunctions) {
  const ir::Dag dag = parse_epilogue(
      "def e(accum, s):\n"
      "    D = to_f16(accum * s)\n"
      "    S = sum(D); M = max(D); N = min(D); A = amax(accum)\n"
      "    P = pow(accum, 2) + maximum(accum, s) + where(accum > 0, accum, s)\n"
      "    return D, S, M, N, A, P\n");
  ir::verify(dag, ir::Stage::raw);
  EXPECT_EQ(output_text(dag, "S"), "sum(to_f16(mul(accum,s)))");
  EXPECT_EQ(output_text(dag, "M"), "max(to_f16(mul(accum,s)))");
  EXPECT_EQ(output_text(dag, "N"), "min(to_f16(mul(accum,s)))");
  EXPECT_EQ(output_text(dag, "A"), "amax(accum)");
  EXPECT_EQ(output_text(dag, "P"), "add(add(pow(accum,2),maximum(accum,s)),where(gt(accum,0),accum,s))");
}

TEST(LowerRules, ConstantsEvaluateLikePython) {
  std::mt19937 rng(std::random_device{}());
  const double acc = std::uniform_real_distribution<double>(0.25, 4.0)(rng);
  const ir::Dag dag = parse_epilogue("def e(accum): D = -2**2 + 2**3**2 + 1e-1*accum - -(4.) + .5; return D");
  EXPECT_DOUBLE_EQ(testing::evaluate(dag, acc, {}).at("D"), -4.0 + 512.0 + 0.1 * acc + 4.0 + 0.5);
}

}  // namespace
}  // namespace epigemm::frontend
