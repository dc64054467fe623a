// The lexer of the epilogue language (see lexer.hpp). One pass over the
// bytes; positions are 1-based lines and byte columns; every problem is an
// epigemm::Error of kind Syntax naming the character or token at fault.
#include "frontend/lexer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "epigemm/error.hpp"

namespace epigemm::frontend {
namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",   "True",    "and",      "as",       "assert", "async", "await", "break",
    "class", "continue", "def",   "del",      "elif",     "else",   "except", "finally", "for",
    "from",  "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",      "while",  "with",  "yield"};

// Longest first, so the first match is the longest.
constexpr std::array<std::string_view, 47> kOperators = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=",
    "%=",  "&=",  "|=",  "^=",  "@=",  ":=", "<<", ">>", "+",  "-",  "*",  "/",  "%",  "@",  "&",  "|",
    "^",   "~",   "<",   ">",   "(",   ")",  "[",  "]",  "{",  "}",  ",",  ":",  ";",  "=",  "."};

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_word_start(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_word_char(char c) noexcept { return is_word_start(c) || is_digit(c); }

bool is_keyword(std::string_view word) noexcept {
  for (std::string_view k : kKeywords)
    if (k == word) return true;
  return false;
}

bool is_string_prefix(std::string_view word) noexcept {
  if (word.size() > 2) return false;
  for (char c : word) {
    char lower = static_cast<char>(c | 0x20);
    if (lower != 'r' && lower != 'u' && lower != 'b' && lower != 'f') return false;
  }
  return true;
}

// A character as it appears in a message: 'x' when printable, else \xNN.
std::string quote_char(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x21 && byte < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", byte);
  return std::string("'") + buf + "'";
}

// For a literal out of a double's range: whether it is too small rather than
// too large (no nonzero digit before the point, or a negative exponent).
bool is_underflow(std::string_view literal) noexcept {
  const std::size_t e = literal.find_first_of("eE");
  if (e != std::string_view::npos && e + 1 < literal.size() && literal[e + 1] == '-') return true;
  for (char c : literal.substr(0, std::min(literal.find('.'), e))) {
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

char closing_of(char open) noexcept { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

}  // namespace

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::name: return "name '" + token.text + "'";
    case TokenKind::keyword: return "keyword '" + token.text + "'";
    case TokenKind::number: return "number " + token.text;
    case TokenKind::string: return "string";
    case TokenKind::op: return "'" + token.text + "'";
    case TokenKind::newline: return "end of line";
    case TokenKind::end: return "end of input";
  }
  return "token";
}

Lexer::Lexer(std::string_view source) : src_(source) {
  if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;  // UTF-8 byte order mark
}

char Lexer::peek(std::size_t ahead) const noexcept {
  return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
}

int Lexer::column() const noexcept { return static_cast<int>(pos_ - line_start_) + 1; }

void Lexer::new_line_at(std::size_t next_line_start) noexcept {
  ++line_;
  line_start_ = next_line_start;
}

bool Lexer::at_newline() const noexcept {
  return pos_ < src_.size() && (src_[pos_] == '\n' || src_[pos_] == '\r');
}

void Lexer::skip_newline() noexcept {
  if (src_[pos_] == '\r' && peek(1) == '\n') ++pos_;
  ++pos_;
  new_line_at(pos_);
}

void Lexer::fail(const std::string& message, int line, int column) const {
  throw Error(ErrorKind::Syntax, message, line, column);
}

int Lexer::begin_line() {
  int width = 0;
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ') {
      ++width;
    } else if (c == '\t') {
      width = (width / 8 + 1) * 8;
    } else if (c == '\f') {
      width = 0;
    } else {
      break;
    }
    ++pos_;
  }
  if (pos_ >= src_.size()) return -1;
  if (src_[pos_] == '#') {
    while (pos_ < src_.size() && !at_newline()) ++pos_;
  }
  if (at_newline()) {
    skip_newline();
    return -1;
  }
  return pos_ < src_.size() ? width : -1;
}

void Lexer::emit(Token token) {
  if (pending_indent_ >= 0) {
    token.indent = pending_indent_;
    pending_indent_ = -1;
  }
  tokens_.push_back(std::move(token));
}

void Lexer::emit_newline() {
  if (tokens_.empty() || tokens_.back().kind == TokenKind::newline) return;
  Token t;
  t.kind = TokenKind::newline;
  t.line = line_;
  t.column = column();
  tokens_.push_back(std::move(t));
}

