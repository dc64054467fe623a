// HostTensor: an owning host buffer with a TensorRef view, random fills and
// element access as double, for tests that build problems by hand.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "epigemm/tensor.hpp"
#include "ir/convert.hpp"

namespace epigemm::testing {

// It is a TensorRef (of its own memory), so it binds and passes as one.
class HostTensor : public TensorRef {
 public:
  HostTensor(DType type, Dims extents, Dims element_strides = {})
      : TensorRef(TensorRef::host(nullptr, type, extents, element_strides)) {
    std::int64_t last = 0;
    const Dims s = effective_strides();
    for (int i = 0; i < extents.size(); ++i) last += (extents[i] - 1) * s[i];
    bytes_.assign(static_cast<std::size_t>((last + 1) * size_bytes(type)), 0);
    data = bytes_.data();
  }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  const TensorRef& ref() const { return *this; }

  /// Element at a multi-index of the tensor's own rank.
  double get(std::initializer_list<std::int64_t> index) const { return ir::decode(dtype, address(index)); }
  void set(std::initializer_list<std::int64_t> index, double v) { ir::encode(dtype, v, address(index)); }

  /// Uniform integers in [lo, hi] (exact in every dtype used).
  void fill_int(std::mt19937& rng, int lo = -2, int hi = 2) {
    std::uniform_int_distribution<int> dist(lo, hi);
    for_each([&](char* p) { ir::encode(dtype, dist(rng), p); });
  }
  void fill_normal(std::mt19937& rng, double scale = 1.0) {
    std::normal_distribution<double> dist(0.0, scale);
    for_each([&](char* p) { ir::encode(dtype, dist(rng), p); });
  }
  /// Every byte set to 0xFF (NaN for floats), so unwritten elements show.
  void poison() { std::memset(bytes_.data(), 0xFF, bytes_.size()); }
  /// Calls f(e, value) for each element e (row-major order) of the tensor.
  template <class F>
  void for_each_value(F f) const {
    for_each_offset([&](std::int64_t e, std::size_t at) { f(e, ir::decode(dtype, bytes_.data() + at)); });
  }
  /// Calls f(e, byte offset of element e) for each element e, in row-major
  /// order.
  template <class F>
  void for_each_offset(F f) const {
    const Dims s = effective_strides();
    const std::int64_t count = numel();
    for (std::int64_t e = 0; e < count; ++e) {
      std::int64_t offset = 0, rest = e;
      for (int d = rank() - 1; d >= 0; --d) {
        offset += (rest % shape[d]) * s[d];
        rest /= shape[d];
      }
      f(e, static_cast<std::size_t>(offset * size_bytes(dtype)));
    }
  }

 private:
  char* address(std::initializer_list<std::int64_t> index) const {
    const Dims s = effective_strides();
    std::int64_t offset = 0;
    int i = 0;
    for (std::int64_t v : index) offset += v * s[i++];
    return const_cast<char*>(bytes_.data()) + offset * size_bytes(dtype);
  }
  template <class F>
  void for_each(F f) {
    for_each_offset([&](std::int64_t, std::size_t at) { f(bytes_.data() + at); });
  }

  std::vector<char> bytes_;
};

}  // namespace epigemm::testing
