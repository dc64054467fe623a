// run_in_parallel: independent tasks on a few host threads (the caller's
// one of them), for work such as NVRTC compiles that takes a core for
// tenths of a second each.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace epigemm {

/// Calls task(i) for every i in [0, count) on up to min(count, max_threads,
/// the host's cores) threads, this one included, each taking the next index
/// left; returns when all have run. Where the system gives fewer threads,
/// those it gave share the work. `task` must not throw.
template <class Task>
void run_in_parallel(std::size_t count, unsigned max_threads, const Task& task) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) task(i);
  };
  const unsigned cores = std::max(std::thread::hardware_concurrency(), 1u);
  const auto threads = static_cast<unsigned>(std::min<std::size_t>(count, std::min(cores, max_threads)));
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  } catch (const std::system_error&) {
    // No more threads to be had: those started and this one share the work.
  }
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace epigemm
