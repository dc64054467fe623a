// Helpers shared by the passes: rebuilding a Dag after nodes were dropped or
// merged (inputs renumbered, stable topological order) and short text forms
// of nodes and shapes for error messages.
#pragma once

#include <string>
#include <vector>

#include "epigemm/tensor.hpp"
#include "ir/dag.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes::detail {

/// A planned rewrite of a Dag: which nodes survive and where each input
/// reference goes. `forward[i]` is the node that replaces node i wherever i
/// is an input (i itself when nothing replaces it); chains are followed.
struct Rewrite {
  std::vector<ir::NodeId> forward;
  std::vector<bool> keep;

  /// Every node kept, none forwarded.
  explicit Rewrite(const ir::Dag& dag);
  /// The node that finally stands for `id` after following `forward`.
  ir::NodeId resolve(ir::NodeId id) const;
};

/// Builds the Dag that `rewrite` describes: kept nodes only, inputs resolved
/// and renumbered, each node after its inputs, otherwise in the old order.
/// Throws Error(ErrorKind::Internal) when a kept node depends on a dropped
/// one or the inputs form a cycle.
ir::Dag apply_rewrite(const ir::Dag& dag, const Rewrite& rewrite);

/// A short name for the value a node computes, for messages: the variable
/// or parameter name, "accum", the constant, or "op(...)" when unnamed.
std::string describe_value(const ir::Dag& dag, ir::NodeId id);

/// "(L, M, N) = (1, 128, 64)".
std::string describe_problem(ProblemExtents extents);

/// "(128, 64)" or "(7,)" or "()".
std::string describe_shape(const Dims& shape);

}  // namespace epigemm::passes::detail
