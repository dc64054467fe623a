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

class HostTensor {
 public:
  HostTensor(DType dtype, Dims shape, Dims strides = {}) {
    ref_ = TensorRef::host(nullptr, dtype, shape, strides);
    std::int64_t last = 0;
    const Dims s = ref_.effective_strides();
    for (int i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * s[i];
    bytes_.assign(static_cast<std::size_t>((last + 1) * size_bytes(dtype)), 0);
    ref_.data = bytes_.data();
  }

  const TensorRef& ref() const { return ref_; }
  operator TensorRef() const { return ref_; }  // NOLINT: convenient in bindings
  DType dtype() const { return ref_.dtype; }

  /// Element at a multi-index of the tensor's own rank.
  double get(std::initializer_list<std::int64_t> index) const { return ir::decode(ref_.dtype, address(index)); }
  void set(std::initializer_list<std::int64_t> index, double v) { ir::encode(ref_.dtype, v, address(index)); }

  /// Uniform integers in [lo, hi] (exact in every dtype used).
  void fill_int(std::mt19937& rng, int lo = -2, int hi = 2) {
    std::uniform_int_distribution<int> dist(lo, hi);
    for_each([&](char* p) { ir::encode(ref_.dtype, dist(rng), p); });
  }
  void fill_normal(std::mt19937& rng, double scale = 1.0) {
    std::normal_distribution<double> dist(0.0, scale);
    for_each([&](char* p) { ir::encode(ref_.dtype, dist(rng), p); });
  }
  /// Every byte set to 0xFF (NaN for floats), so unwritten elements show.
  void poison() { std::memset(bytes_.data(), 0xFF, bytes_.size()); }

 private:
  char* address(std::initializer_list<std::int64_t> index) const {
    const Dims s = ref_.effective_strides();
    std::int64_t offset = 0;
    int i = 0;
    for (std::int64_t v : index) offset += v * s[i++];
    return const_cast<char*>(bytes_.data()) + offset * size_bytes(ref_.dtype);
  }
  template <class F>
  void for_each(F f) {
    const Dims s = ref_.effective_strides();
    std::vector<std::int64_t> idx(static_cast<std::size_t>(ref_.rank()), 0);
    const std::int64_t count = ref_.numel();
    for (std::int64_t e = 0; e < count; ++e) {
      std::int64_t offset = 0, rest = e;
      for (int d = ref_.rank() - 1; d >= 0; --d) {
        offset += (rest % ref_.shape[d]) * s[d];
        rest /= ref_.shape[d];
      }
      f(bytes_.data() + offset * size_bytes(ref_.dtype));
    }
  }

  std::vector<char> bytes_;
  TensorRef ref_;
};

}  // namespace epigemm::testing