std::vector<Token> Lexer::tokenize() {
  bool line_start = true;
  while (pos_ < src_.size()) {
    if (line_start && open_.empty()) {
      int width = begin_line();
      if (width < 0) continue;
      pending_indent_ = width;
      line_start = false;
    }
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < src_.size() && !at_newline()) ++pos_;
    } else if (c == '\n' || c == '\r') {
      if (open_.empty()) {
        emit_newline();
        line_start = true;
      }
      skip_newline();
    } else if (c == '\\') {
      int col = column();
      ++pos_;
      if (!at_newline()) {
        if (pos_ >= src_.size()) fail("unexpected end of input after line continuation '\\'", line_, col);
        fail("unexpected character after line continuation '\\'", line_, col + 1);
      }
      skip_newline();
    } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
      emit(lex_number());
    } else if (is_word_start(c)) {
      emit(lex_word());
    } else if (c == '"' || c == '\'') {
      emit(lex_string(pos_, column()));
    } else {
      emit(lex_operator());
    }
  }
  if (!open_.empty()) {
    const OpenBracket& b = open_.back();
    fail(std::string("'") + b.ch + "' was never closed", b.line, b.column);
  }
  emit_newline();
  Token end;
  end.kind = TokenKind::end;
  end.line = line_;
  end.column = column();
  tokens_.push_back(std::move(end));
  return std::move(tokens_);
}

Token Lexer::lex_number() {
  Token t;
  t.kind = TokenKind::number;
  t.line = line_;
  t.column = column();
  std::size_t start = pos_;
  char base = static_cast<char>(peek(1) | 0x20);
  if (peek() == '0' && (base == 'x' || base == 'o' || base == 'b'))
    fail("hexadecimal, octal and binary literals are not supported; write the number in decimal", t.line, t.column);
  auto digits = [&] {
    while (is_digit(peek()) || (peek() == '_' && pos_ > start && is_digit(src_[pos_ - 1]) && is_digit(peek(1))))
      ++pos_;
  };
  digits();
  if (peek() == '.') {
    ++pos_;
    if (is_digit(peek())) digits();
  }
  if ((peek() | 0x20) == 'e' && (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
    pos_ += is_digit(peek(1)) ? 1 : 2;
    digits();
  }
  if (is_word_char(peek())) {
    std::size_t end = pos_;
    while (end < src_.size() && is_word_char(src_[end])) ++end;
    fail("invalid number literal '" + std::string(src_.substr(start, end - start)) + "'", t.line, t.column);
  }
  t.text = std::string(src_.substr(start, pos_ - start));
  std::string clean;
  for (char c : t.text)
    if (c != '_') clean += c;
  auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), t.number);
  if (ec == std::errc::result_out_of_range && is_underflow(clean)) {
    t.number = 0.0;  // too small for a double: Python reads it as 0.0 too
  } else if (ec != std::errc() || ptr != clean.data() + clean.size() || !std::isfinite(t.number)) {
    fail("number " + t.text + " is out of range", t.line, t.column);
  }
  return t;
}

Token Lexer::lex_word() {
  std::size_t start = pos_;
  int col = column();
  while (is_word_char(peek())) ++pos_;
  std::string_view word = src_.substr(start, pos_ - start);
  if ((peek() == '"' || peek() == '\'') && is_string_prefix(word)) return lex_string(start, col);
  Token t;
  t.kind = is_keyword(word) ? TokenKind::keyword : TokenKind::name;
  t.text = std::string(word);
  t.line = line_;
  t.column = col;
  return t;
}

Token Lexer::lex_string(std::size_t start, int start_column) {
  Token t;
  t.kind = TokenKind::string;
  t.line = line_;
  t.column = start_column;
  char quote = peek();
  bool triple = peek(1) == quote && peek(2) == quote;
  pos_ += triple ? 3 : 1;
  for (;;) {
    if (pos_ >= src_.size()) fail("unterminated string literal", t.line, t.column);
    char c = src_[pos_];
    if (c == '\\') {
      ++pos_;
      if (at_newline()) {
        skip_newline();
      } else if (pos_ < src_.size()) {
        ++pos_;
      }
    } else if (c == '\n' || c == '\r') {
      if (!triple) fail("unterminated string literal", t.line, t.column);
      skip_newline();
    } else if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
      pos_ += triple ? 3 : 1;
      break;
    } else {
      ++pos_;
    }
  }
  t.text = std::string(src_.substr(start, pos_ - start));
  return t;
}

Token Lexer::lex_operator() {
  Token t;
  t.kind = TokenKind::op;
  t.line = line_;
  t.column = column();
  std::string_view rest = src_.substr(pos_);
  for (std::string_view op : kOperators) {
    if (op.front() == rest.front() && rest.substr(0, op.size()) == op) {
      t.text = std::string(op);
      break;
    }
  }
  if (t.text.empty()) fail("unexpected character " + quote_char(rest.front()), t.line, t.column);
  pos_ += t.text.size();
  if (t.text == "(" || t.text == "[" || t.text == "{") open_bracket(t);
  if (t.text == ")" || t.text == "]" || t.text == "}") close_bracket(t);
  return t;
}

void Lexer::open_bracket(const Token& token) { open_.push_back({token.text[0], token.line, token.column}); }

void Lexer::close_bracket(const Token& token) {
  if (open_.empty()) fail("unmatched '" + token.text + "'", token.line, token.column);
  char expected = closing_of(open_.back().ch);
  if (token.text[0] != expected)
    fail("closing '" + token.text + "' does not match '" + std::string(1, open_.back().ch) + "' opened on line " +
             std::to_string(open_.back().line),
         token.line, token.column);
  open_.pop_back();
}

}  // namespace epigemm::frontend
