// eliminate_common_subexpressions and eliminate_dead_code: equal work is
// done once (commutative operands in either order), distinct work is kept,
// and only what some output needs survives, renumbered in order.
#include <gtest/gtest.h>

#include <random>

#include "dag_fixture.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::OpCode;
using testing::count_nodes;
using testing::DagBuilder;

int count_ops(const ir::Dag& dag, OpCode op) {
  int n = 0;
  for (const ir::Node& node : dag.nodes) n += node.kind == ir::NodeKind::Compute && node.op == op;
  return n;
}

// def epi(accum, a, b): D = (a OP1 b) + (X OP2 Y); return D, with the second
// operand order swapped when `swap` is set.
ir::Dag two_products(OpCode op, bool swap) {
  DagBuilder builder({"a", "b"}, {"D"});
  ir::NodeId a = builder.load("a");
  ir::NodeId b = builder.load("b");
  ir::NodeId first = builder.op(op, {a, b});
  ir::NodeId second = swap ? builder.op(op, {b, a}) : builder.op(op, {a, b});
  builder.store("D", builder.op(OpCode::add, {first, second}, "D"));
  return builder.dag();
}

TEST(Cse, RepeatedProductIsComputedOnce) {
  ir::Dag out = eliminate_common_subexpressions(two_products(OpCode::mul, false));
  EXPECT_EQ(count_ops(out, OpCode::mul), 1);
  const ir::Node& add = out.node(out.node(testing::find_node(out, ir::NodeKind::Store)).inputs.at(0));
  ASSERT_EQ(add.inputs.size(), 2u);
  EXPECT_EQ(add.inputs[0], add.inputs[1]);
  EXPECT_TRUE(testing::inputs_precede_users(out));
}

TEST(Cse, CommutativeOperandsInEitherOrderMerge) {
  const OpCode commutative[] = {OpCode::add, OpCode::mul, OpCode::maximum, OpCode::minimum, OpCode::eq, OpCode::ne};
  for (OpCode op : commutative) {
    ir::Dag out = eliminate_common_subexpressions(two_products(op, true));
    EXPECT_EQ(count_ops(out, op), op == OpCode::add ? 2 : 1) << ir::op_info(op).name;
  }
}

TEST(Cse, OrderMattersForOtherOps) {
  const OpCode ordered[] = {OpCode::sub, OpCode::div, OpCode::pow, OpCode::lt};
  for (OpCode op : ordered) {
    ir::Dag out = eliminate_common_subexpressions(two_products(op, true));
    EXPECT_EQ(count_ops(out, op), 2) << ir::op_info(op).name;
    out = eliminate_common_subexpressions(two_products(op, false));
    EXPECT_EQ(count_ops(out, op), 1) << ir::op_info(op).name;
  }
}

TEST(Cse, ConstantsMergeOnlyWhenBitwiseEqual) {
  const std::uint32_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const double v = std::uniform_real_distribution<double>(0.5, 8.0)(rng);
  // D = accum * v + accum * v ;  F = accum * 0.0 + accum * -0.0
  DagBuilder b({}, {"D", "F"});
  ir::NodeId acc = b.acc();
  ir::NodeId d = b.op(OpCode::add, {b.op(OpCode::mul, {acc, b.constant(v)}), b.op(OpCode::mul, {acc, b.constant(v)})});
  ir::NodeId f =
      b.op(OpCode::add, {b.op(OpCode::mul, {acc, b.constant(0.0)}), b.op(OpCode::mul, {acc, b.constant(-0.0)})});
  b.store("D", d);
  b.store("F", f);
  ir::Dag out = eliminate_common_subexpressions(b.dag());
  EXPECT_EQ(count_nodes(out, ir::NodeKind::Constant), 3);
  EXPECT_EQ(count_ops(out, OpCode::mul), 3);
  EXPECT_EQ(count_nodes(out, ir::NodeKind::Store), 2);
}

TEST(Cse, LoadsOfOneParameterMerge) {
  DagBuilder b({"C", "E"}, {"D"});
  ir::NodeId c1 = b.load("C");
  ir::NodeId c2 = b.load("C");
  ir::NodeId e = b.load("E");
  b.store("D", b.op(OpCode::add, {b.op(OpCode::mul, {c1, e}), b.op(OpCode::mul, {e, c2})}, "D"));
  ir::Dag out = eliminate_common_subexpressions(b.dag());
  EXPECT_EQ(count_nodes(out, ir::NodeKind::Load), 2);
  EXPECT_EQ(count_ops(out, OpCode::mul), 1);
}

