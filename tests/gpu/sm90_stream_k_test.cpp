// Stream-K on the sm90 pingpong tiles, and on the cooperative 1x1 ones
// just over one wave, against cpu_reference: tiles cut along K by two CTAs
// (one leaves a partial sum, the next adds it), with odd extents, a batch,
// 2x1 clusters, a staged C, an F output, reductions and fp8 operands;
// repeated launches on one stream reuse the workspace (its flags must come
// back to zero); a graph captured on a stream that
// has a workspace replays with it, and one captured on a fresh stream runs
// whole tiles; skinny problems split K on the cooperative tiles; a problem
// that cuts nothing runs on the loaded kernel with
// stream-K's code rather than compiling one without it.
#include <set>

#include "api/problem.hpp"
#include "gpu/graph_replay.hpp"
#include "gpu/sm90_problem.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::testing {
namespace {

detail::Sm90TileConfig pingpong(int cluster_m,
                                detail::Sm90OperandClass operands = detail::Sm90OperandClass::bits16, int bn = 128) {
  for (const detail::Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.pingpong && c.bm == 128 && c.bn == bn && c.cluster_m == cluster_m && c.operands == operands &&
        !c.d_column_major)
      return c;
  }
  ADD_FAILURE() << "no 128x" << bn << " pingpong " << cluster_m << "x1 configuration";
  return {};
}

/// The tiles a launch of `s` on `c` cuts (one CTA per SM of device 0).
std::int64_t cut_tiles(const runtime::Driver& driver, const detail::Sm90TileConfig& c, const Extents& s) {
  const std::int64_t slots = driver.device_info(0).sm_count / c.cluster_m;
  return detail::sm90_stream_k_tiles(c, detail::sm90_cluster_tiles(c, s.M, s.N, s.L), (s.K + c.bk() - 1) / c.bk(),
                                     slots);
}

/// The shapes below are cut on an H100/H200's 132 SMs.
#define EPIGEMM_REQUIRE_132_SMS(driver_var) \
  if (driver_var->device_info(0).sm_count != 132) GTEST_SKIP() << "the shapes are chosen for 132 SMs"

/// bf16 A and B of extents `s` and an epilogue with a staged C, a row vector,
/// an f32 F output, a row sum and amax: what a cut tile must carry across.
void add_cut_case(GpuProblem& p, const Extents& s) {
  add_padded_ab(p, DType::bf16, DType::bf16, s.L, s.M, s.N, s.K);
  p.set_source(
      "def epi(accum, alpha, C, bias):\n    F = accum * alpha + C * 2.0\n    D = relu(F + bias)\n"
      "    rows = sum(F)\n    am = amax(D)\n    return D, F, rows, am\n");
  p.scalar("alpha", 0.75);
  const Dims tile{s.L, s.M, s.N};
  p.add("C", DType::bf16, tile, padded_rows(DType::bf16, tile));
  p.add("bias", DType::f32, {s.N});
  p.add("D", DType::bf16, tile, padded_rows(DType::bf16, tile), true);
  p.add("F", DType::f32, tile, padded_rows(DType::f32, tile), true);
  p.add("rows", DType::f32, {s.L, s.M, 1}, {}, true);
  p.add("am", DType::f32, {s.L, 1, 1}, {}, true);
}

/// K-major A and B of type `ab` (e4m3, i8 or tf32) of extents `s` and
/// D = accum * scale + bias in bf16: D scaled down so that the tensor cores'
/// rounding of the running sum (fp8's fast accumulation, tf32's inputs)
/// stays far inside bf16's tolerance.
void add_k_major_cut_case(GpuProblem& p, DType ab, const Extents& s) {
  add_padded_ab(p, ab, ab, s.L, s.M, s.N, s.K, true, true);
  p.set_source("def epi(accum, scale, bias):\n    D = accum * scale + bias\n    return D\n");
  p.scalar("scale", 0.01);
  p.add("bias", DType::f32, {s.N});
  p.add("D", DType::bf16, {s.L, s.M, s.N}, padded_rows(DType::bf16, {s.L, s.M, s.N}), true);
}

class Sm90StreamK : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// add_cut_case's problem of extents `s` on `config`, which must cut
  /// tiles, against the reference: two launches per poison on the same
  /// stream, the second finding the flags the first left (all back to
  /// zero) and the partials it wrote.
  void expect_cut_case_matches(const runtime::Driver& driver, const detail::Sm90TileConfig& config,
                               const Extents& s) {
    SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(s));
    ASSERT_GT(cut_tiles(driver, config, s), 0) << "the shape no longer takes stream-K";
    GpuProblem p(driver, rng);
    add_cut_case(p, s);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }
};

