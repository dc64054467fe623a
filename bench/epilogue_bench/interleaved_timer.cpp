// InterleavedTimer: CUDA events around each run, an L2 flush (a read of a
// large buffer, runtime::L2Flush) before each, variants alternated round by
// round (each round one run, or one block of runs, of every variant) with
// the starting variant rotating, and a repetition count sized to a time
// budget.
#include "interleaved_timer.hpp"

#include <algorithm>
#include <cmath>

#include "cuda_check.hpp"

namespace epigemm::bench {
namespace {

constexpr int kRoundsPerBatch = 16;  // rounds of single runs launched before the host waits and reads events
constexpr int kMinBlocks = 4;        // blocks of each variant at least, so that drift averages out

/// A pair of events per (variant, round) of one batch.
class EventBatch {
 public:
  explicit EventBatch(std::size_t count) : start_(count), stop_(count) {
    for (std::size_t i = 0; i < count; ++i) {
      BENCH_CUDA(cudaEventCreate(&start_[i]));
      BENCH_CUDA(cudaEventCreate(&stop_[i]));
    }
  }
  EventBatch(const EventBatch&) = delete;
  EventBatch& operator=(const EventBatch&) = delete;
  ~EventBatch() {
    for (cudaEvent_t e : start_) cudaEventDestroy(e);
    for (cudaEvent_t e : stop_) cudaEventDestroy(e);
  }
  cudaEvent_t start(std::size_t i) const { return start_[i]; }
  cudaEvent_t stop(std::size_t i) const { return stop_[i]; }
  double elapsed_ms(std::size_t i) const {
    float ms = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start_[i], stop_[i]));
    return static_cast<double>(ms);
  }

 private:
  std::vector<cudaEvent_t> start_, stop_;
};

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  return values[static_cast<std::size_t>(std::lround(rank))];
}

namespace {

int current_device() {
  int device = 0;
  BENCH_CUDA(cudaGetDevice(&device));
  return device;
}

}  // namespace

InterleavedTimer::InterleavedTimer(cudaStream_t stream, std::size_t flush_bytes)
    : stream_(stream), flush_(runtime::Driver::require(), current_device(), flush_bytes, stream) {}

void InterleavedTimer::flush() { flush_.run(stream_); }

double InterleavedTimer::flush_ms() {
  if (flush_ms_ < 0.0) {
    const TimedVariant flush_only{"flush", [this](cudaStream_t) { flush(); }};
    std::vector<std::vector<double>> times(1);
    run_rounds({flush_only}, 20, 1, 0, times);
    flush_ms_ = median(times[0]);
  }
  return flush_ms_;
}

void InterleavedTimer::run_rounds(const std::vector<TimedVariant>& variants, int rounds_wanted, int block,
                                  int first_round, std::vector<std::vector<double>>& times) {
  const std::size_t nv = variants.size();
  const std::size_t runs_per_round = nv * static_cast<std::size_t>(block);
  const int rounds_per_batch = std::max(1, kRoundsPerBatch / block);
  // Run b of variant v's block in round r of a batch: its pair of events.
  const auto slot = [&](int r, std::size_t v, int b) {
    return static_cast<std::size_t>(r) * runs_per_round + v * static_cast<std::size_t>(block) +
           static_cast<std::size_t>(b);
  };
  for (int done = 0; done < rounds_wanted; done += rounds_per_batch) {
    const int rounds = std::min(rounds_per_batch, rounds_wanted - done);
    EventBatch events(static_cast<std::size_t>(rounds) * runs_per_round);
    for (int r = 0; r < rounds; ++r) {
      const int round = first_round + done + r;
      for (std::size_t j = 0; j < nv; ++j) {
        const std::size_t v = (j + static_cast<std::size_t>(round)) % nv;  // rotate who goes first
        for (int b = 0; b < block; ++b) {
          flush();
          BENCH_CUDA(cudaEventRecord(events.start(slot(r, v, b)), stream_));
          variants[v].launch(stream_);
          BENCH_CUDA(cudaEventRecord(events.stop(slot(r, v, b)), stream_));
        }
      }
    }
    BENCH_CUDA(cudaStreamSynchronize(stream_));
    BENCH_CUDA(cudaGetLastError());
    for (int r = 0; r < rounds; ++r)
      for (std::size_t v = 0; v < nv; ++v)
        for (int b = 0; b < block; ++b) times[v].push_back(events.elapsed_ms(slot(r, v, b)));
  }
}

std::vector<TimingStats> InterleavedTimer::measure(const std::vector<TimedVariant>& variants,
                                                   const TimerOptions& options) {
  const std::size_t nv = variants.size();
  std::vector<std::vector<double>> warm(nv);
  run_rounds(variants, std::max(1, options.warmup), 1, 0, warm);

  // Budget from the warm-up's medians: each round is every variant plus a flush each.
  double round_ms = 0.0;
  for (const auto& w : warm) round_ms += median(w) + flush_ms();
  int reps = options.fixed_reps;
  if (reps <= 0) {
    const double wanted = options.budget_s * 1e3 / std::max(round_ms, 1e-3);
    reps = static_cast<int>(std::clamp<double>(wanted, options.min_reps, options.max_reps));
  }
  // Blocks of about block_ms each, at least kMinBlocks per variant.
  int block = options.block;
  if (block <= 0) {
    const double run_ms = round_ms / static_cast<double>(std::max<std::size_t>(nv, 1));
    block = static_cast<int>(std::lround(options.block_ms / std::max(run_ms, 1e-3)));
    block = std::clamp(block, 1, std::max(1, reps / kMinBlocks));
  }
  std::vector<std::vector<double>> times(nv);
  run_rounds(variants, (reps + block - 1) / block, block, options.warmup, times);

  std::vector<TimingStats> stats(nv);
  for (std::size_t v = 0; v < nv; ++v) {
    stats[v].median_ms = median(times[v]);
    stats[v].p10_ms = quantile(times[v], 0.1);
    stats[v].p90_ms = quantile(times[v], 0.9);
    stats[v].runs = static_cast<int>(times[v].size());
  }
  return stats;
}

}  // namespace epigemm::bench