TEST(Cse, MergesThroughChains) {
  // relu(a * b) and relu(b * a) are the same once their operands merge.
  DagBuilder b({"a", "b"}, {"D", "F"});
  ir::NodeId x = b.load("a"), y = b.load("b");
  b.store("D", b.op(OpCode::relu, {b.op(OpCode::mul, {x, y})}));
  b.store("F", b.op(OpCode::relu, {b.op(OpCode::mul, {y, x})}));
  ir::Dag out = eliminate_common_subexpressions(b.dag());
  EXPECT_EQ(count_ops(out, OpCode::relu), 1);
  const ir::NodeId d = testing::find_node(out, ir::NodeKind::Store, "D");
  const ir::NodeId f = testing::find_node(out, ir::NodeKind::Store, "F");
  EXPECT_EQ(out.node(d).inputs, out.node(f).inputs);
}

TEST(Dce, DropsWhatNoOutputNeeds) {
  // def epi(accum, alpha, unused): t = exp(accum); D = accum * alpha; return D
  DagBuilder b({"alpha", "unused"}, {"D"});
  ir::NodeId acc = b.acc();
  ir::NodeId u = b.load("unused");
  ir::NodeId t = b.op(OpCode::exp, {acc}, "t");
  b.op(OpCode::add, {t, u}, "dead");
  ir::NodeId alpha = b.load("alpha");
  b.store("D", b.op(OpCode::mul, {acc, alpha}, "D"));
  ir::Dag out = eliminate_dead_code(b.dag());
  ASSERT_EQ(out.nodes.size(), 4u);
  EXPECT_EQ(out.nodes[0].kind, ir::NodeKind::AccFetch);
  EXPECT_EQ(out.nodes[1].kind, ir::NodeKind::Load);
  EXPECT_EQ(out.nodes[1].name, "alpha");
  EXPECT_EQ(out.nodes[1].slot, 0);
  EXPECT_EQ(out.nodes[2].op, OpCode::mul);
  EXPECT_EQ(out.nodes[2].inputs, (std::vector<ir::NodeId>{0, 1}));
  EXPECT_EQ(out.nodes[3].kind, ir::NodeKind::Store);
  EXPECT_EQ(out.nodes[3].inputs, std::vector<ir::NodeId>{2});
  EXPECT_EQ(out.params, (std::vector<std::string>{"alpha", "unused"}));
  EXPECT_EQ(out.outputs, std::vector<std::string>{"D"});
}

TEST(Dce, KeepsEverythingLiveAndTheOrder) {
  ir::Dag dag = two_products(OpCode::mul, false);
  ir::Dag out = eliminate_dead_code(dag);
  ASSERT_EQ(out.nodes.size(), dag.nodes.size());
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    EXPECT_EQ(out.nodes[i].kind, dag.nodes[i].kind);
    EXPECT_EQ(out.nodes[i].inputs, dag.nodes[i].inputs);
  }
}

TEST(Dce, ReordersNothingButRenumbersAfterRemovals) {
  // Dead nodes interleaved with live ones: ids shift down, order kept.
  DagBuilder b({"x"}, {"D"});
  b.constant(1.0);  // dead
  ir::NodeId acc = b.acc();
  b.op(OpCode::exp, {acc});  // dead
  ir::NodeId x = b.load("x");
  b.constant(2.0);  // dead
  ir::NodeId sum = b.op(OpCode::add, {x, acc}, "D");
  b.store("D", sum);
  ir::Dag out = eliminate_dead_code(b.dag());
  ASSERT_EQ(out.nodes.size(), 4u);
  EXPECT_EQ(out.nodes[0].kind, ir::NodeKind::AccFetch);
  EXPECT_EQ(out.nodes[1].kind, ir::NodeKind::Load);
  EXPECT_EQ(out.nodes[2].inputs, (std::vector<ir::NodeId>{1, 0}));
  EXPECT_EQ(out.nodes[3].inputs, std::vector<ir::NodeId>{2});
}

}  // namespace
}  // namespace epigemm::passes