TEST_F(Sm90StreamK, CutTilesMatchTheReference) {
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  // 1x1: 270 tiles (2.05 waves on 132 SMs) with K = 2048 and 1999 (a
  // partial last k-block), a batch of 3 x 90 tiles; 2x1: 136 cluster tiles
  // on 66 clusters, one of them a batch of 2 x 68.
  const std::vector<Extents> shapes[] = {{{1, 1920, 2304, 2048}, {1, 1900, 2290, 1999}, {3, 1280, 1152, 1500}},
                                       {{1, 2048, 2176, 2048}, {1, 2000, 2100, 1999}, {2, 1024, 2176, 1500}}};
  for (const int cluster_m : {1, 2}) {
    for (const Extents& s : shapes[cluster_m - 1]) expect_cut_case_matches(*driver, pingpong(cluster_m), s);
  }
}

TEST_F(Sm90StreamK, TheWidePingpongTilesCutTilesMatchTheReference) {
  // 128x192 pingpong (192 accumulators a consumer): 270 tiles (2.05 waves)
  // with K = 2048 and 1999, and a batch of 3 x 90 tiles, the same epilogue.
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  const detail::Sm90TileConfig config = pingpong(1, detail::Sm90OperandClass::bits16, 192);
  for (const Extents& s : {Extents{1, 1920, 3456, 2048}, Extents{1, 1900, 3400, 1999}, Extents{3, 1280, 1728, 1500}}) {
    expect_cut_case_matches(*driver, config, s);
  }
}

TEST_F(Sm90StreamK, CooperativeTilesCutEveryTileOfAProblemJustOverOneWave) {
  // Every 16-bit cooperative 1x1 tile of one k-block per stage, and the
  // 128x256 of each other operand class (fp8, int8, tf32):
  // 144 tiles (1.09 waves), each cut between two CTAs (each consumer leaves
  // and adds its own part); odd extents, a partial last k-block (16-bit) and
  // a batch of two.
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  using detail::Sm90OperandClass;
  int cut_configs = 0;
  for (const detail::Sm90TileConfig& config : detail::sm90_tile_configs()) {
    // (The tiles that write D column-major would cut the transpose.)
    if (config.pingpong || config.k_group > 1 || !config.may_cut_along_k() || config.d_column_major) continue;
    const bool bits16 = config.operands == Sm90OperandClass::bits16;
    if (!bits16 && config.bn != 256) continue;
    const Extents s{2, 6 * config.bm - 20, 12 * config.bn - 40, bits16 ? 1999 : 4096};  // 2 x 6 x 12 tiles
    SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(s));
    ASSERT_EQ(cut_tiles(*driver, config, s), 144) << "the shape no longer cuts every tile";
    GpuProblem p(*driver, rng);
    DType accumulator = DType::f32;
    switch (config.operands) {
      case Sm90OperandClass::bits16: add_cut_case(p, s); break;
      case Sm90OperandClass::fp8: add_k_major_cut_case(p, DType::e4m3, s); break;
      case Sm90OperandClass::int8: add_k_major_cut_case(p, DType::i8, s); accumulator = DType::i32; break;
      case Sm90OperandClass::tf32: add_k_major_cut_case(p, DType::tf32, s); break;
    }
    run_sm90_and_compare(p, accumulator, DType::f32, pin_config(config));
    run_sm90_and_compare(p, accumulator, DType::f32, pin_config(config));
    ++cut_configs;
  }
  EXPECT_EQ(cut_configs, 10) << "seven 16-bit tiles and the 128x256 of fp8, int8 and tf32";
}

