// Dims, TensorRef and Binding: the non-owning views users hand to epigemm.
#include "epigemm/tensor.hpp"

#include <limits>

#include "epigemm/error.hpp"

namespace epigemm {

Dims::Dims(std::initializer_list<std::int64_t> values) {
  for (std::int64_t v : values) push_back(v);
}

Dims::Dims(const std::vector<std::int64_t>& values) {
  for (std::int64_t v : values) push_back(v);
}

void Dims::push_back(std::int64_t v) {
  if (size_ == kMaxRank) {
    throw Error(ErrorKind::Shape, "a tensor may have at most " + std::to_string(kMaxRank) + " dimensions");
  }
  values_[size_++] = v;
}

bool Dims::operator==(const Dims& other) const noexcept {
  if (size_ != other.size_) return false;
  for (int i = 0; i < size_; ++i) {
    if (values_[i] != other.values_[i]) return false;
  }
  return true;
}

std::string Dims::to_string() const {
  std::string s = "(";
  for (int i = 0; i < size_; ++i) {
    if (i) s += ", ";
    s += std::to_string(values_[i]);
  }
  if (size_ == 1) s += ",";
  return s + ")";
}

TensorRef TensorRef::host(const void* data, DType dtype, Dims shape, Dims strides) {
  return TensorRef{const_cast<void*>(data), dtype, shape, strides, Device::host, 0};
}

TensorRef TensorRef::cuda(const void* data, DType dtype, Dims shape, Dims strides, int device_index) {
  return TensorRef{const_cast<void*>(data), dtype, shape, strides, Device::cuda, device_index};
}

namespace {

/// a * b, or the int64 limit of the product's sign where it overflows (the
/// extent checks then report the tensor as too large).
std::int64_t saturating_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

}  // namespace

std::int64_t TensorRef::numel() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n = saturating_mul(n, e);
  return n;
}

Dims TensorRef::effective_strides() const {
  if (!strides.empty()) return strides;
  Dims s;
  for (int i = 0; i < shape.size(); ++i) s.push_back(0);
  std::int64_t running = 1;
  for (int i = shape.size() - 1; i >= 0; --i) {
    s[i] = running;
    running = saturating_mul(running, shape[i] > 0 ? shape[i] : 1);
  }
  return s;
}

std::string TensorRef::describe() const {
  return std::string(epigemm::to_string(dtype)) + " " + shape.to_string() + " strides " +
         effective_strides().to_string() + (device == Device::host ? " on host" : " on cuda:" + std::to_string(device_index));
}

double Binding::scalar() const {
  if (!is_scalar()) throw Error(ErrorKind::Binding, "binding is a tensor, not a number");
  return std::get<double>(value_);
}

const TensorRef& Binding::tensor() const {
  if (is_scalar()) throw Error(ErrorKind::Binding, "binding is a number, not a tensor");
  return std::get<TensorRef>(value_);
}

}  // namespace epigemm
