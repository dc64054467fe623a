// The sm80 provider (mma.sync tensor cores) against cpu_reference on fresh
// random data, outputs poisoned before each run: every seed epilogue, every
// op, load and store kind, reductions, f16/bf16 with f32/f16 accumulators,
// every staging of A and B (K-major or M/N-major, pieces of 8, 4, 2 and 1
// elements), padded, strided and batch-shared operands, pointers aligned
// only to their element, extents that are no multiple of the 128x128x32
// tile; and where get_operators ranks it.
#include "gpu/gpu_problem.hpp"

namespace epigemm::testing {
namespace {

class Sm80 : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kBf16{"bf16_f32acc", DType::bf16, DType::bf16, DType::f32, DType::f32};

  static constexpr const char* kStaged =
      "def epi(accum, alpha, C, bias):\n    F = accum * alpha + C * 2.0 + bias\n    D = relu(F)\n    return D, F\n";

  /// Skips the test below SM 8.0 (mma.sync m16n8k16 with bf16).
  static bool has_sm80(const runtime::Driver& driver) { return driver.device_info(0).sm >= 80; }

  void run_case(const runtime::Driver& driver, const EpilogueCase& c, const DTypeCombo& combo, std::int64_t L,
                std::int64_t M, std::int64_t N, std::int64_t K) {
    SCOPED_TRACE(c.name + " with " + combo.name);
    GpuProblem p(driver, rng);
    p.use_provider("sm80");
    p.add_ab(combo.a, combo.b, L, M, N, K);
    p.add_case(c, L, M, N);
    p.run_and_compare(combo.accumulator, combo.compute);
  }

