// Checks on the memory a tensor view covers: extents and strides that fit in
// int64, outputs whose elements do not alias, and outputs that do not
// overlap inputs or each other. Nothing allocates unless a check fails, so
// run() can call them on every launch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "epigemm/tensor.hpp"

namespace epigemm::detail {

/// Names a tensor in messages: "A", or "Tensor 'bias'" (role + name).
struct TensorName {
  std::string_view role;
  std::string_view name;  ///< empty for A, B, out
  std::string str() const;
};

/// Bytes [begin, end) a tensor can touch.
struct MemoryRange {
  std::uintptr_t begin = 0, end = 0;
  bool overlaps(const MemoryRange& other) const noexcept { return begin < other.end && other.begin < end; }
};

/// Positive extents, non-negative strides, and an element count and largest
/// byte offset that fit in int64. Throws Error naming the tensor.
void check_tensor_extents(TensorName who, const TensorRef& t);

/// No zero stride on an axis of extent > 1 (elements written twice).
void check_output_strides(std::string_view name, const TensorRef& t);

MemoryRange range_of(const TensorRef& t) noexcept;

}  // namespace epigemm::detail
