// L2Flush: evicts a device's L2 by reading a buffer several times its size,
// so that the next kernel finds none of its operands there (a cold cache).
// Used by time_operators (TimingOptions::flush_l2) and the benchmarks.
#pragma once

#include <cuda.h>

#include <cstddef>

#include "runtime/cuda_objects.hpp"
#include "runtime/driver.hpp"

namespace epigemm::runtime {

class L2Flush {
 public:
  /// The flush's default size on a device: four times its L2, at least 64 MiB.
  static std::size_t default_bytes(const DeviceInfo& device);

  /// Allocates `bytes` (rounded up to 16) on `device`, fills them on `stream`
  /// and loads the read kernel (PTX, compiled by the driver) into the
  /// device's primary context. Throws Error(ErrorKind::Cuda) when the driver
  /// refuses any of it (e.g. out of memory).
  L2Flush(const Driver& driver, int device, std::size_t bytes, CUstream stream = nullptr);

  /// Reads the whole buffer on `stream`. The loads use the default cache
  /// policy, so L2 is left holding the buffer's clean lines: unlike a
  /// memset, the flush leaves no dirty lines whose write-back the next
  /// kernel would pay for.
  void run(CUstream stream = nullptr) const;
  std::size_t bytes() const noexcept { return buffer_.size(); }

 private:
  const Driver* driver_;
  int device_;
  unsigned blocks_;
  DeviceBuffer buffer_;
  DeviceBuffer sink_;
  Module module_;
  CUfunction kernel_ = nullptr;
};

}  // namespace epigemm::runtime
