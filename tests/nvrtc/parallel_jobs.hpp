// Runs independent jobs of the NVRTC compile tests on several threads: each
// compile takes seconds, and the tests hold hundreds of them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace epigemm::testing {

/// Calls task(i) for every i in [0, count) on up to hardware_concurrency()
/// (at most 8) threads; returns when all have run.
template <class Task>
void run_in_parallel(std::size_t count, const Task& task) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) task(i);
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
}

}  // namespace epigemm::testing
