// time_operators: measures candidate operators on the caller's own
// arguments and device, for picking the fastest where the built-in ranking
// (fitted to one GPU) may not hold.
#pragma once

#include <vector>

#include "epigemm/gemm.hpp"
#include "epigemm/operator.hpp"

namespace epigemm {

/// How time_operators measures.
struct TimingOptions {
  int rounds = 3;       ///< interleaved rounds; each operator takes one turn per round
  int warmup = 2;       ///< untimed runs at the start of each turn
  int iterations = 10;  ///< timed runs per turn (at least)
  /// Above 0: each operator's turns take as many timed runs (at least
  /// `iterations`, at most kMaxRunsPerTurn) as last about this many
  /// milliseconds, sized from one run timed alone before the rounds. A
  /// GPU's clock falls under sustained load, and by how much depends on the
  /// kernel, so turns should last as long as the real workload's busy spans.
  double turn_ms = 0.0;
  /// Device tensors: before each timed run (outside its time), read a
  /// buffer four times the device's L2 (at least 64 MiB) so that the run
  /// finds none of its operands in L2, as in a network whose other layers
  /// ran in between rather than in a loop of the same GEMM. Turns sized by
  /// turn_ms count the runs' time only. No effect on host tensors.
  bool flush_l2 = false;
};

/// The most timed runs one turn takes when sized by TimingOptions::turn_ms
/// (unless `iterations` asks for more).
inline constexpr int kMaxRunsPerTurn = 100000;

/// One operator's measurement.
struct OperatorTiming {
  Operator op;
  double median_ms = 0.0;   ///< median of its timed runs over all rounds
  double compile_ms = 0.0;  ///< wall time of its compile(), beside the others' (near 0 when cached)
  int runs_per_turn = 0;    ///< timed runs in each of its turns
};

/// Compiles each of `ops` (side by side, on up to 8 host threads), then runs
/// them on `args` in `options.rounds` rounds, each operator one turn per
/// round (the first turn rotates), so a clock that drifts under sustained
/// load weighs on all of them alike.
/// Times with CUDA events on `stream` (a CUstream; null: the default
/// stream) for device tensors, each run between its own events when
/// `flush_l2` puts a flush (on the same stream) before it, and with the wall
/// clock for host tensors.
/// Returns the timings fastest first. The outputs of `args` hold whatever
/// the last run wrote; the inputs are never written. Throws Error when
/// `ops` is empty, an operator does not support `args`, an option is below
/// 1 (warmup and turn_ms below 0), or `stream` is capturing a graph; throws
/// Error(ErrorKind::Cuda) when the flush's buffer cannot be allocated.
std::vector<OperatorTiming> time_operators(const std::vector<Operator>& ops, const GemmArguments& args,
                                           const TimingOptions& options = {}, void* stream = nullptr);

}  // namespace epigemm
