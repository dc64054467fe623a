// Lexer tests: token kinds, texts and positions; numbers in every accepted
// form; strings; implicit and backslash line joining; indentation widths;
// and the errors for bad characters, numbers, strings and brackets.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "epigemm/error.hpp"
#include "frontend/lexer.hpp"

namespace epigemm::frontend {
namespace {

std::vector<Token> lex(std::string_view src) { return Lexer(src).tokenize(); }

// Kinds and texts as one string: "name:x op:= number:1 newline end".
std::string summary(const std::vector<Token>& tokens) {
  std::string s;
  for (const Token& t : tokens) {
    if (!s.empty()) s += ' ';
    switch (t.kind) {
      case TokenKind::name: s += "name:" + t.text; break;
      case TokenKind::keyword: s += "kw:" + t.text; break;
      case TokenKind::number: s += "number:" + t.text; break;
      case TokenKind::string: s += "string"; break;
      case TokenKind::op: s += "op:" + t.text; break;
      case TokenKind::newline: s += "newline"; break;
      case TokenKind::end: s += "end"; break;
    }
  }
  return s;
}

void expect_lex_error(std::string_view src, std::string_view part, int line, int column) {
  try {
    lex(src);
    ADD_FAILURE() << "no error for: " << src;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Syntax);
    EXPECT_NE(e.message().find(part), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.column(), column) << e.what();
  }
}

TEST(Lexer, KindsTextsAndPositions) {
  auto t = lex("def f(accum):\n    D = accum ** -2 <= x != y -> z\n");
  EXPECT_EQ(summary(t),
            "kw:def name:f op:( name:accum op:) op:: newline name:D op:= name:accum op:** op:- number:2 op:<= "
            "name:x op:!= name:y op:-> name:z newline end");
  EXPECT_EQ(t[0].line, 1);
  EXPECT_EQ(t[0].column, 1);
  EXPECT_EQ(t[0].indent, 0);
  EXPECT_EQ(t[3].column, 7);  // accum
  EXPECT_EQ(t[7].line, 2);    // D
  EXPECT_EQ(t[7].column, 5);
  EXPECT_EQ(t[7].indent, 4);
  EXPECT_EQ(t[8].indent, -1);  // '=' does not start a line
  EXPECT_EQ(t[10].column, 15);  // '**'
}

TEST(Lexer, NumbersInEveryForm) {
  const std::pair<const char*, double> cases[] = {
      {"0", 0.0},        {"42", 42.0},     {"2.5", 2.5},     {".5", 0.5},      {"5.", 5.0},
      {"1e3", 1000.0},   {"1E-2", 0.01},   {"2.5e+1", 25.0}, {"1_000", 1000.0}, {"1.e2", 100.0},
      {"0.000125", 0.000125}, {"1e-400", 0.0},
  };
  for (const auto& [text, value] : cases) {
    auto t = lex(text);
    ASSERT_EQ(t.size(), 3u) << text;
    EXPECT_EQ(t[0].kind, TokenKind::number) << text;
    EXPECT_EQ(t[0].text, text);
    EXPECT_DOUBLE_EQ(t[0].number, value) << text;
  }
  // A dot between names is an operator; a dot before digits starts a number.
  EXPECT_EQ(summary(lex("a.b .5")), "name:a op:. name:b number:.5 newline end");
  EXPECT_EQ(summary(lex("1..5")), "number:1. number:.5 newline end");
}

TEST(Lexer, BadNumbers) {
  expect_lex_error("x = 1abc", "invalid number literal '1abc'", 1, 5);
  expect_lex_error("x = 1e", "invalid number literal '1e'", 1, 5);
  expect_lex_error("x = 1__0", "invalid number literal", 1, 5);
  expect_lex_error("x = 2j", "invalid number literal '2j'", 1, 5);
  expect_lex_error("\n  x = 0x1f", "hexadecimal", 2, 7);
  expect_lex_error("x = 1e400", "number 1e400 is out of range", 1, 5);
}

TEST(Lexer, StringsAndTheirLines) {
  auto t = lex("'''one\ntwo\nthree''' r\"a\\\"b\" x\n");
  EXPECT_EQ(summary(t), "string string name:x newline end");
  EXPECT_EQ(t[1].line, 3);
  EXPECT_EQ(t[1].column, 10);
  EXPECT_EQ(t[2].line, 3);
  EXPECT_EQ(t[2].column, 18);
  expect_lex_error("x = 'abc\n", "unterminated string", 1, 5);
  expect_lex_error("\n\"\"\"doc", "unterminated string", 2, 1);
  expect_lex_error("x = b'abc", "unterminated string", 1, 5);
}

TEST(Lexer, LineJoiningAndBlankLines) {
  // Inside brackets newlines vanish; a backslash joins lines; blank and
  // comment-only lines give no tokens.
  auto t = lex("a = (1 +\n     2)\n\n   # comment\nb = 3 \\\n  + 4\n");
  EXPECT_EQ(summary(t), "name:a op:= op:( number:1 op:+ number:2 op:) newline name:b op:= number:3 op:+ "
                        "number:4 newline end");
  EXPECT_EQ(t[5].line, 2);
  EXPECT_EQ(t[8].indent, 0);
  EXPECT_EQ(t[11].line, 6);
  expect_lex_error("a = 1 \\ 2", "after line continuation", 1, 8);
  expect_lex_error("a = 1 \\", "end of input after line continuation", 1, 7);
}

TEST(Lexer, IndentationWidths) {
  auto t = lex("a\n\tb\n  \tc\n        d\r\n  e\r  f\n");
  std::vector<int> widths;
  for (const Token& tok : t)
    if (tok.kind == TokenKind::name) widths.push_back(tok.indent);
  EXPECT_EQ(widths, (std::vector<int>{0, 8, 8, 8, 2, 2}));
  EXPECT_EQ(t.back().kind, TokenKind::end);
}

TEST(Lexer, EmptyAndCommentOnlyInputs) {
  EXPECT_EQ(summary(lex("")), "end");
  EXPECT_EQ(summary(lex("\n\n  # only a comment\n")), "end");
  EXPECT_EQ(summary(lex("\xEF\xBB\xBFx")), "name:x newline end");
}

TEST(Lexer, BadCharactersAndBrackets) {
  expect_lex_error("x = $", "unexpected character '$'", 1, 5);
  expect_lex_error(std::string_view("x = \0", 5), "unexpected character '\\x00'", 1, 5);
  expect_lex_error("x = caf\xc3\xa9", "unexpected character '\\xc3'", 1, 8);
  expect_lex_error("x = a ! b", "unexpected character '!'", 1, 7);
  expect_lex_error("x = (a]", "closing ']' does not match '('", 1, 7);
  expect_lex_error("x = a)", "unmatched ')'", 1, 6);
  expect_lex_error("x = f(a,\n  (b)\n", "'(' was never closed", 1, 6);
}

TEST(Lexer, KeywordsAndLongestOperators) {
  EXPECT_EQ(summary(lex("return lambda True x **= y // z")),
            "kw:return kw:lambda kw:True name:x op:**= name:y op:// name:z newline end");
  EXPECT_EQ(summary(lex("a==b=c")), "name:a op:== name:b op:= name:c newline end");
}

}  // namespace
}  // namespace epigemm::frontend
