// Hand-built DAGs for the verifier and printer tests: the DAG of
//   def epi(accum, alpha, C): F = accum*alpha + C*2.0; D = relu(F); m = amax(F)
//   return D, F, m
// as the front end builds it (raw), after the bind pass and after the type pass.
#pragma once

#include <string>
#include <utility>

#include "ir/dag.hpp"

namespace epigemm::ir::testing {

inline Node make_node(NodeKind kind, std::string name = {}) {
  Node n;
  n.kind = kind;
  n.name = std::move(name);
  return n;
}

inline Node make_compute(OpCode op, std::vector<NodeId> inputs, std::string name = {}) {
  Node n = make_node(NodeKind::Compute, std::move(name));
  n.op = op;
  n.inputs = std::move(inputs);
  return n;
}

inline Node make_load(std::string name, int slot) {
  Node n = make_node(NodeKind::Load, std::move(name));
  n.slot = slot;
  return n;
}

inline Node make_constant(double value) {
  Node n = make_node(NodeKind::Constant);
  n.value = value;
  return n;
}

inline Node make_store(std::string name, int slot, NodeId input) {
  Node n = make_node(NodeKind::Store, std::move(name));
  n.slot = slot;
  n.inputs = {input};
  return n;
}

// Node ids shared by every stage of the sample; the stages differ after kD.
enum SampleNode : NodeId { kAccum = 0, kAlpha, kScaled, kC, kTwo, kScaledC, kF, kD };

/// The nodes up to D = relu(F), every field at its front-end default.
inline Dag sample_prefix() {
  Dag dag;
  dag.function_name = "epi";
  dag.params = {"alpha", "C"};
  dag.outputs = {"D", "F", "m"};
  dag.add(make_node(NodeKind::AccFetch));                        // %0
  dag.add(make_load("alpha", 0));                                // %1
  dag.add(make_compute(OpCode::mul, {kAccum, kAlpha}));          // %2
  dag.add(make_load("C", 1));                                    // %3
  dag.add(make_constant(2.0));                                   // %4
  dag.add(make_compute(OpCode::mul, {kC, kTwo}));                // %5
  dag.add(make_compute(OpCode::add, {kScaled, kScaledC}, "F"));  // %6
  dag.add(make_compute(OpCode::relu, {kF}, "D"));                // %7
  return dag;
}

inline void set_locations(Dag& dag) {
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) dag.nodes[i].loc = {2, static_cast<int>(i) + 1};
}

// Raw ids after the prefix.
enum RawNode : NodeId { kRawM = 8, kRawStoreD, kRawStoreF, kRawStoreM };

/// The raw DAG, straight from the front end: kinds unbound, types f32.
inline Dag sample_raw() {
  Dag dag = sample_prefix();
  dag.add(make_compute(OpCode::amax, {kF}, "m"));  // %8
  dag.add(make_store("D", 0, kD));                 // %9
  dag.add(make_store("F", 1, kF));                 // %10
  dag.add(make_store("m", 2, kRawM));              // %11
  set_locations(dag);
  return dag;
}

// Bound ids after the prefix: the amax node is gone, folded into m's store.
enum BoundNode : NodeId { kStoreD = 8, kStoreF, kStoreM };

/// After binding: alpha a number, C a tile, D and F tiles, m a scalar amax of F.
inline Dag sample_bound() {
  Dag dag = sample_prefix();
  dag.add(make_store("D", 0, kD));  // %8
  dag.add(make_store("F", 1, kF));  // %9
  dag.add(make_store("m", 2, kF));  // %10
  dag.nodes[kAlpha].load_kind = LoadKind::ScalarValue;
  dag.nodes[kC].load_kind = LoadKind::Tile;
  dag.nodes[kStoreD].store_kind = StoreKind::Tile;
  dag.nodes[kStoreF].store_kind = StoreKind::Tile;
  dag.nodes[kStoreM].store_kind = StoreKind::ScalarReduce;
  dag.nodes[kStoreM].op = OpCode::amax;
  set_locations(dag);
  return dag;
}

/// After typing: f32 accumulator and compute type, C and D f16, F and m f32.
inline Dag sample_typed() {
  Dag dag = sample_bound();
  dag.nodes[kC].dtype = DType::f16;
  dag.nodes[kStoreD].dtype = DType::f16;
  return dag;
}

}  // namespace epigemm::ir::testing
