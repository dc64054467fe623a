// `epigemm run`: random inputs for a problem, one operator chosen by the
// filters (or, with --autotune, the fastest of the first few), timed over
// warmup and measured iterations (or as many as fill --turn-ms), and its
// outputs checked against the cpu_reference provider.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "api/epilogue_program.hpp"
#include "commands.hpp"
#include "device_problem.hpp"
#include "epigemm/error.hpp"
#include "epigemm/timing.hpp"
#include "execution_flags.hpp"
#include "flag_values.hpp"
#include "output_check.hpp"
#include "runtime/cuda_objects.hpp"

namespace epigemm::cli {
namespace {

struct RunOptions {
  std::uint64_t seed = 0;
  InitKind init = InitKind::integer;
  std::int64_t warmup = 0;
  std::int64_t iterations = 1;
  double turn_ms = 0.0;       ///< above 0: timed runs per turn filling about this long
  std::int64_t autotune = 0;  ///< candidates to time (0: take the ranking's first)
  bool flush_l2 = false;      ///< an L2 flush before each timed run (cuda)
  bool skip_check = false;
};

/// Interleaved rounds of each candidate's warmup and timed runs under --autotune.
constexpr int kAutotuneRounds = 3;

FlagSet make_flags() {
  FlagSet flags("epigemm run", "[flags]",
                "Runs one GEMM with a fused epilogue on random inputs: picks the first operator that supports the\n"
                "problem (with --autotune, the fastest of the first N), times it, and checks every output against\n"
                "the cpu_reference provider.");
  add_problem_flags(flags);
  flags.add_section("data");
  flags.add_value("seed", "N", "0", "seed of the random inputs");
  flags.add_value("init", "int|normal|uniform", "int",
                  "input values: integers in [-2, 2] (exact GEMMs), standard normal, or uniform in [-1, 1); "
                  "integers draw less power than real data, so time and autotune on normal");
  add_device_flags(flags);
  add_operator_flags(flags);
  flags.add_section("timing and check");
  flags.add_value("warmup-iterations", "N", "2 on cuda, 0 on cpu", "untimed runs before the timed ones");
  flags.add_value("iterations", "N", "10 on cuda, 1 on cpu", "timed runs; the median is reported");
  flags.add_value("turn-ms", "MS", "off",
                  "time as many runs as last about MS milliseconds (at least --iterations), sized from one run "
                  "timed alone; a GPU's clock falls under sustained load, so match the workload's busy spans");
  flags.add_value("autotune", "N", "off",
                  "time the first N operators that support the problem (after the filters) in three "
                  "interleaved rounds of the warmup and timed runs, and run the fastest");
  flags.add_boolean("flush-l2",
                    "before each timed run, read a buffer of four times the GPU's L2 (at least 64 MiB) so that the "
                    "run starts with its operands out of L2, as between a network's layers (cuda only)");
  flags.add_boolean("skip-ref-check", "do not compare the outputs with the cpu_reference provider");
  flags.add_epilog(
      "Every parameter not bound by --scalar or --tensor is a tile (L, M, N) of the c dtype; every output\n"
      "other than D not bound by --output is a tile of the d dtype. Outputs are filled with NaN bytes\n"
      "before the run, so elements the operator never writes fail the check.\n"
      "\n"
      "Exit codes: 0 ok, 1 error, 2 bad command line, 3 an output failed the check.\n"
      "\n"
      "Example:\n"
      "  epigemm run --mnkl 256,256,128,1 --epilogue \"def epi(accum, alpha, C): F = accum * alpha + C * 2.0;\n"
      "      D = relu(F); return D, F\" --scalar alpha=3");
  return flags;
}

RunOptions read_run_options(const FlagSet& flags, bool cuda) {
  RunOptions o;
  if (auto v = flags.value("seed")) {
    o.seed = static_cast<std::uint64_t>(parse_integer("seed", *v, 0, std::numeric_limits<std::int64_t>::max()));
  }
  if (auto v = flags.value("init")) {
    const std::string init = parse_choice("init", *v, {"int", "normal", "uniform"});
    o.init = init == "int" ? InitKind::integer : init == "normal" ? InitKind::normal : InitKind::uniform;
  }
  o.warmup = cuda ? 2 : 0;
  o.iterations = cuda ? 10 : 1;
  if (auto v = flags.value("warmup-iterations")) o.warmup = parse_integer("warmup-iterations", *v, 0, 1000000);
  if (auto v = flags.value("iterations")) o.iterations = parse_integer("iterations", *v, 1, 1000000);
  if (auto v = flags.value("turn-ms")) {
    o.turn_ms = parse_number("turn-ms", *v);
    if (!(o.turn_ms > 0.0) || !std::isfinite(o.turn_ms)) {
      throw UsageError("--turn-ms: expected a positive number of milliseconds, got '" + std::string(*v) + "'");
    }
  }
  if (auto v = flags.value("autotune")) o.autotune = parse_integer("autotune", *v, 1, 64);
  o.flush_l2 = cuda && flags.flag("flush-l2");
  o.skip_check = flags.flag("skip-ref-check");
  return o;
}

std::string init_text(const RunOptions& o) {
  switch (o.init) {
    case InitKind::integer: return "integers in [-2, 2]";
    case InitKind::normal: return "standard normal";
    case InitKind::uniform: return "uniform in [-1, 1)";
  }
  return "?";
}

// The first `count` operators the query admits that support the problem,
// best ranked first; an Error listing every rejection when there is none.
std::vector<Operator> choose_operators(const GemmArguments& args, const OperatorQuery& query, std::int64_t count) {
  std::vector<OperatorCandidate> candidates = explain_operators(args, query);
  std::vector<Operator> chosen;
  for (const auto& c : candidates) {
    if (c.status && static_cast<std::int64_t>(chosen.size()) < count) chosen.push_back(c.op);
  }
  if (!chosen.empty()) return chosen;
  if (candidates.empty()) {
    throw Error(ErrorKind::Unsupported, "no operator matches the --provider/--operator/--tile/--cluster/--fp8-accumulation filters"
                                        " (see epigemm list)");
  }
  std::string reasons;
  for (const auto& c : candidates) reasons += "; " + c.op.name() + ": " + c.status.reason();
  throw Error(ErrorKind::Unsupported, "no operator supports this problem" + reasons);
}

// The run's warmup and timed runs as time_operators takes them.
TimingOptions timing_options(const RunOptions& o, int rounds) {
  return TimingOptions{.rounds = rounds,
                       .warmup = static_cast<int>(o.warmup),
                       .iterations = static_cast<int>(o.iterations),
                       .turn_ms = o.turn_ms,
                       .flush_l2 = o.flush_l2};
}

// ", L2 flushed before each" under --flush-l2, else nothing.
const char* flush_text(const RunOptions& o) { return o.flush_l2 ? ", L2 flushed before each" : ""; }

// "10 timed runs", or under --turn-ms "timed runs filling 100 ms (at least
// 10)"; then flush_text.
std::string turn_text(const RunOptions& o) {
  const std::string flushed = flush_text(o);
  if (o.turn_ms <= 0.0) return std::to_string(o.iterations) + " timed runs" + flushed;
  char text[100];
  std::snprintf(text, sizeof(text), "timed runs filling %g ms (at least %lld)", o.turn_ms,
                static_cast<long long>(o.iterations));
  return text + flushed;
}

// --autotune: times the candidates (time_operators: interleaved rounds of
// the warmup and timed runs), prints each one's median and returns the
// fastest. The candidates write the outputs, so the caller poisons them
// again before the chosen one runs.
Operator autotune(const std::vector<Operator>& candidates, const GemmArguments& args, const RunOptions& o) {
  const std::vector<OperatorTiming> timings = time_operators(candidates, args, timing_options(o, kAutotuneRounds));
  std::cout << "autotune: " << candidates.size() << " candidate(s), " << kAutotuneRounds << " rounds of "
            << o.warmup << " warmup + " << turn_text(o) << " each, fastest first:\n";
  const double fastest = timings.front().median_ms;
  for (const OperatorTiming& t : timings) {
    char line[300];
    std::snprintf(line, sizeof(line),
                  "  %-44s median %.4f ms (%.3fx the fastest) over %d runs a turn, compile %.1f ms%s",
                  t.op.name().c_str(), t.median_ms, fastest > 0 ? t.median_ms / fastest : 1.0, t.runs_per_turn,
                  t.compile_ms, t.op.name() == candidates.front().name() ? "  (the ranking's first)" : "");
    std::cout << line << "\n";
  }
  return timings.front().op;
}

void print_epilogue(const ProblemSpec& spec) {
  if (!spec.has_epilogue()) {
    std::cout << "epilogue: none (D = accum)\n";
    return;
  }
  std::cout << "epilogue (" << spec.source_origin << "):\n";
  std::size_t start = 0;
  while (start < spec.source.size()) {
    std::size_t end = spec.source.find('\n', start);
    if (end == std::string::npos) end = spec.source.size();
    std::cout << "  " << spec.source.substr(start, end - start) << "\n";
    start = end + 1;
  }
}

}  // namespace

int run_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  if (parse_or_print_help(flags, words)) return kExitOk;
  reject_positionals(flags.positionals(), flags.command());
  const ProblemSpec spec = read_problem_spec(flags);
  const DeviceChoice device = choose_device(flags);
  const RunOptions options = read_run_options(flags, device.cuda);
  const OperatorQuery query = read_operator_query(flags, device.target_sm);

