// Helpers for the front-end tests: render a lowered DAG's outputs as nested
// call text, evaluate a DAG on numbers with the op table's reference math,
// and check that a source fails with an exact message and position.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include "epigemm/error.hpp"
#include "frontend/parser.hpp"
#include "ir/dag.hpp"
#include "ir/op_table.hpp"

namespace epigemm::frontend::testing {

/// The value of node `id` as text: accum, parameter names, numbers (%g) and
/// op-table names with their inputs, e.g. "relu(add(mul(accum,alpha),2))".
inline std::string render(const ir::Dag& dag, ir::NodeId id) {
  const ir::Node& n = dag.node(id);
  switch (n.kind) {
    case ir::NodeKind::AccFetch: return "accum";
    case ir::NodeKind::Load: return n.name;
    case ir::NodeKind::Constant: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", n.value);
      return buf;
    }
    case ir::NodeKind::Store: return render(dag, n.inputs.at(0));
    case ir::NodeKind::Compute: {
      std::string s(ir::op_info(n.op).name);
      s += "(";
      for (std::size_t i = 0; i < n.inputs.size(); ++i) s += (i ? "," : "") + render(dag, n.inputs[i]);
      return s + ")";
    }
  }
  return "?";
}

/// What the Store of output `name` stores, rendered; "<no store>" if none.
inline std::string output_text(const ir::Dag& dag, std::string_view name) {
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const ir::Node& n = dag.nodes[i];
    if (n.kind == ir::NodeKind::Store && n.name == name) return render(dag, static_cast<ir::NodeId>(i));
  }
  return "<no store>";
}

/// Number of nodes of one kind.
inline int count_kind(const ir::Dag& dag, ir::NodeKind kind) {
  int count = 0;
  for (const ir::Node& n : dag.nodes) count += n.kind == kind ? 1 : 0;
  return count;
}

/// Every output's value for one accumulator value and parameter values,
/// computed node by node with OpInfo::reference (elementwise ops only).
inline std::map<std::string, double> evaluate(const ir::Dag& dag, double accum,
                                              const std::map<std::string, double>& params) {
  std::vector<double> value(dag.nodes.size(), 0.0);
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const ir::Node& n = dag.nodes[i];
    switch (n.kind) {
      case ir::NodeKind::AccFetch: value[i] = accum; break;
      case ir::NodeKind::Load: value[i] = params.at(n.name); break;
      case ir::NodeKind::Constant: value[i] = n.value; break;
      case ir::NodeKind::Compute: {
        double a[3] = {0, 0, 0};
        for (std::size_t k = 0; k < n.inputs.size() && k < 3; ++k) a[k] = value[static_cast<std::size_t>(n.inputs[k])];
        value[i] = ir::op_info(n.op).reference(a[0], a[1], a[2]);
        break;
      }
      case ir::NodeKind::Store: out[n.name] = value[static_cast<std::size_t>(n.inputs.at(0))]; break;
    }
  }
  return out;
}

/// Success when parsing and lowering `source` throws an Error of `kind`
/// whose message() is exactly `message`, at `line`:`column`.
inline ::testing::AssertionResult fails_with(std::string_view source, ErrorKind kind, std::string_view message,
                                             int line, int column) {
  try {
    parse_epilogue(source);
  } catch (const Error& e) {
    if (e.message() != message || e.kind() != kind || e.line() != line || e.column() != column)
      return ::testing::AssertionFailure() << "got \"" << e.what() << "\" (kind " << static_cast<int>(e.kind())
                                           << "), expected \"" << message << "\" at " << line << ":" << column
                                           << " (kind " << static_cast<int>(kind) << ")";
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no error; expected \"" << message << "\"";
}

/// Success when `source` fails with a Syntax error at `line`:`column` whose
/// message contains `part`.
inline ::testing::AssertionResult syntax_error_contains(std::string_view source, std::string_view part, int line,
                                                        int column) {
  try {
    parse_epilogue(source);
  } catch (const Error& e) {
    if (e.message().find(part) == std::string::npos || e.kind() != ErrorKind::Syntax || e.line() != line ||
        e.column() != column)
      return ::testing::AssertionFailure() << "got \"" << e.what() << "\" (kind " << static_cast<int>(e.kind())
                                           << "), expected a syntax error containing \"" << part << "\" at " << line
                                           << ":" << column;
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no error; expected one containing \"" << part << "\"";
}

}  // namespace epigemm::frontend::testing
