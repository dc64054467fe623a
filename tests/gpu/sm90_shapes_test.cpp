// The sm90 kernel on awkward shapes, on every tile configuration, against
// cpu_reference: extents of 1, primes and non-multiples of the tile on M, N
// and K; skinny M on the skinny tiles; batches with a shared (stride 0) A or
// B or epilogue tile; strided epilogue operands; and the tile the heuristic
// picks for a shape.
#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

constexpr const char* kEpilogue =
    "def epi(accum, alpha, C, bias, col):\n    F = accum * alpha + C * 2.0 + bias - col\n    D = relu(F)\n"
    "    return D, F\n";

class Sm90Shapes : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// The epilogue operands (C tile, bias row, col column, D and F tiles).
  static void add_epilogue(GpuProblem& p, Extents e, DType d = DType::f16) {
    p.set_source(kEpilogue);
    p.scalar("alpha", 1.5);
    p.add("C", DType::f16, {e.L, e.M, e.N});
    p.add("bias", DType::f32, {e.N});
    p.add("col", DType::bf16, {e.M, 1});
    p.add("D", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), true);
    p.add("F", DType::f32, {e.L, e.M, e.N}, {}, true);
  }

  /// Odd extents on half `half` (0 or 1) of bits16_tile_configs(): two
  /// tests split them so that ctest runs the halves side by side (whole, it
  /// was still running when the rest of the GPU suite had finished).
  void expect_odd_extents_match(const runtime::Driver& driver, int half) {
    const Extents cases[] = {{1, 1, 1, 1},     {1, 1, 1, 300},    {1, 1, 67, 5},     {1, 67, 1, 5},
                             {2, 13, 7, 1},    {1, 127, 129, 17}, {1, 128, 256, 64}, {3, 129, 257, 65},
                             {1, 257, 3, 2},   {2, 3, 251, 37},   {1, 389, 521, 193}};
    const std::vector<detail::Sm90TileConfig> configs = bits16_tile_configs();
    const std::size_t middle = configs.size() / 2;
    for (std::size_t i = half == 0 ? 0 : middle; i < (half == 0 ? middle : configs.size()); ++i) {
      for (const Extents& e : cases) {
        SCOPED_TRACE("tile " + configs[i].shape_name() + ", " + describe(e));
        GpuProblem p(driver, rng);
        add_padded_ab(p, DType::f16, DType::f16, e.L, e.M, e.N, e.K);
        add_epilogue(p, e);
        run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(configs[i]));
      }
    }
  }
};

TEST_F(Sm90Shapes, OddExtentsOnTheFirstHalfOfTheTileConfigurations) {
  EPIGEMM_REQUIRE_SM90(driver);
  expect_odd_extents_match(*driver, 0);
}

TEST_F(Sm90Shapes, OddExtentsOnTheSecondHalfOfTheTileConfigurations) {
  EPIGEMM_REQUIRE_SM90(driver);
  expect_odd_extents_match(*driver, 1);
}

TEST_F(Sm90Shapes, SkinnyProblemsOnTheSkinnyTiles) {
  // M = 1 .. 128 against weights of 1000-3000 square, on 64x64 (each
  // consumer 64 x 32, a 16-bit D staged 64 bytes wide) and 128x64: N not a
  // multiple of the tile (2999 and 1283: rows that TMA cannot store whole),
  // both majors of B (an N-major B splits a 64-element swizzle row between
  // the two consumers of 64x64), f16 and bf16, D 16-bit or f32, a batch.
  EPIGEMM_REQUIRE_SM90(driver);
  struct Skinny {
    Extents e;
    DType ab;
    bool b_k_major;
    DType d;
  };
  const Skinny cases[] = {{{1, 1, 2048, 1024}, DType::bf16, true, DType::bf16},
                          {{1, 16, 1000, 3000}, DType::bf16, false, DType::bf16},
                          {{1, 100, 2999, 1536}, DType::f16, true, DType::f16},
                          {{1, 100, 2999, 1536}, DType::f16, false, DType::f32},
                          {{1, 128, 3072, 2000}, DType::bf16, false, DType::f32},
                          {{2, 16, 1029, 1111}, DType::f16, false, DType::bf16},
                          {{1, 128, 1283, 2048}, DType::bf16, true, DType::f16}};
  for (const auto& [bm, bn] : {std::pair{64, 64}, std::pair{128, 64}}) {
    for (const Skinny& c : cases) {
      SCOPED_TRACE("tile " + std::to_string(bm) + "x" + std::to_string(bn) + ", " + describe(c.e) + ", " +
                   std::string(to_string(c.ab)) + (c.b_k_major ? ", B column-major" : ", B row-major") + ", D " +
                   std::string(to_string(c.d)));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, c.ab, c.ab, c.e.L, c.e.M, c.e.N, c.e.K, true, c.b_k_major);
      add_epilogue(p, c.e, c.d);
      const std::string name = run_sm90_and_compare(p, DType::f32, DType::f32, pin_tile(bm, bn, 1));
      EXPECT_NE(name.find(std::to_string(bm) + "x" + std::to_string(bn) + "x"), std::string::npos) << name;
    }
  }
}

