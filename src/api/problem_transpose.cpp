// The transposed problem: a column-major D is the row-major D^T of
// B^T A^T (and a row-major D the column-major D^T), which a provider runs
// where it writes D only the other way, or runs faster so.
#include <utility>

#include "api/epilogue_program.hpp"
#include "api/problem.hpp"

namespace epigemm::detail {
namespace {

MatrixOperand transposed(const MatrixOperand& m) {
  MatrixOperand t = m;
  std::swap(t.rows, t.cols);
  std::swap(t.row_stride, t.col_stride);
  t.layout = matrix_layout(t.rows, t.cols, t.row_stride, t.col_stride);
  return t;
}

void transpose_operands(const std::vector<EpilogueOperand>& from, std::vector<EpilogueOperand>& to) {
  to.assign(from.begin(), from.end());
  for (EpilogueOperand& op : to) {
    std::swap(op.stride_m, op.stride_n);
    op.load_kind = ir::transposed(op.load_kind);
    op.store_kind = ir::transposed(op.store_kind);
  }
}

}  // namespace

bool transposes_to_row_major_d(const Problem& p) noexcept {
  return p.program != nullptr && p.dag != nullptr && p.D.row_stride == 1 && p.D.col_stride != 1;
}

bool transposes_to_column_major_d(const Problem& p) noexcept {
  return p.program != nullptr && p.dag != nullptr && p.D.col_stride == 1 && p.D.row_stride != 1;
}

void transpose_problem(const Problem& p, Problem& out) {
  out.L = p.L;
  out.M = p.N;
  out.N = p.M;
  out.K = p.K;
  out.A = transposed(p.B);
  out.B = transposed(p.A);
  out.D = transposed(p.D);
  out.accumulator = p.accumulator;
  out.compute = p.compute;
  out.device = p.device;
  out.device_index = p.device_index;
  out.program = p.program;
  out.dag = &p.program->transposed(*p.dag);
  out.described_sm_count = p.described_sm_count;
  out.described_l2_bytes = p.described_l2_bytes;
  transpose_operands(p.inputs, out.inputs);
  transpose_operands(p.outputs, out.outputs);
}

}  // namespace epigemm::detail
