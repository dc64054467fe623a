// The grouped-k sm90 tiles (several k-blocks per stage, A's in one 4-D TMA
// box cut to M's rows, B's in one box per stage, cut to N's columns when
// K-major, or per 64 columns) against cpu_reference, B of either major:
// skinny and taller M (A boxes of 8 to 64 rows, rows past M never stored),
// skinny N (B boxes of 8 to 64 rows), N and K that
// leave partial tiles and a partial last group of k-blocks, batches with a
// shared B, a fused epilogue with reductions, skinny rows spread over both
// consumers' warps (every row-indexed access), a staged output in D's dtype,
// and the tiles the heuristic
// picks for skinny problems; fp8, int8 and tf32 operands on their own grouped
// tiles.
#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

constexpr const char* kEpilogue =
    "def epi(accum, alpha, C, bias):\n    F = accum * alpha + C + bias\n    D = relu(F)\n"
    "    colmax = max(F)\n    total = sum(D)\n    return D, F, colmax, total\n";

struct Case {
  std::int64_t L, M, N, K;
  DType ab;
  DType d;
};

#define EXPECT_PICKS(name, shape) EXPECT_NE((name).find(shape), std::string::npos) << (name)

class Sm90GroupedK : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// D = accum, bf16 (M, N, K) with B of the given major, on the operator the
  /// heuristic picks; returns its name.
  std::string run_picked(const runtime::Driver& driver, std::int64_t M, std::int64_t N, std::int64_t K,
                         bool b_k_major) {
    SCOPED_TRACE("M N K = " + std::to_string(M) + " " + std::to_string(N) + " " + std::to_string(K));
    GpuProblem p(driver, rng);
    add_padded_ab(p, DType::bf16, DType::bf16, 1, M, N, K, true, b_k_major);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::bf16, {1, M, N}, padded_rows(DType::bf16, {1, M, N}), true);
    return run_sm90_and_compare(p);
  }

  /// A (L, M, K) row-major (K-major), B (L, K, N) column-major (K-major) or
  /// row-major (N-major), the fused epilogue's operands, on `config`.
  void run(const runtime::Driver& driver, const Case& c, const detail::Sm90TileConfig& config, bool b_k_major,
           bool normal_data = false, DType accumulator = DType::f32) {
    SCOPED_TRACE("tile " + config.shape_name() + ", L M N K = " + std::to_string(c.L) + " " + std::to_string(c.M) +
                 " " + std::to_string(c.N) + " " + std::to_string(c.K) + ", " + std::string(to_string(c.ab)) +
                 ", D " + std::string(to_string(c.d)) + (b_k_major ? ", B column-major" : ", B row-major"));
    GpuProblem p(driver, rng);
    add_padded_ab(p, c.ab, c.ab, c.L, c.M, c.N, c.K, true, b_k_major);
    if (normal_data) {
      p.fill_normal("A");
      p.fill_normal("B", 0.25);
    }
    p.set_source(kEpilogue);
    p.scalar("alpha", 0.75);
    p.add("C", DType::f16, {c.L, c.M, c.N});
    p.add("bias", DType::f32, {c.N});
    p.add("D", c.d, {c.L, c.M, c.N}, padded_rows(c.d, {c.L, c.M, c.N}), true);
    p.add("F", DType::f32, {c.L, c.M, c.N}, {}, true);
    p.add("colmax", DType::f32, {c.L, 1, c.N}, {}, true);
    p.add("total", DType::f32, {c.L, 1, 1}, {}, true);
    const std::string name = run_sm90_and_compare(p, accumulator, DType::f32, pin_config(config));
    EXPECT_NE(name.find("kgroup"), std::string::npos) << name;
  }
};

TEST_F(Sm90GroupedK, SkinnyAndTallerMWithPartialTilesAndGroups) {
  EPIGEMM_REQUIRE_SM90(driver);
  // K / 64 k-blocks: 4 and 16 (whole groups), 65 and 18 (a partial last group
  // of 1 and 2), 6 (two groups on 64x64); M from 1 (an 8-row A box) to 200
  // (four tile rows of 64-row boxes, the last partial).
  const Case cases[] = {{1, 1, 2048, 1024, DType::bf16, DType::bf16},  {1, 16, 1000, 4160, DType::bf16, DType::bf16},
                        {1, 13, 2999, 256, DType::f16, DType::f32},    {1, 64, 640, 1152, DType::bf16, DType::f16},
                        {1, 100, 2999, 1536, DType::f16, DType::f16},  {1, 128, 1283, 384, DType::bf16, DType::f32},
                        {1, 200, 520, 4096, DType::bf16, DType::bf16}, {3, 16, 700, 512, DType::f16, DType::bf16}};
  for (const detail::Sm90TileConfig& config : grouped_k_tile_configs()) {
    for (const Case& c : cases) {
      if (c.K < config.bk() * config.k_group) continue;  // the plan refuses fewer than one box of k-blocks
      for (const bool b_k_major : {true, false}) run(*driver, c, config, b_k_major);
    }
  }
}

