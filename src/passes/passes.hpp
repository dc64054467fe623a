// The DAG passes, one per file, and the pipeline that runs them. Each pass
// takes a Dag and returns a new one; errors in the user's input throw
// epigemm::Error naming the thing at fault.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "epigemm/tensor.hpp"
#include "ir/dag.hpp"

namespace epigemm::passes {

/// The extents every epilogue operand broadcasts to.
struct ProblemExtents {
  std::int64_t L = 1, M = 1, N = 1;
};

/// Sets each Load's LoadKind and dtype and each Store's StoreKind and dtype
/// from the bound values' shapes and strides (an axis of extent 1 or stride 0
/// is a broadcast axis), folds each reduction into the Store it feeds, and
/// rejects shapes that do not broadcast to (L, M, N), reductions used as
/// values, elementwise values stored into reduced shapes, and so on.
/// Every param and output of the Dag must be in `bindings` (checked before).
ir::Dag bind_shapes(const ir::Dag& dag, const std::map<std::string, Binding>& bindings, ProblemExtents extents);

/// Sets AccFetch to `accumulator` and Compute/Constant nodes to `compute`;
/// rejects dtypes that cannot be stored (e.g. a tf32 output).
ir::Dag infer_types(const ir::Dag& dag, DType accumulator, DType compute);

/// Evaluates Compute nodes whose inputs are all Constants (with the op
/// table's reference math, rounded to the compute type).
ir::Dag fold_constants(const ir::Dag& dag);

/// Merges Compute nodes with the same op and the same inputs, and Constants
/// with the same value.
ir::Dag eliminate_common_subexpressions(const ir::Dag& dag);

/// Drops nodes no Store depends on (parameters stay listed in Dag::params).
ir::Dag eliminate_dead_code(const ir::Dag& dag);

/// The bound DAG of the transposed problem (D^T = B^T A^T, M and N
/// swapped): Row and Column loads, RowReduce and ColumnReduce stores trade
/// kinds.
ir::Dag transpose_dag(const ir::Dag& dag);

/// raw -> bind_shapes -> infer_types -> fold -> CSE -> DCE, verifying after
/// each pass (ir::verify) when `verify_each` is set (tests set it).
ir::Dag run_pipeline(const ir::Dag& raw, const std::map<std::string, Binding>& bindings, ProblemExtents extents,
                     DType accumulator, DType compute, bool verify_each = false);

}  // namespace epigemm::passes
