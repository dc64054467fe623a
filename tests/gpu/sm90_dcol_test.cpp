// The sm90 tiles that write D column-major (Sm90TileConfig::d_column_major)
// against cpu_reference: on each, a row-major D (run as the transposed
// problem, whose D^T they write column-major) and a column-major one (run as
// it is), with A and B in every order, a staged input and output laid out as
// D, row and column vectors, row, column and whole reductions; odd extents
// (D's contiguous extent not a whole 16 bytes: the edge chunks leave through
// the threads), whole tiles, batches; and a D whose lines TMA cannot store.
#include <algorithm>

#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

constexpr const char* kEpilogue =
    "def epi(accum, alpha, C, bias, col):\n    F = accum * alpha + C * 2.0 + bias - col\n    D = relu(F)\n"
    "    rs = sum(F)\n    cm = max(D)\n    t = amax(F)\n    return D, F, rs, cm, t\n";

class Sm90DColumnMajor : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// kEpilogue's operands: D, F and C f16 in one order (lines 16 bytes
  /// apart), bias along N, col along M, rs one value per row, cm one per
  /// column, t one in all.
  static void add_epilogue(GpuProblem& p, Extents e, bool column_major) {
    const Dims tile{e.L, e.M, e.N};
    const Dims strides = column_major ? padded_columns(DType::f16, tile) : padded_rows(DType::f16, tile);
    p.set_source(kEpilogue);
    p.scalar("alpha", -1.5);
    p.add("C", DType::f16, tile, strides);
    p.add("bias", DType::f32, {e.N});
    p.add("col", DType::bf16, {e.L, e.M, 1});
    p.add("D", DType::f16, tile, strides, true);
    p.add("F", DType::f16, tile, strides, true);
    p.add("rs", DType::f32, {e.L, e.M, 1}, {}, true);
    p.add("cm", DType::f32, {e.N}, {}, true);
    p.add("t", DType::f32, {1}, {}, true);
  }
};

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
        add_epilogue(p, e, column_major);
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