TEST_F(Sm90Shapes, SkinnyFp8AndNormalDataOnTheSkinnyTiles) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const auto& [bm, bn] : {std::pair{64, 64}, std::pair{128, 64}}) {
    {
      SCOPED_TRACE("e4m3, tile " + std::to_string(bm) + "x" + std::to_string(bn));
      const Extents e{1, 16, 1000, 1024};
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::e4m3, DType::e4m3, e.L, e.M, e.N, e.K, true, true);
      add_epilogue(p, e, DType::bf16);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_tile(bm, bn, 1));
    }
    {
      SCOPED_TRACE("bf16 normal data, tile " + std::to_string(bm) + "x" + std::to_string(bn));
      const Extents e{1, 128, 1536, 520};
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::bf16, DType::bf16, e.L, e.M, e.N, e.K, true, false);
      p.fill_normal("A");
      p.fill_normal("B", 0.25);
      add_epilogue(p, e, DType::f32);
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_tile(bm, bn, 1));
    }
  }
}

TEST_F(Sm90Shapes, LargerProblemOnNormalData) {
  // Several waves of tiles over the SMs, values that are not small integers.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 1000, 1200, 520};
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::bf16, DType::bf16, e.L, e.M, e.N, e.K);
  p.fill_normal("A");
  p.fill_normal("B", 0.25);
  add_epilogue(p, e, DType::f32);
  run_sm90_and_compare(p);
}

TEST_F(Sm90Shapes, BatchesWithSharedOperands) {
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t L = 3, M = 133, N = 47, K = 21;
  {
    SCOPED_TRACE("A (M, K) shared by the batch");
    GpuProblem p(*driver, rng);
    p.add("A", DType::f16, {M, K}, padded_rows(DType::f16, {M, K}));
    p.add("B", DType::f16, {L, K, N}, padded_rows(DType::f16, {L, K, N}));
    add_epilogue(p, {L, M, N, K});
    run_sm90_and_compare(p);
  }
  {
    SCOPED_TRACE("B (1, K, N) column-major and A with batch stride 0");
    GpuProblem p(*driver, rng);
    const Dims a_strides = padded_rows(DType::bf16, {L, M, K});
    p.add("A", DType::bf16, {L, M, K}, {0, a_strides[1], 1});
    p.add("B", DType::bf16, {1, K, N}, padded_columns(DType::bf16, {1, K, N}));
    add_epilogue(p, {L, M, N, K});
    run_sm90_and_compare(p);
  }
  {
    SCOPED_TRACE("epilogue tile shared by the batch and per-batch rows, columns and scalars");
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::f16, DType::f16, L, M, N, K);
    p.set_source("def epi(accum, C, r, c, s):\n    D = accum + C * r - c + s\n    return D\n");
    p.add("C", DType::f16, {M, N});
    p.add("r", DType::f32, {L, 1, N});
    p.add("c", DType::f32, {L, M, 1});
    p.add("s", DType::f32, {1});
    p.add("D", DType::bf16, {L, M, N}, padded_rows(DType::bf16, {L, M, N}), true);
    run_sm90_and_compare(p);
  }
}

TEST_F(Sm90Shapes, StridedAndColumnMajorEpilogueOperands) {
  // Only A, B and D go through TMA; the epilogue's other operands may have
  // any strides and alignment of their element.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 45, 38, 29};
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::bf16, DType::bf16, e.L, e.M, e.N, e.K, false, true);
  p.set_source(kEpilogue);
  p.scalar("alpha", -0.5);
  p.add("C", DType::f16, {e.L, e.M, e.N}, {e.M * e.N * 2, 1, e.M}, false, 2);
  p.add("bias", DType::f32, {e.N}, {3});
  p.add("col", DType::bf16, {e.M, 1}, {2, 1}, false, 6);
  p.add("D", DType::f16, {e.L, e.M, e.N}, padded_rows(DType::f16, {e.L, e.M, e.N}), true);
  p.add("F", DType::f32, {e.L, e.M, e.N}, {e.M * e.N, 1, e.M}, true, 4);
  run_sm90_and_compare(p);
}

TEST_F(Sm90Shapes, TheHeuristicPicksTheTileForTheShape) {
  EPIGEMM_REQUIRE_SM90(driver);
  struct Pick {
    Extents e;
    int bm, bn;
    const char* schedule;
  };
  // Skinny and memory-bound: 64x64 at M = 16 (a CTA on nearly every SM),
  // 64x128 at M = 128 (A re-read less often); small: 64x128 (one wave, the
  // deepest ring); square from two tiles per CTA (2048^3): the 128x128
  // pingpong tile; a GEMM alone of several tiles per CTA and K past 32
  // k-blocks (4096^3): 128x256 (see Sm90Heuristic in the unit tests).
  const Pick picks[] = {{{1, 16, 8192, 8192}, 64, 64, "cooperative"},
                        {{1, 128, 8192, 8192}, 64, 128, "cooperative"},
                        {{1, 1024, 1024, 1024}, 64, 128, "cooperative"},
                        {{1, 2048, 2048, 2048}, 128, 128, "pingpong"},
                        {{1, 4096, 4096, 4096}, 128, 256, "cooperative"}};
  for (const Pick& pick : picks) {
    SCOPED_TRACE(describe(pick.e));
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::f16, DType::f16, pick.e.L, pick.e.M, pick.e.N, pick.e.K);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::f16, {pick.e.M, pick.e.N}, {}, true);
    const auto ops = get_operators(p.args(true, DType::f32, DType::f32), {.target_sm = 90});
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(ops.front().metadata().provider, "sm90");
    EXPECT_EQ(ops.front().metadata().tile.m, pick.bm) << ops.front().name();
    EXPECT_EQ(ops.front().metadata().tile.n, pick.bn) << ops.front().name();
    EXPECT_EQ(ops.front().metadata().extra.at("schedule"), pick.schedule) << ops.front().name();
    EXPECT_EQ(ops.back().metadata().provider, "simt") << "simt ranks last";
  }
}

}  // namespace
}  // namespace epigemm::testing
