// The simt provider against cpu_reference on fresh random data: every seed
// epilogue, every op, every load and store kind, reductions, multiple
// outputs, and every A/B/accumulator/compute dtype combination.
#include "gpu/gpu_problem.hpp"

namespace epigemm::testing {
namespace {

class SimtEpilogue : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kF16{"f16_f32acc", DType::f16, DType::f16, DType::f32, DType::f32};

  /// Odd extents: none a multiple of the 64x64x16 tile.
  void run_case(const runtime::Driver& driver, const EpilogueCase& c, const DTypeCombo& combo, std::int64_t L = 2,
                std::int64_t M = 67, std::int64_t N = 45, std::int64_t K = 33) {
    SCOPED_TRACE(c.name + " with " + combo.name);
    GpuProblem p(driver, rng);
    p.add_ab(combo.a, combo.b, L, M, N, K);
    p.add_case(c, L, M, N);
    p.run_and_compare(combo.accumulator, combo.compute);
  }
};

TEST_F(SimtEpilogue, EverySeedEpilogueMatchesTheReference) {
  EPIGEMM_REQUIRE_GPU(driver);
  for (const EpilogueCase& c : seed_epilogues()) run_case(*driver, c, kF16);
}

TEST_F(SimtEpilogue, EveryOpLoadKindAndStoreKindMatchesTheReference) {
  EPIGEMM_REQUIRE_GPU(driver);
  for (const EpilogueCase& c : coverage_epilogues()) run_case(*driver, c, kF16);
}

TEST_F(SimtEpilogue, ReductionsOverRowsColumnsAndEverything) {
  EPIGEMM_REQUIRE_GPU(driver);
  const EpilogueCase reductions = epilogue_case("reductions");
  // One tile, several tiles with ragged edges, and a batch.
  run_case(*driver, reductions, kF16, 1, 1, 1, 5);
  run_case(*driver, reductions, kF16, 1, 64, 64, 16);
  run_case(*driver, reductions, kF16, 3, 131, 97, 19);
}

TEST_F(SimtEpilogue, ReductionOfABatchIntoOneRowVector) {
  // (M, 1) for a batch of 3: the row sums reduce over the batch too.
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  const std::int64_t L = 3, M = 70, N = 21, K = 9;
  p.add_ab(DType::bf16, DType::bf16, L, M, N, K);
  p.set_source("def epi(accum):\n    D = accum\n    s = sum(accum)\n    m = max(accum)\n    return D, s, m\n");
  p.add("D", DType::f32, {L, M, N}, {}, true);
  p.add("s", DType::f32, {M, 1}, {}, true);
  p.add("m", DType::f32, {N}, {}, true);
  p.run_and_compare();
}

TEST_F(SimtEpilogue, NegativeAndNaNValuesInMaxMinAndAmax) {
  // relu(x) - 3 makes many negatives; log of a negative makes NaN in some rows.
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  const std::int64_t M = 40, N = 33, K = 7;
  p.add_ab(DType::f16, DType::f16, 1, M, N, K);
  p.set_source(
      "def epi(accum, c):\n    D = accum - 3.0\n    n = log(c + 2.5)\n    mx = max(D)\n    mn = min(D)\n"
      "    am = amax(D)\n    nm = max(n * D)\n    return D, mx, mn, am, nm\n");
  p.add("c", DType::f32, {M, 1}, {}, false, 0, -4, 2);
  p.add("D", DType::f32, {1, M, N}, {}, true);
  p.add("mx", DType::f32, {1, M, 1}, {}, true);
  p.add("mn", DType::f32, {1, 1, N}, {}, true);
  p.add("am", DType::f32, {1}, {}, true);
  p.add("nm", DType::f32, {1, M, 1}, {}, true);
  p.run_and_compare();
}

TEST_F(SimtEpilogue, EveryDTypeCombinationMatchesTheReference) {
  EPIGEMM_REQUIRE_GPU(driver);
  const EpilogueCase with_accum = epilogue_case("relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case("reductions");
  const EpilogueCase stores = epilogue_case("store_dtypes");
  for (const DTypeCombo& combo : dtype_combos()) {
    run_case(*driver, with_accum, combo, 2, 37, 70, 29);
    run_case(*driver, reductions, combo, 1, 50, 23, 17);
  }
  run_case(*driver, stores, kF16, 1, 29, 31, 13);
}

TEST_F(SimtEpilogue, Tf32OperandsRoundLikeTheReferenceOnNormalData) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  const std::int64_t M = 77, N = 66, K = 150;
  p.add_ab(DType::tf32, DType::tf32, 1, M, N, K);
  p.fill_normal("A");
  p.fill_normal("B");
  p.set_source("def epi(accum):\n    D = accum\n    return D\n");
  p.add("D", DType::f32, {M, N}, {}, true);
  p.run_and_compare();
}

}  // namespace
}  // namespace epigemm::testing
