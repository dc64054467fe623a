// The API from several threads at once: each thread parses its own
// epilogue, runs its own problem on the cpu_reference provider and checks
// it, while all of them rank, plan and generate sm90 kernels for one shared
// EpilogueArguments on CUDA views (nothing runs there), in the layouts and
// types that fill its program's caches (a column-major D's transposed DAG,
// an f16 accumulator's retyped one) concurrently. Every thread's results
// must equal what one thread alone gets.
#include <atomic>
#include <thread>

#include "common/gemm_fixture.hpp"

namespace epigemm::testing {
namespace {

constexpr int kThreads = 8;
constexpr int kRepeats = 3;

const char* const kReluF =
    "def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n";

/// An sm90 problem on CUDA views of addresses nothing reads: A, B, C, D and
/// F of 512x384x256, D and F row- or column-major.
struct DescribedProblem {
  static constexpr std::int64_t M = 512, N = 384, K = 256;
  TensorRef A = TensorRef::cuda(reinterpret_cast<const void*>(0x100000), DType::f16, {M, K});
  TensorRef B = TensorRef::cuda(reinterpret_cast<const void*>(0x200000), DType::f16, {K, N});
  TensorRef C = TensorRef::cuda(reinterpret_cast<const void*>(0x300000), DType::f16, {M, N});
  TensorRef D_row = TensorRef::cuda(reinterpret_cast<const void*>(0x400000), DType::f16, {M, N});
  TensorRef F_row = TensorRef::cuda(reinterpret_cast<const void*>(0x500000), DType::f16, {M, N});
  TensorRef D_col = TensorRef::cuda(reinterpret_cast<const void*>(0x400000), DType::f16, {M, N}, {1, M});
  TensorRef F_col = TensorRef::cuda(reinterpret_cast<const void*>(0x500000), DType::f16, {M, N}, {1, M});
  EpilogueArguments row{kReluF, {{"alpha", 0.5}, {"C", C}, {"D", D_row}, {"F", F_row}}};
  EpilogueArguments col{kReluF, {{"alpha", 0.5}, {"C", C}, {"D", D_col}, {"F", F_col}}};

  GemmArguments args(bool column_major_d, DType accumulator) const {
    return {.A = A,
            .B = B,
            .out = column_major_d ? D_col : D_row,
            .accumulator = accumulator,
            .epilogue = column_major_d ? col : row};
  }
};

/// What the sm90 provider says of one variant: the first operator, its
/// ranking and a hash of its generated source.
std::string sm90_answer(const GemmArguments& args) {
  for (const OperatorCandidate& c : explain_operators(args, {.target_sm = 90, .providers = {"sm90"},
                                                             .ignore_devices = true})) {
    if (!c.status) continue;
    const std::string source = c.op.generated_source(args);
    return c.op.name() + " | " + c.ranking + " | " + std::to_string(std::hash<std::string>{}(source));
  }
  return "none";
}

/// Runs a relu+F problem of its own (extents and data drawn from `seed`) on
/// cpu_reference and checks D and F.
void run_own_problem(unsigned seed) {
  std::mt19937 rng(seed);
  const std::int64_t m = 9 + seed % 7, n = 12 + seed % 5, k = 5 + seed % 4;
  HostGemm g(2, m, n, k, DType::f16, rng);
  HostTensor C(DType::f16, {2, m, n}), D(DType::f32, {2, m, n}), F(DType::f32, {2, m, n});
  C.fill_int(rng);
  D.poison();
  F.poison();
  const double alpha = 0.5 + seed % 3;
  EpilogueArguments epi(kReluF, {{"alpha", alpha}, {"C", C}, {"D", D}, {"F", F}});
  HostGemm::run(GemmArguments{.A = g.A, .B = g.B, .out = D, .epilogue = epi});
  const auto f = [&](auto l, auto r, auto c) { return g.accum(l, r, c) * alpha + 2.0 * C.get({l, r, c}); };
  g.expect_tile(F, f);
  g.expect_tile(D, [&](auto l, auto r, auto c) { return std::max(0.0, f(l, r, c)); });
}

TEST(Threads, ParseRankPlanGenerateAndRunSideBySide) {
  const DescribedProblem described;
  const std::pair<bool, DType> variants[] = {
      {false, DType::f32}, {true, DType::f32}, {false, DType::f16}, {true, DType::f16}};
  // What one thread alone gets; a fresh program, so the threads below fill
  // the shared one's caches themselves.
  std::vector<std::string> expected;
  {
    const DescribedProblem alone;
    for (const auto& [column_major_d, accumulator] : variants)
      expected.push_back(sm90_answer(alone.args(column_major_d, accumulator)));
  }
  // Each variant has a kernel of its own.
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NE(expected[i], "none") << i;
    for (std::size_t j = 0; j < i; ++j) ASSERT_NE(expected[i], expected[j]) << i << " " << j;
  }

  std::vector<std::vector<std::string>> answers(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      for (int r = 0; r < kRepeats; ++r) {
        for (std::size_t v = 0; v < std::size(variants); ++v) {
          const auto& [column_major_d, accumulator] = variants[(v + static_cast<std::size_t>(t)) % std::size(variants)];
          answers[static_cast<std::size_t>(t)].push_back(sm90_answer(described.args(column_major_d, accumulator)));
        }
        run_own_problem(static_cast<unsigned>(100 * t + r));
      }
    });
  }
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < kThreads; ++t) {
    const auto& got = answers[static_cast<std::size_t>(t)];
    ASSERT_EQ(got.size(), kRepeats * std::size(variants));
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::size_t v = (i % std::size(variants) + static_cast<std::size_t>(t)) % std::size(variants);
      EXPECT_EQ(got[i], expected[v]) << "thread " << t << ", call " << i;
    }
  }
}

}  // namespace
}  // namespace epigemm::testing
