// Event timing of the standalone microbenchmarks here (dram_read.cu,
// tma_read.cu): the best of `reps` runs, each after its own L2 flush.
#pragma once

#include <cuda_runtime.h>

/// Best time in ms of `reps` event-timed runs of `launch`, each run after
/// `flush(i)` (i: the run's index).
template <class Flush, class Launch>
float best_event_ms(int reps, cudaEvent_t a, cudaEvent_t b, Flush flush, Launch launch) {
  float best = 1e30f;
  for (int i = 0; i < reps; ++i) {
    flush(i);
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, a, b);
    best = ms < best ? ms : best;
  }
  return best;
}
