// Aligning a bound tensor to the problem's (L, M, N) by NumPy's broadcasting
// rules and classifying it as a scalar, row, column or tile operand. Only
// shapes and strides decide; names never do.
#include "passes/broadcast.hpp"

#include <string>

#include "epigemm/error.hpp"
#include "passes/dag_rewrite.hpp"

namespace epigemm::passes {
namespace {

constexpr int kProblemRank = 3;

std::string quoted(std::string_view role, std::string_view name) {
  return std::string(role) + " '" + std::string(name) + "'";
}

}  // namespace

AlignedTensor align_to_problem(const TensorRef& tensor, ProblemExtents extents, std::string_view role,
                               std::string_view name) {
  const int rank = tensor.rank();
  const std::string shape_text = detail::describe_shape(tensor.shape);
  if (rank > kProblemRank) {
    throw Error(ErrorKind::Shape, quoted(role, name) + " of shape " + shape_text + " has " + std::to_string(rank) +
                                      " dimensions; an epilogue operand has at most 3, broadcast to the problem shape " +
                                      detail::describe_problem(extents));
  }
  const std::array<std::int64_t, 3> problem{extents.L, extents.M, extents.N};
  const Dims strides = tensor.effective_strides();
  if (strides.size() != rank) {
    throw Error(ErrorKind::Shape, quoted(role, name) + " of shape " + shape_text + " has " +
                                      std::to_string(strides.size()) + " strides; it needs one per dimension");
  }

  AlignedTensor aligned;
  bool fits = true;
  for (int i = 0; i < rank; ++i) {
    const int axis = kProblemRank - rank + i;
    const std::int64_t extent = tensor.shape[i];
    if (extent != problem[axis] && extent != 1) fits = false;
    aligned.extent[axis] = extent;
    const bool varies = extent != 1 && strides[i] != 0;
    aligned.varies[axis] = varies;
    aligned.expanded[axis] = extent > 1 && strides[i] == 0;
    aligned.stride[axis] = varies ? strides[i] : 0;
  }
  if (!fits) {
    std::string message = quoted(role, name) + " of shape " + shape_text +
                          " does not broadcast to the problem shape " + detail::describe_problem(extents);
    if (rank == 1 && tensor.shape[0] == extents.M && extents.M != extents.N) {
      message += "; a column vector has shape (M, 1)";
    }
    throw Error(ErrorKind::Shape, message);
  }
  return aligned;
}

ir::LoadKind load_kind_of(const AlignedTensor& aligned) noexcept {
  const bool m = aligned.varies[kAxisM];
  const bool n = aligned.varies[kAxisN];
  if (m && n) return ir::LoadKind::Tile;
  if (n) return ir::LoadKind::Row;
  if (m) return ir::LoadKind::Column;
  return ir::LoadKind::ScalarTensor;
}

}  // namespace epigemm::passes
