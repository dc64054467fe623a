// The simt kernel on awkward shapes and layouts, against cpu_reference:
// extents of 1, primes and non-multiples of the tile; column-major and
// padded operands; batches with shared (stride 0) operands; pointers
// aligned to their element but not to 16 bytes.
#include "gpu/gpu_problem.hpp"

namespace epigemm::testing {
namespace {

constexpr const char* kEpilogue =
    "def epi(accum, alpha, C, bias, col):\n    F = accum * alpha + C * 2.0 + bias - col\n    D = relu(F)\n"
    "    return D, F\n";

struct Extents {
  std::int64_t L, M, N, K;
};

class SimtShapes : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// The epilogue operands (C tile, bias row, col column, D and F tiles).
  static void add_epilogue(GpuProblem& p, Extents e, Dims c_strides = {}, Dims d_strides = {}) {
    p.set_source(kEpilogue);
    p.scalar("alpha", 1.5);
    p.add("C", DType::f16, {e.L, e.M, e.N}, c_strides);
    p.add("bias", DType::f32, {e.N});
    p.add("col", DType::bf16, {e.M, 1});
    p.add("D", DType::f16, {e.L, e.M, e.N}, d_strides, true);
    p.add("F", DType::f32, {e.L, e.M, e.N}, {}, true);
  }
};

TEST_F(SimtShapes, OddExtentsIncludingOnesAndPrimes) {
  EPIGEMM_REQUIRE_GPU(driver);
  const Extents cases[] = {{1, 1, 1, 1},   {1, 1, 1, 300},  {1, 1, 67, 5},  {1, 67, 1, 5},   {2, 13, 7, 1},
                           {1, 127, 129, 17}, {1, 64, 64, 64}, {3, 65, 63, 31}, {1, 257, 3, 2}, {2, 3, 251, 37}};
  for (const Extents& e : cases) {
    SCOPED_TRACE("L M N K = " + std::to_string(e.L) + " " + std::to_string(e.M) + " " + std::to_string(e.N) + " " +
                 std::to_string(e.K));
    GpuProblem p(*driver, rng);
    p.add_ab(DType::f16, DType::f16, e.L, e.M, e.N, e.K);
    add_epilogue(p, e);
    p.run_and_compare();
  }
}

TEST_F(SimtShapes, ColumnMajorAndPaddedOperands) {
  EPIGEMM_REQUIRE_GPU(driver);
  const Extents e{2, 45, 38, 29};
  const std::int64_t L = e.L, M = e.M, N = e.N, K = e.K;
  struct Layout {
    const char* name;
    Dims a, b, c, d;
  };
  const Layout layouts[] = {
      {"A column-major", {M * K, 1, M}, {}, {}, {}},
      {"B column-major", {}, {K * N, 1, K}, {}, {}},
      {"A and B padded rows", {M * (K + 5), K + 5, 1}, {K * (N + 3), N + 3, 1}, {}, {}},
      {"C and D column-major", {}, {}, {M * N, 1, M}, {M * N, 1, M}},
      {"everything strided", {2 * M * K, 2 * K, 2}, {2 * K * N, 1, 2 * K}, {M * N * 2, 2 * N, 2}, {M * N, 1, M}},
  };
  for (const Layout& l : layouts) {
    SCOPED_TRACE(l.name);
    GpuProblem p(*driver, rng);
    p.add("A", DType::bf16, {L, M, K}, l.a);
    p.add("B", DType::bf16, {L, K, N}, l.b);
    add_epilogue(p, e, l.c, l.d);
    p.run_and_compare();
  }
}

TEST_F(SimtShapes, BatchesWithSharedOperands) {
  EPIGEMM_REQUIRE_GPU(driver);
  const std::int64_t L = 3, M = 33, N = 47, K = 21;
  {
    SCOPED_TRACE("A (M, K) shared by the batch");
    GpuProblem p(*driver, rng);
    p.add("A", DType::f32, {M, K});
    p.add("B", DType::f32, {L, K, N});
    add_epilogue(p, {L, M, N, K});
    p.run_and_compare();
  }
  {
    SCOPED_TRACE("B (1, K, N) and A with batch stride 0");
    GpuProblem p(*driver, rng);
    p.add("A", DType::f32, {L, M, K}, {0, K, 1});
    p.add("B", DType::f32, {1, K, N});
    add_epilogue(p, {L, M, N, K});
    p.run_and_compare();
  }
  {
    SCOPED_TRACE("epilogue tile shared by the batch and per-batch rows and columns");
    GpuProblem p(*driver, rng);
    p.add_ab(DType::i8, DType::i8, L, M, N, K);
    p.set_source("def epi(accum, C, r, c, s):\n    D = accum + C * r - c + s\n    return D\n");
    p.add("C", DType::f16, {M, N});
    p.add("r", DType::f32, {L, 1, N});
    p.add("c", DType::f32, {L, M, 1});
    p.add("s", DType::f32, {1});
    p.add("D", DType::i32, {L, M, N}, {}, true);
    p.run_and_compare(DType::i32);
  }
}

TEST_F(SimtShapes, PointersAlignedOnlyToTheirElements) {
  EPIGEMM_REQUIRE_GPU(driver);
  const std::int64_t M = 31, N = 29, K = 23;
  GpuProblem p(*driver, rng);
  p.add("A", DType::f16, {M, K}, {}, false, 2);  // 2-byte aligned, not 4 or 16
  p.add("B", DType::f16, {K, N}, {}, false, 6);
  p.set_source("def epi(accum, C):\n    D = accum + C\n    return D\n");
  p.add("C", DType::bf16, {M, N}, {}, false, 10);
  p.add("D", DType::f32, {M, N}, {}, true, 4);
  p.run_and_compare();
}

}  // namespace
}  // namespace epigemm::testing
