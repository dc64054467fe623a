// time_operators: compile (the operators side by side on host threads),
// size each operator's turn (a run count, or as many runs as fill turn_ms),
// then interleaved rounds of warmup and timed runs, timed by CUDA events on
// a device (with flush_l2, an L2 flush before each timed run) and the wall
// clock on the host.
#include "epigemm/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <optional>
#include <string>

#include "api/problem.hpp"
#include "epigemm/error.hpp"
#include "runtime/cuda_objects.hpp"
#include "runtime/driver.hpp"
#include "runtime/l2_flush.hpp"
#include "support/parallel.hpp"

namespace epigemm {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One turn: `warmup` runs, then `runs` timed runs appended to `times`;
// with `flush`, each timed run after a flush, between its own two events.
void take_turn(Operator& op, const GemmArguments& args, int warmup, int runs, const runtime::Driver* driver,
               const runtime::L2Flush* flush, void* stream, std::vector<double>& times) {
  for (int i = 0; i < warmup; ++i) op.run(args, stream);
  if (driver == nullptr) {
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      op.run(args, stream);
      times.push_back(ms_since(start));
    }
    return;
  }
  const auto cu_stream = static_cast<CUstream>(stream);
  if (flush != nullptr) {
    std::vector<runtime::Event> starts, stops;
    for (int i = 0; i < runs; ++i) {
      starts.emplace_back(*driver);
      stops.emplace_back(*driver);
    }
    for (int i = 0; i < runs; ++i) {
      flush->run(cu_stream);
      starts[static_cast<std::size_t>(i)].record(cu_stream);
      op.run(args, stream);
      stops[static_cast<std::size_t>(i)].record(cu_stream);
    }
    if (runs > 0) stops.back().synchronize();
    for (std::size_t i = 0; i < stops.size(); ++i) times.push_back(runtime::Event::elapsed_ms(starts[i], stops[i]));
    return;
  }
  std::vector<runtime::Event> events;
  for (int i = 0; i <= runs; ++i) events.emplace_back(*driver);
  events[0].record(cu_stream);
  for (int i = 0; i < runs; ++i) {
    op.run(args, stream);
    events[static_cast<std::size_t>(i) + 1].record(cu_stream);
  }
  events.back().synchronize();
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    times.push_back(runtime::Event::elapsed_ms(events[i], events[i + 1]));
  }
}

// Timed runs per turn: `iterations`, or under turn_ms as many as last about
// that long, judged by one run timed alone after the warmup.
int runs_per_turn(Operator& op, const GemmArguments& args, const TimingOptions& o, const runtime::Driver* driver,
                  const runtime::L2Flush* flush, void* stream) {
  if (o.turn_ms <= 0.0) return o.iterations;
  std::vector<double> one;
  take_turn(op, args, std::max(o.warmup, 1), 1, driver, flush, stream, one);
  const double fewest = o.iterations, most = std::max(o.iterations, kMaxRunsPerTurn);
  const double runs = one[0] > 0.0 ? std::ceil(o.turn_ms / one[0]) : most;
  return static_cast<int>(std::clamp(runs, fewest, most));
}

// Compiles every operator of `timings`, side by side on up to 8 host
// threads: a cold compile is a few tenths of a second of one core in NVRTC,
// the candidates' kernels are independent, and the kernel cache makes a
// second compile of the same kernel wait for the first. Each compile_ms is
// that operator's own wall time. Where compiles throw, the first
// operator's error in `timings`' order is rethrown once every compile has
// ended.
void compile_all(std::vector<OperatorTiming>& timings, const GemmArguments& args) {
  std::vector<std::exception_ptr> errors(timings.size());
  run_in_parallel(timings.size(), 8, [&](std::size_t i) {
    const auto start = std::chrono::steady_clock::now();
    try {
      timings[i].op.compile(args);  // throws, naming the operator, where it does not support args
    } catch (...) {
      errors[i] = std::current_exception();
    }
    timings[i].compile_ms = ms_since(start);
  });
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

std::vector<OperatorTiming> time_operators(const std::vector<Operator>& ops, const GemmArguments& args,
                                           const TimingOptions& options, void* stream) {
  if (ops.empty()) throw Error(ErrorKind::Value, "time_operators: no operators to time");
  if (options.rounds < 1 || options.iterations < 1 || options.warmup < 0 || !(options.turn_ms >= 0.0) ||
      !std::isfinite(options.turn_ms)) {
    throw Error(ErrorKind::Value,
                "time_operators: rounds and iterations must be at least 1, warmup and turn_ms at least 0 (got " +
                    std::to_string(options.rounds) + ", " + std::to_string(options.iterations) + ", " +
                    std::to_string(options.warmup) + ", " + std::to_string(options.turn_ms) + ")");
  }
  detail::Problem problem;
  detail::analyze(args, problem);
  const runtime::Driver* driver = nullptr;
  std::optional<runtime::ContextGuard> context;
  if (problem.device == Device::cuda) {
    driver = &runtime::Driver::require();
    context.emplace(*driver, problem.device_index);
    if (runtime::stream_captures(*driver, static_cast<CUstream>(stream))) {
      throw Error(ErrorKind::Value,
                  "time_operators: the stream is capturing a graph, so nothing would run to be timed");
    }
  }
  std::optional<runtime::L2Flush> flush;
  if (options.flush_l2 && driver != nullptr) {
    const int device = problem.device_index;
    flush.emplace(*driver, device, runtime::L2Flush::default_bytes(driver->device_info(device)),
                  static_cast<CUstream>(stream));
  }
  const runtime::L2Flush* flush_or_null = flush ? &*flush : nullptr;
  std::vector<OperatorTiming> timings;
  for (const Operator& op : ops) timings.push_back({op, 0.0, 0.0, 0});
  compile_all(timings, args);
  for (OperatorTiming& t : timings) t.runs_per_turn = runs_per_turn(t.op, args, options, driver, flush_or_null, stream);
  std::vector<std::vector<double>> times(timings.size());
  for (int round = 0; round < options.rounds; ++round) {
    for (std::size_t turn = 0; turn < timings.size(); ++turn) {
      const std::size_t i = (turn + static_cast<std::size_t>(round)) % timings.size();
      take_turn(timings[i].op, args, options.warmup, timings[i].runs_per_turn, driver, flush_or_null, stream,
                times[i]);
    }
  }
  for (std::size_t i = 0; i < timings.size(); ++i) timings[i].median_ms = median(times[i]);
  std::stable_sort(timings.begin(), timings.end(),
                   [](const OperatorTiming& a, const OperatorTiming& b) { return a.median_ms < b.median_ms; });
  return timings;
}

}  // namespace epigemm