  /// kStaged's operands for D (L, M, N).
  static void add_staged(GpuProblem& p, std::int64_t L, std::int64_t M, std::int64_t N) {
    p.set_source(kStaged);
    p.scalar("alpha", 0.5);
    p.add("C", DType::bf16, {L, M, N});
    p.add("bias", DType::f32, {N});
    p.add("D", DType::bf16, {L, M, N}, {}, true);
    p.add("F", DType::f32, {L, M, N}, {}, true);
  }
};

#define EPIGEMM_REQUIRE_SM80(driver_var) \
  EPIGEMM_REQUIRE_GPU(driver_var);       \
  if (!has_sm80(*driver_var)) GTEST_SKIP() << "the sm80 kernels need SM 8.0 or newer"

TEST_F(Sm80, EverySeedEpilogueMatchesTheReference) {
  EPIGEMM_REQUIRE_SM80(driver);
  for (const EpilogueCase& c : seed_epilogues()) run_case(*driver, c, kBf16, 2, 131, 77, 45);
}

TEST_F(Sm80, EveryOpLoadKindAndStoreKindMatchesTheReference) {
  EPIGEMM_REQUIRE_SM80(driver);
  for (const EpilogueCase& c : coverage_epilogues()) run_case(*driver, c, kBf16, 1, 67, 150, 33);
}

TEST_F(Sm80, ReductionsOverRowsColumnsAndEverything) {
  EPIGEMM_REQUIRE_SM80(driver);
  const EpilogueCase reductions = epilogue_case("reductions");
  run_case(*driver, reductions, kBf16, 1, 1, 1, 5);
  run_case(*driver, reductions, kBf16, 1, 128, 128, 32);
  run_case(*driver, reductions, kBf16, 3, 259, 197, 41);
}

TEST_F(Sm80, SixteenBitDTypesAndAccumulators) {
  EPIGEMM_REQUIRE_SM80(driver);
  const EpilogueCase with_accum = epilogue_case("relu_scale_return_acc");
  for (const DTypeCombo& combo : dtype_combos()) {
    const bool sixteen = (combo.a == DType::f16 || combo.a == DType::bf16) && combo.b == combo.a;
    if (!sixteen || (combo.accumulator != DType::f32 && combo.accumulator != DType::f16)) continue;
    run_case(*driver, with_accum, combo, 2, 137, 70, 100);
  }
}

TEST_F(Sm80, EveryStagingOfAAndB) {
  // Both majors of A and B, with K and the M/N extents that allow pieces of
  // 8, 4, 2 and 1 elements, and several k-tiles (K up to 300).
  EPIGEMM_REQUIRE_SM80(driver);
  struct Case {
    std::int64_t L, M, N, K;
    bool a_col, b_col;
  };
  const Case cases[] = {{1, 256, 256, 256, false, false}, {2, 200, 136, 300, false, true},
                        {1, 132, 260, 100, true, false},  {2, 129, 131, 97, true, true},
                        {1, 130, 66, 130, false, false},  {1, 4, 250, 299, true, true}};
  for (const Case& c : cases) {
    for (const DType ab : {DType::bf16, DType::f16}) {
      SCOPED_TRACE("L M N K " + std::to_string(c.L) + " " + std::to_string(c.M) + " " + std::to_string(c.N) + " " +
                   std::to_string(c.K) + (c.a_col ? ", A col-major" : "") + (c.b_col ? ", B col-major" : "") + ", " +
                   std::string(to_string(ab)));
      GpuProblem p(*driver, rng);
      p.use_provider("sm80");
      p.add("A", ab, {c.L, c.M, c.K}, c.a_col ? Dims{c.M * c.K, 1, c.M} : Dims{});
      p.add("B", ab, {c.L, c.K, c.N}, c.b_col ? Dims{c.K * c.N, 1, c.K} : Dims{});
      add_staged(p, c.L, c.M, c.N);
      p.run_and_compare();
    }
  }
}

TEST_F(Sm80, PaddedStridedAndBatchSharedOperands) {
  EPIGEMM_REQUIRE_SM80(driver);
  const std::int64_t L = 2, M = 145, N = 138, K = 70;
  struct Layout {
    const char* name;
    Dims a_shape, a, b_shape, b;
  };
  const Layout layouts[] = {
      {"rows padded by 5 and 3 elements", {L, M, K}, {M * (K + 5), K + 5, 1}, {L, K, N}, {K * (N + 3), N + 3, 1}},
      {"no unit stride", {L, M, K}, {2 * M * K, 2 * K, 2}, {L, K, N}, {2 * K * N, 1, 2 * K}},
      {"A shared by the batch (stride 0)", {L, M, K}, {0, K, 1}, {L, K, N}, {}},
      {"B one matrix for the batch", {L, M, K}, {}, {1, K, N}, {}},
  };
  for (const Layout& l : layouts) {
    SCOPED_TRACE(l.name);
    GpuProblem p(*driver, rng);
    p.use_provider("sm80");
    p.add("A", DType::bf16, l.a_shape, l.a);
    p.add("B", DType::bf16, l.b_shape, l.b);
    add_staged(p, L, M, N);
    p.run_and_compare();
  }
}

TEST_F(Sm80, PointersAndRowsAlignedOnlyToTheirElements) {
  // K = 4095-like rows (odd lengths: 2-byte aligned) and pointers 2 or 6
  // bytes past 16-byte alignment (the sm90 tiles repack these first).
  EPIGEMM_REQUIRE_SM80(driver);
  const std::int64_t M = 150, N = 190, K = 127;
  for (const std::size_t offset : {std::size_t{0}, std::size_t{2}, std::size_t{6}}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    GpuProblem p(*driver, rng);
    p.use_provider("sm80");
    p.add("A", DType::f16, {M, K}, {}, false, offset);
    p.add("B", DType::f16, {K, N}, {}, false, offset + 4);
    p.set_source("def epi(accum, C):\n    D = accum + C\n    s = sum(D)\n    return D, s\n");
    p.add("C", DType::bf16, {M, N}, {}, false, 10);
    p.add("D", DType::f32, {M, N}, {}, true, 4);
    p.add("s", DType::f32, {M, 1}, {}, true);
    p.run_and_compare();
  }
}

TEST_F(Sm80, NormalDataOverALongK) {
  // f32 sums of 2000 products of normal values: the tolerance of an f32 D.
  EPIGEMM_REQUIRE_SM80(driver);
  GpuProblem p(*driver, rng);
  p.use_provider("sm80");
  const std::int64_t M = 200, N = 300, K = 2000;
  p.add_ab(DType::bf16, DType::bf16, 1, M, N, K);
  p.fill_normal("A", 0.1);
  p.fill_normal("B", 0.1);
  p.set_source("def epi(accum):\n    D = accum\n    return D\n");
  p.add("D", DType::f32, {M, N}, {}, true);
  p.run_and_compare();
}

TEST_F(Sm80, RanksBetweenSm90AndSimt) {
  // D with no unit stride: every sm90 tile refuses (it writes D row- or
  // column-major), sm80 runs it ahead of simt; f32 operands go to simt
  // (sm80 says why not).
  EPIGEMM_REQUIRE_SM80(driver);
  const int sm = driver->device_info(0).sm;
  {
    GpuProblem p(*driver, rng);
    p.add_ab(DType::f16, DType::f16, 1, 64, 64, 127);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::f16, {64, 64}, {128, 2}, true);
    const auto ops = get_operators(p.args(true, DType::f32, DType::f32), {.target_sm = sm});
    ASSERT_GE(ops.size(), 2u);
    EXPECT_EQ(ops.front().metadata().provider, "sm80");
    EXPECT_EQ(ops.back().metadata().provider, "simt");
  }
  {
    GpuProblem p(*driver, rng);
    p.add_ab(DType::f32, DType::f32, 1, 64, 64, 16);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::f32, {64, 64}, {}, true);
    const GemmArguments args = p.args(true, DType::f32, DType::f32);
    const auto candidates = explain_operators(args, provider_query(*driver, "sm80"));
    ASSERT_EQ(candidates.size(), 1u);
    EXPECT_FALSE(candidates[0].status);
    EXPECT_NE(candidates[0].status.reason().find("both f16 or both bf16"), std::string::npos)
        << candidates[0].status.reason();
    EXPECT_EQ(get_operators(args, {.target_sm = sm}).front().metadata().provider, "simt");
  }
}

}  // namespace
}  // namespace epigemm::testing
