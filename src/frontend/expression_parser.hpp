// The expression half of the parser: Python's precedence for comparisons,
// + -, * /, prefix - +, ** and calls, with a bound on nesting so that hostile
// input ends in an error rather than a stack overflow.
#pragma once

#include "frontend/ast.hpp"
#include "frontend/token_stream.hpp"

namespace epigemm::frontend {

class ExpressionParser {
 public:
  /// Deepest nesting of brackets and prefix operators parsed (recursion).
  static constexpr int kMaxNesting = 200;
  /// Tallest expression tree built (left-associative chains grow the tree
  /// without recursing). Keeps every later walk of the tree bounded.
  static constexpr int kMaxExprDepth = 1000;

  explicit ExpressionParser(TokenStream& tokens) : ts_(tokens) {}

  /// One expression; a parenthesised tuple `(a, b)` comes back as a tuple
  /// node (only a return may hold one; see value()).
  ast::ExprPtr parse_expression();

  /// `e`, or a syntax error if `e` is a tuple.
  static ast::ExprPtr value(ast::ExprPtr e);

 private:
  ast::ExprPtr parse_sum();
  ast::ExprPtr parse_term();
  ast::ExprPtr parse_factor();
  ast::ExprPtr parse_power();
  ast::ExprPtr parse_primary();
  ast::ExprPtr parse_name_or_call();
  ast::ExprPtr parse_call(const Token& first, std::string callee_text, std::string callee);
  ast::ExprPtr parse_parenthesized();
  void reject_postfix(const ast::Expr& e);
  ast::ExprPtr make_unary(ast::UnaryOp op, const Token& at, ast::ExprPtr operand);
  ast::ExprPtr make_binary(ast::BinaryOp op, const Token& at, ast::ExprPtr left, ast::ExprPtr right);

  TokenStream& ts_;
  int nesting_ = 0;
};

}  // namespace epigemm::frontend
