// The abstract syntax tree of one epilogue function, as the parser reads it:
// parameters, assignments and return statements holding expression trees,
// every node with its source position. The rules of the language (SSA,
// accum first, an output named D, ...) are checked later, by lower().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace epigemm::frontend::ast {

/// A 1-based source position.
struct Loc {
  int line = 0;
  int column = 0;
};

enum class ExprKind : std::uint8_t {
  number,  ///< a numeric literal
  name,    ///< a variable or parameter
  unary,   ///< -x or +x
  binary,  ///< x op y, arithmetic or comparison
  call,    ///< f(args), f possibly dotted (torch.relu)
  tuple,   ///< (a, b): only as the value of a return
};

enum class UnaryOp : std::uint8_t { neg, plus };
enum class BinaryOp : std::uint8_t { add, sub, mul, div, pow, lt, le, gt, ge, eq, ne };

/// The operator as written: "-", "+", "**", "<=", ...
std::string_view symbol(UnaryOp op) noexcept;
std::string_view symbol(BinaryOp op) noexcept;

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// `name=value` in a call.
struct KeywordArg {
  std::string name;
  Loc loc;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::number;
  Loc loc;        ///< the literal, name, operator or callee
  int depth = 1;  ///< height of the tree rooted here (the parser bounds it)
  double number = 0.0;
  /// number: the literal as written; name: the name; call: the callee as
  /// written (e.g. "torch.relu").
  std::string text;
  std::string callee;  ///< call: the last component of the callee ("relu")
  UnaryOp unary_op = UnaryOp::neg;
  BinaryOp binary_op = BinaryOp::add;
  /// unary: 1; binary: 2 (left, right); call: positional arguments; tuple: items.
  std::vector<ExprPtr> operands;
  std::vector<KeywordArg> keywords;  ///< call only
};

struct Param {
  std::string name;
  Loc loc;
};

enum class StmtKind : std::uint8_t { assign, return_values };

struct Stmt {
  StmtKind kind = StmtKind::assign;
  Loc loc;                       ///< the target name, or the `return` keyword
  std::string target;            ///< assign: the name assigned
  ExprPtr value;                 ///< assign: the value
  std::vector<ExprPtr> results;  ///< return: the returned expressions, in order
};

struct Function {
  std::string name;
  Loc loc;  ///< the function's name in the def line
  std::vector<Param> params;
  std::vector<Stmt> body;  ///< docstrings already dropped
};

}  // namespace epigemm::frontend::ast
