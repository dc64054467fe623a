// Common-subexpression elimination: Compute nodes with the same op and the
// same operands (in either order for commutative ops), bitwise-equal
// Constants and Loads of the same parameter collapse to their first copy.
#include <bit>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "passes/dag_rewrite.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::NodeId;
using ir::NodeKind;
using ir::OpCode;

bool is_commutative(OpCode op) {
  switch (op) {
    case OpCode::add:
    case OpCode::mul:
    case OpCode::maximum:
    case OpCode::minimum:
    case OpCode::eq:
    case OpCode::ne:
      return true;
    default:
      return false;
  }
}

// Everything that makes two nodes compute the same value. Names and source
// positions are left out: they do not change the value.
struct NodeKey {
  NodeKind kind;
  OpCode op;
  DType dtype;
  ir::LoadKind load_kind;
  int slot;
  std::uint64_t value_bits;
  std::vector<NodeId> inputs;

  auto tie() const { return std::tie(kind, op, dtype, load_kind, slot, value_bits, inputs); }
  bool operator<(const NodeKey& other) const { return tie() < other.tie(); }
};

NodeKey key_of(const ir::Node& node, std::vector<NodeId> inputs) {
  NodeKey key{node.kind, OpCode::add, node.dtype, node.load_kind, -1, 0, {}};
  switch (node.kind) {
    case NodeKind::Compute:
      key.op = node.op;
      if (is_commutative(node.op) && inputs.size() == 2 && inputs[1] < inputs[0]) std::swap(inputs[0], inputs[1]);
      key.inputs = std::move(inputs);
      break;
    case NodeKind::Constant:
      key.value_bits = std::bit_cast<std::uint64_t>(node.value);
      break;
    case NodeKind::Load:
      key.slot = node.slot;
      break;
    case NodeKind::AccFetch:
    case NodeKind::Store:
      break;
  }
  return key;
}

}  // namespace

ir::Dag eliminate_common_subexpressions(const ir::Dag& dag) {
  detail::Rewrite rewrite(dag);
  std::map<NodeKey, NodeId> first_of;
  // NOTE: relies on operands preceding users, so each operand is already
  // resolved to its representative when its user is keyed.
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const ir::Node& node = dag.nodes[i];
    if (node.kind == NodeKind::Store) continue;  // every output is written
    std::vector<NodeId> inputs;
    inputs.reserve(node.inputs.size());
    for (NodeId in : node.inputs) inputs.push_back(rewrite.resolve(in));
    auto [it, inserted] = first_of.emplace(key_of(node, std::move(inputs)), static_cast<NodeId>(i));
    if (!inserted) {
      rewrite.forward[i] = it->second;
      rewrite.keep[i] = false;
    }
  }
  return detail::apply_rewrite(dag, rewrite);
}

}  // namespace epigemm::passes
