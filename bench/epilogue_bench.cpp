// epilogue_bench: epigemm against cuBLASLt on the H200, one process, A/B
// interleaved, L2 flushed, medians of many runs, fresh random data, every
// result spot-checked. Writes one JSON line per row (bench/report.py reads it).
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "epigemm/epigemm.hpp"
#include "epilogue_bench/bench_cases.hpp"
#include "epilogue_bench/case_runner.hpp"
#include "epilogue_bench/cuda_check.hpp"
#include "epilogue_bench/interleaved_timer.hpp"
#include "epilogue_bench/row_result.hpp"

namespace eb = epigemm::bench;

namespace {

constexpr std::size_t kFlushBytes = std::size_t{256} << 20;

struct Flags {
  bool quick = false;
  bool sweep = false;
  bool list = false;
  std::string json_path = "epilogue_bench.jsonl";
  std::string only;  // run only rows whose "dtype shape epilogue" contains this
  std::string pin;   // only epigemm operators whose name contains this
  std::vector<eb::Shape> shapes;  // --shape: these shapes instead of the suite's
  std::uint64_t seed = 0;
  bool seed_given = false;
  eb::RunnerOptions runner;
};

const char* kUsage =
    "usage: epilogue_bench [--quick | --sweep] [--list] [--json PATH] [--only TEXT] [--shape MxNxK]...\n"
    "                      [--operator NAME] [--seed N] [--reps N] [--budget SECONDS] [--min-reps N]\n"
    "                      [--max-reps N] [--block N] [--samples N] [--pad-mib N]\n"
    "  --quick      three small cases (bf16 4096^3, bf16 16x8192x8192, e4m3 4096^3) instead of the suite\n"
    "  --sweep      24 shapes beyond the suite (bf16, B row-major, all six epilogues; 0.3 s per row\n"
    "               unless --budget): square sizes, LLM projections, short K, skinny M and N\n"
    "  --list       print the rows that would run, then exit\n"
    "  --json PATH  where the results go, one JSON object per line (default epilogue_bench.jsonl)\n"
    "  --only TEXT  only rows whose \"dtype shape epilogue\" label contains TEXT from the start of a\n"
    "               word (e.g. \"bf16 8192^3\", \"f16 8192^3\" (not the bf16 rows), \"gelu\",\n"
    "               or \"B col-major\" for the rows with a column-major B, see below)\n"
    "  --shape MxNxK  instead of the suite: bf16 and f16 (B row-major) and bf16 B col-major at this\n"
    "               shape, all six epilogues, and e4m3 fast- and precise-acc (none, scale+amax), tf32\n"
    "               and i8 (none, alpha*acc+beta*C) (repeat the flag for more shapes; combines with --only)\n"
    "  --operator NAME  only epigemm operators whose name contains NAME\n"
    "  --seed N     seed for the random data (default: a fresh one each run)\n"
    "  --reps N     exactly N timed runs of each variant (default: sized to --budget)\n"
    "  --budget S   seconds of timed runs per row (default 1.5)\n"
    "  --block N    time N runs of a variant in a row before the next variant's (default: as many as\n"
    "               take about 50 ms, at most a quarter of the runs; 1 alternates every run)\n"
    "  --pad-mib N  hold N MiB of device memory while each case allocates its operands, so that they\n"
    "               land elsewhere (a kernel's time can depend on where its buffers lie)\n"
    "B's layout: the 16-bit rows hold B (K, N) row-major (N contiguous), except the rows whose dtype\n"
    "reads \"bf16 B col-major\" (M = 16 and 128, N = K = 8192): there B is column-major (K contiguous,\n"
    "strides (1, K)), i.e. x @ W^T for an nn.Linear weight W (N, K) as PyTorch stores it. fp8, tf32\n"
    "and int8 rows always take B column-major (wgmma and cuBLASLt need them K-major), without a marker.\n";

Flags parse_flags(int argc, char** argv) {
  Flags f;
  bool budget_given = false;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw eb::BenchError(std::string("missing value after ") + argv[i]);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") f.quick = true;
    else if (a == "--sweep") f.sweep = true;
    else if (a == "--list") f.list = true;
    else if (a == "--json") f.json_path = value(i);
    else if (a == "--only") f.only = value(i);
    else if (a == "--shape") f.shapes.push_back(eb::parse_shape(value(i)));
    else if (a == "--operator") f.runner.pin = value(i);
    else if (a == "--seed") f.seed = std::stoull(value(i)), f.seed_given = true;
    else if (a == "--reps") f.runner.timer.fixed_reps = std::stoi(value(i));
    else if (a == "--budget") f.runner.timer.budget_s = std::stod(value(i)), budget_given = true;
    else if (a == "--min-reps") f.runner.timer.min_reps = std::stoi(value(i));
    else if (a == "--max-reps") f.runner.timer.max_reps = std::stoi(value(i));
    else if (a == "--block") f.runner.timer.block = std::stoi(value(i));
    else if (a == "--samples") f.runner.samples = std::stoi(value(i));
    else if (a == "--pad-mib") f.runner.pad_mib = std::stoll(value(i));
    else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw eb::BenchError("unknown flag " + a + "\n" + kUsage);
    }
  }
  if (f.runner.pad_mib < 0 || f.runner.pad_mib > (std::int64_t{1} << 20)) {
    throw eb::BenchError("--pad-mib must be 0 to 1048576 (MiB)");
  }
  if (f.quick) f.runner.timer.budget_s = std::min(f.runner.timer.budget_s, 0.4);
  if (f.sweep && !budget_given) f.runner.timer.budget_s = 0.3;
  if (f.quick + f.sweep + !f.shapes.empty() > 1) {
    throw eb::BenchError("--quick, --sweep and --shape exclude each other");
  }
  return f;
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string row_label(const eb::BenchCase& c, eb::EpilogueKind kind) {
  return c.label() + " " + std::string(eb::epilogue_label(kind));
}

