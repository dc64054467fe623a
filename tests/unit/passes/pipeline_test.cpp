// run_pipeline on hand-built DAGs: the passes together (bind, types, fold,
// CSE, DCE) with the verifier after each, and the verifier catching a
// malformed raw DAG before any pass runs.
#include <gtest/gtest.h>

#include <random>

#include "dag_fixture.hpp"
#include "epigemm/error.hpp"
#include "ir/verifier.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::OpCode;
using testing::count_nodes;
using testing::DagBuilder;
using testing::tensor;

// def epi(accum, alpha, C, unused):
//     F = accum * alpha + C * (2.0 * 3.0) + C * (3.0 * 2.0)
//     D = relu(F); dead = exp(F); m = amax(D)
//     return D, F, m
ir::Dag relu_aux_dag() {
  DagBuilder b({"alpha", "C", "unused"}, {"D", "F", "m"});
  ir::NodeId acc = b.acc();
  ir::NodeId alpha = b.load("alpha");
  ir::NodeId c = b.load("C");
  ir::NodeId six_a = b.op(OpCode::mul, {b.constant(2.0), b.constant(3.0)});
  ir::NodeId six_b = b.op(OpCode::mul, {b.constant(3.0), b.constant(2.0)});
  ir::NodeId scaled = b.op(OpCode::mul, {acc, alpha});
  ir::NodeId c_a = b.op(OpCode::mul, {c, six_a});
  ir::NodeId c_b = b.op(OpCode::mul, {six_b, c});
  ir::NodeId f = b.op(OpCode::add, {b.op(OpCode::add, {scaled, c_a}), c_b}, "F");
  ir::NodeId d = b.op(OpCode::relu, {f}, "D");
  b.op(OpCode::exp, {f}, "dead");
  b.load("unused");
  ir::NodeId m = b.op(OpCode::amax, {d}, "m");
  b.store("D", d);
  b.store("F", f);
  b.store("m", m);
  return b.dag();
}

TEST(Pipeline, OptimisesAndVerifiesEachStage) {
  const std::uint32_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::int64_t L = 1, M = 1, N = 1;
  testing::random_extents(rng, L, M, N);
  std::map<std::string, Binding> bindings{{"alpha", std::uniform_real_distribution<double>(0.5, 4.0)(rng)},
                                          {"C", tensor(DType::f16, {N})},
                                          {"unused", tensor(DType::f16, {L, M, N})},
                                          {"D", tensor(DType::bf16, {L, M, N})},
                                          {"F", tensor(DType::f16, {L, M, N})},
                                          {"m", tensor(DType::f32, {L, M, 1})}};
  ir::Dag out = run_pipeline(relu_aux_dag(), bindings, ProblemExtents{L, M, N}, DType::f32, DType::f32, true);
  EXPECT_NO_THROW(ir::verify(out, ir::Stage::typed));

  // One constant 6.0, one C * 6.0, no exp, no unused load, no reduction node.
  ASSERT_EQ(count_nodes(out, ir::NodeKind::Constant), 1);
  EXPECT_EQ(out.node(testing::find_node(out, ir::NodeKind::Constant)).value, 6.0);
  EXPECT_EQ(count_nodes(out, ir::NodeKind::Load), 2);
  EXPECT_EQ(testing::find_node(out, ir::NodeKind::Load, "unused"), -1);
  // mul(acc, alpha), mul(C, 6), add, add, relu
  EXPECT_EQ(count_nodes(out, ir::NodeKind::Compute), 5);
  EXPECT_EQ(out.params, (std::vector<std::string>{"alpha", "C", "unused"}));

  const ir::Node& c = out.node(testing::find_node(out, ir::NodeKind::Load, "C"));
  EXPECT_EQ(c.load_kind, ir::LoadKind::Row);
  EXPECT_EQ(c.dtype, DType::f16);
  const ir::Node& m = out.node(testing::find_node(out, ir::NodeKind::Store, "m"));
  EXPECT_EQ(m.store_kind, ir::StoreKind::RowReduce);
  EXPECT_EQ(m.op, OpCode::amax);
  EXPECT_EQ(out.node(m.inputs.at(0)).op, OpCode::relu);
  // C * 6.0 and 6.0 * C merged: both adds read the same product.
  const ir::Node& f = out.node(out.node(testing::find_node(out, ir::NodeKind::Store, "F")).inputs.at(0));
  const ir::Node& inner = out.node(f.inputs.at(0));
  EXPECT_EQ(inner.inputs.at(1), f.inputs.at(1));
}

