// Constant folding: a Compute node whose operands are all Constants becomes a
// Constant holding the op table's reference result rounded to the compute
// type, exactly what the kernel would have computed at run time.
#include "epigemm/error.hpp"
#include "ir/convert.hpp"
#include "passes/dag_rewrite.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

constexpr std::size_t kMaxOperands = 3;

bool all_inputs_constant(const ir::Dag& dag, const ir::Node& node) {
  for (ir::NodeId in : node.inputs) {
    if (dag.node(in).kind != ir::NodeKind::Constant) return false;
  }
  return true;
}

// The reference result of `node` on its constant operands, missing trailing
// operands taking the op's defaults.
double evaluate(const ir::Dag& dag, const ir::Node& node) {
  const ir::OpInfo& info = ir::op_info(node.op);
  if (node.inputs.size() > kMaxOperands || static_cast<int>(node.inputs.size()) < info.min_arity) {
    throw Error(ErrorKind::Internal, "fold_constants: '" + std::string(info.name) + "' has " +
                                         std::to_string(node.inputs.size()) + " operands");
  }
  double operands[kMaxOperands] = {0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < kMaxOperands; ++i) {
    if (i < node.inputs.size()) {
      operands[i] = dag.node(node.inputs[i]).value;
    } else if (static_cast<int>(i) < info.max_arity) {
      operands[i] = info.defaults[i];
    }
  }
  return info.reference(operands[0], operands[1], operands[2]);
}

}  // namespace

ir::Dag fold_constants(const ir::Dag& dag) {
  // Nodes are in topological order, so folding in place lets a chain of
  // constant operations collapse in one sweep.
  ir::Dag out = dag;
  for (ir::Node& node : out.nodes) {
    if (node.kind != ir::NodeKind::Compute) continue;
    if (ir::op_info(node.op).op_class == ir::OpClass::reduction) continue;
    if (node.inputs.empty() || !all_inputs_constant(out, node)) continue;
    const double value = ir::round_to(node.dtype, evaluate(out, node));
    node.kind = ir::NodeKind::Constant;
    node.value = value;
    node.inputs.clear();
    node.op = ir::Node{}.op;
  }
  // Renumber so the operands that only fed folded nodes can be dropped by
  // DCE and the order is canonical.
  return detail::apply_rewrite(out, detail::Rewrite(out));
}

}  // namespace epigemm::passes
