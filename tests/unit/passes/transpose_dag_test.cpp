// transpose_dag: a DAG bound at (L, M, N) and transposed prints as the same
// DAG bound at (L, N, M) to the transposed tensors: row and column vectors
// and reductions trade kinds; tiles, scalars and everything else stay.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dag_fixture.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

using ir::OpCode;
using testing::DagBuilder;
using testing::tensor;

// def epi(accum, C, bias, scale, s): D = accum * C + bias * scale + s
//   return D, sum(D) (rows or columns by r's shape), max(D) (by c's), amax(D)
ir::Dag vectors_dag() {
  DagBuilder b({"C", "bias", "scale", "s"}, {"D", "r", "c", "m"});
  const ir::NodeId scaled = b.op(OpCode::mul, {b.load("bias"), b.load("scale")});
  const ir::NodeId d =
      b.op(OpCode::add, {b.op(OpCode::add, {b.op(OpCode::mul, {b.acc(), b.load("C")}), scaled}), b.load("s")}, "D");
  b.store("D", d);
  b.store("r", b.op(OpCode::sum, {d}, "r"));
  b.store("c", b.op(OpCode::max, {d}, "c"));
  b.store("m", b.op(OpCode::amax, {d}, "m"));
  return b.dag();
}

class TransposeDag : public testing::RandomExtentsTest {};

TEST_F(TransposeDag, RowsAndColumnsTradeKinds) {
  SCOPED_TRACE(trace());
  // bias varies along N and scale along M; r reduces each row, c each
  // column; s and m are one value.
  const std::map<std::string, Binding> original{
      {"C", tensor(DType::f16, {L, M, N})},  {"bias", tensor(DType::f32, {N})},
      {"scale", tensor(DType::bf16, {M, 1})}, {"s", tensor(DType::f32, {1})},
      {"D", tensor(DType::f16, {L, M, N})},  {"r", tensor(DType::f32, {L, M, 1})},
      {"c", tensor(DType::f32, {1, N})},     {"m", tensor(DType::f32, {1})}};
  // The same tensors seen through (L, N, M).
  const std::map<std::string, Binding> transposed{
      {"C", tensor(DType::f16, {L, N, M})},  {"bias", tensor(DType::f32, {N, 1})},
      {"scale", tensor(DType::bf16, {M})},   {"s", tensor(DType::f32, {1})},
      {"D", tensor(DType::f16, {L, N, M})},  {"r", tensor(DType::f32, {L, 1, M})},
      {"c", tensor(DType::f32, {N, 1})},     {"m", tensor(DType::f32, {1})}};
  const ir::Dag bound = run_pipeline(vectors_dag(), original, {L, M, N}, DType::f32, DType::f32, true);
  const ir::Dag expected = run_pipeline(vectors_dag(), transposed, {L, N, M}, DType::f32, DType::f32, true);
  const std::string before = ir::print_text(bound);
  EXPECT_NE(before, ir::print_text(expected));
  EXPECT_EQ(ir::print_text(transpose_dag(bound)), ir::print_text(expected));
  // Twice is the identity.
  EXPECT_EQ(ir::print_text(transpose_dag(transpose_dag(bound))), before);
}

}  // namespace
}  // namespace epigemm::passes
