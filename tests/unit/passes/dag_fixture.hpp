// Test helpers for the passes: a small builder for raw DAGs (so the passes
// can be tested without the front end), host tensor views with a dummy
// pointer, and a random source for extents and values.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "epigemm/tensor.hpp"
#include "ir/dag.hpp"

namespace epigemm::passes::testing {

/// Builds a raw DAG node by node, as the front end would lower it.
class DagBuilder {
 public:
  DagBuilder(std::vector<std::string> params, std::vector<std::string> outputs) {
    dag_.function_name = "epi";
    dag_.params = std::move(params);
    dag_.outputs = std::move(outputs);
  }

  ir::NodeId acc() {
    ir::Node n;
    n.kind = ir::NodeKind::AccFetch;
    n.name = "accum";
    return dag_.add(n);
  }

  ir::NodeId constant(double value) {
    ir::Node n;
    n.kind = ir::NodeKind::Constant;
    n.value = value;
    return dag_.add(n);
  }

  ir::NodeId load(const std::string& param) {
    ir::Node n;
    n.kind = ir::NodeKind::Load;
    n.name = param;
    n.slot = index_of(dag_.params, param);
    return dag_.add(n);
  }

  ir::NodeId op(ir::OpCode code, std::vector<ir::NodeId> inputs, std::string name = "", ir::SourceLoc loc = {}) {
    ir::Node n;
    n.kind = ir::NodeKind::Compute;
    n.op = code;
    n.inputs = std::move(inputs);
    n.name = std::move(name);
    n.loc = loc;
    return dag_.add(n);
  }

  ir::NodeId store(const std::string& output, ir::NodeId value) {
    ir::Node n;
    n.kind = ir::NodeKind::Store;
    n.name = output;
    n.inputs = {value};
    n.slot = index_of(dag_.outputs, output);
    return dag_.add(n);
  }

  const ir::Dag& dag() const { return dag_; }

 private:
  static int index_of(const std::vector<std::string>& names, const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw std::logic_error("test DAG: no slot named " + name);
    return static_cast<int>(it - names.begin());
  }

  ir::Dag dag_;
};

/// A host tensor view that is never dereferenced by the passes.
inline TensorRef tensor(DType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides = {}) {
  static float dummy[1] = {0.0f};
  TensorRef t;
  t.data = dummy;
  t.dtype = dtype;
  t.shape = Dims(shape);
  t.strides = Dims(strides);
  t.device = Device::host;
  return t;
}

/// A fresh random engine per test; the seed is reported on failure by the
/// tests through SCOPED_TRACE.
inline std::uint32_t fresh_seed() { return std::random_device{}(); }

/// Random extents with L, M, N all different and above 1, so every
/// broadcast kind is distinguishable.
inline void random_extents(std::mt19937& rng, std::int64_t& L, std::int64_t& M, std::int64_t& N) {
  std::uniform_int_distribution<std::int64_t> batch(2, 6), dim(7, 300);
  L = batch(rng);
  do {
    M = dim(rng);
    N = dim(rng);
  } while (M == N);
}

/// The first node of `kind` (with `name` when not empty), or -1.
inline ir::NodeId find_node(const ir::Dag& dag, ir::NodeKind kind, const std::string& name = "") {
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    if (dag.nodes[i].kind == kind && (name.empty() || dag.nodes[i].name == name)) return static_cast<ir::NodeId>(i);
  }
  return -1;
}

/// How many nodes of `kind` the DAG has.
inline int count_nodes(const ir::Dag& dag, ir::NodeKind kind) {
  return static_cast<int>(std::count_if(dag.nodes.begin(), dag.nodes.end(),
                                        [kind](const ir::Node& n) { return n.kind == kind; }));
}

/// Whether every node's inputs come before it.
inline bool inputs_precede_users(const ir::Dag& dag) {
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    for (ir::NodeId in : dag.nodes[i].inputs) {
      if (in < 0 || static_cast<std::size_t>(in) >= i) return false;
    }
  }
  return true;
}

/// A test on problem extents L, M, N drawn fresh (all different, above 1);
/// trace() names the seed and extents for SCOPED_TRACE.
class RandomExtentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = fresh_seed();
    rng_.seed(seed_);
    random_extents(rng_, L, M, N);
  }

  std::string trace() const {
    return "seed " + std::to_string(seed_) + " L=" + std::to_string(L) + " M=" + std::to_string(M) +
           " N=" + std::to_string(N);
  }

  std::uint32_t seed_ = 0;
  std::mt19937 rng_;
  std::int64_t L = 1, M = 1, N = 1;
};

}  // namespace epigemm::passes::testing
