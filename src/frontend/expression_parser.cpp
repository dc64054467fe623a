// The expression parser (see expression_parser.hpp). Precedence, loosest
// first: one comparison, + -, * /, prefix - +, ** (right-associative, and
// tighter than a prefix minus on its left: -x**2 is -(x**2)), then names,
// numbers, calls and parentheses.
#include "frontend/expression_parser.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace epigemm::frontend {
namespace {

using ast::ExprKind;
using ast::ExprPtr;

std::optional<ast::BinaryOp> comparison_op(const Token& t) {
  if (t.kind != TokenKind::op) return std::nullopt;
  if (t.text == "<") return ast::BinaryOp::lt;
  if (t.text == "<=") return ast::BinaryOp::le;
  if (t.text == ">") return ast::BinaryOp::gt;
  if (t.text == ">=") return ast::BinaryOp::ge;
  if (t.text == "==") return ast::BinaryOp::eq;
  if (t.text == "!=") return ast::BinaryOp::ne;
  return std::nullopt;
}

// Counts one level of recursion for as long as it lives.
class NestingGuard {
 public:
  NestingGuard(int& nesting, const TokenStream& ts) : nesting_(nesting) {
    if (++nesting_ > ExpressionParser::kMaxNesting)
      ts.fail("expression is too deeply nested (more than " + std::to_string(ExpressionParser::kMaxNesting) +
              " levels of brackets or prefix operators)");
  }
  ~NestingGuard() { --nesting_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  int& nesting_;
};

}  // namespace

ExprPtr ExpressionParser::value(ExprPtr e) {
  if (e->kind == ExprKind::tuple)
    throw Error(ErrorKind::Syntax, "unexpected tuple: a parenthesised list of values is only allowed after 'return'",
                e->loc.line, e->loc.column);
  return e;
}

// expression: sum [('<' | '<=' | '>' | '>=' | '==' | '!=') sum]
ExprPtr ExpressionParser::parse_expression() {
  ExprPtr left = parse_sum();
  if (std::optional<ast::BinaryOp> op = comparison_op(ts_.cur())) {
    const Token at = ts_.take();
    ExprPtr right = parse_sum();
    left = make_binary(*op, at, std::move(left), std::move(right));
    if (comparison_op(ts_.cur()))
      ts_.fail("chained comparisons like 'a < b < c' are not supported; compare two values at a time");
  }
  return left;
}

// sum: term {('+' | '-') term}
ExprPtr ExpressionParser::parse_sum() {
  ExprPtr left = parse_term();
  while (ts_.cur().is_op("+") || ts_.cur().is_op("-")) {
    const Token at = ts_.take();
    ExprPtr right = parse_term();
    left = make_binary(at.text == "+" ? ast::BinaryOp::add : ast::BinaryOp::sub, at, std::move(left), std::move(right));
  }
  return left;
}

// term: factor {('*' | '/') factor}
ExprPtr ExpressionParser::parse_term() {
  ExprPtr left = parse_factor();
  while (ts_.cur().is_op("*") || ts_.cur().is_op("/")) {
    const Token at = ts_.take();
    ExprPtr right = parse_factor();
    left = make_binary(at.text == "*" ? ast::BinaryOp::mul : ast::BinaryOp::div, at, std::move(left), std::move(right));
  }
  if (ts_.cur().is_op("//") || ts_.cur().is_op("%") || ts_.cur().is_op("@"))
    ts_.fail("operator '" + ts_.cur().text + "' is not supported");
  return left;
}

// factor: ('-' | '+') factor | power
ExprPtr ExpressionParser::parse_factor() {
  NestingGuard guard(nesting_, ts_);
  if (ts_.cur().is_op("-") || ts_.cur().is_op("+")) {
    const Token at = ts_.take();
    ExprPtr operand = parse_factor();
    return make_unary(at.text == "-" ? ast::UnaryOp::neg : ast::UnaryOp::plus, at, std::move(operand));
  }
  return parse_power();
}

// power: primary ['**' factor]
ExprPtr ExpressionParser::parse_power() {
  ExprPtr base = parse_primary();
  if (!ts_.cur().is_op("**")) return base;
  const Token at = ts_.take();
  ExprPtr exponent = parse_factor();
  return make_binary(ast::BinaryOp::pow, at, std::move(base), std::move(exponent));
}

// primary: NUMBER | name_or_call | parenthesized
ExprPtr ExpressionParser::parse_primary() {
  const Token& t = ts_.cur();
  ExprPtr e;
  if (t.kind == TokenKind::number) {
    e = std::make_unique<ast::Expr>();
    e->kind = ExprKind::number;
    e->loc = loc_of(t);
    e->number = t.number;
    e->text = t.text;
    ts_.take();
  } else if (t.kind == TokenKind::name) {
    e = parse_name_or_call();
  } else if (t.is_op("(")) {
    e = parse_parenthesized();
  } else if (t.kind == TokenKind::string) {
    ts_.fail("unexpected string: strings are only allowed as docstrings");
  } else if (t.kind == TokenKind::keyword) {
    ts_.fail("unexpected keyword '" + t.text + "' in an expression");
  } else if (t.is_op("[") || t.is_op("{")) {
    ts_.fail("unexpected '" + t.text + "': lists, sets and dicts are not supported");
  } else {
    ts_.fail("expected an expression, found " + describe(t));
  }
  reject_postfix(*e);
  return e;
}

// Subscripts, attributes of values and calls of anything but a name are not
// part of the language.
void ExpressionParser::reject_postfix(const ast::Expr& e) {
  const Token& t = ts_.cur();
  if (t.is_op("[")) ts_.fail("unexpected '[': subscripts are not supported");
  if (t.is_op(".")) ts_.fail("unexpected '.': attribute access is not supported");
  if (t.is_op("(")) {
    if (e.kind == ExprKind::call) ts_.fail("unexpected '(': the result of a call cannot be called");
    ts_.fail("unexpected '(': only a function named directly can be called");
  }
}

// name_or_call: NAME {'.' NAME} ['(' arguments ')']
ExprPtr ExpressionParser::parse_name_or_call() {
  const Token first = ts_.take();
  std::string text = first.text;
  std::string last = first.text;
  bool dotted = false;
  while (ts_.cur().is_op(".")) {
    ts_.take();
    if (ts_.cur().kind != TokenKind::name) ts_.fail("expected a name after '.', found " + describe(ts_.cur()));
    last = ts_.take().text;
    text += "." + last;
    dotted = true;
  }
  if (ts_.cur().is_op("(")) return parse_call(first, std::move(text), std::move(last));
  if (dotted)
    TokenStream::fail_at("attribute access '" + text + "' is not supported; a dotted name may only name a function "
                         "that is called, as in torch.relu(x)",
                         first);
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::name;
  e->loc = loc_of(first);
  e->text = first.text;
  return e;
}

// call: callee '(' [argument {',' argument} [',']] ')'
// argument: expression | NAME '=' expression
ExprPtr ExpressionParser::parse_call(const Token& first, std::string callee_text, std::string callee) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::call;
  e->loc = loc_of(first);
  e->text = std::move(callee_text);
  e->callee = std::move(callee);
  ts_.take();  // '('
  int depth = 0;
  while (!ts_.cur().is_op(")")) {
    if (ts_.cur().kind == TokenKind::name && ts_.next().is_op("=")) {
      const Token name = ts_.take();
      ts_.take();
      for (const ast::KeywordArg& k : e->keywords)
        if (k.name == name.text) TokenStream::fail_at("keyword argument '" + name.text + "' is given twice", name);
      ExprPtr v = value(parse_expression());
      depth = std::max(depth, v->depth);
      e->keywords.push_back({name.text, loc_of(name), std::move(v)});
    } else {
      if (!e->keywords.empty()) ts_.fail("a positional argument cannot follow a keyword argument");
      ExprPtr v = value(parse_expression());
      depth = std::max(depth, v->depth);
      e->operands.push_back(std::move(v));
    }
    if (!ts_.accept_op(",") && !ts_.cur().is_op(")"))
      ts_.fail("expected ',' or ')' in the arguments of '" + e->text + "', found " + describe(ts_.cur()));
  }
  ts_.take();  // ')'
  e->depth = depth + 1;
  if (e->depth > kMaxExprDepth)
    TokenStream::fail_at("expression is too deeply nested (more than " + std::to_string(kMaxExprDepth) + " levels)",
                         first);
  return e;
}

