// NVRTC compiles the full simt kernel generated for every seed epilogue, for
// epilogues covering every op, load/store kind and dtype, and for every
// A/B/accumulator/compute combination, for sm_80 and sm_90a. No GPU needed;
// any compile error or warning fails. Compiles run on parallel threads.
#include <gtest/gtest.h>

#include <random>

#include "api/problem.hpp"
#include "codegen/kernel_source.hpp"
#include "nvrtc/catalog_problem.hpp"
#include "nvrtc/tiled_compile_jobs.hpp"

namespace epigemm::testing {
namespace {

/// The simt source for one catalog case and dtype combination.
std::string simt_source(const EpilogueCase& c, const DTypeCombo& combo, std::mt19937& rng) {
  HostCatalogProblem hp(c, combo, 2, 3, 5, 7, rng);
  detail::Problem p;
  detail::analyze(hp.args, p);
  return codegen::kernel_source(p, codegen::KernelTemplate::simt);
}

/// Compiles every job with the simt entry points.
void expect_all_compile(std::vector<CompileJob> jobs) {
  expect_all_compile(std::move(jobs), {codegen::kSimtGemmKernel, codegen::kSimtFillKernel});
}

class SimtCompile : public ::testing::TestWithParam<std::string> {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kF16{"f16_f32acc", DType::f16, DType::f16, DType::f32, DType::f32};
};

TEST_P(SimtCompile, EverySeedEpilogue) {
  std::vector<CompileJob> jobs;
  for (const EpilogueCase& c : seed_epilogues()) {
    jobs.push_back({"seed_" + c.name, simt_source(c, kF16, rng), GetParam(), {}});
  }
  EXPECT_EQ(jobs.size(), 11u);
  expect_all_compile(std::move(jobs));
}

TEST_P(SimtCompile, EveryOpLoadKindStoreKindAndEpilogueDType) {
  std::vector<CompileJob> jobs;
  for (const EpilogueCase& c : coverage_epilogues()) {
    jobs.push_back({"coverage_" + c.name, simt_source(c, kF16, rng), GetParam(), {}});
  }
  expect_all_compile(std::move(jobs));
}

TEST_P(SimtCompile, EveryOperandAccumulatorAndComputeCombination) {
  // Each combination with an epilogue that stores the accumulator as it is
  // and one with every reduction kind: the two places the types meet.
  std::vector<CompileJob> jobs;
  const EpilogueCase with_accum = epilogue_case("relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case("reductions");
  for (const DTypeCombo& combo : dtype_combos()) {
    jobs.push_back({combo.name + "_return_acc", simt_source(with_accum, combo, rng), GetParam(), {}});
    jobs.push_back({combo.name + "_reductions", simt_source(reductions, combo, rng), GetParam(), {}});
  }
  expect_all_compile(std::move(jobs));
}

INSTANTIATE_TEST_SUITE_P(Arch, SimtCompile, ::testing::Values("sm_80", "sm_90a"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace epigemm::testing
