// HostTensor: an owned host buffer with a dtype, shape and strides, filled
// with seeded random values (integers in [-2, 2], normal or uniform), or with
// NaN bytes so elements an operator forgets to write are caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string_view>

#include "epigemm/tensor.hpp"

namespace epigemm::cli {

/// How random inputs are drawn.
enum class InitKind {
  integer,  ///< uniform integers in [-2, 2] ([0, 2] for unsigned types): exact GEMMs
  normal,   ///< standard normal
  uniform,  ///< uniform in [-1, 1) ([0, 1) for unsigned types)
};

/// A small, portable random stream (SplitMix64), so one seed gives the same
/// data on every platform and standard library. Each tensor draws from its
/// own stream, keyed by the seed and the tensor's name.
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::string_view name);
  std::uint64_t next() noexcept;
  double uniform01() noexcept;  ///< [0, 1)
  double normal() noexcept;     ///< mean 0, deviation 1
  /// Uniform in [lo, hi].
  std::int64_t integer(std::int64_t lo, std::int64_t hi) noexcept;

 private:
  std::uint64_t state_;
};

class HostTensor {
 public:
  HostTensor() = default;
  /// Allocates storage for `shape` with `strides` (row-major when empty),
  /// left unwritten until filled or poisoned (so tools that only need
  /// shapes touch no pages). Throws Error(ErrorKind::Value) when the size is
  /// absurd.
  HostTensor(DType dtype, Dims shape, Dims strides = {});

  DType dtype() const noexcept { return dtype_; }
  const Dims& shape() const noexcept { return shape_; }
  const Dims& strides() const noexcept { return strides_; }
  bool allocated() const noexcept { return bytes_ != nullptr; }
  /// Elements of storage (covers every element the strides reach).
  std::int64_t storage_elements() const noexcept { return storage_elements_; }
  std::size_t byte_size() const noexcept { return byte_size_; }
  void* data() noexcept { return bytes_.get(); }
  const void* data() const noexcept { return bytes_.get(); }

  /// A host view of this tensor.
  TensorRef ref() const;
  /// The value of storage element `i`.
  double at(std::int64_t i) const noexcept;

  /// Fills every storage element with a value drawn from `random`, rounded
  /// to the dtype.
  void fill_random(RandomStream& random, InitKind init);
  /// Sets every byte to 0xFF: NaN in every float format (-1 or 255 for the
  /// integer types).
  void poison() noexcept;

 private:
  DType dtype_ = DType::f32;
  Dims shape_;
  Dims strides_;
  std::int64_t storage_elements_ = 0;
  std::size_t byte_size_ = 0;
  /// Storage aligned as cudaMalloc's (256 bytes): `emit` views these
  /// buffers as device tensors, and the sm90 heuristic ranks tiles by their
  /// base's alignment, so a malloc-aligned base would pick other tiles than
  /// a GPU run does.
  struct AlignedDelete {
    void operator()(std::byte* p) const noexcept { ::operator delete[](p, kAlignment); }
  };
  static constexpr std::align_val_t kAlignment{256};
  std::unique_ptr<std::byte[], AlignedDelete> bytes_;
};

}  // namespace epigemm::cli
