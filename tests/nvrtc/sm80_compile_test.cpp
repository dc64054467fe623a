// NVRTC compiles the full sm80 kernel generated for every seed epilogue,
// epilogues covering every op, load/store kind and output dtype, every
// f16/bf16 accumulator and compute combination, and every staging of A and
// B (K-major or M/N-major, pieces of 8, 4, 2 and 1 elements), for sm_80 and
// sm_90a. No GPU needed; any compile error or warning fails.
#include <gtest/gtest.h>

#include <random>

#include "api/problem.hpp"
#include "codegen/kernel_source.hpp"
#include "nvrtc/catalog_problem.hpp"
#include "nvrtc/tiled_compile_jobs.hpp"

namespace epigemm::testing {
namespace {

class Sm80Compile : public ::testing::TestWithParam<std::string> {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kBf16{"bf16_f32acc", DType::bf16, DType::bf16, DType::f32, DType::f32};

  /// The sm80 source for one catalog case on (L, M, N, K) = (2, m, n, k);
  /// `a_col` / `b_col` give A / B column-major strides.
  std::string source(const EpilogueCase& c, const DTypeCombo& combo, std::int64_t m = 3, std::int64_t n = 5,
                     std::int64_t k = 7, bool a_col = false, bool b_col = false,
                     codegen::Sm80Variant* variant = nullptr) {
    HostCatalogProblem hp(c, combo, 2, m, n, k, rng);
    detail::Problem p;
    detail::analyze(hp.args, p);
    if (a_col) p.A.row_stride = 1, p.A.col_stride = m, p.A.layout = detail::Layout::col_major;
    if (b_col) p.B.row_stride = 1, p.B.col_stride = k, p.B.layout = detail::Layout::col_major;
    if (variant != nullptr) *variant = codegen::sm80_variant(p);
    return codegen::kernel_source(p, codegen::KernelTemplate::sm80);
  }

  /// A job for this test's architecture.
  CompileJob job(std::string label, std::string source) const { return {std::move(label), std::move(source), GetParam(), {}}; }

  /// Compiles every job with the sm80 entry points.
  static void expect_all_compile(std::vector<CompileJob> jobs) {
    testing::expect_all_compile(std::move(jobs), {codegen::kSm80GemmKernel, codegen::kSimtFillKernel});
  }
};

TEST_P(Sm80Compile, EverySeedAndCoverageEpilogue) {
  std::vector<CompileJob> jobs;
  for (const EpilogueCase& c : seed_epilogues()) jobs.push_back(job("seed_" + c.name, source(c, kBf16)));
  for (const EpilogueCase& c : coverage_epilogues()) jobs.push_back(job("coverage_" + c.name, source(c, kBf16)));
  expect_all_compile(std::move(jobs));
}

TEST_P(Sm80Compile, EverySixteenBitAccumulatorAndComputeCombination) {
  std::vector<CompileJob> jobs;
  const EpilogueCase with_accum = epilogue_case("relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case("reductions");
  for (const DTypeCombo& combo : dtype_combos()) {
    HostCatalogProblem hp(with_accum, combo, 1, 2, 2, 2, rng);
    detail::Problem p;
    detail::analyze(hp.args, p);
    const Status status = codegen::can_instantiate(p, codegen::KernelTemplate::sm80);
    const bool sixteen = (combo.a == DType::f16 || combo.a == DType::bf16) && combo.b == combo.a &&
                         (combo.accumulator == DType::f32 || combo.accumulator == DType::f16);
    EXPECT_EQ(static_cast<bool>(status), sixteen) << combo.name << ": " << status.reason();
    if (!sixteen) continue;
    jobs.push_back(job(combo.name + "_return_acc", source(with_accum, combo)));
    jobs.push_back(job(combo.name + "_reductions", source(reductions, combo)));
  }
  EXPECT_EQ(jobs.size(), 10u);
  expect_all_compile(std::move(jobs));
}

TEST_P(Sm80Compile, EveryStagingOfAAndB) {
  // The extent along each operand's unit stride picks its piece: 64 -> 8,
  // 36 -> 4, 34 -> 2, 33 -> 1 (the test's host tensors are 16-byte aligned).
  const EpilogueCase plain = epilogue_case("relu_scale_return_acc");
  std::vector<CompileJob> jobs;
  const std::pair<std::int64_t, int> extents[] = {{64, 8}, {36, 4}, {34, 2}, {33, 1}};
  for (const bool a_col : {false, true}) {
    for (const bool b_col : {false, true}) {
      for (const auto& [extent, vec] : extents) {
        // A K-major reads along K, A M-major along M; B K-major along K, B N-major along N.
        const std::int64_t m = a_col ? extent : 8, k = (!a_col || b_col) ? extent : 8, n = b_col ? 8 : extent;
        codegen::Sm80Variant v;
        const std::string src = source(plain, kBf16, m, n, k, a_col, b_col, &v);
        EXPECT_EQ(v.a_k_major, !a_col);
        EXPECT_EQ(v.b_k_major, b_col);
        EXPECT_EQ(v.a_vec, vec) << m << " " << n << " " << k;
        EXPECT_EQ(v.b_vec, vec) << m << " " << n << " " << k;
        jobs.push_back(job(std::string(a_col ? "a_col" : "a_row") + (b_col ? "_b_col_" : "_b_row_") + std::to_string(vec), src));
      }
    }
  }
  expect_all_compile(std::move(jobs));
}

INSTANTIATE_TEST_SUITE_P(Arch, Sm80Compile, ::testing::Values("sm_80", "sm_90a"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace epigemm::testing