// parenthesized: '(' expression {',' expression} [','] ')'
ExprPtr ExpressionParser::parse_parenthesized() {
  const Token open = ts_.take();
  if (ts_.cur().is_op(")")) ts_.fail("unexpected ')': empty parentheses hold no value");
  ExprPtr first = parse_expression();
  if (!ts_.cur().is_op(",")) {
    ts_.expect_op(")", "to close the '(' opened at line " + std::to_string(open.line) + ", column " +
                           std::to_string(open.column));
    return first;
  }
  auto tuple = std::make_unique<ast::Expr>();
  tuple->kind = ExprKind::tuple;
  tuple->loc = loc_of(open);
  tuple->depth = first->depth + 1;
  tuple->operands.push_back(value(std::move(first)));
  while (ts_.accept_op(",")) {
    if (ts_.cur().is_op(")")) break;
    ExprPtr item = value(parse_expression());
    tuple->depth = std::max(tuple->depth, item->depth + 1);
    tuple->operands.push_back(std::move(item));
  }
  ts_.expect_op(")", "to close the '(' opened at line " + std::to_string(open.line) + ", column " +
                         std::to_string(open.column));
  return tuple;
}

ExprPtr ExpressionParser::make_unary(ast::UnaryOp op, const Token& at, ExprPtr operand) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::unary;
  e->loc = loc_of(at);
  e->unary_op = op;
  e->depth = operand->depth + 1;
  if (e->depth > kMaxExprDepth)
    TokenStream::fail_at("expression is too deeply nested (more than " + std::to_string(kMaxExprDepth) + " levels)",
                         at);
  e->operands.push_back(value(std::move(operand)));
  return e;
}

ExprPtr ExpressionParser::make_binary(ast::BinaryOp op, const Token& at, ExprPtr left, ExprPtr right) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ExprKind::binary;
  e->loc = loc_of(at);
  e->binary_op = op;
  e->depth = std::max(left->depth, right->depth) + 1;
  if (e->depth > kMaxExprDepth)
    TokenStream::fail_at("expression is too deeply nested (more than " + std::to_string(kMaxExprDepth) + " levels)",
                         at);
  e->operands.push_back(value(std::move(left)));
  e->operands.push_back(value(std::move(right)));
  return e;
}

}  // namespace epigemm::frontend
