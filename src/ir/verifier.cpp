// The DAG verifier. It checks the structure every pass must keep (raw), the
// facts the bind pass establishes (bound) and the type pass's (typed), and
// throws Error(ErrorKind::Internal) naming the node and the broken rule.
#include "ir/verifier.hpp"

#include <set>
#include <string>

#include "epigemm/error.hpp"
#include "ir/names.hpp"

namespace epigemm::ir {
namespace {

class Verifier {
 public:
  Verifier(const Dag& dag, Stage stage) : dag_(dag), stage_(stage) {}

  void run() {
    check_names(dag_.params, "parameter");
    check_names(dag_.outputs, "output");
    for (NodeId id = 0; id < static_cast<NodeId>(dag_.nodes.size()); ++id) check_structure(id);
    check_one_store_per_output();
    if (stage_ == Stage::raw) return;
    for (NodeId id = 0; id < static_cast<NodeId>(dag_.nodes.size()); ++id) check_bound(id);
    if (stage_ == Stage::bound) return;
    check_types();
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(ErrorKind::Internal, "invalid DAG (" + stage_name() + "): " + problem);
  }

  [[noreturn]] void fail_at(NodeId id, const std::string& problem) const {
    const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
    std::string what = std::string(to_string(n.kind));
    if (n.kind == NodeKind::Compute && static_cast<std::size_t>(n.op) < all_ops().size()) {
      what += " " + std::string(op_info(n.op).name);
    } else if (!n.name.empty()) {
      what += " " + n.name;
    }
    fail("node %" + std::to_string(id) + " (" + what + "): " + problem);
  }

  std::string stage_name() const {
    switch (stage_) {
      case Stage::raw: return "raw";
      case Stage::bound: return "bound";
      case Stage::typed: return "typed";
    }
    return "?";
  }

  void check_names(const std::vector<std::string>& names, const char* what) const {
    std::set<std::string> seen;
    for (const std::string& name : names) {
      if (name.empty()) fail(std::string("an ") + what + " has an empty name");
      if (!seen.insert(name).second) fail(std::string(what) + " '" + name + "' is listed twice");
    }
  }

  void check_arity(NodeId id, std::size_t min_inputs, std::size_t max_inputs) const {
    const std::size_t count = dag_.nodes[static_cast<std::size_t>(id)].inputs.size();
    if (count < min_inputs || count > max_inputs) {
      std::string expected = std::to_string(min_inputs);
      if (max_inputs != min_inputs) expected += " to " + std::to_string(max_inputs);
      fail_at(id, "has " + std::to_string(count) + " inputs, expected " + expected);
    }
  }

  void check_slot(NodeId id, const std::vector<std::string>& names, const char* what) const {
    const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
    if (n.slot < 0 || n.slot >= static_cast<int>(names.size())) {
      fail_at(id, "slot " + std::to_string(n.slot) + " is out of range (" + std::to_string(names.size()) + " " +
                      what + "s)");
    }
    if (names[static_cast<std::size_t>(n.slot)] != n.name) {
      fail_at(id, "slot " + std::to_string(n.slot) + " names " + what + " '" + names[static_cast<std::size_t>(n.slot)] +
                      "', not '" + n.name + "'");
    }
  }

  // Raw invariants: inputs before users and never a Store, arities, slots.
  void check_structure(NodeId id) {
    const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
    for (NodeId input : n.inputs) {
      if (input < 0 || input >= id) {
        fail_at(id, "input %" + std::to_string(input) + " does not come before its user");
      }
      if (dag_.nodes[static_cast<std::size_t>(input)].kind == NodeKind::Store) {
        fail_at(id, "input %" + std::to_string(input) + " is a store, which has no value");
      }
    }
    switch (n.kind) {
      case NodeKind::AccFetch:
        check_arity(id, 0, 0);
        if (acc_fetch_ >= 0) fail_at(id, "second accumulator fetch (the first is %" + std::to_string(acc_fetch_) + ")");
        acc_fetch_ = id;
        return;
      case NodeKind::Constant: check_arity(id, 0, 0); return;
      case NodeKind::Load:
        check_arity(id, 0, 0);
        check_slot(id, dag_.params, "parameter");
        return;
      case NodeKind::Compute: {
        if (static_cast<std::size_t>(n.op) >= all_ops().size()) fail_at(id, "has an unknown op code");
        const OpInfo& info = op_info(n.op);
        check_arity(id, static_cast<std::size_t>(info.min_arity), static_cast<std::size_t>(info.max_arity));
        return;
      }
      case NodeKind::Store:
        check_arity(id, 1, 1);
        check_slot(id, dag_.outputs, "output");
        return;
    }
    fail_at(id, "has an unknown node kind");
  }

