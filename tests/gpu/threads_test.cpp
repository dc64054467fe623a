// Operators compiled and run from several host threads at once: three
// threads share one new kernel (the cache makes all but one wait for its
// compile), three more compile kernels of their own, every one runs the
// device's first operator on its own problem and stream and checks every
// output against cpu_reference; then one thread's time_operators compiles
// new candidates side by side.
#include <atomic>
#include <thread>

#include "epigemm/timing.hpp"
#include "gpu/gpu_problem.hpp"

namespace epigemm::testing {
namespace {

constexpr int kThreads = 6;
constexpr int kSharing = 3;  ///< threads 0 .. kSharing-1 build the same kernel

/// relu+F with a constant that makes the source (and so the kernel) new to
/// both caches on every run of the test.
std::string relu_f_source(double constant) {
  char text[200];
  std::snprintf(text, sizeof text,
                "def epi(accum, alpha, C):\n    F = accum * alpha + C * %.17g\n    D = relu(F)\n    return D, F\n",
                constant);
  return text;
}

/// One thread's problem: bf16 A and B, C, D and F of (M, N), on a stream
/// of its own; `first` names the operator the device ranked first.
void compile_and_run(const runtime::Driver& driver, unsigned seed, std::int64_t M, std::int64_t N, std::int64_t K,
                     const std::string& source, std::string& first) {
  driver.make_current(0);
  std::mt19937 rng(seed);
  GpuProblem p(driver, rng);
  p.add_ab(DType::bf16, DType::bf16, 1, M, N, K);
  p.set_source(source);
  p.scalar("alpha", 0.5);
  p.add("C", DType::bf16, {M, N});
  p.add("D", DType::bf16, {M, N}, {}, true);
  p.add("F", DType::f32, {M, N}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  const std::vector<Operator> ops = get_operators(args);
  ASSERT_FALSE(ops.empty());
  first = ops.front().name();
  CUstream stream = nullptr;
  driver.check(driver.stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  Operator op = ops.front();
  op.compile(args);
  for (unsigned char poison : {0xFF, 0x5A}) {
    p.poison_outputs(poison, stream);
    op.run(args, stream);
    driver.check(driver.stream_synchronize(stream), "waiting for " + op.name());
    p.run_reference_once(DType::f32, DType::f32);
    p.compare_outputs(op.name() + " on thread seed " + std::to_string(seed));
    p.expect_only_outputs_written(poison, op.name());
  }
  driver.check(driver.stream_destroy(stream), "destroying a stream");
}

TEST(ThreadsGpu, CompileAndRunFromSeveralThreads) {
  EPIGEMM_REQUIRE_GPU(driver);
  std::random_device rd;
  const double constant = 1.0 + (rd() % 1000000) * 1e-7;
  std::vector<unsigned> seeds(kThreads);
  for (unsigned& seed : seeds) seed = rd();
  std::vector<std::string> firsts(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      const bool sharing = t < kSharing;
      const std::int64_t M = sharing ? 384 : 256 + 64 * t, N = sharing ? 320 : 192 + 32 * t, K = 256;
      const std::string source = relu_f_source(sharing ? constant : constant + t);
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // compile together
      compile_and_run(*driver, seeds[static_cast<std::size_t>(t)], M, N, K, source,
                      firsts[static_cast<std::size_t>(t)]);
    });
  }
  for (std::thread& t : pool) t.join();
  for (int t = 1; t < kSharing; ++t) EXPECT_EQ(firsts[static_cast<std::size_t>(t)], firsts[0]);
}

TEST(ThreadsGpu, TimeOperatorsCompilesNewCandidatesSideBySide) {
  EPIGEMM_REQUIRE_GPU(driver);
  std::random_device rd;
  std::mt19937 rng(rd());
  const std::int64_t M = 512, N = 384, K = 320;
  GpuProblem p(*driver, rng);
  p.add_ab(DType::f16, DType::f16, 1, M, N, K);
  p.set_source(relu_f_source(3.0 + (rd() % 1000000) * 1e-7));
  p.scalar("alpha", 2.0);
  p.add("C", DType::f16, {M, N});
  p.add("D", DType::f16, {M, N}, {}, true);
  p.add("F", DType::f16, {M, N}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  std::vector<Operator> ops = get_operators(args);
  if (ops.size() > 4) ops.erase(ops.begin() + 4, ops.end());
  p.poison_outputs(0xA5);
  const std::vector<OperatorTiming> timings = time_operators(ops, args, {.rounds = 1, .warmup = 0, .iterations = 2});
  driver->check(driver->ctx_synchronize(), "waiting for the timed runs");
  ASSERT_EQ(timings.size(), ops.size());
  for (const OperatorTiming& t : timings) EXPECT_GT(t.compile_ms, 0.0) << t.op.name();
  p.run_reference_once(DType::f32, DType::f32);
  p.compare_outputs("after time_operators");
  p.expect_only_outputs_written(0xA5, "time_operators");
  // Each compiled kernel runs right on its own too.
  for (const Operator& op : ops) p.run_and_compare(op, DType::f32, DType::f32);
}

}  // namespace
}  // namespace epigemm::testing