  HostProblem host = allocate_host_problem(spec);
  fill_inputs(host, spec, options.seed, options.init);
  poison_outputs(host, spec);

  std::cout << "problem: " << describe_problem(spec) << "\n";
  print_epilogue(spec);
  std::cout << "bindings:\n" << describe_bindings(spec);
  std::cout << "data: " << init_text(options) << ", seed " << options.seed << "\n";
  if (!device.note.empty()) std::cout << device.note << "\n";

  const runtime::Driver* driver = device.cuda ? &runtime::Driver::require() : nullptr;
  std::optional<runtime::ContextGuard> context;
  std::unique_ptr<DeviceProblem> on_device;
  if (driver) {
    context.emplace(*driver, device.device);
    on_device = std::make_unique<DeviceProblem>(*driver, device.device, host);
    on_device->poison_outputs(spec);
    std::cout << "device: cuda:" << device.device << " (" << runtime::device_info(device.device).name << ", sm_"
              << runtime::device_info(device.device).sm << ")\n";
  }
  const GemmArguments args = make_arguments(spec, on_device ? on_device->views() : host_views(host));

  std::vector<Operator> candidates = choose_operators(args, query, std::max<std::int64_t>(options.autotune, 1));
  Operator op = candidates.front();
  if (options.autotune > 0) {
    op = autotune(candidates, args, options);
    poison_outputs(host, spec);
    if (on_device) on_device->poison_outputs(spec);
  }
  std::cout << "operator: " << describe_operator(op.metadata()) << "\n";
  for (const std::string& note : op.plan_notes(args)) std::cout << "note: " << note << "\n";
  std::cout.flush();
  const OperatorTiming measured = time_operators({op}, args, timing_options(options, 1)).front();
  if (on_device) on_device->download_outputs(spec, host);
  const double ms = measured.median_ms, compile_ms = measured.compile_ms;
  const double tflops = ms > 0 ? spec.flops() / (ms * 1e-3) / 1e12 : 0.0;
  char line[200];
  std::snprintf(line, sizeof(line),
                "time: median %.4f ms over %d iterations (%lld warmup%s), %.4g TFLOP/s; compile %.1f ms", ms,
                measured.runs_per_turn, static_cast<long long>(options.warmup), flush_text(options), tflops,
                compile_ms);
  std::cout << line << "\n";

  if (options.skip_check) {
    std::cout << "check: skipped (--skip-ref-check)\n";
    return kExitOk;
  }
  if (op.metadata().provider == "cpu_reference") {
    std::cout << "check: skipped (the operator is the reference itself)\n";
    return kExitOk;
  }
  const ir::Dag* dag =
      args.epilogue ? &args.epilogue->program().dag_for(spec.acc, spec.compute, args.epilogue->bindings()) : nullptr;
  return check_against_reference(spec, host, dag, options.init, std::cout) ? kExitOk : kExitCheckFailed;
}

}  // namespace epigemm::cli