TEST_F(Sm90GroupedK, SkinnyNWithBBoxesCutToNsColumns) {
  EPIGEMM_REQUIRE_SM90(driver);
  // N from 1 (an 8-row B box) to 100 (two tile columns, the second cut on
  // no tile: B's boxes hold min(N, bn) rounded up to 8); a column-major B is
  // cut, a row-major one loaded in whole 64-column boxes.
  const Case cases[] = {{1, 2048, 1, 1024, DType::bf16, DType::bf16}, {1, 1000, 13, 4160, DType::bf16, DType::f32},
                        {1, 777, 16, 256, DType::f16, DType::f16},    {1, 300, 40, 1152, DType::bf16, DType::bf16},
                        {1, 520, 100, 512, DType::f16, DType::f32},   {2, 200, 24, 640, DType::bf16, DType::bf16}};
  for (const detail::Sm90TileConfig& config : grouped_k_tile_configs()) {
    for (const Case& c : cases) {
      if (c.K < config.bk() * config.k_group) continue;
      for (const bool b_k_major : {true, false}) run(*driver, c, config, b_k_major);
    }
  }
}

TEST_F(Sm90GroupedK, NormalDataAndASharedB) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const detail::Sm90TileConfig& config : grouped_k_tile_configs()) {
    run(*driver, {1, 32, 3000, 2048, DType::bf16, DType::f32}, config, true, true);
    run(*driver, {1, 48, 2500, 1024, DType::f16, DType::f32}, config, false, true);
    SCOPED_TRACE("B (1, K, N) shared by a batch of 2, tile " + config.shape_name());
    const std::int64_t L = 2, M = 24, N = 777, K = 640;
    GpuProblem p(*driver, rng);
    p.add("A", DType::bf16, {L, M, K}, padded_rows(DType::bf16, {L, M, K}));
    p.add("B", DType::bf16, {1, K, N}, padded_columns(DType::bf16, {1, K, N}));
    p.set_source("def epi(accum, bias):\n    D = accum + bias\n    return D\n");
    p.add("bias", DType::f32, {N});
    p.add("D", DType::bf16, {L, M, N}, padded_rows(DType::bf16, {L, M, N}), true);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }
}

TEST_F(Sm90GroupedK, SkinnyRowsSpreadOverTheConsumersWarps) {
  EPIGEMM_REQUIRE_SM90(driver);
  // M <= 32 on the 64-row tiles: consumer 1's rows sit in its warps 2-3
  // (spreads_rows in sm90_gemm.cuh), so every row-indexed access moves: a
  // column vector, row sums, column maxima, a staged C, F, and D stored by
  // TMA or, with rows not 16-byte aligned (N odd), by the threads. M = 48
  // (33 and more rows) keeps the plain placement.
  struct Skinny {
    std::int64_t L, M, N;
  };
  const Skinny cases[] = {{1, 1, 1000}, {1, 9, 333}, {1, 16, 1000}, {2, 17, 333}, {1, 32, 1000}, {1, 48, 333}};
  constexpr std::int64_t K = 1024;
  for (const detail::Sm90TileConfig& config : grouped_k_tile_configs()) {
    for (const Skinny& c : cases) {
      for (const bool b_k_major : {true, false}) {
        SCOPED_TRACE("tile " + config.shape_name() + ", L M N = " + std::to_string(c.L) + " " + std::to_string(c.M) +
                     " " + std::to_string(c.N) + (b_k_major ? ", B column-major" : ", B row-major"));
        GpuProblem p(*driver, rng);
        add_padded_ab(p, DType::bf16, DType::bf16, c.L, c.M, c.N, K, true, b_k_major);
        p.set_source(
            "def epi(accum, C, s, bias):\n    F = accum * s + C + bias\n    D = gelu(F)\n    rs = sum(F)\n"
            "    cm = max(D)\n    am = amax(F)\n    return D, F, rs, cm, am\n");
        p.add("C", DType::bf16, {c.L, c.M, c.N}, padded_rows(DType::bf16, {c.L, c.M, c.N}));
        p.add("s", DType::f32, {c.M, 1});
        p.add("bias", DType::f32, {c.N});
        p.add("D", DType::bf16, {c.L, c.M, c.N}, {}, true);
        p.add("F", DType::f32, {c.L, c.M, c.N}, padded_rows(DType::f32, {c.L, c.M, c.N}), true);
        p.add("rs", DType::f32, {c.L, c.M, 1}, {}, true);
        p.add("cm", DType::f32, {c.L, 1, c.N}, {}, true);
        p.add("am", DType::f32, {1}, {}, true);
        const std::string name = run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
        EXPECT_NE(name.find("kgroup"), std::string::npos) << name;
      }
    }
  }
}

