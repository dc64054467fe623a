// NVRTC compiles the full simt kernel generated for every seed epilogue, for
// epilogues covering every op, load/store kind and dtype, and for every
// A/B/accumulator/compute combination, for sm_80 and sm_90a. No GPU needed;
// any compile error or warning fails. Compiles run on parallel threads.
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
  std::string arch;
  std::string error;  ///< empty when the compile succeeded without warnings
};

/// The simt source for one catalog case and dtype combination.
std::string simt_source(const EpilogueCase& c, const DTypeCombo& combo, std::mt19937& rng) {
  HostCatalogProblem hp(c, combo, 2, 3, 5, 7, rng);
  detail::Problem p;
  detail::analyze(hp.args, p);
  return codegen::kernel_source(p, codegen::KernelTemplate::simt);
}

/// Compiles every job on up to hardware_concurrency() threads.
void compile_all(std::vector<CompileJob>& jobs) {
  run_in_parallel(jobs.size(), [&](std::size_t i) {
    CompileJob& job = jobs[i];
    runtime::CompileRequest request;
    request.source = job.source;
    request.file_name = job.label + ".cu";
    request.arch = job.arch;
    request.name_expressions = {codegen::kSimtGemmKernel, codegen::kSimtFillKernel};
    request.headers = codegen::embedded_kernel_files();
    try {
      const runtime::CompileResult result = runtime::nvrtc_compile(request);
      if (result.cubin.empty()) job.error = "no cubin produced";
      if (result.log.find("warning") != std::string::npos) job.error = "warnings:\n" + result.log;
    } catch (const std::exception& e) {
      job.error = e.what();
    }
  });
}

void expect_all_compile(std::vector<CompileJob> jobs) {
  ASSERT_FALSE(jobs.empty());
  compile_all(jobs);
  for (const CompileJob& job : jobs) {
    EXPECT_TRUE(job.error.empty()) << job.label << " for " << job.arch << ":\n" << job.error;
  }
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
  EpilogueCase with_accum, reductions;
  for (const auto& c : seed_epilogues()) {
    if (c.name == "relu_scale_return_acc") with_accum = c;
  }
  for (const auto& c : coverage_epilogues()) {
    if (c.name == "reductions") reductions = c;
  }
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
