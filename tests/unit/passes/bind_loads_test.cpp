// bind_shapes on parameters: every broadcast kind (scalar value, one-element
// tensor, row, column, tile, expanded stride-0 views) chosen from shapes and
// strides alone, and the messages for shapes that do not broadcast.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "dag_fixture.hpp"
#include "epigemm/error.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using testing::DagBuilder;
using testing::tensor;

// def epi(accum, NAME): D = accum + NAME; return D
ir::Dag add_param_dag(const std::string& name) {
  DagBuilder b({name}, {"D"});
  ir::NodeId acc = b.acc();
  ir::NodeId x = b.load(name);
  b.store("D", b.op(ir::OpCode::add, {acc, x}, "D"));
  return b.dag();
}

class BindLoads : public testing::RandomExtentsTest {
 protected:
  // The load kind `value` gets as parameter `name` of a batched problem.
  ir::LoadKind kind_of(const Binding& value, const std::string& name = "X") {
    ir::Dag bound = bind_shapes(add_param_dag(name), {{name, value}, {"D", tensor(DType::f16, {L, M, N})}},
                                ProblemExtents{L, M, N});
    ir::NodeId load = testing::find_node(bound, ir::NodeKind::Load, name);
    EXPECT_GE(load, 0);
    return bound.node(load).load_kind;
  }
};

TEST_F(BindLoads, NumberIsScalarValue) {
  SCOPED_TRACE(trace());
  std::uniform_real_distribution<double> value(-10.0, 10.0);
  EXPECT_EQ(kind_of(Binding(value(rng_))), ir::LoadKind::ScalarValue);
}

TEST_F(BindLoads, OneElementTensorsAreScalarTensors) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(kind_of(tensor(DType::f32, {})), ir::LoadKind::ScalarTensor);
  EXPECT_EQ(kind_of(tensor(DType::f32, {1})), ir::LoadKind::ScalarTensor);
  EXPECT_EQ(kind_of(tensor(DType::f32, {1, 1})), ir::LoadKind::ScalarTensor);
  EXPECT_EQ(kind_of(tensor(DType::f32, {1, 1, 1})), ir::LoadKind::ScalarTensor);
  // One value per batch is still a scalar within each GEMM of the batch.
  EXPECT_EQ(kind_of(tensor(DType::f32, {L, 1, 1})), ir::LoadKind::ScalarTensor);
}

TEST_F(BindLoads, RowVectors) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(kind_of(tensor(DType::f16, {N})), ir::LoadKind::Row);
  EXPECT_EQ(kind_of(tensor(DType::f16, {1, N})), ir::LoadKind::Row);
  EXPECT_EQ(kind_of(tensor(DType::f16, {L, 1, N})), ir::LoadKind::Row);
  EXPECT_EQ(kind_of(tensor(DType::f16, {1, 1, N})), ir::LoadKind::Row);
}

TEST_F(BindLoads, ColumnVectors) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(kind_of(tensor(DType::bf16, {M, 1})), ir::LoadKind::Column);
  EXPECT_EQ(kind_of(tensor(DType::bf16, {L, M, 1})), ir::LoadKind::Column);
  EXPECT_EQ(kind_of(tensor(DType::bf16, {1, M, 1})), ir::LoadKind::Column);
}

TEST_F(BindLoads, Tiles) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(kind_of(tensor(DType::f32, {M, N})), ir::LoadKind::Tile);
  EXPECT_EQ(kind_of(tensor(DType::f32, {L, M, N})), ir::LoadKind::Tile);
  EXPECT_EQ(kind_of(tensor(DType::f32, {1, M, N})), ir::LoadKind::Tile);
  // Column-major and padded strides do not change the kind.
  EXPECT_EQ(kind_of(tensor(DType::f32, {M, N}, {1, M})), ir::LoadKind::Tile);
  EXPECT_EQ(kind_of(tensor(DType::f32, {L, M, N}, {M * (N + 3), N + 3, 1})), ir::LoadKind::Tile);
}

TEST_F(BindLoads, ExpandedStrideZeroViewsAreBroadcasts) {
  SCOPED_TRACE(trace());
  // torch.expand of a row, a column and a scalar to (M, N).
  EXPECT_EQ(kind_of(tensor(DType::f16, {M, N}, {0, 1})), ir::LoadKind::Row);
  EXPECT_EQ(kind_of(tensor(DType::f16, {M, N}, {1, 0})), ir::LoadKind::Column);
  EXPECT_EQ(kind_of(tensor(DType::f16, {M, N}, {0, 0})), ir::LoadKind::ScalarTensor);
  EXPECT_EQ(kind_of(tensor(DType::f16, {L, M, N}, {0, 0, 0})), ir::LoadKind::ScalarTensor);
  // A tile shared by the batch (batch stride 0) is still a tile.
  EXPECT_EQ(kind_of(tensor(DType::f16, {L, M, N}, {0, N, 1})), ir::LoadKind::Tile);
  EXPECT_EQ(kind_of(tensor(DType::f16, {L, M, N}, {M, 1, 0})), ir::LoadKind::Column);
}

