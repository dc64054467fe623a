// Extent, stride and overlap checks on tensor views.
#include "api/memory_range.hpp"

#include "epigemm/error.hpp"

namespace epigemm::detail {
namespace {

bool overlaps(const MemoryRange& a, const MemoryRange& b) { return a.begin < b.end && b.begin < a.end; }

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& who) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw Error(ErrorKind::Shape, who + " is too large: its size overflows int64");
  return r;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& who) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error(ErrorKind::Shape, who + " is too large: its size overflows int64");
  return r;
}

}  // namespace

void check_tensor_extents(const std::string& who, const TensorRef& t) {
  if (!t.strides.empty() && t.strides.size() != t.shape.size()) {
    throw Error(ErrorKind::Shape, who + " has shape " + t.shape.to_string() + " but strides " + t.strides.to_string() +
                                      "; they must have the same length");
  }
  std::int64_t count = 1, last = 0;
  const Dims s = t.effective_strides();
  for (int i = 0; i < t.rank(); ++i) {
    if (t.shape[i] <= 0) {
      throw Error(ErrorKind::Shape, who + " has shape " + t.shape.to_string() + "; every extent must be positive");
    }
    if (s[i] < 0) {
      throw Error(ErrorKind::Shape, who + " has strides " + s.to_string() + "; negative strides are not supported");
    }
    count = checked_mul(count, t.shape[i], who);
    last = checked_add(last, checked_mul(t.shape[i] - 1, s[i], who), who);
  }
  checked_mul(checked_add(last, 1, who), size_bytes(t.dtype), who);
  checked_mul(count, size_bytes(t.dtype), who);
}

void check_output_strides(const std::string& name, const TensorRef& t) {
  const Dims s = t.effective_strides();
  for (int i = 0; i < t.rank(); ++i) {
    if (t.shape[i] > 1 && s[i] == 0) {
      throw Error(ErrorKind::Shape, "Output '" + name + "' has stride 0 on dimension " + std::to_string(i) +
                                        " of extent " + std::to_string(t.shape[i]) +
                                        ": its elements would overwrite each other");
    }
  }
}

MemoryRange range_of(const TensorRef& t) {
  const Dims s = t.effective_strides();
  std::int64_t last = 0;
  for (int i = 0; i < t.rank(); ++i) last += (t.shape[i] - 1) * s[i];
  const auto begin = reinterpret_cast<std::uintptr_t>(t.data);
  return {begin, begin + static_cast<std::uintptr_t>((last + 1) * size_bytes(t.dtype))};
}

void check_no_overlap(const std::vector<NamedRange>& inputs, const std::vector<NamedRange>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (const auto& in : inputs) {
      if (overlaps(outputs[i].range, in.range)) {
        throw Error(ErrorKind::Value, "Output '" + outputs[i].name + "' overlaps input '" + in.name +
                                          "' in memory; inputs are never written, so outputs need their own memory");
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (overlaps(outputs[i].range, outputs[j].range)) {
        throw Error(ErrorKind::Value,
                    "Outputs '" + outputs[j].name + "' and '" + outputs[i].name + "' overlap in memory");
      }
    }
  }
}

}  // namespace epigemm::detail
