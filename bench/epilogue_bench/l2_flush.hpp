// The L2 flush run before every timed run: a kernel that reads a buffer much
// larger than L2 with default-policy loads, so every operand line is evicted
// and L2 is left holding clean lines only (a memset would leave tens of MB of
// dirty lines whose write-back the timed run would then pay for).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "bench_tensor.hpp"

namespace epigemm::bench {

class L2Flush {
 public:
  /// Allocates `bytes` (a multiple of 16) and loads the read kernel.
  explicit L2Flush(std::size_t bytes);
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  ~L2Flush();

  /// Reads the whole buffer on `stream`.
  void run(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceMemory buffer_;
  DeviceMemory sink_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

}  // namespace epigemm::bench
