// How a bound tensor lines up with the problem's (L, M, N): NumPy-style
// alignment from the right, which axes vary, and the load kind that follows.
// bind_shapes uses it; the API layer can use it to fill operand strides.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "epigemm/tensor.hpp"
#include "ir/dag.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {

/// Axis indices into AlignedTensor's arrays.
inline constexpr int kAxisL = 0;
inline constexpr int kAxisM = 1;
inline constexpr int kAxisN = 2;

/// A tensor of rank 0..3 seen as an (L, M, N) operand.
struct AlignedTensor {
  /// Extent per axis; 1 where the tensor has no such axis.
  std::array<std::int64_t, 3> extent{1, 1, 1};
  /// Stride per axis in elements; 0 where the axis is broadcast.
  std::array<std::int64_t, 3> stride{0, 0, 0};
  /// Whether the value changes along the axis: the extent is not 1 and the
  /// given stride is not 0.
  std::array<bool, 3> varies{false, false, false};
  /// An axis whose extent is above 1 but whose given stride is 0 (an
  /// expanded tensor): fine to read, never to write.
  std::array<bool, 3> expanded{false, false, false};
};

/// Aligns `tensor` to (L, M, N) from the right. `role` and `name` name it in
/// messages ("Tensor 'bias'", "Output 'D'"). Throws Error(ErrorKind::Shape)
/// when the rank is above 3 or an extent is neither the problem's nor 1.
AlignedTensor align_to_problem(const TensorRef& tensor, ProblemExtents extents, std::string_view role,
                               std::string_view name);

/// Tile, Row, Column or ScalarTensor, from which of M and N vary.
ir::LoadKind load_kind_of(const AlignedTensor& aligned) noexcept;

}  // namespace epigemm::passes
