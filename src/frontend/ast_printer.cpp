// print_ast(): the AST as indented text, one node per line with its source
// position, for `epigemm dag --stage ast` and for tests. Deterministic: the
// same source always prints the same text.
#include <string>

#include "frontend/parser.hpp"

namespace epigemm::frontend {

namespace ast {

std::string_view symbol(UnaryOp op) noexcept { return op == UnaryOp::neg ? "-" : "+"; }

std::string_view symbol(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::add: return "+";
    case BinaryOp::sub: return "-";
    case BinaryOp::mul: return "*";
    case BinaryOp::div: return "/";
    case BinaryOp::pow: return "**";
    case BinaryOp::lt: return "<";
    case BinaryOp::le: return "<=";
    case BinaryOp::gt: return ">";
    case BinaryOp::ge: return ">=";
    case BinaryOp::eq: return "==";
    case BinaryOp::ne: return "!=";
  }
  return "?";
}

}  // namespace ast

namespace {

class AstPrinter {
 public:
  std::string print(const ast::Function& f) {
    line(0, "function " + f.name, f.loc);
    for (const ast::Param& p : f.params) line(1, "param " + p.name, p.loc);
    for (const ast::Stmt& s : f.body) {
      if (s.kind == ast::StmtKind::assign) {
        line(1, "assign " + s.target, s.loc);
        expr(2, *s.value);
      } else {
        line(1, "return", s.loc);
        for (const ast::ExprPtr& r : s.results) expr(2, *r);
      }
    }
    return std::move(out_);
  }

 private:
  void line(int depth, const std::string& text, ast::Loc loc) {
    out_.append(static_cast<std::size_t>(depth) * 2, ' ');
    out_ += text + " @" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + "\n";
  }

  void expr(int depth, const ast::Expr& e) {
    switch (e.kind) {
      case ast::ExprKind::number: line(depth, "number " + e.text, e.loc); break;
      case ast::ExprKind::name: line(depth, "name " + e.text, e.loc); break;
      case ast::ExprKind::unary: line(depth, "unary " + std::string(ast::symbol(e.unary_op)), e.loc); break;
      case ast::ExprKind::binary: line(depth, "binary " + std::string(ast::symbol(e.binary_op)), e.loc); break;
      case ast::ExprKind::call:
        line(depth, "call " + e.callee + (e.text != e.callee ? " (written " + e.text + ")" : ""), e.loc);
        break;
      case ast::ExprKind::tuple: line(depth, "tuple", e.loc); break;
    }
    for (const ast::ExprPtr& operand : e.operands) expr(depth + 1, *operand);
    for (const ast::KeywordArg& k : e.keywords) {
      line(depth + 1, "keyword " + k.name, k.loc);
      expr(depth + 2, *k.value);
    }
  }

  std::string out_;
};

}  // namespace

std::string print_ast(const ast::Function& function) { return AstPrinter().print(function); }

}  // namespace epigemm::frontend
