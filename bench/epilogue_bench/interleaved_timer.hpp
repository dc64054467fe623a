// InterleavedTimer: times several variants of one computation in the same
// process, alternating them every repetition or every block of repetitions
// (rotating which goes first), with the L2 cache flushed before every timed
// run, and returns medians.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "bench_tensor.hpp"
#include "runtime/l2_flush.hpp"

namespace epigemm::bench {

/// One thing to time: launches its work on the timer's stream.
struct TimedVariant {
  std::string name;
  std::function<void(cudaStream_t)> launch;
};

/// Statistics of one variant's timed runs, in milliseconds.
struct TimingStats {
  double median_ms = 0.0;
  double p10_ms = 0.0;  ///< 10th percentile
  double p90_ms = 0.0;  ///< 90th percentile
  int runs = 0;
};

struct TimerOptions {
  int warmup = 3;             ///< untimed-for-result runs of each variant first
  int min_reps = 10;          ///< timed runs of each variant, at least
  int max_reps = 5000;        ///< and at most
  double budget_s = 1.5;      ///< target wall time of the timed part
  int fixed_reps = 0;         ///< > 0: exactly this many, ignoring the budget
  /// Variants run in blocks of consecutive runs, the blocks interleaved. The
  /// GPU's clock follows its power draw milliseconds late, so where each run
  /// alternated, a kernel that draws more slowed the kernel after it (on the
  /// H200 a power-hungry GEMM made cuBLASLt's next run 3-5% slower and so
  /// read 3-5% faster against it than when each ran its own block of 50 ms).
  /// block: runs per block (1: alternate every run); 0: as many as take
  /// about block_ms, and at most a quarter of the runs.
  int block = 0;
  double block_ms = 50.0;
};

class InterleavedTimer {
 public:
  /// `flush_bytes` of device memory are read before every timed run so that
  /// no operand stays in L2 (the H200 has 60 MB of it); see runtime::L2Flush.
  InterleavedTimer(cudaStream_t stream, std::size_t flush_bytes);

  /// Medians (and spread) for each variant, in the order given.
  std::vector<TimingStats> measure(const std::vector<TimedVariant>& variants, const TimerOptions& options);

  /// Median time of the L2 flush alone, in ms (measured once, lazily).
  double flush_ms();

 private:
  void flush();
  /// Times `rounds` interleaved rounds of `block` runs of each variant;
  /// appends each variant's times (ms).
  void run_rounds(const std::vector<TimedVariant>& variants, int rounds, int block, int first_round,
                  std::vector<std::vector<double>>& times);

  cudaStream_t stream_;
  runtime::L2Flush flush_;
  double flush_ms_ = -1.0;
};

/// The median of `values` (mean of the middle two for an even count).
double median(std::vector<double> values);
/// The q-quantile (0..1) of `values`, nearest rank.
double quantile(std::vector<double> values, double q);

}  // namespace epigemm::bench
