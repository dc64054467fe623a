// fold_constants: constant operations become Constants holding the exact
// result rounded to the compute type; chains fold in one pass; operations on
// loads and reductions are left alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "dag_fixture.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::OpCode;
using testing::DagBuilder;

// def epi(accum): D = accum * (a OP b); return D, typed in `compute`.
ir::Dag fold_binary(OpCode op, double a, double b, DType compute = DType::f32) {
  DagBuilder builder({}, {"D"});
  ir::NodeId acc = builder.acc();
  ir::NodeId value = builder.op(op, {builder.constant(a), builder.constant(b)}, "", {2, 14});
  builder.store("D", builder.op(OpCode::mul, {acc, value}, "D"));
  ir::Dag dag = builder.dag();
  for (ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Compute || n.kind == ir::NodeKind::Constant) n.dtype = compute;
  }
  return fold_constants(dag);
}

// The value multiplied into accum after folding.
ir::Node folded_operand(const ir::Dag& dag) {
  const ir::Node& store = dag.node(testing::find_node(dag, ir::NodeKind::Store));
  const ir::Node& mul = dag.node(store.inputs.at(0));
  EXPECT_EQ(mul.kind, ir::NodeKind::Compute);
  return dag.node(mul.inputs.at(1));
}

TEST(FoldConstants, ProductOfTwoConstants) {
  ir::Dag folded = fold_binary(OpCode::mul, 2.0, 3.0);
  const ir::Node c = folded_operand(folded);
  ASSERT_EQ(c.kind, ir::NodeKind::Constant);
  EXPECT_EQ(c.value, 6.0);
  EXPECT_TRUE(c.inputs.empty());
  EXPECT_EQ(c.loc.line, 2);
  EXPECT_EQ(c.loc.column, 14);
  EXPECT_TRUE(testing::inputs_precede_users(folded));
}

TEST(FoldConstants, RandomProductsRoundToF32) {
  const std::uint32_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-100.0, 100.0);
  for (int i = 0; i < 50; ++i) {
    const double a = value(rng), b = value(rng);
    const ir::Node c = folded_operand(fold_binary(OpCode::mul, a, b));
    ASSERT_EQ(c.kind, ir::NodeKind::Constant);
    EXPECT_EQ(c.value, static_cast<double>(static_cast<float>(a * b))) << a << " * " << b;
  }
}

TEST(FoldConstants, RoundingToTheComputeTypeIsVisible) {
  const double exact = 0.1 + 0.2;
  const ir::Node f32 = folded_operand(fold_binary(OpCode::add, 0.1, 0.2, DType::f32));
  EXPECT_EQ(f32.value, static_cast<double>(static_cast<float>(exact)));
  EXPECT_NE(f32.value, exact);
  const ir::Node f64 = folded_operand(fold_binary(OpCode::add, 0.1, 0.2, DType::f64));
  EXPECT_EQ(f64.value, exact);
  // 1/3 in f16: 10 mantissa bits, ulp 2^-12 in [1/4, 1/2): round(4096/3) = 1365.
  const ir::Node f16 = folded_operand(fold_binary(OpCode::div, 1.0, 3.0, DType::f16));
  EXPECT_EQ(f16.value, 1365.0 / 4096.0);
}

TEST(FoldConstants, ChainsFoldCompletely) {
  // D = accum + relu(-(2 * 3)) + maximum(4, 5)
  DagBuilder b({}, {"D"});
  ir::NodeId acc = b.acc();
  ir::NodeId six = b.op(OpCode::mul, {b.constant(2.0), b.constant(3.0)});
  ir::NodeId zero = b.op(OpCode::relu, {b.op(OpCode::neg, {six})});
  ir::NodeId five = b.op(OpCode::maximum, {b.constant(4.0), b.constant(5.0)});
  ir::NodeId sum = b.op(OpCode::add, {zero, five});
  b.store("D", b.op(OpCode::add, {acc, sum}, "D"));
  ir::Dag folded = fold_constants(b.dag());
  const ir::Node& store = folded.node(testing::find_node(folded, ir::NodeKind::Store));
  const ir::Node& add = folded.node(store.inputs.at(0));
  ASSERT_EQ(add.kind, ir::NodeKind::Compute);
  const ir::Node& c = folded.node(add.inputs.at(1));
  ASSERT_EQ(c.kind, ir::NodeKind::Constant);
  EXPECT_EQ(c.value, 5.0);
  EXPECT_EQ(testing::count_nodes(folded, ir::NodeKind::Compute), 1);
}

TEST(FoldConstants, MissingOptionalOperandsTakeDefaults) {
  // leaky_relu(-2.0) with the table's default slope.
  DagBuilder b({}, {"D"});
  ir::NodeId acc = b.acc();
  ir::NodeId v = b.op(OpCode::leaky_relu, {b.constant(-2.0)});
  b.store("D", b.op(OpCode::add, {acc, v}, "D"));
  ir::Dag folded = fold_constants(b.dag());
  const ir::Node c = folded_operand(folded);
  ASSERT_EQ(c.kind, ir::NodeKind::Constant);
  const double slope = ir::op_info(OpCode::leaky_relu).defaults[1];
  EXPECT_NE(slope, 0.0);
  EXPECT_EQ(c.value, static_cast<double>(static_cast<float>(-2.0 * slope)));
}

TEST(FoldConstants, LeavesLoadsAccumulatorAndReductionsAlone) {
  // D = accum * alpha; s = sum(2.0)
  DagBuilder b({"alpha"}, {"D", "s"});
  ir::NodeId d = b.op(OpCode::mul, {b.acc(), b.load("alpha")}, "D");
  ir::NodeId s = b.op(OpCode::sum, {b.constant(2.0)}, "s");
  b.store("D", d);
  b.store("s", s);
  ir::Dag folded = fold_constants(b.dag());
  EXPECT_EQ(testing::count_nodes(folded, ir::NodeKind::Compute), 2);
  EXPECT_EQ(testing::count_nodes(folded, ir::NodeKind::Constant), 1);
  EXPECT_EQ(folded.nodes.size(), b.dag().nodes.size());
}

}  // namespace
}  // namespace epigemm::passes
