// infer_types: accumulator and compute types land on the right nodes, tensor
// loads and stores keep their tensors' dtypes, and tf32 outputs or unusable
// compute types are rejected by name.
#include <gtest/gtest.h>

#include <string>

#include "dag_fixture.hpp"
#include "epigemm/error.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::OpCode;
using testing::DagBuilder;
using testing::tensor;

// def epi(accum, alpha, C): D = accum * alpha + C * 2.0; return D
ir::Dag bound_dag(DType c_dtype, DType d_dtype) {
  DagBuilder b({"alpha", "C"}, {"D"});
  ir::NodeId scaled = b.op(OpCode::mul, {b.acc(), b.load("alpha")});
  ir::NodeId c2 = b.op(OpCode::mul, {b.load("C"), b.constant(2.0)});
  b.store("D", b.op(OpCode::add, {scaled, c2}, "D"));
  return bind_shapes(b.dag(), {{"alpha", 3.0}, {"C", tensor(c_dtype, {16, 8})}, {"D", tensor(d_dtype, {16, 8})}},
                     ProblemExtents{1, 16, 8});
}

TEST(InferTypes, EachNodeKindGetsItsType) {
  const DType accumulators[] = {DType::f32, DType::f16, DType::i32};
  const DType computes[] = {DType::f32, DType::f16, DType::bf16, DType::f64};
  for (DType acc : accumulators) {
    for (DType compute : computes) {
      ir::Dag typed = infer_types(bound_dag(DType::e4m3, DType::bf16), acc, compute);
      for (const ir::Node& n : typed.nodes) {
        switch (n.kind) {
          case ir::NodeKind::AccFetch:
            EXPECT_EQ(n.dtype, acc);
            break;
          case ir::NodeKind::Constant:
          case ir::NodeKind::Compute:
            EXPECT_EQ(n.dtype, compute);
            break;
          case ir::NodeKind::Load:
            EXPECT_EQ(n.dtype, n.name == "alpha" ? compute : DType::e4m3) << n.name;
            break;
          case ir::NodeKind::Store:
            EXPECT_EQ(n.dtype, DType::bf16);
            break;
        }
      }
    }
  }
}

TEST(InferTypes, Tf32OutputIsRejected) {
  try {
    infer_types(bound_dag(DType::f16, DType::tf32), DType::f32, DType::f32);
    ADD_FAILURE() << "a tf32 output was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Type);
    EXPECT_NE(e.message().find("'D'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("tf32 is an operand type of A and B; store f32"), std::string::npos) << e.message();
  }
}

TEST(InferTypes, UnusableComputeTypesAreNamed) {
  const DType bad[] = {DType::e4m3, DType::e5m2, DType::i8, DType::u8, DType::i32, DType::tf32};
  for (DType compute : bad) {
    try {
      infer_types(bound_dag(DType::f16, DType::f16), DType::f32, compute);
      ADD_FAILURE() << "compute type " << to_string(compute) << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Type);
      EXPECT_NE(e.message().find("'" + std::string(to_string(compute)) + "'"), std::string::npos) << e.message();
    }
  }
}

TEST(InferTypes, EightBitSumReductionsAreAllowed) {
  // def epi(accum): D = accum; s = sum(D); return D, s  with s in e4m3 / i8
  const DType small[] = {DType::e4m3, DType::e5m2, DType::i8, DType::u8};
  for (DType dtype : small) {
    DagBuilder b({}, {"D", "s"});
    ir::NodeId d = b.op(OpCode::relu, {b.acc()}, "D");
    b.store("D", d);
    b.store("s", b.op(OpCode::sum, {d}, "s"));
    ir::Dag bound = bind_shapes(b.dag(), {{"D", tensor(DType::f16, {16, 8})}, {"s", tensor(dtype, {1})}},
                                ProblemExtents{1, 16, 8});
    ir::Dag typed = infer_types(bound, DType::f32, DType::f32);
    const ir::Node& s = typed.node(testing::find_node(typed, ir::NodeKind::Store, "s"));
    EXPECT_EQ(s.dtype, dtype);
    EXPECT_EQ(s.store_kind, ir::StoreKind::ScalarReduce);
  }
}

}  // namespace
}  // namespace epigemm::passes

namespace epigemm::passes {
namespace {

TEST(InferTypes, UnusableAccumulatorTypesAreNamed) {
  const DType bad[] = {DType::e4m3, DType::bf16, DType::i8, DType::tf32};
  for (DType acc : bad) {
    try {
      infer_types(bound_dag(DType::f16, DType::f16), acc, DType::f32);
      ADD_FAILURE() << "accumulator type " << to_string(acc) << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Type);
      EXPECT_NE(e.message().find("accumulator type '" + std::string(to_string(acc)) + "'"), std::string::npos)
          << e.message();
    }
  }
}

}  // namespace
}  // namespace epigemm::passes
