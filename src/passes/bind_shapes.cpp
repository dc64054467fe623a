// The bind pass: gives every Load a LoadKind and dtype and every Store a
// StoreKind and dtype from the shapes and strides of the bound values, and
// folds each reduction into the Store it feeds (DESIGN.md section 3).
#include <string>
#include <vector>

#include "epigemm/error.hpp"
#include "passes/broadcast.hpp"
#include "passes/dag_rewrite.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::Dag;
using ir::Node;
using ir::NodeId;
using ir::NodeKind;

bool is_reduction(const Node& node) {
  return node.kind == NodeKind::Compute && ir::op_info(node.op).op_class == ir::OpClass::reduction;
}

// "amax(D)": how a reduction reads in the source.
std::string describe_reduction(const Dag& dag, const Node& reduction) {
  std::string text(ir::op_info(reduction.op).name);
  text += "(";
  if (!reduction.inputs.empty()) text += detail::describe_value(dag, reduction.inputs.front());
  return text + ")";
}

const Binding& find_binding(const std::map<std::string, Binding>& bindings, const std::string& name) {
  auto it = bindings.find(name);
  if (it == bindings.end()) {
    throw Error(ErrorKind::Binding,
                "Argument " + name + " is not provided in the kwargs of the EpilogueArguments constructor");
  }
  return it->second;
}

// A reduction may only feed Stores; anything else reading it is an error
// reported at the reduction's position.
void reject_reductions_used_as_values(const Dag& dag) {
  for (const Node& user : dag.nodes) {
    if (user.kind == NodeKind::Store) continue;
    for (NodeId in : user.inputs) {
      const Node& producer = dag.node(in);
      if (!is_reduction(producer)) continue;
      throw Error(ErrorKind::Syntax,
                  "The result of reduction '" + describe_reduction(dag, producer) + "' is used by '" +
                      detail::describe_value(dag, static_cast<NodeId>(&user - dag.nodes.data())) +
                      "'; a reduction can only be returned as an output (its kind comes from the output's shape)",
                  producer.loc.line, producer.loc.column);
    }
  }
}

void bind_load(Node& load, const Binding& binding, ProblemExtents extents) {
  if (binding.is_scalar()) {
    load.load_kind = ir::LoadKind::ScalarValue;
    load.dtype = DType::f32;  // a placeholder: the type pass sets the compute type
    return;
  }
  const TensorRef& tensor = binding.tensor();
  const AlignedTensor aligned = align_to_problem(tensor, extents, "Tensor", load.name);
  load.load_kind = load_kind_of(aligned);
  load.dtype = tensor.dtype;
}

// Rejects outputs that would write one element from several places.
void reject_expanded_output(const AlignedTensor& aligned, const TensorRef& tensor, const std::string& name) {
  for (int axis = 0; axis < 3; ++axis) {
    if (!aligned.expanded[axis]) continue;
    throw Error(ErrorKind::Shape, "Output '" + name + "' of shape " + detail::describe_shape(tensor.shape) +
                                      " has stride 0 on an axis of extent " + std::to_string(aligned.extent[axis]) +
                                      " (strides " + detail::describe_shape(tensor.effective_strides()) +
                                      "); an output must not write one element twice");
  }
}

void bind_tile_store(Node& store, const AlignedTensor& aligned, const TensorRef& tensor, ProblemExtents extents) {
  const std::int64_t problem[3] = {extents.L, extents.M, extents.N};
  for (int axis = 0; axis < 3; ++axis) {
    if (aligned.extent[axis] == problem[axis]) continue;
    throw Error(ErrorKind::Shape,
                "Output '" + store.name + "' of shape " + detail::describe_shape(tensor.shape) +
                    " is not a full tile of the problem shape " + detail::describe_problem(extents) +
                    "; an elementwise value is stored with the problem's shape. To store one value per row, "
                    "per column or for everything, return a reduction of it: sum, max, min or amax",
                store.loc.line, store.loc.column);
  }
  store.store_kind = ir::StoreKind::Tile;
}

void bind_reduce_store(const Dag& dag, Node& store, const Node& reduction, const AlignedTensor& aligned,
                       const TensorRef& tensor) {
  const bool keeps_m = aligned.extent[kAxisM] != 1;
  const bool keeps_n = aligned.extent[kAxisN] != 1;
  if (keeps_m && keeps_n) {
    throw Error(ErrorKind::Shape,
                "reduction '" + describe_reduction(dag, reduction) + "' is stored into '" + store.name +
                    "' of shape " + detail::describe_shape(tensor.shape) +
                    " which keeps every element; a reduction's output must have extent 1 on the reduced axes, "
                    "e.g. (M, 1) for each row, (N,) for each column or (1,) for everything",
                reduction.loc.line, reduction.loc.column);
  }
  if (keeps_n) {
    store.store_kind = ir::StoreKind::ColumnReduce;
  } else if (keeps_m) {
    store.store_kind = ir::StoreKind::RowReduce;
  } else {
    store.store_kind = ir::StoreKind::ScalarReduce;
  }
  store.op = reduction.op;
  store.inputs = {reduction.inputs.front()};
}

}  // namespace

ir::Dag bind_shapes(const ir::Dag& dag, const std::map<std::string, Binding>& bindings, ProblemExtents extents) {
  reject_reductions_used_as_values(dag);

  Dag out = dag;
  detail::Rewrite rewrite(out);
  for (std::size_t i = 0; i < out.nodes.size(); ++i) {
    Node& node = out.nodes[i];
    if (is_reduction(node)) {
      if (node.inputs.size() != 1) {
        throw Error(ErrorKind::Internal, "reduction node " + std::to_string(i) + " does not have one input");
      }
      rewrite.keep[i] = false;  // folded into the Stores that read it
      continue;
    }
    if (node.kind == NodeKind::Load) {
      bind_load(node, find_binding(bindings, node.name), extents);
      continue;
    }
    if (node.kind != NodeKind::Store) continue;

    const Binding& binding = find_binding(bindings, node.name);
    if (binding.is_scalar()) {
      throw Error(ErrorKind::Binding, "Output '" + node.name + "' must be bound to a tensor, not a number");
    }
    if (node.inputs.size() != 1) {
      throw Error(ErrorKind::Internal, "store node " + std::to_string(i) + " does not have one input");
    }
    const TensorRef& tensor = binding.tensor();
    const AlignedTensor aligned = align_to_problem(tensor, extents, "Output", node.name);
    reject_expanded_output(aligned, tensor, node.name);
    node.dtype = tensor.dtype;
    // NOTE: `out` still holds every original node here, so the reduction
    // that feeds this Store is at its old index.
    const Node& source = out.node(node.inputs.front());
    if (is_reduction(source)) {
      bind_reduce_store(out, node, source, aligned, tensor);
    } else {
      bind_tile_store(node, aligned, tensor, extents);
    }
  }
  return detail::apply_rewrite(out, rewrite);
}

}  // namespace epigemm::passes