TEST(Pipeline, StoresTheAccumulatorItself) {
  // def epi(accum, alpha, beta, C, scale):
  //     F = relu(accum * alpha + C * beta); D = F * scale; return D, F, accum
  DagBuilder b({"alpha", "beta", "C", "scale"}, {"D", "F", "accum"});
  ir::NodeId acc = b.acc();
  ir::NodeId f = b.op(OpCode::relu,
                      {b.op(OpCode::add, {b.op(OpCode::mul, {acc, b.load("alpha")}),
                                          b.op(OpCode::mul, {b.load("C"), b.load("beta")})})},
                      "F");
  ir::NodeId d = b.op(OpCode::mul, {f, b.load("scale")}, "D");
  b.store("D", d);
  b.store("F", f);
  b.store("accum", acc);
  std::map<std::string, Binding> bindings{{"alpha", 1.0},  {"beta", 2.0},
                                          {"scale", 0.5},  {"C", tensor(DType::f16, {1, 64, 32})},
                                          {"D", tensor(DType::f16, {1, 64, 32})},
                                          {"F", tensor(DType::f16, {1, 64, 32})},
                                          {"accum", tensor(DType::f32, {1, 64, 32})}};
  ir::Dag out = run_pipeline(b.dag(), bindings, ProblemExtents{1, 64, 32}, DType::f32, DType::bf16, true);
  const ir::Node& store = out.node(testing::find_node(out, ir::NodeKind::Store, "accum"));
  EXPECT_EQ(store.store_kind, ir::StoreKind::Tile);
  EXPECT_EQ(out.node(store.inputs.at(0)).kind, ir::NodeKind::AccFetch);
  EXPECT_EQ(out.node(store.inputs.at(0)).dtype, DType::f32);
  for (const ir::Node& n : out.nodes) {
    if (n.kind == ir::NodeKind::Load) {
      EXPECT_EQ(n.load_kind == ir::LoadKind::ScalarValue, n.name != "C") << n.name;
    }
    if (n.kind == ir::NodeKind::Compute) {
      EXPECT_EQ(n.dtype, DType::bf16);
    }
  }
}

TEST(Pipeline, VerifierCatchesAMalformedRawDag) {
  // Output F is listed but never stored.
  DagBuilder b({}, {"D", "F"});
  b.store("D", b.acc());
  std::map<std::string, Binding> bindings{{"D", tensor(DType::f16, {8, 8})}, {"F", tensor(DType::f16, {8, 8})}};
  try {
    run_pipeline(b.dag(), bindings, ProblemExtents{1, 8, 8}, DType::f32, DType::f32, true);
    ADD_FAILURE() << "a DAG without a store for F passed the verifier";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
    EXPECT_NE(e.message().find("'F'"), std::string::npos) << e.message();
  }
}

TEST(Pipeline, UserErrorsSurfaceUnchanged) {
  DagBuilder b({"bias"}, {"D"});
  b.store("D", b.op(OpCode::add, {b.acc(), b.load("bias")}, "D"));
  std::map<std::string, Binding> bindings{{"bias", tensor(DType::f16, {5})}, {"D", tensor(DType::f16, {8, 16})}};
  try {
    run_pipeline(b.dag(), bindings, ProblemExtents{1, 8, 16}, DType::f32, DType::f32, true);
    ADD_FAILURE() << "a bias of shape (5,) was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Shape);
    EXPECT_EQ(e.message(), "Tensor 'bias' of shape (5,) does not broadcast to the problem shape (L, M, N) = (1, 8, 16)");
  }
}

}  // namespace
}  // namespace epigemm::passes
