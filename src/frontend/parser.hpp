// Entry points of the front end: source text -> AST -> raw DAG.
#pragma once

#include <string>
#include <string_view>

#include "frontend/ast.hpp"
#include "ir/dag.hpp"

namespace epigemm::frontend {

/// Parses one `def`. Throws Error(ErrorKind::Syntax) with line and column.
ast::Function parse(std::string_view source);

/// Checks the language rules (accum first, SSA, names defined before use,
/// known functions with the right arity, returns of names only, an output
/// named D) and builds the raw DAG. Throws Error with a source position.
ir::Dag lower(const ast::Function& function);

/// parse() then lower().
ir::Dag parse_epilogue(std::string_view source);

/// The AST as indented text (for `epigemm dag --stage ast`).
std::string print_ast(const ast::Function& function);

}  // namespace epigemm::frontend
