// Tests of the DAG verifier: the sample DAGs pass at their stage, and one
// hand-broken DAG per invariant fails with an Internal error that names the
// node and the problem.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "epigemm/error.hpp"
#include "ir/verifier.hpp"
#include "sample_dags.hpp"

namespace epigemm::ir::testing {
namespace {

/// verify() must throw an Internal error whose message contains every piece.
void expect_invalid(const Dag& dag, Stage stage, std::initializer_list<std::string> pieces) {
  try {
    verify(dag, stage);
    ADD_FAILURE() << "verify accepted a broken DAG; expected: " << *pieces.begin();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
    for (const std::string& piece : pieces) {
      EXPECT_NE(e.message().find(piece), std::string::npos) << "'" << piece << "' not in: " << e.message();
    }
  }
}

/// A broken copy of the raw sample.
Dag broken_raw(const std::function<void(Dag&)>& change) {
  Dag dag = sample_raw();
  change(dag);
  return dag;
}

Dag broken_typed(const std::function<void(Dag&)>& change) {
  Dag dag = sample_typed();
  change(dag);
  return dag;
}

TEST(Verifier, SamplesPassAtTheirStages) {
  EXPECT_NO_THROW(verify(sample_raw(), Stage::raw));
  EXPECT_NO_THROW(verify(sample_bound(), Stage::raw));
  EXPECT_NO_THROW(verify(sample_bound(), Stage::bound));
  EXPECT_NO_THROW(verify(sample_typed(), Stage::typed));
  Dag empty_outputs;
  empty_outputs.function_name = "epi";
  EXPECT_NO_THROW(verify(empty_outputs, Stage::typed));
}

TEST(Verifier, RawDagIsNotBound) {
  expect_invalid(sample_raw(), Stage::bound, {"%1", "load kind is unbound"});
}

TEST(Verifier, InputsComeBeforeUsers) {
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kScaled].inputs = {kAccum, kC}; }), Stage::raw,
                 {"node %2", "mul", "input %3 does not come before"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kD].inputs = {kD}; }), Stage::raw, {"node %7", "input %7"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kD].inputs = {-1}; }), Stage::raw, {"node %7", "input %-1"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kRawStoreF].inputs = {500}; }), Stage::raw, {"node %10", "%500"});
}

TEST(Verifier, StoresHaveNoValue) {
  Dag dag = sample_raw();
  dag.add(make_compute(OpCode::neg, {kRawStoreD}));
  expect_invalid(dag, Stage::raw, {"node %12", "input %9 is a store"});
}

TEST(Verifier, ComputeArityFromTheTable) {
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kD].inputs = {kF, kF}; }), Stage::raw,
                 {"node %7", "relu", "has 2 inputs, expected 1"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kF].inputs = {kScaled}; }), Stage::raw,
                 {"node %6", "add", "has 1 inputs, expected 2"});
  // leaky_relu takes one or two.
  Dag dag = sample_raw();
  dag.nodes[kD] = make_compute(OpCode::leaky_relu, {kF}, "D");
  EXPECT_NO_THROW(verify(dag, Stage::raw));
  dag.nodes[kD].inputs = {kF, kTwo};
  EXPECT_NO_THROW(verify(dag, Stage::raw));
  dag.nodes[kD].inputs = {kF, kTwo, kTwo};
  expect_invalid(dag, Stage::raw, {"node %7", "leaky_relu", "expected 1 to 2"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kD].op = static_cast<OpCode>(200); }), Stage::raw,
                 {"node %7", "unknown op code"});
}

TEST(Verifier, LeavesHaveNoInputs) {
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kC].inputs = {kAccum}; }), Stage::raw,
                 {"node %3", "load C", "expected 0"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kTwo].inputs = {kAccum}; }), Stage::raw, {"node %4", "constant"});
  Dag dag = sample_raw();
  dag.nodes[kAccum].inputs = {0};
  expect_invalid(dag, Stage::raw, {"node %0"});
}

TEST(Verifier, AtMostOneAccumulatorFetch) {
  Dag dag = sample_raw();
  dag.add(make_node(NodeKind::AccFetch));
  expect_invalid(dag, Stage::raw, {"node %12", "second accumulator fetch", "%0"});
}

TEST(Verifier, LoadSlots) {
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kC].slot = 2; }), Stage::raw,
                 {"node %3", "slot 2 is out of range", "2 parameters"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kC].slot = -1; }), Stage::raw, {"node %3", "slot -1"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kC].slot = 0; }), Stage::raw,
                 {"node %3", "slot 0 names parameter 'alpha', not 'C'"});
}

