// A column-major D on the sm90 provider, which runs it as the transposed
// problem (D^T = B^T A^T, D^T row-major), against cpu_reference: every
// 16-bit tile configuration on odd extents with A and B in every order, row
// and column vectors, row, column and whole reductions and tiles of both
// orders; fp8 operands; batches with a shared A; and a D whose columns TMA
// cannot store as they lie.
#include <algorithm>

#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

constexpr const char* kEpilogue =
    "def epi(accum, alpha, C, bias, col):\n    F = accum * alpha + C * 2.0 + bias - col\n    D = relu(F)\n"
    "    rs = sum(F)\n    cm = max(D)\n    t = amax(F)\n    return D, F, rs, cm, t\n";

class Sm90ColumnMajorD : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// kEpilogue's operands: D, F and C column-major (D's columns 16 bytes
  /// apart), bias along N, col along M, rs one value per row, cm one per
  /// column, t one in all.
  static void add_epilogue(GpuProblem& p, Extents e, DType d = DType::f16) {
    const Dims tile{e.L, e.M, e.N};
    p.set_source(kEpilogue);
    p.scalar("alpha", -1.5);
    p.add("C", DType::f16, tile, {e.M * e.N, 1, e.M});
    p.add("bias", DType::f32, {e.N});
    p.add("col", DType::bf16, {e.L, e.M, 1});
    p.add("D", d, tile, padded_columns(d, tile), true);
    p.add("F", DType::f32, tile, {e.M * e.N, 1, e.M}, true);
    p.add("rs", DType::f32, {e.L, e.M, 1}, {}, true);
    p.add("cm", DType::f32, {e.N}, {}, true);
    p.add("t", DType::f32, {1}, {}, true);
  }
};

TEST_F(Sm90ColumnMajorD, EveryTileConfigurationAndOperandOrder) {
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents cases[] = {{2, 67, 45, 37}, {1, 129, 257, 65}, {1, 300, 8, 24}};
  const std::vector<detail::Sm90TileConfig> configs = bits16_tile_configs();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    // A K-major or M-major, B N-major or K-major: a different pair per tile.
    const bool a_k_major = i % 2 == 0, b_k_major = i / 2 % 2 == 1;
    for (const Extents& e : cases) {
      SCOPED_TRACE("tile " + configs[i].shape_name() + ", " + describe(e) + (a_k_major ? ", A K" : ", A M") +
                   (b_k_major ? "-major, B K-major" : "-major, B N-major"));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::bf16, DType::bf16, e.L, e.M, e.N, e.K, a_k_major, b_k_major);
      add_epilogue(p, e);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_shape(configs[i]));
    }
  }
}

TEST_F(Sm90ColumnMajorD, Fp8OperandsAndASharedA) {
  EPIGEMM_REQUIRE_SM90(driver);
  {
    SCOPED_TRACE("e4m3 A and B, D bf16");
    const Extents e{1, 200, 136, 96};
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::e4m3, DType::e4m3, e.L, e.M, e.N, e.K, true, true);
    add_epilogue(p, e, DType::bf16);
    run_sm90_and_compare(p);
  }
  {
    SCOPED_TRACE("A (M, K) shared by the batch, normal data");
    const Extents e{3, 520, 264, 128};
    GpuProblem p(*driver, rng);
    p.add("A", DType::f16, {e.M, e.K}, padded_rows(DType::f16, {e.M, e.K}));
    p.add("B", DType::f16, {e.L, e.K, e.N}, padded_rows(DType::f16, {e.L, e.K, e.N}));
    p.fill_normal("A");
    p.fill_normal("B", 0.25);
    add_epilogue(p, e, DType::f32);
    run_sm90_and_compare(p);
  }
}

TEST_F(Sm90ColumnMajorD, ColumnsTmaCannotStoreLeaveThroughTheThreads) {
  // M = 45 f16: D's columns 90 bytes apart, so D^T's rows are too.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 45, 70, 40};
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::f16, DType::f16, e.L, e.M, e.N, e.K);
  p.set_source("def epi(accum, C):\n    D = accum + C\n    return D\n");
  p.add("C", DType::f16, {e.L, e.M, e.N});
  p.add("D", DType::f16, {e.L, e.M, e.N}, {e.M * e.N, 1, e.M}, true);
  const auto candidates = sm90_candidates(p, DType::f32, DType::f32);
  ASSERT_FALSE(candidates.empty());
  const std::vector<std::string> notes = candidates.front().op.plan_notes(p.args(true, DType::f32, DType::f32));
  ASSERT_GE(notes.size(), 2u);
  EXPECT_NE(notes.front().find("D is column-major"), std::string::npos) << notes.front();
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("D is stored by the kernel's threads") != std::string::npos;
  }));
  run_sm90_and_compare(p);
}

}  // namespace
}  // namespace epigemm::testing
