// Extent, stride and range checks on tensor views.
#include "api/memory_range.hpp"

#include "epigemm/error.hpp"

namespace epigemm::detail {
namespace {

[[noreturn]] void too_large(TensorName who) {
  throw Error(ErrorKind::Shape, who.str() + " is too large: its size overflows int64");
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, TensorName who) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) too_large(who);
  return r;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, TensorName who) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) too_large(who);
  return r;
}

}  // namespace

std::string TensorName::str() const {
  return name.empty() ? std::string(role) : std::string(role) + " '" + std::string(name) + "'";
}

void check_tensor_extents(TensorName who, const TensorRef& t) {
  if (!t.strides.empty() && t.strides.size() != t.shape.size()) {
    throw Error(ErrorKind::Shape, who.str() + " has shape " + t.shape.to_string() + " but strides " +
                                      t.strides.to_string() + "; they must have the same length");
  }
  std::int64_t count = 1, last = 0;
  const Dims s = t.effective_strides();
  for (int i = 0; i < t.rank(); ++i) {
    if (t.shape[i] <= 0) {
      throw Error(ErrorKind::Shape, who.str() + " has shape " + t.shape.to_string() + "; every extent must be positive");
    }
    if (s[i] < 0) {
      throw Error(ErrorKind::Shape, who.str() + " has strides " + s.to_string() + "; negative strides are not supported");
    }
    count = checked_mul(count, t.shape[i], who);
    last = checked_add(last, checked_mul(t.shape[i] - 1, s[i], who), who);
  }
  checked_mul(checked_add(last, 1, who), size_bytes(t.dtype), who);
  checked_mul(count, size_bytes(t.dtype), who);
}

void check_output_strides(std::string_view name, const TensorRef& t) {
  const Dims s = t.effective_strides();
  for (int i = 0; i < t.rank(); ++i) {
    if (t.shape[i] > 1 && s[i] == 0) {
      throw Error(ErrorKind::Shape, "Output '" + std::string(name) + "' has stride 0 on dimension " + std::to_string(i) +
                                        " of extent " + std::to_string(t.shape[i]) +
                                        ": its elements would overwrite each other");
    }
  }
}

MemoryRange range_of(const TensorRef& t) noexcept {
  const Dims s = t.effective_strides();
  std::int64_t last = 0;
  for (int i = 0; i < t.rank(); ++i) last += (t.shape[i] - 1) * s[i];
  const auto begin = reinterpret_cast<std::uintptr_t>(t.data);
  return {begin, begin + static_cast<std::uintptr_t>((last + 1) * size_bytes(t.dtype))};
}

}  // namespace epigemm::detail