  void check_one_store_per_output() const {
    std::vector<NodeId> store_of(dag_.outputs.size(), -1);
    for (NodeId id = 0; id < static_cast<NodeId>(dag_.nodes.size()); ++id) {
      const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
      if (n.kind != NodeKind::Store) continue;
      NodeId& first = store_of[static_cast<std::size_t>(n.slot)];
      if (first >= 0) fail_at(id, "second store of output '" + n.name + "' (the first is %" + std::to_string(first) + ")");
      first = id;
    }
    for (std::size_t slot = 0; slot < store_of.size(); ++slot) {
      if (store_of[slot] < 0) fail("output '" + dag_.outputs[slot] + "' has no store");
    }
  }

  // Bound invariants: reductions folded into Stores, every kind decided.
  void check_bound(NodeId id) const {
    const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
    if (n.kind == NodeKind::Compute && op_info(n.op).op_class == OpClass::reduction) {
      fail_at(id, "reduction left as a compute node; it must be folded into the store it feeds");
    }
    if (n.kind == NodeKind::Load && n.load_kind == LoadKind::Unbound) fail_at(id, "load kind is unbound");
    if (n.kind == NodeKind::Store) {
      if (n.store_kind == StoreKind::Unbound) fail_at(id, "store kind is unbound");
      if (is_reduce_store(n.store_kind) &&
          (static_cast<std::size_t>(n.op) >= all_ops().size() || op_info(n.op).op_class != OpClass::reduction)) {
        fail_at(id, std::string(to_string(n.store_kind)) + " store does not carry a reduction op");
      }
    }
  }

  // Typed invariants: one compute type for all Compute and Constant nodes
  // (and scalars passed by value), a valid accumulator, storable outputs.
  void check_types() const {
    NodeId first_compute = -1;
    for (NodeId id = 0; id < static_cast<NodeId>(dag_.nodes.size()); ++id) {
      const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
      if (n.kind != NodeKind::Compute && n.kind != NodeKind::Constant) continue;
      if (first_compute < 0) {
        if (!is_compute_type(n.dtype)) fail_at(id, "compute type " + std::string(to_string(n.dtype)) + " is not allowed");
        first_compute = id;
      } else if (n.dtype != dag_.nodes[static_cast<std::size_t>(first_compute)].dtype) {
        fail_at(id, "type " + std::string(to_string(n.dtype)) + " differs from the compute type " +
                        std::string(to_string(dag_.nodes[static_cast<std::size_t>(first_compute)].dtype)) +
                        " of %" + std::to_string(first_compute));
      }
    }
    for (NodeId id = 0; id < static_cast<NodeId>(dag_.nodes.size()); ++id) {
      const Node& n = dag_.nodes[static_cast<std::size_t>(id)];
      const std::string type(to_string(n.dtype));
      if (n.kind == NodeKind::AccFetch && !is_accumulator_type(n.dtype)) {
        fail_at(id, "accumulator type " + type + " is not allowed");
      }
      if (n.kind == NodeKind::Store && n.dtype == DType::tf32) fail_at(id, "tf32 cannot be stored");
      if (n.kind == NodeKind::Load && n.load_kind == LoadKind::ScalarValue && first_compute >= 0 &&
          n.dtype != dag_.nodes[static_cast<std::size_t>(first_compute)].dtype) {
        fail_at(id, "scalar passed by value has type " + type + ", not the compute type");
      }
    }
  }

  static bool is_compute_type(DType dtype) {
    return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16 || dtype == DType::f64;
  }

  static bool is_accumulator_type(DType dtype) {
    return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::i32 || dtype == DType::f64;
  }

  const Dag& dag_;
  Stage stage_;
  NodeId acc_fetch_ = -1;
};

}  // namespace

void verify(const Dag& dag, Stage stage) { Verifier(dag, stage).run(); }

}  // namespace epigemm::ir
