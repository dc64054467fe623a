// The runtime's numbers: a cold NVRTC compile of one generated kernel, a
// process-start load of that kernel from the disk cache (measured in a child
// process), cold compiles of four candidates through time_operators (side by
// side), and the host time of a warm Operator::run(). Prints a Markdown
// table; bench/run.sh appends it to bench/RESULTS.md.
//
// usage: runtime_bench [--provider NAME] [--calls N]
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "epigemm/epigemm.hpp"

namespace eg = epigemm;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "runtime_bench: %s: %s\n", what, cudaGetErrorName(e));
    std::exit(1);
  }
}

// A bf16 GEMM with a one-constant epilogue; the constant makes the source
// new for every run of the benchmark, so neither cache has seen it.
struct Problem {
  std::int64_t m, n, k;
  void *a = nullptr, *b = nullptr, *d = nullptr;
  std::string source;

  Problem(std::int64_t m_, std::int64_t n_, std::int64_t k_, double constant) : m(m_), n(n_), k(k_) {
    std::vector<std::uint16_t> host(static_cast<std::size_t>(std::max(m * k, k * n)));
    std::mt19937 rng(7);
    for (auto& v : host) v = static_cast<std::uint16_t>(0x3F80 + (rng() % 64));  // bf16 in [1, 2)
    check(cudaMalloc(&a, m * k * 2), "cudaMalloc");
    check(cudaMalloc(&b, k * n * 2), "cudaMalloc");
    check(cudaMalloc(&d, m * n * 2), "cudaMalloc");
    check(cudaMemcpy(a, host.data(), m * k * 2, cudaMemcpyHostToDevice), "copy A");
    check(cudaMemcpy(b, host.data(), k * n * 2, cudaMemcpyHostToDevice), "copy B");
    char text[160];
    std::snprintf(text, sizeof text, "def epi(accum, alpha):\n    D = relu(accum * alpha + %.17g)\n    return D\n", constant);
    source = text;
  }
  eg::GemmArguments args() const {
    auto dref = eg::TensorRef::cuda(d, eg::DType::bf16, {m, n});
    eg::EpilogueArguments epi(source, {{"alpha", 0.5}, {"D", dref}});
    return {.A = eg::TensorRef::cuda(a, eg::DType::bf16, {m, k}),
            .B = eg::TensorRef::cuda(b, eg::DType::bf16, {k, n}),
            .out = dref,
            .accumulator = eg::DType::f32,
            .epilogue = epi};
  }
};

// The first `count` operators for the problem (of `provider`, if named).
std::vector<eg::Operator> first_operators(const eg::GemmArguments& args, const std::string& provider,
                                          std::size_t count) {
  eg::OperatorQuery query;
  if (!provider.empty()) query.providers = {provider};
  auto ops = eg::get_operators(args, query);
  if (ops.empty()) {
    std::fprintf(stderr, "runtime_bench: no operator for the problem\n");
    std::exit(1);
  }
  if (ops.size() > count) ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(count), ops.end());
  return ops;
}

eg::Operator pick(const eg::GemmArguments& args, const std::string& provider) {
  return first_operators(args, provider, 1).front();
}

}  // namespace

int main(int argc, char** argv) {
  std::string provider, child_constant;
  int calls = 20000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--provider" && i + 1 < argc) provider = argv[++i];
    else if (a == "--calls" && i + 1 < argc) calls = std::atoi(argv[++i]);
    else if (a == "--child-load" && i + 1 < argc) child_constant = argv[++i];
    else {
      std::fprintf(stderr, "usage: runtime_bench [--provider NAME] [--calls N]\n");
      return 2;
    }
  }
  if (eg::device_target_sm() == 0) {
    std::fprintf(stderr, "runtime_bench: no CUDA device\n");
    return 1;
  }

  if (!child_constant.empty()) {  // the child: first compile() in a new process, from the disk cache
    Problem p(1024, 1024, 1024, std::atof(child_constant.c_str()));
    auto args = p.args();
    auto op = pick(args, provider);
    const auto t0 = Clock::now();
    op.compile(args);
    std::printf("%.3f\n", seconds_since(t0) * 1e3);
    return 0;
  }

  char dir_template[] = "/tmp/epigemm-runtime-bench-XXXXXX";
  const char* cache_dir = mkdtemp(dir_template);
  setenv("EPIGEMM_CACHE_DIR", cache_dir, 1);
  std::random_device rd;
  const double constant = 1.0 + (rd() % 1000000) * 1e-7;
  char constant_text[64];
  std::snprintf(constant_text, sizeof constant_text, "%.17g", constant);

  Problem big(1024, 1024, 1024, constant);
  auto big_args = big.args();
  auto op = pick(big_args, provider);
  auto t0 = Clock::now();
  op.compile(big_args);
  const double cold_s = seconds_since(t0);

  // Child process: loads the kernel the parent just stored.
  std::string command = std::string("'") + argv[0] + "' --child-load " + constant_text +
                        (provider.empty() ? "" : " --provider " + provider);
  FILE* child = popen(command.c_str(), "r");
  double child_ms = -1;
  if (child && std::fscanf(child, "%lf", &child_ms) != 1) child_ms = -1;
  if (child) pclose(child);

  // Four candidates of a new source compiled (and run once) by time_operators.
  Problem tuned(1024, 1024, 1024, constant + 0.5);
  auto tuned_args = tuned.args();
  const std::vector<eg::Operator> candidates = first_operators(tuned_args, provider, 4);
  t0 = Clock::now();
  const auto timings = eg::time_operators(candidates, tuned_args, {.rounds = 1, .warmup = 0, .iterations = 1});
  const double tuned_s = seconds_since(t0);
  double compiles_s = 0.0;
  for (const auto& t : timings) compiles_s += t.compile_ms * 1e-3;

  // Warm run(): a small problem so the GPU keeps up with the host.
  Problem small(64, 64, 64, constant);
  auto small_args = small.args();
  auto small_op = pick(small_args, provider);
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  for (int i = 0; i < 10; ++i) small_op.run(small_args, stream);
  check(cudaStreamSynchronize(stream), "sync");
  std::vector<double> per_call;
  for (int rep = 0; rep < 5; ++rep) {
    t0 = Clock::now();
    for (int i = 0; i < calls / 5; ++i) small_op.run(small_args, stream);
    per_call.push_back(seconds_since(t0) * 1e6 / (calls / 5));
    check(cudaStreamSynchronize(stream), "sync");
  }
  std::sort(per_call.begin(), per_call.end());

  std::printf("\n## Runtime (bench/runtime_bench)\n\n");
  std::printf("| what | operator | measured | goal |\n| --- | --- | --- | --- |\n");
  std::printf("| cold compile of one generated kernel (new source, empty disk cache) | %s | %.3f s | < 2 s |\n",
              op.name().c_str(), cold_s);
  std::printf("| first compile() in a new process, from the disk cache | %s | %.2f ms | < 20 ms |\n",
              op.name().c_str(), child_ms);
  std::printf("| time_operators on %zu new candidates, cold (compiled side by side; their compiles sum to %.3f s) "
              "| %s first | %.3f s | < 2 s |\n",
              candidates.size(), compiles_s, candidates.front().name().c_str(), tuned_s);
  std::printf("| warm run() host time per call (median of 5 x %d calls, 64x64x64) | %s | %.2f us | < 10 us |\n",
              calls / 5, small_op.name().c_str(), per_call[per_call.size() / 2]);
  std::filesystem::remove_all(cache_dir);
  return 0;
}
