// Checks on the memory a tensor view covers: extents and strides that fit in
// int64, outputs whose elements do not alias, and outputs that do not
// overlap inputs or each other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "epigemm/tensor.hpp"

namespace epigemm::detail {

/// Bytes [begin, end) a tensor can touch.
struct MemoryRange {
  std::uintptr_t begin = 0, end = 0;
};

struct NamedRange {
  std::string name;
  MemoryRange range;
};

/// Positive extents, non-negative strides, and an element count and largest
/// byte offset that fit in int64. Throws Error naming `who`.
void check_tensor_extents(const std::string& who, const TensorRef& t);

/// No zero stride on an axis of extent > 1 (elements written twice).
void check_output_strides(const std::string& name, const TensorRef& t);

MemoryRange range_of(const TensorRef& t);

/// Throws Error if an output range overlaps an input range or another output.
void check_no_overlap(const std::vector<NamedRange>& inputs, const std::vector<NamedRange>& outputs);

}  // namespace epigemm::detail
