// A cursor over the lexer's tokens, shared by the statement parser and the
// expression parser: look at the current and next token, take tokens, and
// raise syntax errors at a token's position.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "epigemm/error.hpp"
#include "frontend/ast.hpp"
#include "frontend/token.hpp"

namespace epigemm::frontend {

class TokenStream {
 public:
  /// `tokens` must end with an end token (as Lexer::tokenize() returns them).
  explicit TokenStream(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  const Token& cur() const { return toks_[i_]; }
  /// The token after the current one (the end token at the end).
  const Token& next() const { return toks_[i_ + 1 < toks_.size() ? i_ + 1 : i_]; }
  /// Returns the current token and moves past it (never past the end token).
  Token take() {
    Token t = toks_[i_];
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }
  bool accept_op(std::string_view op) {
    if (!cur().is_op(op)) return false;
    take();
    return true;
  }
  /// Takes the operator `op` or fails with "expected 'op' <context>, found ...".
  Token expect_op(std::string_view op, std::string_view context) {
    if (!cur().is_op(op))
      fail("expected '" + std::string(op) + "' " + std::string(context) + ", found " + describe(cur()));
    return take();
  }
  /// Throws Error(ErrorKind::Syntax) at the current token.
  [[noreturn]] void fail(const std::string& message) const { fail_at(message, cur()); }
  [[noreturn]] static void fail_at(const std::string& message, const Token& at) {
    throw Error(ErrorKind::Syntax, message, at.line, at.column);
  }

 private:
  std::vector<Token> toks_;
  std::size_t i_ = 0;
};

inline ast::Loc loc_of(const Token& t) noexcept { return {t.line, t.column}; }

}  // namespace epigemm::frontend
