// The lexer: turns epilogue source text into tokens. It follows Python's
// lexical rules for the subset we accept: comments and blank lines vanish,
// newlines inside brackets and after a backslash join lines, and the first
// token of each logical line carries its indentation width.
#pragma once

#include <string_view>
#include <vector>

#include "frontend/token.hpp"

namespace epigemm::frontend {

class Lexer {
 public:
  explicit Lexer(std::string_view source);

  /// The whole input as tokens, ending with a newline token (when any token
  /// came before) and one end token. Throws Error(ErrorKind::Syntax) with the
  /// position of a bad character, an unterminated string, a malformed number
  /// or an unbalanced bracket.
  std::vector<Token> tokenize();

 private:
  char peek(std::size_t ahead = 0) const noexcept;
  int column() const noexcept;
  void new_line_at(std::size_t next_line_start) noexcept;
  bool at_newline() const noexcept;
  void skip_newline() noexcept;
  /// At the start of a physical line outside brackets: measures its
  /// indentation, skips it if blank or a comment, and returns the width or -1.
  int begin_line();
  void emit(Token token);
  void emit_newline();
  Token lex_number();
  Token lex_word();
  Token lex_string(std::size_t start, int start_column);
  Token lex_operator();
  void open_bracket(const Token& token);
  void close_bracket(const Token& token);
  [[noreturn]] void fail(const std::string& message, int line, int column) const;

  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
  std::vector<Token> tokens_;
  /// Open brackets not yet closed: their character, line and column.
  struct OpenBracket {
    char ch;
    int line;
    int column;
  };
  std::vector<OpenBracket> open_;
  int pending_indent_ = -1;
};

}  // namespace epigemm::frontend
