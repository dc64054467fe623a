// Text and Graphviz printers for the DAG. The text form is canonical (equal
// DAGs print equal text) and is what golden tests and cache keys use.
#pragma once

#include <string>

#include "ir/dag.hpp"

namespace epigemm::ir {

std::string print_text(const Dag& dag);
std::string print_dot(const Dag& dag);

}  // namespace epigemm::ir
