// run() in a hot loop: it can be captured into a CUDA graph and replayed
// (with new data in the same buffers), and a warm run of a known problem
// class compiles and loads nothing.
#include "gpu/graph_replay.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::testing {
namespace {

class SimtGraph : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// An epilogue with a row reduction, so the capture holds both kernels.
  static void build(GpuProblem& p, std::int64_t M, std::int64_t N, std::int64_t K) {
    p.add_ab(DType::f16, DType::f16, 2, M, N, K);
    p.set_source("def epi(accum, C, alpha):\n    F = accum * alpha + C\n    D = relu(F)\n    s = sum(F)\n"
                 "    return D, F, s\n");
    p.scalar("alpha", 0.5);
    p.add("C", DType::bf16, {2, M, N});
    p.add("D", DType::f16, {2, M, N}, {}, true);
    p.add("F", DType::f32, {2, M, N}, {}, true);
    p.add("s", DType::f32, {2, M, 1}, {}, true);
  }
};

TEST_F(SimtGraph, CapturedRunReplaysWithNewDataInTheSameBuffers) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  build(p, 70, 53, 40);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  Operator op = p.simt_operator(args);
  expect_graph_replays_match_reference(*driver, p, op, args);
}

TEST_F(SimtGraph, WarmRunOfAKnownClassLoadsNothing) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem first(*driver, rng);
  build(first, 30, 20, 10);
  first.run_and_compare();
  const std::size_t loaded = runtime::KernelLoader::instance().loaded_count();
  // Other buffers and other extents: the same class, so the same kernel.
  GpuProblem second(*driver, rng);
  build(second, 91, 17, 33);
  second.run_and_compare();
  EXPECT_EQ(runtime::KernelLoader::instance().loaded_count(), loaded);
}

}  // namespace
}  // namespace epigemm::testing