TEST(Verifier, StoreSlotsAndArity) {
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kRawStoreM].slot = 3; }), Stage::raw,
                 {"node %11", "slot 3 is out of range", "3 outputs"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kRawStoreF].name = "G"; }), Stage::raw,
                 {"node %10", "names output 'F', not 'G'"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kRawStoreD].inputs = {}; }), Stage::raw,
                 {"node %9", "has 0 inputs, expected 1"});
  expect_invalid(broken_raw([](Dag& d) { d.nodes[kRawStoreD].inputs = {kD, kF}; }), Stage::raw,
                 {"node %9", "has 2 inputs"});
}

TEST(Verifier, ExactlyOneStorePerOutput) {
  Dag twice = sample_raw();
  twice.add(make_store("F", 1, kD));
  expect_invalid(twice, Stage::raw, {"node %12", "second store of output 'F'", "%10"});
  Dag missing = sample_raw();
  missing.nodes.pop_back();  // m's store
  expect_invalid(missing, Stage::raw, {"output 'm' has no store"});
}

TEST(Verifier, NamesAreUniqueAndNonEmpty) {
  expect_invalid(broken_raw([](Dag& d) { d.params.push_back("alpha"); }), Stage::raw, {"parameter 'alpha'", "twice"});
  expect_invalid(broken_raw([](Dag& d) { d.outputs.push_back(""); }), Stage::raw, {"output", "empty name"});
}

TEST(Verifier, BoundHasNoReductionComputes) {
  Dag dag = sample_bound();
  dag.nodes[kD].op = OpCode::sum;
  expect_invalid(dag, Stage::bound, {"node %7", "sum", "reduction left as a compute node"});
  EXPECT_NO_THROW(verify(dag, Stage::raw));
}

TEST(Verifier, BoundKindsAreSet) {
  Dag load = sample_bound();
  load.nodes[kC].load_kind = LoadKind::Unbound;
  expect_invalid(load, Stage::bound, {"node %3", "load C", "load kind is unbound"});
  Dag store = sample_bound();
  store.nodes[kStoreF].store_kind = StoreKind::Unbound;
  expect_invalid(store, Stage::bound, {"node %9", "store F", "store kind is unbound"});
}

TEST(Verifier, ReduceStoresCarryAReductionOp) {
  for (StoreKind kind : {StoreKind::RowReduce, StoreKind::ColumnReduce, StoreKind::ScalarReduce}) {
    Dag dag = sample_bound();
    dag.nodes[kStoreM].store_kind = kind;
    EXPECT_NO_THROW(verify(dag, Stage::bound));
    dag.nodes[kStoreM].op = OpCode::add;
    expect_invalid(dag, Stage::bound, {"node %10", "store does not carry a reduction op"});
  }
  // A tile store ignores its op field.
  Dag tile = sample_bound();
  tile.nodes[kStoreD].op = OpCode::mul;
  EXPECT_NO_THROW(verify(tile, Stage::bound));
}

TEST(Verifier, TypedComputeTypeIsUniform) {
  expect_invalid(broken_typed([](Dag& d) { d.nodes[kF].dtype = DType::f16; }), Stage::typed,
                 {"node %6", "type f16 differs from the compute type f32 of %2"});
  expect_invalid(broken_typed([](Dag& d) { d.nodes[kTwo].dtype = DType::f64; }), Stage::typed, {"node %4", "f64"});
  // All compute nodes in f16 is fine, as long as scalars by value follow.
  Dag half = sample_typed();
  for (NodeId id : {kScaled, kTwo, kScaledC, kF, kD}) half.nodes[static_cast<std::size_t>(id)].dtype = DType::f16;
  expect_invalid(half, Stage::typed, {"node %1", "scalar passed by value has type f32"});
  half.nodes[kAlpha].dtype = DType::f16;
  EXPECT_NO_THROW(verify(half, Stage::typed));
  // The bound stage does not look at types.
  EXPECT_NO_THROW(verify(broken_typed([](Dag& d) { d.nodes[kF].dtype = DType::f16; }), Stage::bound));
}

TEST(Verifier, TypedAllowedTypes) {
  Dag fp8 = sample_typed();
  for (NodeId id : {kScaled, kTwo, kScaledC, kF, kD}) fp8.nodes[static_cast<std::size_t>(id)].dtype = DType::e4m3;
  expect_invalid(fp8, Stage::typed, {"node %2", "compute type e4m3 is not allowed"});
  expect_invalid(broken_typed([](Dag& d) { d.nodes[kAccum].dtype = DType::u8; }), Stage::typed,
                 {"node %0", "accumulator type u8"});
  expect_invalid(broken_typed([](Dag& d) { d.nodes[kStoreF].dtype = DType::tf32; }), Stage::typed,
                 {"node %9", "tf32 cannot be stored"});
  // Stored and loaded tensors may have any other type.
  Dag stored = sample_typed();
  stored.nodes[kStoreD].dtype = DType::e5m2;
  stored.nodes[kC].dtype = DType::i8;
  stored.nodes[kAccum].dtype = DType::i32;
  EXPECT_NO_THROW(verify(stored, Stage::typed));
}

}  // namespace
}  // namespace epigemm::ir::testing
