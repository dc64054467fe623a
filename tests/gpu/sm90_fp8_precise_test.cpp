// Precise fp8 accumulation on the sm90 provider: every precise (promoted)
// configuration against cpu_reference on fresh random data (ragged edges,
// batches, mixed fp8 types, f16 accumulators, fp8 D with its amax); the
// default fp8 choice is precise; and a long-K problem whose running sum the
// tensor cores' fast accumulation cannot keep, where the precise operators
// must meet the bound of an f32 accumulation of K products.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

using detail::Sm90TileConfig;

std::vector<Sm90TileConfig> precise_configs() {
  std::vector<Sm90TileConfig> out;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.promote_k_blocks > 0) out.push_back(c);
  }
  return out;
}

bool is_precise(const OperatorMetadata& md) {
  const auto it = md.extra.find("fp8_accumulation");
  return it != md.extra.end() && it->second == "precise";
}

bool is_fast(const OperatorMetadata& md) {
  const auto it = md.extra.find("fp8_accumulation");
  return it != md.extra.end() && it->second == "fast";
}

class Sm90Fp8Precise : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
};

TEST_F(Sm90Fp8Precise, EveryPreciseConfigurationMatchesTheReference) {
  EPIGEMM_REQUIRE_SM90(driver);
  struct Case {
    std::int64_t L, M, N, K;
    DType a, b, accumulator;
  };
  // K = 520 and 1000: the last k-block is partial; K = 96: less than one.
  const std::vector<Case> cases = {{2, 331, 283, 520, DType::e4m3, DType::e4m3, DType::f32},
                                   {1, 200, 144, 1000, DType::e4m3, DType::e5m2, DType::f32},
                                   {1, 77, 45, 96, DType::e5m2, DType::e5m2, DType::f16},
                                   {1, 256, 256, 384, DType::e4m3, DType::e4m3, DType::f32}};
  // The grouped-k tiles take whole k-blocks, at least one box of them: K =
  // 1024 (whole groups of 2), 640 and 1152 (a partial last group), skinny M.
  const std::vector<Case> grouped_cases = {{1, 16, 1000, 1024, DType::e4m3, DType::e4m3, DType::f32},
                                           {2, 100, 300, 640, DType::e4m3, DType::e5m2, DType::f32},
                                           {1, 77, 45, 1152, DType::e5m2, DType::e5m2, DType::f16}};
  const auto configs = precise_configs();
  ASSERT_EQ(configs.size(), 8u);
  for (const Sm90TileConfig& config : configs) {
    for (const Case& c : config.k_group > 1 ? grouped_cases : cases) {
      SCOPED_TRACE("tile " + config.shape_name() + ", " + std::string(to_string(c.a)) + " x " +
                   std::string(to_string(c.b)) + ", L M N K " + std::to_string(c.L) + " " + std::to_string(c.M) +
                   " " + std::to_string(c.N) + " " + std::to_string(c.K));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, c.a, c.b, c.L, c.M, c.N, c.K, true, true);  // fp8: both K-major
      p.set_source("def epi(accum, alpha, bias):\n    F = accum * alpha + bias\n    D = relu(F)\n    return D, F\n");
      p.scalar("alpha", 0.5);
      p.add("bias", DType::f32, {c.N});
      p.add("D", DType::bf16, {c.L, c.M, c.N}, padded_rows(DType::bf16, {c.L, c.M, c.N}), true);
      p.add("F", DType::f32, {c.L, c.M, c.N}, {}, true);
      const std::string name = run_sm90_and_compare(p, c.accumulator, DType::f32, pin_config(config));
      EXPECT_NE(name.find("_precise_fp8"), std::string::npos) << name;
    }
  }
}

TEST_F(Sm90Fp8Precise, Fp8DWithAmaxOnThePreciseConfigurations) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const Sm90TileConfig& config : precise_configs()) {
    SCOPED_TRACE("tile " + config.shape_name());
    const std::int64_t L = 2, M = 197, N = 333, K = config.k_group > 1 ? 640 : 300;  // grouped: whole k-blocks
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::e4m3, DType::e4m3, L, M, N, K, true, true);
    p.set_source("def epi(accum, scale):\n    D = accum * scale\n    amax = amax(D)\n    return D, amax\n");
    p.add("scale", DType::f32, {1});
    p.operand("scale").host->set({0}, 0.37);
    p.upload("scale");
    p.add("D", DType::e4m3, {L, M, N}, padded_rows(DType::e4m3, {L, M, N}), true);
    p.add("amax", DType::f32, {1}, {}, true);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    EXPECT_GT(ir::decode(DType::f32, p.operand("amax").host->ref().data), 0.0);
  }
}

TEST_F(Sm90Fp8Precise, TheDefaultFp8OperatorIsPreciseAndTheFilterPicksFast) {
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t M = 512, N = 512, K = 512;
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::e4m3, DType::e4m3, 1, M, N, K, true, true);
  p.set_source("def epi(accum):\n    D = accum\n    return D\n");
  p.add("D", DType::f32, {1, M, N}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  const auto ops = get_operators(args, sm90_query());
  ASSERT_FALSE(ops.empty());
  EXPECT_TRUE(is_precise(ops.front().metadata())) << ops.front().name();
  const auto fast = get_operators(args, sm90_query(is_fast));
  ASSERT_FALSE(fast.empty());
  EXPECT_TRUE(is_fast(fast.front().metadata())) << fast.front().name();
  // Both run and match the reference (small integers: every sum exact).
  const std::string precise_name = run_sm90_and_compare(p);
  EXPECT_EQ(precise_name, ops.front().name());
  const std::string fast_name = run_sm90_and_compare(p, DType::f32, DType::f32, is_fast);
  EXPECT_EQ(fast_name, fast.front().name());
}