TEST_F(BindLoads, KindComesFromShapeNotName) {
  SCOPED_TRACE(trace());
  // A 1-D bias named C is a row vector, like any other 1-D tensor of length N.
  EXPECT_EQ(kind_of(tensor(DType::f16, {N}), "C"), ir::LoadKind::Row);
  EXPECT_EQ(kind_of(tensor(DType::f16, {M, 1}), "row_bias"), ir::LoadKind::Column);
  EXPECT_EQ(kind_of(tensor(DType::f16, {M, N}), "bias"), ir::LoadKind::Tile);
  EXPECT_EQ(kind_of(Binding(2.0), "C"), ir::LoadKind::ScalarValue);
}

TEST_F(BindLoads, LoadDtypeIsTheTensorsAndScalarsArePlaceholders) {
  SCOPED_TRACE(trace());
  const DType dtypes[] = {DType::f16, DType::bf16, DType::e4m3, DType::i8, DType::f32};
  for (DType dtype : dtypes) {
    ir::Dag bound = bind_shapes(add_param_dag("C"), {{"C", tensor(dtype, {M, N})}, {"D", tensor(DType::f32, {M, N})}},
                                ProblemExtents{1, M, N});
    EXPECT_EQ(bound.node(testing::find_node(bound, ir::NodeKind::Load)).dtype, dtype);
  }
  ir::Dag bound = bind_shapes(add_param_dag("s"), {{"s", 0.5}, {"D", tensor(DType::f32, {M, N})}},
                              ProblemExtents{1, M, N});
  EXPECT_EQ(bound.node(testing::find_node(bound, ir::NodeKind::Load)).dtype, DType::f32);
}

TEST_F(BindLoads, ExtentOneAxesOfADegenerateProblemAreBroadcast) {
  SCOPED_TRACE(trace());
  // With M == 1 a full tile (1, N) reads the same as a row vector.
  ir::Dag bound = bind_shapes(add_param_dag("X"), {{"X", tensor(DType::f32, {1, N})}, {"D", tensor(DType::f32, {1, N})}},
                              ProblemExtents{1, 1, N});
  EXPECT_EQ(bound.node(testing::find_node(bound, ir::NodeKind::Load)).load_kind, ir::LoadKind::Row);
  // With N == 1 a full tile (M, 1) reads the same as a column vector.
  bound = bind_shapes(add_param_dag("X"), {{"X", tensor(DType::f32, {M, 1})}, {"D", tensor(DType::f32, {M, 1})}},
                      ProblemExtents{1, M, 1});
  EXPECT_EQ(bound.node(testing::find_node(bound, ir::NodeKind::Load)).load_kind, ir::LoadKind::Column);
}

// The message `value` bound to "bias" raises against a (1, 128, 64) problem.
Error bind_error(const TensorRef& value) {
  try {
    bind_shapes(add_param_dag("bias"), {{"bias", value}, {"D", tensor(DType::f16, {128, 64})}},
                ProblemExtents{1, 128, 64});
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "bind_shapes accepted " << value.shape.to_string();
  return Error(ErrorKind::Internal, "");
}

TEST(BindLoadErrors, ShapeThatDoesNotBroadcastNamesTensorAndShapes) {
  Error e = bind_error(tensor(DType::f16, {7}));
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_EQ(e.message(), "Tensor 'bias' of shape (7,) does not broadcast to the problem shape (L, M, N) = (1, 128, 64)");
}

TEST(BindLoadErrors, OneDimensionalLengthMGetsAColumnHint) {
  Error e = bind_error(tensor(DType::f16, {128}));
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("Tensor 'bias' of shape (128,) does not broadcast"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("a column vector has shape (M, 1)"), std::string::npos) << e.message();
}

TEST(BindLoadErrors, TransposedTileDoesNotBroadcast) {
  Error e = bind_error(tensor(DType::f16, {64, 128}));
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("(64, 128)"), std::string::npos) << e.message();
  EXPECT_EQ(e.message().find("column vector"), std::string::npos) << e.message();
}

TEST(BindLoadErrors, WrongBatchDoesNotBroadcast) {
  Error e = bind_error(tensor(DType::f16, {3, 128, 64}));
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("(3, 128, 64)"), std::string::npos) << e.message();
}

TEST(BindLoadErrors, RankAboveThreeIsRejected) {
  Error e = bind_error(tensor(DType::f16, {1, 1, 128, 64}));
  EXPECT_EQ(e.kind(), ErrorKind::Shape);
  EXPECT_NE(e.message().find("Tensor 'bias'"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("4 dimensions"), std::string::npos) << e.message();
}

TEST(BindLoadErrors, UnusedParameterIsFine) {
  // def epi(accum, unused): D = accum; return D
  DagBuilder b({"unused"}, {"D"});
  b.store("D", b.acc());
  ir::Dag bound = bind_shapes(b.dag(), {{"unused", tensor(DType::f16, {128, 64})}, {"D", tensor(DType::f16, {128, 64})}},
                              ProblemExtents{1, 128, 64});
  EXPECT_EQ(bound.params, std::vector<std::string>{"unused"});
  EXPECT_EQ(bound.node(testing::find_node(bound, ir::NodeKind::Store)).store_kind, ir::StoreKind::Tile);
}

}  // namespace
}  // namespace epigemm::passes
