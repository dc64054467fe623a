// bind_shapes on outputs: full-tile stores, reductions folded into row,
// column and scalar reduce stores (batched too), and the errors for outputs
// that are numbers, smaller than the tile, expanded or fed a used reduction.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "dag_fixture.hpp"
#include "epigemm/error.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::OpCode;
using testing::DagBuilder;
using testing::tensor;

// def epi(accum, C): D = accum * C; r = OP(D); return D, r
ir::Dag reduce_dag(OpCode op) {
  DagBuilder b({"C"}, {"D", "r"});
  ir::NodeId d = b.op(OpCode::mul, {b.acc(), b.load("C")}, "D");
  ir::NodeId r = b.op(op, {d}, "r", {3, 9});
  b.store("D", d);
  b.store("r", r);
  return b.dag();
}

class BindStores : public testing::RandomExtentsTest {
 protected:
  // Binds reduce_dag(op) with r bound to `r`; D and C are full tiles.
  ir::Dag bind_reduction(OpCode op, const TensorRef& r, bool batched = true) {
    const std::int64_t l = batched ? L : 1;
    std::map<std::string, Binding> bindings{
        {"C", tensor(DType::f16, {l, M, N})}, {"D", tensor(DType::f16, {l, M, N})}, {"r", r}};
    return bind_shapes(reduce_dag(op), bindings, ProblemExtents{l, M, N});
  }

  ir::StoreKind reduce_kind(const TensorRef& r, bool batched = true) {
    ir::Dag bound = bind_reduction(OpCode::sum, r, batched);
    return bound.node(testing::find_node(bound, ir::NodeKind::Store, "r")).store_kind;
  }
};

TEST_F(BindStores, ElementwiseOutputsAreTiles) {
  SCOPED_TRACE(trace());
  ir::Dag bound = bind_reduction(OpCode::sum, tensor(DType::f32, {L, M, 1}));
  const ir::Node& d = bound.node(testing::find_node(bound, ir::NodeKind::Store, "D"));
  EXPECT_EQ(d.store_kind, ir::StoreKind::Tile);
  EXPECT_EQ(d.dtype, DType::f16);
  EXPECT_EQ(bound.node(d.inputs.at(0)).op, OpCode::mul);
}

TEST_F(BindStores, ReductionIsFoldedIntoItsStore) {
  SCOPED_TRACE(trace());
  const OpCode ops[] = {OpCode::sum, OpCode::max, OpCode::min, OpCode::amax};
  for (OpCode op : ops) {
    ir::Dag bound = bind_reduction(op, tensor(DType::bf16, {M, 1}));
    for (const ir::Node& n : bound.nodes) {
      if (n.kind == ir::NodeKind::Compute) {
        EXPECT_NE(ir::op_info(n.op).op_class, ir::OpClass::reduction);
      }
    }
    const ir::Node& r = bound.node(testing::find_node(bound, ir::NodeKind::Store, "r"));
    EXPECT_EQ(r.op, op);
    EXPECT_EQ(r.dtype, DType::bf16);
    EXPECT_EQ(r.slot, 1);
    ASSERT_EQ(r.inputs.size(), 1u);
    // The store reads the reduction's argument, the same value D stores.
    const ir::Node& d = bound.node(testing::find_node(bound, ir::NodeKind::Store, "D"));
    EXPECT_EQ(r.inputs[0], d.inputs[0]);
    EXPECT_TRUE(testing::inputs_precede_users(bound));
  }
}

TEST_F(BindStores, RowReductions) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {M, 1}), false), ir::StoreKind::RowReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {M, 1})), ir::StoreKind::RowReduce);  // over the batch too
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {L, M, 1})), ir::StoreKind::RowReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {1, M, 1})), ir::StoreKind::RowReduce);
}

TEST_F(BindStores, ColumnReductions) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {N}), false), ir::StoreKind::ColumnReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {1, N}), false), ir::StoreKind::ColumnReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {L, 1, N})), ir::StoreKind::ColumnReduce);
}

TEST_F(BindStores, ScalarReductions) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {1})), ir::StoreKind::ScalarReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {})), ir::StoreKind::ScalarReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {1, 1})), ir::StoreKind::ScalarReduce);
  EXPECT_EQ(reduce_kind(tensor(DType::f32, {L, 1, 1})), ir::StoreKind::ScalarReduce);
}

TEST_F(BindStores, OneValueFeedsSeveralReductions) {
  SCOPED_TRACE(trace());
  // def epi(accum): D = relu(accum); s = sum(D); m = max(D); return D, s, m
  DagBuilder b({}, {"D", "s", "m"});
  ir::NodeId d = b.op(OpCode::relu, {b.acc()}, "D");
  b.store("D", d);
  b.store("s", b.op(OpCode::sum, {d}, "s"));
  b.store("m", b.op(OpCode::max, {d}, "m"));
  ir::Dag bound = bind_shapes(b.dag(),
                              {{"D", tensor(DType::f16, {M, N})},
                               {"s", tensor(DType::f32, {M, 1})},
                               {"m", tensor(DType::f32, {N})}},
                              ProblemExtents{1, M, N});
  const ir::Node& s = bound.node(testing::find_node(bound, ir::NodeKind::Store, "s"));
  const ir::Node& m = bound.node(testing::find_node(bound, ir::NodeKind::Store, "m"));
  EXPECT_EQ(s.store_kind, ir::StoreKind::RowReduce);
  EXPECT_EQ(s.op, OpCode::sum);
  EXPECT_EQ(m.store_kind, ir::StoreKind::ColumnReduce);
  EXPECT_EQ(m.op, OpCode::max);
  EXPECT_EQ(s.inputs, m.inputs);
  EXPECT_EQ(bound.node(s.inputs.at(0)).op, OpCode::relu);
  EXPECT_EQ(testing::count_nodes(bound, ir::NodeKind::Compute), 1);
}

