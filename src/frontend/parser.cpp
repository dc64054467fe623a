// The statement parser: tokens -> ast::Function. It checks syntax only (what
// Python itself would reject, plus the constructs the language leaves out);
// the language rules are checked by lower(). Each grammar rule is written
// above the function that parses it; expressions are in expression_parser.cpp.
#include <string>
#include <utility>

#include "epigemm/error.hpp"
#include "frontend/expression_parser.hpp"
#include "frontend/lexer.hpp"
#include "frontend/parser.hpp"
#include "frontend/token_stream.hpp"

namespace epigemm::frontend {
namespace {

bool is_augmented(const Token& t) {
  static constexpr std::string_view kAugmented[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=",
                                                    "@=", "&=", "|=", "^=", ">>=", "<<=", ":="};
  if (t.kind != TokenKind::op) return false;
  for (std::string_view a : kAugmented)
    if (t.text == a) return true;
  return false;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : ts_(std::move(tokens)), exprs_(ts_) {}
  ast::Function parse_file();

 private:
  void skip_decorator();
  void parse_def(ast::Function& function);
  void parse_params(ast::Function& function);
  void skip_annotation(std::string_view stop1, std::string_view stop2);
  void parse_body(ast::Function& function, int def_indent);
  void parse_simple_statements(ast::Function& function);
  void parse_statement(ast::Function& function);
  ast::Stmt parse_return();
  [[noreturn]] void reject_expression_statement();

  TokenStream ts_;
  ExpressionParser exprs_;
};

// file: decorator* function END
ast::Function Parser::parse_file() {
  while (ts_.cur().is_op("@")) skip_decorator();
  if (ts_.cur().kind == TokenKind::end) ts_.fail("expected 'def', found an empty epilogue");
  if (!ts_.cur().is_keyword("def"))
    ts_.fail("expected 'def' to start the epilogue function, found " + describe(ts_.cur()));
  ast::Function function;
  parse_def(function);
  if (ts_.cur().kind == TokenKind::end) return function;
  if (ts_.cur().is_keyword("def")) ts_.fail("only one function may be defined, but a second 'def' was found");
  ts_.fail("unexpected " + describe(ts_.cur()) + " after the end of function '" + function.name + "'");
}

// decorator: '@' <any tokens> NEWLINE
void Parser::skip_decorator() {
  ts_.take();
  if (ts_.cur().kind == TokenKind::newline || ts_.cur().kind == TokenKind::end)
    ts_.fail("expected a decorator after '@'");
  while (ts_.cur().kind != TokenKind::newline && ts_.cur().kind != TokenKind::end) ts_.take();
  if (ts_.cur().kind == TokenKind::newline) ts_.take();
}

// function: 'def' NAME parameters ['->' annotation] ':' body
void Parser::parse_def(ast::Function& function) {
  const Token def = ts_.take();
  if (ts_.cur().kind != TokenKind::name)
    ts_.fail("expected the function's name after 'def', found " + describe(ts_.cur()));
  const Token name = ts_.take();
  function.name = name.text;
  function.loc = loc_of(name);
  parse_params(function);
  if (ts_.accept_op("->")) skip_annotation(":", ":");
  ts_.expect_op(":", "at the end of the 'def' line");
  parse_body(function, def.indent < 0 ? 0 : def.indent);
}

// parameters: '(' [parameter {',' parameter} [',']] ')'
// parameter: NAME [':' annotation]
void Parser::parse_params(ast::Function& function) {
  ts_.expect_op("(", "after the function's name");
  while (!ts_.cur().is_op(")")) {
    const Token& t = ts_.cur();
    if (t.kind != TokenKind::name) {
      if (t.is_op("*") || t.is_op("**") || t.is_op("/"))
        ts_.fail("unexpected " + describe(t) + " in the parameters of '" + function.name +
                 "': only plain parameter names are allowed");
      ts_.fail("expected a parameter name, found " + describe(t));
    }
    const Token p = ts_.take();
    for (const ast::Param& q : function.params)
      if (q.name == p.text)
        TokenStream::fail_at("Duplicate parameter '" + p.text + "' in function '" + function.name + "'", p);
    function.params.push_back({p.text, loc_of(p)});
    if (ts_.accept_op(":")) skip_annotation(",", ")");
    if (ts_.cur().is_op("="))
      ts_.fail("parameter '" + p.text +
               "' has a default value; default values are not supported (bind every parameter in the "
               "epilogue arguments)");
    if (!ts_.accept_op(",") && !ts_.cur().is_op(")"))
      ts_.fail("expected ',' or ')' after parameter '" + p.text + "', found " + describe(ts_.cur()));
  }
  ts_.take();  // ')'
}

// annotation: <tokens with balanced brackets, up to a stop token or '=' at depth 0>
// Annotations are accepted and ignored.
void Parser::skip_annotation(std::string_view stop1, std::string_view stop2) {
  int depth = 0;
  bool any = false;
  for (;;) {
    const Token& t = ts_.cur();
    if (t.kind == TokenKind::newline || t.kind == TokenKind::end)
      ts_.fail("unexpected " + describe(t) + " in a type annotation");
    if (depth == 0 && (t.is_op(stop1) || t.is_op(stop2) || t.is_op("="))) break;
    if (t.is_op("(") || t.is_op("[") || t.is_op("{")) ++depth;
    if (t.is_op(")") || t.is_op("]") || t.is_op("}")) --depth;
    ts_.take();
    any = true;
  }
  if (!any) ts_.fail("expected a type annotation, found " + describe(ts_.cur()));
}

// body: simple_statements                           (on the def line)
//     | NEWLINE (simple_statements, one indentation)+ (the following lines)
void Parser::parse_body(ast::Function& function, int def_indent) {
  if (ts_.cur().kind != TokenKind::newline) {
    parse_simple_statements(function);
    if (ts_.cur().kind != TokenKind::end && ts_.cur().indent > def_indent) ts_.fail("unexpected indent");
    return;
  }
  ts_.take();
  if (ts_.cur().kind == TokenKind::end || ts_.cur().indent <= def_indent)
    ts_.fail("expected an indented block after 'def " + function.name + "(...):'");
  const int block = ts_.cur().indent;
  for (;;) {
    parse_simple_statements(function);
    if (ts_.cur().kind == TokenKind::end || ts_.cur().indent <= def_indent) return;
    if (ts_.cur().indent > block) ts_.fail("unexpected indent");
    if (ts_.cur().indent < block) ts_.fail("unindent does not match any outer indentation level");
  }
}

// simple_statements: statement {';' statement} [';'] NEWLINE
void Parser::parse_simple_statements(ast::Function& function) {
  for (;;) {
    parse_statement(function);
    if (!ts_.accept_op(";") || ts_.cur().kind == TokenKind::newline) break;
  }
  const Token& t = ts_.cur();
  if (t.kind == TokenKind::newline) {
    ts_.take();
    return;
  }
  if (t.is_op("=")) ts_.fail("unexpected '=': chained assignments are not supported; assign one name per statement");
  if (t.is_op(",")) ts_.fail("unexpected ',': assign one name per statement");
  ts_.fail("unexpected " + describe(t));
}

// statement: STRING+                  (a docstring or string statement: skipped)
//          | NAME '=' expression
//          | 'return' return_values
void Parser::parse_statement(ast::Function& function) {
  const Token& t = ts_.cur();
  if (t.kind == TokenKind::string) {
    while (ts_.cur().kind == TokenKind::string) ts_.take();
    if (ts_.cur().kind != TokenKind::newline && !ts_.cur().is_op(";"))
      ts_.fail("unexpected " + describe(ts_.cur()) + " after a string; strings are only allowed as docstrings");
    return;
  }
  if (t.is_keyword("return")) {
    function.body.push_back(parse_return());
    return;
  }
  if (t.kind == TokenKind::keyword)
    ts_.fail("unexpected keyword '" + t.text + "': the epilogue function may hold only assignments and one return");
  if (t.kind == TokenKind::name && ts_.next().is_op("=")) {
    ast::Stmt s;
    s.kind = ast::StmtKind::assign;
    const Token target = ts_.take();
    s.target = target.text;
    s.loc = loc_of(target);
    ts_.take();  // '='
    s.value = ExpressionParser::value(exprs_.parse_expression());
    function.body.push_back(std::move(s));
    return;
  }
  if (t.kind == TokenKind::name && is_augmented(ts_.next()))
    TokenStream::fail_at("augmented assignment '" + ts_.next().text +
                             "' is not supported: a name is assigned once, so assign the result to a new name",
                         ts_.next());
  if (t.kind == TokenKind::name && ts_.next().is_op(":"))
    TokenStream::fail_at("unexpected ':': annotated assignments are not supported", ts_.next());
  reject_expression_statement();
}

// An expression used as a statement: parsed for its own syntax errors, then
// rejected (it has no effect, or it assigns to something that is not a name).
void Parser::reject_expression_statement() {
  const Token start = ts_.cur();
  if (start.kind != TokenKind::name && start.kind != TokenKind::number && !start.is_op("(") && !start.is_op("-") &&
      !start.is_op("+"))
    ts_.fail("unexpected " + describe(start) + " at the start of a statement");
  exprs_.parse_expression();
  const Token& t = ts_.cur();
  if (t.is_op("=") || is_augmented(t))
    ts_.fail("cannot assign to an expression: the left side of '" + t.text + "' must be a single name");
  if (t.is_op(",")) ts_.fail("unexpected ',': assign one name per statement");
  if (t.kind != TokenKind::newline && !t.is_op(";")) ts_.fail("unexpected " + describe(t));
  TokenStream::fail_at("a statement that is only an expression has no effect; assign its value to a name", start);
}

// return_values: [expression {',' expression} [',']]
// (a single parenthesised tuple, `return (D, F)`, lists its items)
ast::Stmt Parser::parse_return() {
  ast::Stmt s;
  s.kind = ast::StmtKind::return_values;
  s.loc = loc_of(ts_.take());
  while (ts_.cur().kind != TokenKind::newline && !ts_.cur().is_op(";")) {
    ast::ExprPtr e = exprs_.parse_expression();
    if (e->kind == ast::ExprKind::tuple && s.results.empty() && !ts_.cur().is_op(",")) {
      for (ast::ExprPtr& item : e->operands) s.results.push_back(std::move(item));
    } else {
      s.results.push_back(ExpressionParser::value(std::move(e)));
    }
    if (!ts_.accept_op(",")) break;
  }
  return s;
}

}  // namespace

ast::Function parse(std::string_view source) {
  Parser parser(Lexer(source).tokenize());
  return parser.parse_file();
}

ir::Dag parse_epilogue(std::string_view source) { return lower(parse(source)); }

}  // namespace epigemm::frontend