/// Whether `text` occurs in `label` from the start of one of its words, so
/// that "f16 8192^3" selects the f16 rows and not the bf16 ones.
bool label_matches(const std::string& label, const std::string& text) {
  for (std::size_t at = label.find(text); at != std::string::npos; at = label.find(text, at + 1)) {
    if (at == 0 || label[at - 1] == ' ') return true;
  }
  return false;
}

/// The cases left after --only, each with only its matching epilogues.
std::vector<eb::BenchCase> select_cases(const Flags& flags) {
  std::vector<eb::BenchCase> cases;
  const std::vector<eb::BenchCase> suite =
      !flags.shapes.empty() ? eb::custom_suite(flags.shapes)
      : flags.quick         ? eb::quick_suite()
      : flags.sweep         ? eb::sweep_suite()
                            : eb::full_suite();
  for (eb::BenchCase c : suite) {
    std::vector<eb::EpilogueKind> kept;
    for (eb::EpilogueKind k : c.epilogues) {
      if (flags.only.empty() || label_matches(row_label(c, k), flags.only)) kept.push_back(k);
    }
    if (kept.empty()) continue;
    c.epilogues = kept;
    cases.push_back(c);
  }
  return cases;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buffer;
}

const char* mode_name(const Flags& flags) {
  if (flags.quick) return "quick";
  if (flags.sweep) return "sweep";
  return flags.shapes.empty() ? "full" : "shapes";
}

std::string meta_json(const Flags& flags, const cudaDeviceProp& prop, int target_sm, double flush_ms) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::ostringstream o;
  o << "{\"meta\":{\"date\":" << eb::json_string(utc_now()) << ",\"gpu\":" << eb::json_string(prop.name)
    << ",\"sm\":" << target_sm << ",\"sm_count\":" << prop.multiProcessorCount
    << ",\"l2_bytes\":" << prop.l2CacheSize << ",\"cuda_driver_api\":" << driver << ",\"cuda_runtime\":" << runtime
    << ",\"cublaslt\":" << cublasLtGetVersion() << ",\"seed\":" << flags.seed
    << ",\"mode\":" << eb::json_string(mode_name(flags)) << ",\"only\":" << eb::json_string(flags.only)
    << ",\"flush\":\"read\",\"flush_bytes\":" << kFlushBytes << ",\"flush_ms\":" << flush_ms
    << ",\"budget_s\":" << flags.runner.timer.budget_s << ",\"fixed_reps\":" << flags.runner.timer.fixed_reps
    << ",\"block\":" << flags.runner.timer.block << ",\"block_ms\":" << flags.runner.timer.block_ms
    << ",\"samples\":" << flags.runner.samples << ",\"pad_mib\":" << flags.runner.pad_mib << "}}";
  return o.str();
}

int run(const Flags& flags) {
  const std::vector<eb::BenchCase> cases = select_cases(flags);
  if (flags.list) {
    for (const eb::BenchCase& c : cases) {
      for (eb::EpilogueKind k : c.epilogues) std::cout << row_label(c, k) << "\n";
    }
    return 0;
  }
  if (cases.empty()) throw eb::BenchError("no row matches --only \"" + flags.only + "\"");

  BENCH_CUDA(cudaSetDevice(0));
  BENCH_CUDA(cudaFree(nullptr));  // makes the device's primary context current; epigemm uses the same one
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int target_sm = prop.major * 10 + prop.minor;
  cudaStream_t stream = nullptr;
  BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasLtHandle_t lt = nullptr;
  BENCH_CUBLAS(cublasLtCreate(&lt));

  eb::InterleavedTimer timer(stream, kFlushBytes);
  eb::RunnerOptions options = flags.runner;
  options.target_sm = target_sm;
  eb::CaseRunner runner(stream, lt, timer, options);

  std::ofstream json(flags.json_path);
  if (!json) throw eb::BenchError("cannot write " + flags.json_path);
  json << meta_json(flags, prop, target_sm, timer.flush_ms()) << "\n" << std::flush;
  std::cout << "GPU " << prop.name << " (sm_" << target_sm << ", " << prop.multiProcessorCount
            << " SMs), seed " << flags.seed << ", L2 flush: read " << (kFlushBytes >> 20) << " MiB ("
            << timer.flush_ms() << " ms)\n"
            << std::flush;

  int rows = 0, failed = 0;
  int status = 0;
  try {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      std::cout << "== " << cases[i].label() << "\n" << std::flush;
      runner.run(cases[i], mix(flags.seed + i), [&](const eb::RowResult& row) {
        ++rows;
        if (!row.check_pass || !row.anchor_pass || !row.error.empty()) ++failed;
        json << row.to_json() << "\n" << std::flush;
        std::cout << row.to_line() << "\n";
        if (!row.check_pass || !row.anchor_pass) std::cout << "   check: " << row.check << " | " << row.anchor_check << "\n";
        std::cout << std::flush;
      });
      std::cout << "   (" << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                << " s for this case)\n";
    }
  } catch (const eb::FatalCudaError& e) {
    std::cerr << "stopping: " << e.what() << "\n";
    status = 2;
  }
  std::cout << rows << " rows, " << failed << " with a failed check or an error\n";
  cublasLtDestroy(lt);
  cudaStreamDestroy(stream);
  if (status == 0 && failed > 0) status = 1;
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Flags flags = parse_flags(argc, argv);
    if (!flags.seed_given) flags.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    return run(flags);
  } catch (const std::exception& e) {
    std::cerr << "epilogue_bench: " << e.what() << "\n";
    return 2;
  }
}