// The Error that binding `dag` raises.
Error bind_error(const ir::Dag& dag, const std::map<std::string, Binding>& bindings, ProblemExtents extents) {
  try {
    bind_shapes(dag, bindings, extents);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "bind_shapes accepted the bindings";
  return Error(ErrorKind::Internal, "");
}

TEST(BindStoreErrors, ReductionKeepingEveryElement) {
  // def epi(accum): D = accum; m = amax(D); return D, m  with m of shape (M, N)
  DagBuilder b({}, {"D", "m"});
  ir::NodeId d = b.op(OpCode::relu, {b.acc()}, "D");
  b.store("D", d);
  b.store("m", b.op(OpCode::amax, {d}, "m", {2, 9}));
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {32, 48})}, {"m", tensor(DType::f32, {32, 48})}},
                       ProblemExtents{1, 32, 48});
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("reduction 'amax(D)' is stored into 'm' of shape (32, 48) which keeps every element"),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("(M, 1) for each row, (N,) for each column or (1,) for everything"), std::string::npos)
      << e.message();
}

TEST(BindStoreErrors, ElementwiseValueIntoReducedShapeSuggestsReductions) {
  // def epi(accum): D = accum * 2; F = D; return D, F  with F of shape (M, 1)
  DagBuilder b({}, {"D", "F"});
  ir::NodeId d = b.op(OpCode::mul, {b.acc(), b.constant(2.0)}, "D");
  b.store("D", d);
  b.store("F", d);
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {32, 48})}, {"F", tensor(DType::f16, {32, 1})}},
                       ProblemExtents{1, 32, 48});
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("Output 'F' of shape (32, 1)"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("sum, max, min or amax"), std::string::npos) << e.message();
}

TEST(BindStoreErrors, TileOutputMissingTheBatch) {
  DagBuilder b({}, {"D", "F"});
  ir::NodeId d = b.op(OpCode::relu, {b.acc()}, "D");
  b.store("D", d);
  b.store("F", d);
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {4, 32, 48})}, {"F", tensor(DType::f16, {32, 48})}},
                       ProblemExtents{4, 32, 48});
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("Output 'F'"), std::string::npos) << e.message();
}

TEST(BindStoreErrors, OutputBoundToANumber) {
  DagBuilder b({}, {"D"});
  b.store("D", b.acc());
  Error e = bind_error(b.dag(), {{"D", 1.5}}, ProblemExtents{1, 32, 48});
  EXPECT_EQ(e.message(), "Output 'D' must be bound to a tensor, not a number");
}

TEST(BindStoreErrors, ExpandedOutputIsRejected) {
  DagBuilder b({}, {"D"});
  b.store("D", b.acc());
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {32, 48}, {0, 1})}}, ProblemExtents{1, 32, 48});
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("Output 'D'"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("stride 0"), std::string::npos) << e.message();
}

TEST(BindStoreErrors, OutputThatDoesNotBroadcast) {
  DagBuilder b({}, {"D"});
  b.store("D", b.acc());
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {48, 32})}}, ProblemExtents{1, 32, 48});
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("Output 'D' of shape (48, 32)"), std::string::npos) << e.message();
}

TEST(BindStoreErrors, ReductionUsedAsAValueReportsItsPosition) {
  // def epi(accum): D = accum; x = sum(D) + 1; return D, x
  DagBuilder b({}, {"D", "x"});
  ir::NodeId d = b.op(OpCode::relu, {b.acc()}, "D");
  ir::NodeId s = b.op(OpCode::sum, {d}, "", {3, 9});
  ir::NodeId x = b.op(OpCode::add, {s, b.constant(1.0)}, "x", {3, 5});
  b.store("D", d);
  b.store("x", x);
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {32, 48})}, {"x", tensor(DType::f16, {1})}},
                       ProblemExtents{1, 32, 48});
  EXPECT_NE(e.message().find("'sum(D)'"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("'x'"), std::string::npos) << e.message();
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 9);
}

TEST(BindStoreErrors, MissingBindingUsesTheFrontEndsWording) {
  DagBuilder b({"alpha"}, {"D"});
  b.store("D", b.op(OpCode::mul, {b.acc(), b.load("alpha")}, "D"));
  Error e = bind_error(b.dag(), {{"D", tensor(DType::f16, {32, 48})}}, ProblemExtents{1, 32, 48});
  EXPECT_EQ(e.kind(), ErrorKind::Binding);
  EXPECT_EQ(e.message(), "Argument alpha is not provided in the kwargs of the EpilogueArguments constructor");
}

}  // namespace
}  // namespace epigemm::passes