TEST_F(Sm90StreamK, SplitKOnSkinnyProblemsMatchesTheReference) {
  // Every grouped-k 16-bit tile (sm90_split_k_slices): each tile on 2, 4
  // or 8 CTAs, one per slice of K's stages; odd extents, a partial last
  // stage, a batch, a staged C, an F output and reductions.
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  const int sms = driver->device_info(0).sm_count;
  int grouped_tiles = 0, split_configs = 0;
  std::set<int> slice_counts;
  for (const detail::Sm90TileConfig& config : detail::sm90_tile_configs()) {
    if (config.operands != detail::Sm90OperandClass::bits16 || !config.may_cut_along_k() || config.k_group < 2) continue;
    ++grouped_tiles;
    // One row of tiles (one column for the tiles that stream A), K = 3000 or 4096.
    const bool tall = config.bm == 128 && config.bn == 64;
    const std::vector<Extents> shapes =
        tall ? std::vector<Extents>{{1, 4000, 16, 4096}, {2, 1000, 16, 3008}, {1, 1024, 16, 8192}}
             : std::vector<Extents>{{1, 8, 4096, 4096}, {2, 33, 1000, 3008}, {1, 16, 512, 8192}};
    for (const Extents& s : shapes) {
      SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(s));
      GpuProblem p(*driver, rng);
      add_cut_case(p, s);
      detail::Problem problem;
      detail::analyze(p.args(true, DType::f32, DType::f32), problem);
      const int slices = detail::sm90_split_k_slices(config, problem, sms);
      if (slices < 2) continue;
      ++split_configs;
      slice_counts.insert(slices);
      // Twice on one stream: the second launch finds the flags the first cleared.
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    }
  }
  EXPECT_EQ(split_configs, 3 * grouped_tiles) << "each grouped-k 16-bit tile splits its three problems";
  EXPECT_EQ(slice_counts, (std::set<int>{2, 4, 8}));
}

TEST_F(Sm90StreamK, ProblemsThatCutNothingRunOnTheLoadedKernelWithStreamKsCode) {
  // The first problem cuts tiles, so its kernel carries stream-K's code; the
  // second cuts none (64 tiles), and would compile a kernel without that code
  // were the first one not loaded already.
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  const detail::Sm90TileConfig config = pingpong(1);
  const int sms = driver->device_info(0).sm_count;
  std::size_t loaded = 0;
  bool first = true;
  for (const Extents& s : {Extents{1, 1920, 2304, 2048}, Extents{1, 1024, 1024, 512}}) {
    SCOPED_TRACE(describe(s));
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::bf16, DType::bf16, s.L, s.M, s.N, s.K);
    p.set_source("def epi(accum, C):\n    D = relu(accum + C)\n    return D\n");
    p.add("C", DType::bf16, {s.L, s.M, s.N});
    p.add("D", DType::bf16, {s.L, s.M, s.N}, {}, true);
    detail::Problem problem;
    detail::analyze(p.args(true, DType::f32, DType::f32), problem);
    ASSERT_EQ(detail::sm90_stream_k_code(config, problem, sms), first);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
    if (!first) {
      EXPECT_EQ(runtime::KernelLoader::instance().loaded_count(), loaded) << "a kernel was loaded";
    }
    loaded = runtime::KernelLoader::instance().loaded_count();
    first = false;
  }
}

TEST_F(Sm90StreamK, Fp8CutTilesMatchTheReference) {
  // e4m3 with fast accumulation (the fp8 pingpong tiles): K = 4096 is 32
  // k-blocks of 128.
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  const detail::Sm90TileConfig config = pingpong(1, detail::Sm90OperandClass::fp8);
  const Extents s{1, 1920, 2304, 4096};
  SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(s));
  ASSERT_GT(cut_tiles(*driver, config, s), 0) << "the shape no longer takes stream-K";
  GpuProblem p(*driver, rng);
  add_k_major_cut_case(p, DType::e4m3, s);
  run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
}

TEST_F(Sm90StreamK, GraphsReplayWithTheCaptureStreamsWorkspaceOrWholeTiles) {
  EPIGEMM_REQUIRE_SM90(driver);
  EPIGEMM_REQUIRE_132_SMS(driver);
  const Extents s{1, 1920, 2304, 2048};
  const detail::Sm90TileConfig config = pingpong(1);
  ASSERT_GT(cut_tiles(*driver, config, s), 0) << "the shape no longer takes stream-K";
  for (const bool run_on_stream_first : {true, false}) {
    SCOPED_TRACE(run_on_stream_first ? "workspace made before the capture" : "capture on a fresh stream");
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::f16, DType::f16, s.L, s.M, s.N, s.K);
    p.set_source("def epi(accum, C):\n    D = accum + C\n    return D\n");
    const Dims tile{s.L, s.M, s.N};
    p.add("C", DType::f16, tile, padded_rows(DType::f16, tile));
    p.add("D", DType::f16, tile, padded_rows(DType::f16, tile), true);
    const GemmArguments args = p.args(true, DType::f32, DType::f32);
    Operator op = get_operators(args, sm90_query(pin_config(config))).at(0);
    expect_graph_replays_match_reference(*driver, p, op, args, run_on_stream_first);
  }
}

}  // namespace
}  // namespace epigemm::testing
