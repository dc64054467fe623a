// The compile jobs of the tiled kernel templates' NVRTC tests (simt, sm80):
// each generated unit is compiled for its architecture with its extern "C"
// entry points against the embedded kernel headers, on parallel threads;
// any compile error or warning fails.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "codegen/embedded_kernels.hpp"
#include "support/parallel.hpp"
#include "runtime/nvrtc.hpp"

namespace epigemm::testing {

struct CompileJob {
  std::string label;
  std::string source;
  std::string arch;
  std::string error;  ///< empty when the compile succeeded without warnings
};

/// Compiles every job, naming `entry_points`, and expects each to succeed without warnings.
inline void expect_all_compile(std::vector<CompileJob> jobs, const std::vector<std::string>& entry_points) {
  ASSERT_FALSE(jobs.empty());
  run_in_parallel(jobs.size(), 8, [&](std::size_t i) {
    CompileJob& job = jobs[i];
    runtime::CompileRequest request;
    request.source = job.source;
    request.file_name = job.label + ".cu";
    request.arch = job.arch;
    request.name_expressions = entry_points;
    request.headers = codegen::embedded_kernel_files();
    try {
      const runtime::CompileResult result = runtime::nvrtc_compile(request);
      if (result.cubin.empty()) job.error = "no cubin produced";
      if (result.log.find("warning") != std::string::npos) job.error = "warnings:\n" + result.log;
    } catch (const std::exception& e) {
      job.error = e.what();
    }
  });
  for (const CompileJob& job : jobs) {
    EXPECT_TRUE(job.error.empty()) << job.label << " for " << job.arch << ":\n" << job.error;
  }
}

}  // namespace epigemm::testing
