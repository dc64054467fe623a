// Error checks for the benchmark's direct CUDA runtime and cuBLASLt calls:
// a failed call throws BenchError naming the call and where it was made.
// The benchmark catches it per case, so one broken row does not hide the rest.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace epigemm::bench {

/// A failure inside the benchmark harness itself (not an epigemm::Error).
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws BenchError unless `result` is cudaSuccess.
inline void check_cuda(cudaError_t result, const char* what, const char* file, int line) {
  if (result == cudaSuccess) return;
  throw BenchError(std::string("CUDA error ") + cudaGetErrorName(result) + " (" + cudaGetErrorString(result) +
                   ") in " + what + " at " + file + ":" + std::to_string(line));
}

/// Throws BenchError unless `status` is CUBLAS_STATUS_SUCCESS.
inline void check_cublas(cublasStatus_t status, const char* what, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw BenchError(std::string("cuBLASLt status ") + std::to_string(static_cast<int>(status)) + " in " + what +
                   " at " + file + ":" + std::to_string(line));
}

}  // namespace epigemm::bench

#define BENCH_CUDA(call) ::epigemm::bench::check_cuda((call), #call, __FILE__, __LINE__)
#define BENCH_CUBLAS(call) ::epigemm::bench::check_cublas((call), #call, __FILE__, __LINE__)
