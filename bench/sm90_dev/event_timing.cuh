// Event timing of the standalone microbenchmarks here (dram_read.cu,
// tma_read.cu): the best and the median of `reps` runs, each after its own L2 flush.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

struct EventTimes {
  float best, median;  // ms
};

/// Best and median time in ms of `reps` event-timed runs of `launch`, each
/// run after `flush(i)` (i: the run's index).
template <class Flush, class Launch>
EventTimes event_times_ms(int reps, cudaEvent_t a, cudaEvent_t b, Flush flush, Launch launch) {
  std::vector<float> times;
  for (int i = 0; i < reps; ++i) {
    flush(i);
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, a, b);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return {times.front(), times[times.size() / 2]};
}

template <class Flush, class Launch>
float best_event_ms(int reps, cudaEvent_t a, cudaEvent_t b, Flush flush, Launch launch) {
  return event_times_ms(reps, a, b, flush, launch).best;
}
