// Rebuilding a Dag after a pass dropped or merged nodes, and the short text
// forms of values, shapes and problem extents used in the passes' messages.
#include "passes/dag_rewrite.hpp"

#include <cstdio>
#include <utility>

#include "epigemm/error.hpp"

namespace epigemm::passes::detail {
namespace {

// Marks used by the depth-first placement below.
enum class Mark : unsigned char { unseen, open, placed };

[[noreturn]] void internal(const std::string& what) {
  throw Error(ErrorKind::Internal, "DAG rewrite: " + what);
}

}  // namespace

Rewrite::Rewrite(const ir::Dag& dag) : forward(dag.nodes.size()), keep(dag.nodes.size(), true) {
  for (std::size_t i = 0; i < forward.size(); ++i) forward[i] = static_cast<ir::NodeId>(i);
}

ir::NodeId Rewrite::resolve(ir::NodeId id) const {
  // A chain can never be longer than the number of nodes; a longer walk
  // means the forwarding loops.
  for (std::size_t steps = 0; steps <= forward.size(); ++steps) {
    if (id < 0 || static_cast<std::size_t>(id) >= forward.size()) {
      internal("node id " + std::to_string(id) + " is out of range");
    }
    ir::NodeId next = forward[static_cast<std::size_t>(id)];
    if (next == id) return id;
    id = next;
  }
  internal("node forwarding forms a loop");
}

ir::Dag apply_rewrite(const ir::Dag& dag, const Rewrite& rewrite) {
  const std::size_t count = dag.nodes.size();
  if (rewrite.forward.size() != count || rewrite.keep.size() != count) {
    internal("rewrite plan does not match the DAG's node count");
  }

  // Resolve every input once.
  std::vector<std::vector<ir::NodeId>> inputs(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!rewrite.keep[i]) continue;
    for (ir::NodeId in : dag.nodes[i].inputs) {
      ir::NodeId target = rewrite.resolve(in);
      if (!rewrite.keep[static_cast<std::size_t>(target)]) {
        internal("node " + std::to_string(i) + " uses dropped node " + std::to_string(target));
      }
      inputs[i].push_back(target);
    }
  }

  // Place nodes in old order, each after its inputs (iterative post-order
  // walk, so an already sorted DAG keeps its order exactly).
  std::vector<Mark> mark(count, Mark::unseen);
  std::vector<ir::NodeId> new_id(count, -1);
  ir::Dag out;
  out.function_name = dag.function_name;
  out.params = dag.params;
  out.outputs = dag.outputs;
  out.nodes.reserve(count);

  std::vector<std::pair<std::size_t, std::size_t>> stack;  // (node, next input to visit)
  for (std::size_t root = 0; root < count; ++root) {
    if (!rewrite.keep[root] || mark[root] != Mark::unseen) continue;
    stack.emplace_back(root, 0);
    mark[root] = Mark::open;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < inputs[node].size()) {
        auto in = static_cast<std::size_t>(inputs[node][next++]);
        if (mark[in] == Mark::open) internal("the inputs of node " + std::to_string(in) + " form a cycle");
        if (mark[in] == Mark::unseen) {
          mark[in] = Mark::open;
          stack.emplace_back(in, 0);
        }
        continue;
      }
      ir::Node copy = dag.nodes[node];
      copy.inputs.clear();
      for (ir::NodeId in : inputs[node]) copy.inputs.push_back(new_id[static_cast<std::size_t>(in)]);
      new_id[node] = out.add(std::move(copy));
      mark[node] = Mark::placed;
      stack.pop_back();
    }
  }
  return out;
}

std::string describe_value(const ir::Dag& dag, ir::NodeId id) {
  const ir::Node& node = dag.node(id);
  switch (node.kind) {
    case ir::NodeKind::AccFetch:
      return "accum";
    case ir::NodeKind::Constant: {
      char text[32];
      std::snprintf(text, sizeof text, "%g", node.value);
      return text;
    }
    case ir::NodeKind::Load:
    case ir::NodeKind::Store:
      return node.name;
    case ir::NodeKind::Compute:
      if (!node.name.empty()) return node.name;
      return std::string(ir::op_info(node.op).name) + "(...)";
  }
  return "?";
}

std::string describe_problem(ProblemExtents extents) {
  return "(L, M, N) = (" + std::to_string(extents.L) + ", " + std::to_string(extents.M) + ", " +
         std::to_string(extents.N) + ")";
}

std::string describe_shape(const Dims& shape) {
  std::string text = "(";
  for (int i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

}  // namespace epigemm::passes::detail
