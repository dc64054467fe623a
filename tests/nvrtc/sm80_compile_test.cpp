// NVRTC compiles the full sm80 kernel generated for every seed epilogue,
// epilogues covering every op, load/store kind and output dtype, every
// f16/bf16 accumulator and compute combination, and every staging of A and
// B (K-major or M/N-major, pieces of 8, 4, 2 and 1 elements), for sm_80 and
// sm_90a. No GPU needed; any compile error or warning fails.
#include <gtest/gtest.h>

#include <random>

#include "api/problem.hpp"
#include "codegen/embedded_kernels.hpp"
#include "codegen/kernel_source.hpp"
#include "nvrtc/catalog_problem.hpp"
#include "nvrtc/parallel_jobs.hpp"
#include "runtime/nvrtc.hpp"

namespace epigemm::testing {
namespace {

struct CompileJob {
  std::string label;
  std::string source;
  std::string error;  ///< empty when the compile succeeded without warnings
};

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

  void expect_all_compile(std::vector<CompileJob> jobs) const {
    ASSERT_FALSE(jobs.empty());
    run_in_parallel(jobs.size(), [&](std::size_t i) {
      CompileJob& job = jobs[i];
      runtime::CompileRequest request;
      request.source = job.source;
      request.file_name = job.label + ".cu";
      request.arch = GetParam();
      request.name_expressions = {codegen::kSm80GemmKernel, codegen::kSimtFillKernel};
      request.headers = codegen::embedded_kernel_files();
      try {
        const runtime::CompileResult result = runtime::nvrtc_compile(request);
        if (result.cubin.empty()) job.error = "no cubin produced";
        if (result.log.find("warning") != std::string::npos) job.error = "warnings:\n" + result.log;
      } catch (const std::exception& e) {
        job.error = e.what();
      }
    });
    for (const CompileJob& job : jobs) EXPECT_TRUE(job.error.empty()) << job.label << ":\n" << job.error;
  }
};

TEST_P(Sm80Compile, EverySeedAndCoverageEpilogue) {
  std::vector<CompileJob> jobs;
  for (const EpilogueCase& c : seed_epilogues()) jobs.push_back({"seed_" + c.name, source(c, kBf16), {}});
  for (const EpilogueCase& c : coverage_epilogues()) jobs.push_back({"coverage_" + c.name, source(c, kBf16), {}});
  expect_all_compile(std::move(jobs));
}

TEST_P(Sm80Compile, EverySixteenBitAccumulatorAndComputeCombination) {
  std::vector<CompileJob> jobs;
  EpilogueCase with_accum, reductions;
  for (const auto& c : seed_epilogues()) {
    if (c.name == "relu_scale_return_acc") with_accum = c;
  }
  for (const auto& c : coverage_epilogues()) {
    if (c.name == "reductions") reductions = c;
  }
  for (const DTypeCombo& combo : dtype_combos()) {
    HostCatalogProblem hp(with_accum, combo, 1, 2, 2, 2, rng);
    detail::Problem p;
    detail::analyze(hp.args, p);
    const Status status = codegen::can_instantiate(p, codegen::KernelTemplate::sm80);
    const bool sixteen = (combo.a == DType::f16 || combo.a == DType::bf16) && combo.b == combo.a &&
                         (combo.accumulator == DType::f32 || combo.accumulator == DType::f16);
    EXPECT_EQ(static_cast<bool>(status), sixteen) << combo.name << ": " << status.reason();
    if (!sixteen) continue;
    jobs.push_back({combo.name + "_return_acc", source(with_accum, combo), {}});
    jobs.push_back({combo.name + "_reductions", source(reductions, combo), {}});
  }
  EXPECT_EQ(jobs.size(), 10u);
  expect_all_compile(std::move(jobs));
}

TEST_P(Sm80Compile, EveryStagingOfAAndB) {
  // The extent along each operand's unit stride picks its piece: 64 -> 8,
  // 36 -> 4, 34 -> 2, 33 -> 1 (the test's host tensors are 16-byte aligned).
  EpilogueCase plain;
  for (const auto& c : seed_epilogues()) {
    if (c.name == "relu_scale_return_acc") plain = c;
  }
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
        jobs.push_back({std::string(a_col ? "a_col" : "a_row") + (b_col ? "_b_col_" : "_b_row_") + std::to_string(vec),
                        src, {}});
      }
    }
  }
  expect_all_compile(std::move(jobs));
}

INSTANTIATE_TEST_SUITE_P(Arch, Sm80Compile, ::testing::Values("sm_80", "sm_90a"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace epigemm::testing
