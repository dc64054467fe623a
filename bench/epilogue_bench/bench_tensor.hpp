// BenchTensor: one benchmark operand held twice, as element bits on the host
// and in device memory (cudaMalloc), with fast random fills (never zeros),
// poisoning of outputs and decoding of single elements for spot checks.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "epigemm/epigemm.hpp"

namespace epigemm::bench {

/// Device memory owned by one object (cudaMalloc / cudaFree).
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory();

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class BenchTensor {
 public:
  /// Shape and strides in elements; empty strides mean row-major. The
  /// memory spans the largest offset the strides reach, plus one element.
  BenchTensor(DType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides = {});

  DType dtype() const noexcept { return dtype_; }
  const std::vector<std::int64_t>& shape() const noexcept { return shape_; }
  const std::vector<std::int64_t>& strides() const noexcept { return strides_; }
  std::int64_t elements() const noexcept { return span_elements_; }
  std::size_t bytes() const noexcept { return host_.size(); }
  void* device() const noexcept { return device_.data(); }
  /// The device view that epigemm reads or writes.
  TensorRef ref() const;

  /// Random values drawn uniformly from [lo, hi] and rounded to the dtype,
  /// from `seed`; filled on host threads, then copied to the device.
  void fill_uniform(std::uint64_t seed, double lo, double hi);
  /// Sets every device byte to `byte` (0xFF is NaN in every float format;
  /// integer dtypes have no NaN, so the tensor remembers the byte).
  void poison(unsigned char byte, cudaStream_t stream);
  /// Copies the device memory back into the host bits.
  void download();

  /// The host value of the element at this offset (in elements).
  double value_at(std::int64_t offset) const;
  /// The host value of element (i, j) of a rank-2 tensor.
  double value(std::int64_t i, std::int64_t j) const { return value_at(i * strides_[0] + j * strides_[1]); }
  /// How many stored elements are NaN or infinite (on the host copy); for
  /// integer dtypes, how many still hold the last poison pattern.
  std::int64_t count_non_finite() const;

 private:
  DType dtype_;
  std::vector<std::int64_t> shape_;
  std::vector<std::int64_t> strides_;
  std::int64_t span_elements_ = 0;
  std::vector<unsigned char> host_;
  DeviceMemory device_;
  std::vector<double> decode_table_;  ///< every value of an 8- or 16-bit dtype
  int poison_byte_ = -1;              ///< the last poison() byte, -1 before any
};

}  // namespace epigemm::bench
