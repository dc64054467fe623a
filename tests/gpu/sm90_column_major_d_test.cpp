// A D of either order on the sm90 provider against cpu_reference. The tiles
// that write D row-major run a column-major D as the transposed problem
// (D^T = B^T A^T): every such 16-bit tile on odd extents with A and B in
// every order, row and column vectors, row, column and whole reductions and
// tiles of both orders; fp8 operands; batches with a shared A; and a D whose
// columns TMA cannot store. The tiles that write D column-major
// (Sm90TileConfig::d_column_major, Sm90DColumnMajor) take a column-major D
// as it is and run a row-major one transposed: each with A and B in every
// order, a staged input and output laid out as D, the same vectors and
// reductions; odd extents (D's contiguous extent not a whole 16 bytes: the
// edge chunks leave through the threads), whole tiles, batches; and a D
// whose lines TMA cannot store.
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

  /// kEpilogue's operands: C (f16) and F with strides `cf_strides`, D of
  /// dtype `d` with `d_strides`, bias along N, col along M, rs one value per
  /// row, cm one per column, t one in all.
  static void add_operands(GpuProblem& p, Extents e, DType d, const Dims& d_strides, DType f, const Dims& cf_strides) {
    const Dims tile{e.L, e.M, e.N};
    p.set_source(kEpilogue);
    p.scalar("alpha", -1.5);
    p.add("C", DType::f16, tile, cf_strides);
    p.add("bias", DType::f32, {e.N});
    p.add("col", DType::bf16, {e.L, e.M, 1});
    p.add("D", d, tile, d_strides, true);
    p.add("F", f, tile, cf_strides, true);
    p.add("rs", DType::f32, {e.L, e.M, 1}, {}, true);
    p.add("cm", DType::f32, {e.N}, {}, true);
    p.add("t", DType::f32, {1}, {}, true);
  }

  /// D, F (f32) and C column-major, D's columns 16 bytes apart.
  static void add_epilogue(GpuProblem& p, Extents e, DType d = DType::f16) {
    add_operands(p, e, d, padded_columns(d, {e.L, e.M, e.N}), DType::f32, {e.M * e.N, 1, e.M});
  }

  /// D, F and C f16, all in one order (lines 16 bytes apart), so that C and
  /// F can share D's staging.
  static void add_epilogue_in_order(GpuProblem& p, Extents e, bool column_major) {
    const Dims tile{e.L, e.M, e.N};
    const Dims strides = column_major ? padded_columns(DType::f16, tile) : padded_rows(DType::f16, tile);
    add_operands(p, e, DType::f16, strides, DType::f16, strides);
  }
};

/// The tiles that write D column-major.
class Sm90DColumnMajor : public Sm90ColumnMajorD {};

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

TEST_F(Sm90DColumnMajor, RowAndColumnMajorDOnEveryTileAndOperandOrder) {
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents cases[] = {{2, 67, 45, 37}, {1, 129, 257, 65}, {1, 256, 384, 64}, {1, 300, 8, 24}};
  const std::vector<detail::Sm90TileConfig> configs = bits16_tile_configs(true);
  ASSERT_FALSE(configs.empty());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    // A K-major or M-major, B N-major or K-major: a different pair per tile.
    const bool a_k_major = i % 2 == 0, b_k_major = i / 2 % 2 == 1;
    for (const bool column_major : {false, true}) {
      for (const Extents& e : cases) {
        SCOPED_TRACE("tile " + configs[i].shape_name() + ", " + describe(e) + (a_k_major ? ", A K" : ", A M") +
                     (b_k_major ? "-major, B K-major" : "-major, B N-major") +
                     (column_major ? ", D column-major" : ", D row-major"));
        GpuProblem p(*driver, rng);
        add_padded_ab(p, DType::bf16, DType::bf16, e.L, e.M, e.N, e.K, a_k_major, b_k_major);
        add_epilogue_in_order(p, e, column_major);
        run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(configs[i]));
      }
    }
  }
}

TEST_F(Sm90DColumnMajor, LinesTmaCannotStoreLeaveThroughTheThreads) {
  // A column-major D of M = 45 f16 has columns 90 bytes apart; a row-major
  // one of N = 45 rows as far apart, which are D^T's columns.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::vector<detail::Sm90TileConfig> configs = bits16_tile_configs(true);
  for (const bool column_major : {false, true}) {
    const Extents e = column_major ? Extents{2, 45, 70, 40} : Extents{2, 70, 45, 40};
    const Dims tile{e.L, e.M, e.N};
    for (const detail::Sm90TileConfig& config : configs) {
      SCOPED_TRACE("tile " + config.shape_name() + (column_major ? ", D column-major" : ", D row-major"));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::f16, DType::f16, e.L, e.M, e.N, e.K);
      p.set_source("def epi(accum, C):\n    D = accum + C\n    return D\n");
      p.add("C", DType::f16, tile);
      p.add("D", DType::f16, tile, column_major ? Dims{e.M * e.N, 1, e.M} : Dims{}, true);
      const auto candidates = sm90_candidates(p, DType::f32, DType::f32, pin_config(config));
      ASSERT_EQ(candidates.size(), 1u);
      const std::vector<std::string> notes = candidates.front().op.plan_notes(p.args(true, DType::f32, DType::f32));
      EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
        return note.find("D is stored by the kernel's threads") != std::string::npos;
      }));
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    }
  }
}

}  // namespace
}  // namespace epigemm::testing
