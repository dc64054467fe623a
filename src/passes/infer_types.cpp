// The type pass: the accumulator type on AccFetch, the compute type on every
// Compute, Constant and by-value scalar, and a check that every output dtype
// can be stored.
#include <string>

#include "epigemm/error.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {
namespace {

bool is_compute_type(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 || dtype == DType::bf16;
}

bool is_accumulator_type(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::i32 || dtype == DType::f64;
}

void check_output_dtype(const ir::Node& store) {
  if (store.dtype == DType::tf32) {
    throw Error(ErrorKind::Type, "Output '" + store.name +
                                     "' has dtype tf32; tf32 is an operand type of A and B; store f32");
  }
}

}  // namespace

ir::Dag infer_types(const ir::Dag& dag, DType accumulator, DType compute) {
  if (!is_compute_type(compute)) {
    throw Error(ErrorKind::Type, "compute type '" + std::string(to_string(compute)) +
                                     "' is not supported; the epilogue computes in f32, f64, f16 or bf16");
  }
  if (!is_accumulator_type(accumulator)) {
    throw Error(ErrorKind::Type, "accumulator type '" + std::string(to_string(accumulator)) +
                                     "' is not supported; the GEMM accumulates in f32, f16, i32 or f64");
  }
  ir::Dag out = dag;
  for (ir::Node& node : out.nodes) {
    switch (node.kind) {
      case ir::NodeKind::AccFetch:
        node.dtype = accumulator;
        break;
      case ir::NodeKind::Constant:
      case ir::NodeKind::Compute:
        node.dtype = compute;
        break;
      case ir::NodeKind::Load:
        if (node.load_kind == ir::LoadKind::ScalarValue) node.dtype = compute;
        break;
      case ir::NodeKind::Store:
        check_output_dtype(node);
        break;
    }
  }
  return out;
}

}  // namespace epigemm::passes