TEST_F(Sm90GroupedK, AStagedOutputInDsDtype) {
  EPIGEMM_REQUIRE_SM90(driver);
  // F in D's 16-bit dtype follows D through the staging slots (the skinny
  // benchmark's relu+F) where TMA can store its rows: one tile per CTA
  // (M = 16), several (M = 200, N = 8000), N = 40 (B's boxes cut), a batch;
  // N = 777 (rows not 16-byte aligned: F stored by the threads) with a
  // partial last group (K = 4160).
  struct Shape {
    std::int64_t L, M, N, K;
    DType d;
  };
  const Shape shapes[] = {{1, 16, 1000, 4096, DType::bf16}, {1, 200, 8000, 512, DType::f16},
                          {1, 16, 40, 1024, DType::bf16},   {1, 9, 777, 4160, DType::f16},
                          {2, 24, 640, 512, DType::bf16}};
  for (const detail::Sm90TileConfig& config : grouped_k_tile_configs()) {
    for (const Shape& s : shapes) {
      for (const bool b_k_major : {true, false}) {
        SCOPED_TRACE("tile " + config.shape_name() + ", L M N K = " + std::to_string(s.L) + " " +
                     std::to_string(s.M) + " " + std::to_string(s.N) + " " + std::to_string(s.K) + ", D and F " +
                     std::string(to_string(s.d)) + (b_k_major ? ", B column-major" : ", B row-major"));
        GpuProblem p(*driver, rng);
        add_padded_ab(p, DType::bf16, DType::bf16, s.L, s.M, s.N, s.K, true, b_k_major);
        p.set_source("def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n"
                     "    return D, F\n");
        p.scalar("alpha", 0.75);
        p.add("C", s.d, {s.L, s.M, s.N});
        p.add("D", s.d, {s.L, s.M, s.N}, padded_rows(s.d, {s.L, s.M, s.N}), true);
        p.add("F", s.d, {s.L, s.M, s.N}, {}, true);
        const std::string name = run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
        EXPECT_NE(name.find("kgroup"), std::string::npos) << name;
      }
    }
  }
}

TEST_F(Sm90GroupedK, Fp8Int8AndTf32OperandsOnTheirGroupedTiles) {
  EPIGEMM_REQUIRE_SM90(driver);
  // K-major A and B (the only layout these classes take), K in whole
  // k-blocks (128 bytes of each row): one group, a partial last group, many
  // groups; skinny M and N, partial tiles, a batch, and M = 16 with N = 1024
  // (16 tiles of 64x64, 64 of 64x128 / 128x64), which split K (but on the
  // precise fp8 tiles, which do not cut K).
  struct Operands {
    detail::Sm90OperandClass operands;
    DType ab, accumulator, d;
  };
  const Operands classes[] = {{detail::Sm90OperandClass::fp8, DType::e4m3, DType::f32, DType::bf16},
                              {detail::Sm90OperandClass::int8, DType::i8, DType::i32, DType::f32},
                              {detail::Sm90OperandClass::tf32, DType::tf32, DType::f32, DType::f16}};
  struct Shape {
    std::int64_t L, M, N, k_blocks;
  };
  const Shape shapes[] = {{1, 1, 2048, 16}, {1, 16, 1000, 33}, {1, 100, 2999, 9},
                          {3, 16, 700, 4},  {1, 2048, 13, 9},  {1, 16, 1024, 32}};
  for (const Operands& o : classes) {
    for (const detail::Sm90TileConfig& config : grouped_k_tile_configs(o.operands)) {
      for (const Shape& s : shapes) {
        if (s.k_blocks < config.k_group) continue;  // the plan refuses fewer than one box of k-blocks
        run(*driver, {s.L, s.M, s.N, s.k_blocks * config.bk(), o.ab, o.d}, config, true, false, o.accumulator);
      }
    }
  }
}

TEST_F(Sm90GroupedK, TheHeuristicStreamsSkinnyWeightsOnAGroupedTile) {
  EPIGEMM_REQUIRE_SM90(driver);
  for (const bool b_k_major : {true, false}) {
    SCOPED_TRACE(b_k_major ? "B column-major" : "B row-major");
    EXPECT_PICKS(run_picked(*driver, 16, 4096, 4096, b_k_major), "64x64x64_c1x1_kgroup2");
    // M = 80: one 128-row tile whose box holds A's 80 rows, rather than a
    // second 64-row tile row loading 48 zero-filled rows.
    EXPECT_PICKS(run_picked(*driver, 80, 4096, 4096, b_k_major), "128x64x64_c1x1_kgroup2");
  }
  // N = 16 with B column-major: A holds the weights, B's boxes are cut to
  // its 16 columns.
  EXPECT_PICKS(run_picked(*driver, 4096, 16, 4096, true), "64x64x64_c1x1_kgroup4");
}

}  // namespace
}  // namespace epigemm::testing
