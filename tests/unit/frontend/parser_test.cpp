// Parser tests: precedence and associativity (checked structurally and by
// evaluating on random numbers), the accepted forms (';', decorators,
// comments, docstrings, annotations, dotted names, continuation lines,
// return forms), the AST printer, and syntax errors with their positions.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontend/expression_parser.hpp"
#include "frontend_test_helpers.hpp"

namespace epigemm::frontend {
namespace {

using testing::evaluate;
using testing::output_text;
using testing::syntax_error_contains;

// The stored value of D for `def e(accum, a, b, c): D = <expr>; return D`.
std::string d_of(const std::string& expr) {
  return output_text(parse_epilogue("def e(accum, a, b, c): D = " + expr + "; return D"), "D");
}

TEST(Parser, PrecedenceAndAssociativity) {
  EXPECT_EQ(d_of("a + b * c"), "add(a,mul(b,c))");
  EXPECT_EQ(d_of("a * b + c"), "add(mul(a,b),c)");
  EXPECT_EQ(d_of("a - b - c"), "sub(sub(a,b),c)");
  EXPECT_EQ(d_of("a / b / c"), "div(div(a,b),c)");
  EXPECT_EQ(d_of("a - (b - c)"), "sub(a,sub(b,c))");
  EXPECT_EQ(d_of("a ** b ** c"), "pow(a,pow(b,c))");
  EXPECT_EQ(d_of("-a ** 2"), "neg(pow(a,2))");
  EXPECT_EQ(d_of("(-a) ** 2"), "pow(neg(a),2)");
  EXPECT_EQ(d_of("a ** -b"), "pow(a,neg(b))");
  EXPECT_EQ(d_of("-2 ** 2"), "neg(pow(2,2))");
  EXPECT_EQ(d_of("-a * b"), "mul(neg(a),b)");
  EXPECT_EQ(d_of("+a - -b"), "sub(a,neg(b))");
  EXPECT_EQ(d_of("a + b < c * 2"), "lt(add(a,b),mul(c,2))");
  EXPECT_EQ(d_of("(a < b) < c"), "lt(lt(a,b),c)");
  EXPECT_EQ(d_of("a <= b"), "le(a,b)");
  EXPECT_EQ(d_of("a > b"), "gt(a,b)");
  EXPECT_EQ(d_of("a >= b"), "ge(a,b)");
  EXPECT_EQ(d_of("a == b"), "eq(a,b)");
  EXPECT_EQ(d_of("a != b"), "ne(a,b)");
  EXPECT_EQ(d_of("-3 * a"), "mul(-3,a)");
  EXPECT_EQ(d_of("a * -0.5"), "mul(a,-0.5)");
  EXPECT_EQ(d_of("pow(a, 3) - accum"), "sub(pow(a,3),accum)");
}

TEST(Parser, PrecedenceMatchesPythonNumerically) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(0.5, 2.0);
  const double acc = dist(rng), a = dist(rng), b = dist(rng), c = dist(rng);
  SCOPED_TRACE("accum=" + std::to_string(acc) + " a=" + std::to_string(a) + " b=" + std::to_string(b) +
               " c=" + std::to_string(c));
  const ir::Dag dag = parse_epilogue(
      "def e(accum, a, b, c):\n"
      "    D = accum - a - b * c / a ** 2 ** 0.5\n"
      "    E = -a ** 2 + (b - c) * -accum\n"
      "    G = a / b / c * 2 - -1\n"
      "    return D, E, G\n");
  auto out = evaluate(dag, acc, {{"a", a}, {"b", b}, {"c", c}});
  EXPECT_DOUBLE_EQ(out.at("D"), acc - a - b * c / std::pow(a, std::pow(2.0, 0.5)));
  EXPECT_DOUBLE_EQ(out.at("E"), -(a * a) + (b - c) * -acc);
  EXPECT_DOUBLE_EQ(out.at("G"), a / b / c * 2 + 1);
}

TEST(Parser, SemicolonsDecoratorsCommentsDocstringsAnnotations) {
  const std::string forms[] = {
      "def epi(accum, alpha): T = accum * alpha; D = relu(T); return D",
      "def epi(accum, alpha): T = accum * alpha; D = relu(T); return D;",
      "@cute.jit\n@torch.compile(mode='max-autotune',\n    fullgraph=True)\n"
      "def epi(accum: cute.Tensor, alpha: float) -> Union[Tensor, tuple[Tensor]]:\n"
      "    \"\"\"A docstring\n    over lines.\"\"\"\n"
      "    # a comment\n\n"
      "    T = accum * alpha  # trailing comment\n"
      "    'a string statement'\n"
      "    D = relu(T); return D\n",
      "\n\n# leading comment\ndef epi(accum,\n        alpha,\n        ):\n  T = (accum\n       * alpha)\n  D = \\\n"
      "      relu(T)\n  return (D)\n",
      "    def epi(accum, alpha):\n\tT = accum * alpha\n\tD = torch.nn.functional.relu(T)\n\treturn D,\n",
      "def epi(accum, alpha):\r\n    T = accum * alpha\r\n    D = F.relu(T)\r\n    return (D,)\r\n",
  };
  for (const std::string& src : forms) {
    SCOPED_TRACE(src);
    const ir::Dag dag = parse_epilogue(src);
    EXPECT_EQ(dag.function_name, "epi");
    EXPECT_EQ(dag.params, std::vector<std::string>{"alpha"});
    EXPECT_EQ(dag.outputs, std::vector<std::string>{"D"});
    EXPECT_EQ(output_text(dag, "D"), "relu(mul(accum,alpha))");
  }
}

TEST(Parser, ReturnForms) {
  for (const char* ret : {"return D, F", "return (D, F)", "return D, F,", "return (D, F,)", "return ((D, F))"}) {
    const ir::Dag dag = parse_epilogue(std::string("def e(accum):\n    F = accum * 2\n    D = F + 1\n    ") + ret);
    EXPECT_EQ(dag.outputs, (std::vector<std::string>{"D", "F"})) << ret;
  }
}

TEST(Parser, AstPrinter) {
  const ast::Function f = parse("def epi(accum, s):\n    D = -torch.relu(accum) * s ** 2\n    return D\n");
  EXPECT_EQ(print_ast(f),
            "function epi @1:5\n"
            "  param accum @1:9\n"
            "  param s @1:16\n"
            "  assign D @2:5\n"
            "    binary * @2:28\n"
            "      unary - @2:9\n"
            "        call relu (written torch.relu) @2:10\n"
            "          name accum @2:21\n"
            "      binary ** @2:32\n"
            "        name s @2:30\n"
            "        number 2 @2:35\n"
            "  return @3:5\n"
            "    name D @3:12\n");
  const ast::Function g = parse("def g(accum): D = leaky_relu(accum, slope=0.5); return D");
  EXPECT_EQ(print_ast(g),
            "function g @1:5\n  param accum @1:7\n  assign D @1:15\n    call leaky_relu @1:19\n"
            "      name accum @1:30\n      keyword slope @1:37\n        number 0.5 @1:43\n  return @1:49\n"
            "    name D @1:56\n");
}

TEST(Parser, SyntaxErrorsWithPositions) {
  struct Case {
    const char* source;
    const char* part;
    int line, column;
  };
  const Case cases[] = {
      {"", "empty epilogue", 1, 1},
      {"x = 1\n", "expected 'def'", 1, 1},
      {"def e(accum, alpha=1.0): D = accum; return D", "has a default value", 1, 19},
      {"def e(accum, **kw): D = accum; return D", "only plain parameter names", 1, 14},
      {"def e(accum, accum): D = accum; return D", "Duplicate parameter 'accum'", 1, 14},
      {"def e(accum) D = accum", "expected ':'", 1, 14},
      {"def e(accum):\nD = accum\n", "expected an indented block", 2, 1},
      {"def e(accum):\n    D = accum\n      return D\n", "unexpected indent", 3, 7},
      {"def e(accum):\n    D = accum\n  return D\n", "unindent does not match", 3, 3},
      {"def e(accum): D = accum\n    return D\n", "unexpected indent", 2, 5},
      {"def e(accum):\n    D = accum\n    return D\ndef f(accum):\n    return accum\n", "only one function", 4, 1},
      {"def e(accum):\n    D = accum\n    return D\nx = 1\n", "after the end of function 'e'", 4, 1},
      {"def e(accum):\n    if accum > 0:\n        D = accum\n    return D\n", "unexpected keyword 'if'", 2, 5},
      {"def e(accum):\n    for i in x:\n        D = accum\n", "unexpected keyword 'for'", 2, 5},
      {"def e(accum):\n    D = lambda x: x\n", "unexpected keyword 'lambda'", 2, 9},
      {"def e(accum, C):\n    D = C.T\n", "attribute access 'C.T' is not supported", 2, 9},
      {"def e(accum, C):\n    D = C[0]\n", "subscripts are not supported", 2, 10},
      {"def e(accum):\n    D = accum + 'x'\n", "strings are only allowed as docstrings", 2, 17},
      {"def e(accum):\n    D = accum < 1 < 2\n", "chained comparisons", 2, 19},
      {"def e(accum):\n    D = accum // 2\n", "operator '//' is not supported", 2, 15},
      {"def e(accum):\n    D = accum % 2\n", "operator '%' is not supported", 2, 15},
      {"def e(accum):\n    D = accum\n    D += 1\n", "augmented assignment '+='", 3, 7},
      {"def e(accum):\n    D = E = accum\n", "chained assignments", 2, 11},
      {"def e(accum):\n    D, E = accum, accum\n", "assign one name per statement", 2, 6},
      {"def e(accum):\n    relu(accum)\n", "has no effect", 2, 5},
      {"def e(accum):\n    accum * 2 = D\n", "cannot assign to an expression", 2, 15},
      {"def e(accum):\n    D = (accum, accum)\n", "only allowed after 'return'", 2, 9},
      {"def e(accum):\n    D = relu(accum)(2)\n", "cannot be called", 2, 20},
      {"def e(accum):\n    D = (relu)(accum)\n", "only a function named directly", 2, 15},
      {"def e(accum):\n    D = relu(x=accum, accum)\n", "positional argument cannot follow", 2, 23},
      {"def e(accum):\n    D = relu(slope=1, slope=2)\n", "keyword argument 'slope' is given twice", 2, 23},
      {"def e(accum):\n    D = relu(accum accum)\n", "expected ',' or ')'", 2, 20},
      {"def e(accum):\n    D = ()\n", "empty parentheses", 2, 10},
      {"def e(accum):\n    D = [accum]\n", "lists, sets and dicts", 2, 9},
      {"def e(accum):\n    D = accum +\n", "expected an expression, found end of line", 2, 16},
      {"def e(accum):\n    D = accum\n    return D E\n", "unexpected name 'E'", 3, 14},
      {"def e(accum):\n    D: float = accum\n", "annotated assignments", 2, 6},
      {"def e(accum):\n    pass\n", "unexpected keyword 'pass'", 2, 5},
      {"@\ndef e(accum): return accum\n", "expected a decorator", 1, 2},
  };
  for (const Case& c : cases) EXPECT_TRUE(syntax_error_contains(c.source, c.part, c.line, c.column)) << c.source;
}

TEST(Parser, NestingLimitGivesAnErrorNotACrash) {
  constexpr int kLimit = ExpressionParser::kMaxNesting;
  const std::string head = "def e(accum): D = ";  // the expression starts at column 19
  auto nested = [&](const std::string& open, const std::string& close, int n) {
    std::string s = head;
    for (int i = 0; i < n; ++i) s += open;
    s += "accum";
    for (int i = 0; i < n; ++i) s += close;
    return s + "; return D";
  };
  EXPECT_TRUE(syntax_error_contains(nested("(", ")", 100000), "too deeply nested", 1, 19 + kLimit));
  EXPECT_TRUE(syntax_error_contains(nested("-", "", 100000), "too deeply nested", 1, 19 + kLimit));
  EXPECT_TRUE(syntax_error_contains(nested("relu(", ")", 100000), "too deeply nested", 1, 19 + 5 * kLimit));
  // Just inside the limit parses, and the value is right.
  const ir::Dag ok = parse_epilogue(nested("(", ")", kLimit - 1));
  EXPECT_EQ(output_text(ok, "D"), "accum");
  const ir::Dag negs = parse_epilogue(nested("-", "", 100));
  EXPECT_EQ(testing::evaluate(negs, 1.5, {}).at("D"), 1.5);
  // Long left-associative chains do not recurse while parsing, but the tree
  // height is bounded too.
  std::string sum = head + "accum";
  for (int i = 0; i < 100000; ++i) sum += "+accum";
  EXPECT_TRUE(syntax_error_contains(sum + "; return D", "too deeply nested", 1,
                                    19 + 6 * ExpressionParser::kMaxExprDepth - 1));
  std::string powers = head + "accum";
  for (int i = 0; i < 100000; ++i) powers += "**accum";
  EXPECT_THROW(parse_epilogue(powers + "; return D"), Error);
}

}  // namespace
}  // namespace epigemm::frontend
