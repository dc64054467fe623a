// CaseRunner: runs one benchmark case (dtype and shape) through each of its
// epilogues: picks and compiles the epigemm operator, spot-checks it and the
// cuBLASLt anchors on poisoned outputs, then times them interleaved.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "interleaved_timer.hpp"
#include "row_result.hpp"

namespace epigemm::bench {

struct CaseData;
class SpotCheck;

struct RunnerOptions {
  TimerOptions timer;
  int samples = 256;      ///< spot-check points per output
  int target_sm = 0;      ///< the device's SM version (90 on an H200)
  std::string pin;        ///< only epigemm operators whose name contains this
  std::int64_t pad_mib = 0;  ///< device memory held before each case's operands (moves where they land)
};

/// Thrown when the CUDA context is unusable (a sticky error): the suite stops.
class FatalCudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CaseRunner {
 public:
  CaseRunner(cudaStream_t stream, cublasLtHandle_t lt, InterleavedTimer& timer, RunnerOptions options);
  CaseRunner(const CaseRunner&) = delete;
  CaseRunner& operator=(const CaseRunner&) = delete;
  ~CaseRunner();

  /// Every epilogue of `c`, on fresh data drawn from `seed`; `on_row` sees
  /// each row as soon as it is done.
  void run(const BenchCase& c, std::uint64_t seed, const std::function<void(const RowResult&)>& on_row);

 private:
  RowResult run_epilogue(EpilogueKind kind, CaseData& data, SpotCheck& spot);
  void sync(const char* what);

  cudaStream_t stream_;
  cublasLtHandle_t lt_;
  InterleavedTimer& timer_;
  RunnerOptions options_;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::string gemm_anchor_check_;  ///< the GEMM-alone anchor's verdict for the current case
  bool gemm_anchor_pass_ = true;
};

}  // namespace epigemm::bench
