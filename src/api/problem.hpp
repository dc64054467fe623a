// Problem: a GemmArguments checked and normalised into what providers need
// (extents, per-operand strides and layouts, the epilogue DAG and its bound
// operands). analyze() throws epigemm::Error for malformed arguments.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "epigemm/gemm.hpp"
#include "ir/dag.hpp"

namespace epigemm::detail {

struct EpilogueProgram;

/// The memory order of a matrix operand's last two dimensions.
enum class Layout : std::uint8_t {
  row_major,  ///< column stride 1
  col_major,  ///< row stride 1
  strided,    ///< neither stride is 1
};

/// Row-major where columns are contiguous (or one), else column-major where
/// rows are (or one), else strided.
Layout matrix_layout(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride) noexcept;

/// A, B or D as a (batch of) rows x cols matrix.
struct MatrixOperand {
  const TensorRef* tensor = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0, cols = 0;
  std::int64_t batch_stride = 0;  ///< 0 when one matrix serves the whole batch
  std::int64_t row_stride = 0, col_stride = 0;
  Layout layout = Layout::row_major;
};

/// One epilogue parameter or output, as a provider reads or writes it.
/// Element (l, m, n) of the broadcast operand is at
/// data + l*stride_l + m*stride_m + n*stride_n (elements); strides are 0
/// on broadcast or reduced axes.
struct EpilogueOperand {
  std::string_view name;
  ir::LoadKind load_kind = ir::LoadKind::Unbound;     ///< inputs
  ir::StoreKind store_kind = ir::StoreKind::Unbound;  ///< outputs
  ir::OpCode reduce_op = ir::OpCode::sum;             ///< outputs with a reduce store
  double value = 0.0;                                 ///< ScalarValue inputs
  const TensorRef* tensor = nullptr;                  ///< null for ScalarValue
  DType dtype = DType::f32;
  std::int64_t stride_l = 0, stride_m = 0, stride_n = 0;
};

struct Problem {
  std::int64_t L = 1, M = 0, N = 0, K = 0;
  MatrixOperand A, B, D;
  DType accumulator = DType::f32;
  DType compute = DType::f32;
  Device device = Device::host;  ///< where all tensors live
  int device_index = 0;
  const EpilogueProgram* program = nullptr;
  const ir::Dag* dag = nullptr;  ///< bound, typed and optimised
  /// The GPU a tool describes without one (OperatorQuery::ignore_devices):
  /// its SM count and L2 bytes, 0 where the device (or a default) tells.
  int described_sm_count = 0;
  std::int64_t described_l2_bytes = 0;
  std::vector<EpilogueOperand> inputs;   ///< in Dag::params order
  std::vector<EpilogueOperand> outputs;  ///< in Dag::outputs order
};

/// Checks `args` and fills `problem` (reusing its storage). Throws Error.
void analyze(const GemmArguments& args, Problem& problem);

/// Whether D is column-major (its M stride 1, its N stride not) and the
/// problem has the program that transpose_problem needs.
bool transposes_to_row_major_d(const Problem& problem) noexcept;

/// Whether D is row-major (its N stride 1, its M stride not) and the
/// problem has the program that transpose_problem needs.
bool transposes_to_column_major_d(const Problem& problem) noexcept;

/// The transposed problem D^T = B^T A^T into `out` (reusing its storage):
/// M and N swapped; A' = B^T, B' = A^T and D' = D^T, views of the same
/// memory; each epilogue operand's M and N strides swapped; row and column
/// kinds traded in the operands and the DAG (EpilogueProgram::transposed).
/// Allocates nothing once `out` has held a problem with as many operands
/// and the DAG's transpose is built. Needs problem.program.
void transpose_problem(const Problem& problem, Problem& out);

}  // namespace epigemm::detail
