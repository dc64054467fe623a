// Non-owning tensor views (pointer, dtype, shape, strides, where the memory
// lives) and the values an epilogue name can be bound to.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include "epigemm/dtype.hpp"

namespace epigemm {

/// Where a tensor's memory lives.
enum class Device : std::uint8_t { host, cuda };

/// A short list of extents or strides, stored inline (no allocation).
class Dims {
 public:
  static constexpr int kMaxRank = 8;
  Dims() = default;
  Dims(std::initializer_list<std::int64_t> values);  ///< throws Error if longer than kMaxRank
  explicit Dims(const std::vector<std::int64_t>& values);

  int size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::int64_t operator[](int i) const noexcept { return values_[i]; }
  std::int64_t& operator[](int i) noexcept { return values_[i]; }
  const std::int64_t* begin() const noexcept { return values_.data(); }
  const std::int64_t* end() const noexcept { return values_.data() + size_; }
  void push_back(std::int64_t v);  ///< throws Error past kMaxRank
  std::vector<std::int64_t> to_vector() const { return {begin(), end()}; }
  bool operator==(const Dims& other) const noexcept;
  /// "(2, 3, 4)"; "()" when empty.
  std::string to_string() const;

 private:
  std::array<std::int64_t, kMaxRank> values_{};
  int size_ = 0;
};

/// A view of memory the caller owns. Strides are in elements; empty strides
/// mean contiguous row-major (last dimension fastest).
struct TensorRef {
  void* data = nullptr;
  DType dtype = DType::f32;
  Dims shape;
  Dims strides;
  Device device = Device::host;
  int device_index = 0;

  static TensorRef host(const void* data, DType dtype, Dims shape, Dims strides = {});
  static TensorRef cuda(const void* data, DType dtype, Dims shape, Dims strides = {}, int device_index = 0);

  int rank() const noexcept { return shape.size(); }
  std::int64_t numel() const noexcept;  ///< product of the extents (1 for rank 0; int64 max where it overflows)
  /// The strides actually in effect: the given ones, or row-major ones (each
  /// int64 max where the product of the extents after it overflows).
  Dims effective_strides() const;
  /// "f16 (2, 3) strides (3, 1) on host"
  std::string describe() const;
};

/// What an epilogue parameter or output is bound to: a number (passed by
/// value) or a tensor.
class Binding {
 public:
  Binding(double value) : value_(value) {}  // NOLINT: implicit on purpose
  Binding(float value) : value_(static_cast<double>(value)) {}
  Binding(int value) : value_(static_cast<double>(value)) {}
  Binding(long value) : value_(static_cast<double>(value)) {}
  Binding(long long value) : value_(static_cast<double>(value)) {}
  Binding(TensorRef tensor) : value_(std::move(tensor)) {}

  bool is_scalar() const noexcept { return std::holds_alternative<double>(value_); }
  bool is_tensor() const noexcept { return !is_scalar(); }
  double scalar() const;             ///< throws Error if a tensor
  const TensorRef& tensor() const;   ///< throws Error if a scalar

 private:
  std::variant<double, TensorRef> value_;
};

}  // namespace epigemm
