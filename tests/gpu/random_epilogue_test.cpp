// Random epilogues (tests/common/random_epilogue.hpp) on random problems
// (16-bit, fp8, int8 and tf32 operands; f32, f16 or bf16 compute): the
// plain op set, and in a second test casts and more ops. sm90 runs each (on
// a random one of its admitted tile configurations), then sm80 or simt, and
// each result is compared element by element with cpu_reference, outputs
// poisoned twice. Every case compiles new kernels (about a second each on
// the H200's host), which sets the number of cases. Each case's seed,
// extents and source are in the failure message, so a failure replays on
// its own. For a longer hunt, EPIGEMM_TEST_RANDOM_CASES sets each test's
// case count and EPIGEMM_TEST_RANDOM_SEED its first seed (the second test's
// seeds start a million further on).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/random_epilogue.hpp"
#include "gpu/sm90_problem.hpp"
#include "support/env.hpp"

namespace epigemm::testing {
namespace {

/// The programs of the plain op set, and (more_ops) those with casts,
/// leaky_relu slopes, hardswish, rsqrt and tan too: first seeds and counts.
constexpr int kCases = 32, kMoreOpsCases = 16;
constexpr std::uint32_t kFirstSeed = 20261130, kMoreOpsFirstSeed = 20261201;

int case_count(int fallback) { return static_cast<int>(env::get_int("EPIGEMM_TEST_RANDOM_CASES", fallback)); }

std::uint32_t first_seed(std::uint32_t fallback, std::uint32_t offset) {
  const auto chosen = static_cast<std::uint32_t>(env::get_int("EPIGEMM_TEST_RANDOM_SEED", 0));
  return chosen == 0 ? fallback : chosen + offset;
}

/// Extents of case `rng`: mostly one or two tiles, sometimes several.
Extents random_extents(std::mt19937& rng) {
  const auto in = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto extent = [&] { return in(0, 3) == 0 ? in(129, 400) : in(1, 128); };
  return {in(1, 2), extent(), extent(), in(1, 96)};
}

/// Operand and accumulator types, and whether 8-bit and tf32 A/B must be
/// K-major (for sm90); 16-bit pairs take either major.
struct Operands {
  DType a, b, accumulator;
  bool k_major_only;
};

Operands random_operands(std::mt19937& rng) {
  const Operands all[] = {{DType::f16, DType::f16, DType::f32, false}, {DType::bf16, DType::bf16, DType::f32, false},
                          {DType::f16, DType::f16, DType::f32, false}, {DType::bf16, DType::bf16, DType::f32, false},
                          {DType::f16, DType::f16, DType::f16, false}, {DType::e4m3, DType::e4m3, DType::f32, true},
                          {DType::e5m2, DType::e4m3, DType::f32, true}, {DType::i8, DType::i8, DType::i32, true},
                          {DType::tf32, DType::tf32, DType::f32, true}};
  return all[std::uniform_int_distribution<std::size_t>(0, std::size(all) - 1)(rng)];
}

/// Runs `cases` random programs (seeds first_seed, first_seed + 1, ...) on
/// sm90 and on sm80 or simt, against the reference.
void run_random_cases(const runtime::Driver& driver, std::uint32_t first_seed, int cases, bool more_ops) {
  const int sm = driver.device_info(0).sm;
  int ran_sm90 = 0;
  for (int i = 0; i < cases; ++i) {
    const std::uint32_t seed = first_seed + static_cast<std::uint32_t>(i);
    std::mt19937 rng(seed);
    const Extents e = random_extents(rng);
    const Operands ab = random_operands(rng);
    const int compute_pick = std::uniform_int_distribution<int>(0, 7)(rng);
    const DType compute = compute_pick == 0 ? DType::f16 : compute_pick == 1 ? DType::bf16 : DType::f32;
    const RandomEpilogue r = random_epilogue(rng, "random" + std::to_string(i), e.L, e.M, e.N, e.K, compute, more_ops);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + describe(e) + ", A " + std::string(to_string(ab.a)) +
                 ", B " + std::string(to_string(ab.b)) + ", accumulator " + std::string(to_string(ab.accumulator)) +
                 ", compute " + std::string(to_string(compute)) + "\n" + r.c.source);
    const bool a_k_major = ab.k_major_only || std::uniform_int_distribution<int>(0, 3)(rng) != 0;
    const bool b_k_major = ab.k_major_only || std::uniform_int_distribution<int>(0, 1)(rng) == 0;
    const bool padded = std::uniform_int_distribution<int>(0, 2)(rng) != 0;

    GpuProblem p(driver, rng);
    add_padded_ab(p, ab.a, ab.b, e.L, e.M, e.N, e.K, a_k_major, b_k_major);
    if (padded)
      add_padded_case(p, r.c, e.L, e.M, e.N);
    else
      p.add_case(r.c, e.L, e.M, e.N);
    for (const auto& [name, slack] : r.slack) p.allow_error(name, slack);
    const GemmArguments args = p.args(true, ab.accumulator, compute);

    int ran = 0;
    std::vector<std::string> providers = {"sm90", i % 2 == 0 ? "sm80" : "simt"};
    // A provider that cannot run the case hands it to simt, which takes every problem.
    const auto fall_back = [&providers] {
      if (std::find(providers.begin(), providers.end(), "simt") == providers.end()) providers.push_back("simt");
    };
    for (std::size_t k = 0; k < providers.size(); ++k) {
      const std::string provider = providers[k];
      if ((provider == "sm90" && sm != 90) || (provider == "sm80" && sm < 80)) {
        fall_back();
        continue;
      }
      std::vector<Operator> admitted;
      std::string refusals;
      for (const OperatorCandidate& c : explain_operators(args, provider_query(driver, provider))) {
        if (c.status) admitted.push_back(c.op);
        else refusals += "\n  " + c.op.name() + ": " + c.status.reason();
      }
      if (admitted.empty()) {
        EXPECT_NE(provider, "simt") << "simt refused:" << refusals;
        fall_back();
        continue;
      }
      // sm90: a random admitted tile configuration, not only the heuristic's pick.
      const std::size_t at =
          provider == "sm90" ? std::uniform_int_distribution<std::size_t>(0, admitted.size() - 1)(rng) : 0;
      SCOPED_TRACE(admitted[at].name());
      p.run_and_compare(admitted[at], ab.accumulator, compute);
      ++ran;
      if (provider == "sm90") ++ran_sm90;
    }
    EXPECT_GE(ran, 1);
    if (::testing::Test::HasFailure()) break;  // the first failing case says enough
  }
  // The layouts are mostly TMA-friendly: most cases must have reached sm90.
  if (sm == 90 && !::testing::Test::HasFailure()) {
    EXPECT_GE(ran_sm90, cases / 2);
  }
}

TEST(RandomEpilogues, EveryGpuProviderMatchesTheReference) {
  EPIGEMM_REQUIRE_GPU(driver);
  run_random_cases(*driver, first_seed(kFirstSeed, 0), case_count(kCases), false);
}

TEST(RandomEpilogues, CastsAndMoreOpsOnEveryGpuProvider) {
  EPIGEMM_REQUIRE_GPU(driver);
  run_random_cases(*driver, first_seed(kMoreOpsFirstSeed, 1000000), case_count(kMoreOpsCases), true);
}

}  // namespace
}  // namespace epigemm::testing
