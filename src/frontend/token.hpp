// Tokens of the epilogue language, as produced by the lexer: names,
// keywords, numbers, strings, operators, logical-line ends and the end of
// input, each with its 1-based source position.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace epigemm::frontend {

enum class TokenKind : std::uint8_t {
  name,     ///< an identifier that is not a Python keyword
  keyword,  ///< a Python keyword (def, return, if, lambda, True, ...)
  number,   ///< a numeric literal; `number` holds its value
  string,   ///< a string literal (only docstrings and annotations may hold one)
  op,       ///< an operator or delimiter: ( ) [ ] , : ; = + - * ** / < <= -> ...
  newline,  ///< the end of a logical line (never inside brackets)
  end,      ///< the end of the input
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;  ///< the source text (names, keywords, operators, numbers)
  double number = 0.0;
  int line = 1;    ///< 1-based
  int column = 1;  ///< 1-based, in bytes
  /// Width of the leading whitespace when this token starts a logical line
  /// (tabs to multiples of 8); -1 for every other token.
  int indent = -1;

  bool is(TokenKind k, std::string_view t) const noexcept { return kind == k && text == t; }
  bool is_op(std::string_view t) const noexcept { return is(TokenKind::op, t); }
  bool is_keyword(std::string_view t) const noexcept { return is(TokenKind::keyword, t); }
  bool starts_line() const noexcept { return indent >= 0; }
};

/// How a token is named in error messages: "'+'", "name 'x'", "number 2.5",
/// "end of line", "end of input", ...
std::string describe(const Token& token);

}  // namespace epigemm::frontend