/// The largest |got - want| / bound over D, where bound(m, n) = factor *
/// sum_k |A[m, k] * B[k, n]|: D (1, M, N) f32, A (1, M, K), B (1, K, N).
/// Infinite when an element is not finite.
double worst_error_ratio(GpuProblem& p, std::int64_t M, std::int64_t N, std::int64_t K, double factor) {
  std::vector<double> a(static_cast<std::size_t>(M * K)), b(static_cast<std::size_t>(K * N));
  const HostTensor& A = *p.operand("A").host;
  const HostTensor& B = *p.operand("B").host;
  for (std::int64_t m = 0; m < M; ++m) {
    for (std::int64_t k = 0; k < K; ++k) a[static_cast<std::size_t>(m * K + k)] = std::fabs(A.get({0, m, k}));
  }
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t k = 0; k < K; ++k) b[static_cast<std::size_t>(n * K + k)] = std::fabs(B.get({0, k, n}));
  }
  const HostTensor& want = *p.operand("D").host;
  const HostTensor& got = *p.operand("D").got;
  double worst = 0.0;
  for (std::int64_t m = 0; m < M; ++m) {
    for (std::int64_t n = 0; n < N; ++n) {
      double magnitude = 0.0;
      const double* ar = &a[static_cast<std::size_t>(m * K)];
      const double* bc = &b[static_cast<std::size_t>(n * K)];
      for (std::int64_t k = 0; k < K; ++k) magnitude += ar[k] * bc[k];
      const double error = std::fabs(got.get({0, m, n}) - want.get({0, m, n}));
      if (!std::isfinite(error)) return HUGE_VAL;  // an element never written (poison) or not finite
      worst = std::max(worst, error / (factor * magnitude));
    }
  }
  return worst;
}

TEST_F(Sm90Fp8Precise, LongKMeetsTheF32AccumulationBoundOnlyWhenPrecise) {
  // K = 8192 positive products: the running sum reaches ~2^14, where the
  // tensor cores' fast accumulation (about 13 fraction bits, truncating)
  // drops every product's fractional part; a promoted k-block sums 128
  // products (< 2^9), where it keeps them all.
  //
  // The bound: summing K products in f32 (unit roundoff u = 2^-24) errs by
  // at most gamma_K * sum_k |a_k b_k| with gamma_K = K u / (1 - K u)
  // (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). Both the
  // kernel and cpu_reference accumulate so, hence 2 gamma_K = 9.8e-4 of
  // sum |a b| here. Fast accumulation loses far more (0.14 of the sum on
  // the H200), which the test also checks, so that the data is known to tell
  // the two apart.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t M = 256, N = 256, K = 8192;
  const double u = std::ldexp(1.0, -24);
  const double gamma_k = K * u / (1.0 - K * u);
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::e4m3, DType::e4m3, 1, M, N, K, true, true);
  // Values 1, 1.25, 1.5, 1.75 (exact in e4m3): products are multiples of 1/16.
  std::uniform_int_distribution<int> quarter(4, 7);
  HostTensor& A = *p.operand("A").host;
  HostTensor& B = *p.operand("B").host;
  for (std::int64_t m = 0; m < M; ++m) {
    for (std::int64_t k = 0; k < K; ++k) A.set({0, m, k}, quarter(rng) / 4.0);
  }
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t n = 0; n < N; ++n) B.set({0, k, n}, quarter(rng) / 4.0);
  }
  p.upload("A");
  p.upload("B");
  p.set_source("def epi(accum):\n    D = accum\n    return D\n");
  p.add("D", DType::f32, {1, M, N}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);

  const auto candidates = explain_operators(args, sm90_query([](const OperatorMetadata& md) {
                                              return is_precise(md) || is_fast(md);
                                            }));
  int precise_runs = 0, fast_runs = 0;
  const runtime::Driver& d = runtime::Driver::require();
  for (const OperatorCandidate& c : candidates) {
    EXPECT_TRUE(c.status) << c.op.name() << ": " << c.status.reason();
    if (!c.status) continue;
    Operator op = c.op;
    const bool precise = is_precise(op.metadata());
    // Every precise configuration; of the fast ones, the default fast choice.
    if (!precise && fast_runs > 0) continue;
    SCOPED_TRACE(op.name());
    p.poison_outputs(0xFF);
    op.run(args);
    d.check(d.ctx_synchronize(), "waiting for the sm90 kernel");
    p.run_reference_once(DType::f32, DType::f32);
    p.download_outputs();
    const double ratio = worst_error_ratio(p, M, N, K, 2.0 * gamma_k);
    if (precise) {
      ++precise_runs;
      EXPECT_LE(ratio, 1.0) << "precise accumulation erred by " << ratio << " x 2 gamma_K sum|ab|";
    } else {
      ++fast_runs;
      // Informative, and a check on the data: fast accumulation must show.
      EXPECT_GT(ratio, 1.0) << "fast accumulation met the f32 bound: the data does not tell them apart";
      // Yet it is a sum, not garbage: within a quarter of sum|ab| (the H200
      // measured 0.14 here: fast accumulation drops that much at K = 8192).
      EXPECT_LE(ratio * 2.0 * gamma_k, 0.25);
      std::printf("[ info ] %s: worst error %.3g x 2 gamma_K sum|ab|\n", op.name().c_str(), ratio);
    }
  }
  EXPECT_EQ(precise_runs, 8);
  EXPECT_EQ(fast_runs, 1);
}

}  // namespace
}  // namespace epigemm::testing
