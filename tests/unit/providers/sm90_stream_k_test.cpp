// Stream-K's host decisions and the kernel's work lists (kernels/
// sm90_work_list.cuh, compiled here for the host): which tiles are cut,
// and that the CTAs' items cover every tile's k-blocks exactly once, with
// each cut tile's partial written before the CTA after the writer finishes it;
// split-K's choice of skinny problems; the stage at which an item loads its
// staged epilogue input.
#include <gtest/gtest.h>

#include <vector>

#include "api/problem.hpp"
#include "providers/sm90/sm90_tile_config.hpp"
#include "sm90_work_list.cuh"

namespace epigemm::testing {
namespace {

using detail::Sm90OperandClass;
using detail::Sm90TileConfig;
using sm90::WorkItem;
using sm90::WorkList;
using sm90::WorkRole;

Sm90TileConfig pingpong_128x128() {
  Sm90TileConfig c{128, 128, 1, 5, Sm90OperandClass::bits16};
  c.pingpong = true;
  return c;
}

TEST(Sm90StreamK, CutsTheLastPartialWaveAndOneFullWaveWhenTheLastWaveIsNearlyEmpty) {
  const Sm90TileConfig c = pingpong_128x128();
  // 8192^3 and 4096x14336x4096 on 132 SMs: 31.03 and 27.15 waves.
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 4096, 128, 132), 4 + 132);
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 3584, 64, 132), 20 + 132);
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 270, 32, 132), 6 + 132);  // the GPU test's 1920x2304x2048
  // 4096^3 (7.76 waves): ranges of 1.76 tiles computed slower would end after two whole waves.
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 1024, 64, 132), 0);
  // Whole waves, fewer than two waves, or too few k-blocks to pay for the partials: none.
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 4 * 132, 64, 132), 0);
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 200, 64, 132), 0);
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 4096, 2, 132), 0);
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 4 * 132 + 130, 64, 132), 0);  // the last wave is 98% full
  // Just over one wave: every tile, in ranges of 1.09 tiles.
  EXPECT_EQ(detail::sm90_stream_k_tiles(c, 144, 64, 132), 144);
  // Grouped-k tiles keep their tiles whole (they split K instead).
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  EXPECT_EQ(detail::sm90_stream_k_tiles(grouped, 144, 64, 132), 0);
}

TEST(Sm90StreamK, CooperativeTilesCutOnlyProblemsJustOverOneWave) {
  const Sm90TileConfig wide{128, 256, 1, 3, Sm90OperandClass::bits16};
  // 4500x1024x3000 (144 tiles of 47 k-blocks): ranges of 1.09 tiles.
  EXPECT_EQ(detail::sm90_stream_k_tiles(wide, 144, 47, 132), 144);
  EXPECT_EQ(detail::sm90_stream_k_tiles(wide, 170, 47, 132), 170);  // ranges of 1.29 tiles
  EXPECT_EQ(detail::sm90_stream_k_tiles(wide, 190, 47, 132), 0);    // 1.44: about even with two waves
  // Ranges of 1.64 tiles (4500x1024x3000 on 128x192) ran 18-25% slower than two whole waves.
  EXPECT_EQ(detail::sm90_stream_k_tiles(wide, 216, 47, 132), 0);
  // Past two waves the cooperative tiles stay whole (8192^3: 2048 tiles).
  EXPECT_EQ(detail::sm90_stream_k_tiles(wide, 2048, 128, 132), 0);
  EXPECT_EQ(detail::sm90_stream_k_tiles(wide, 132, 47, 132), 0);  // one whole wave
  // Neither 2x1 clusters nor promotion.
  const Sm90TileConfig clustered{128, 256, 2, 3, Sm90OperandClass::bits16};
  EXPECT_EQ(detail::sm90_stream_k_tiles(clustered, 72, 47, 66), 0);
  const Sm90TileConfig precise{128, 128, 1, 5, Sm90OperandClass::fp8, false, 1};
  EXPECT_EQ(detail::sm90_stream_k_tiles(precise, 144, 32, 132), 0);
  // The other operand classes cut as 16-bit does.
  for (const Sm90OperandClass operands : {Sm90OperandClass::fp8, Sm90OperandClass::int8, Sm90OperandClass::tf32}) {
    const Sm90TileConfig cut{128, 256, 1, 4, operands};
    EXPECT_EQ(detail::sm90_stream_k_tiles(cut, 144, 32, 132), 144);
  }
}

detail::Problem problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  detail::Problem p;
  p.M = m;
  p.N = n;
  p.K = k;
  return p;
}

TEST(Sm90StreamK, KernelsCarryStreamKCodeOnlyWhereTilesMayBeCut) {
  const Sm90TileConfig c = pingpong_128x128();
  EXPECT_TRUE(detail::sm90_stream_k_code(c, problem(8192, 8192, 8192), 132));
  EXPECT_TRUE(detail::sm90_stream_k_code(c, problem(4096, 14336, 4096), 132));
  EXPECT_FALSE(detail::sm90_stream_k_code(c, problem(4096, 4096, 4096), 132));
  EXPECT_FALSE(detail::sm90_stream_k_code(c, problem(1024, 1024, 1024), 132));
  // On 128 SMs 8192^3's 4096 tiles fill whole waves.
  EXPECT_FALSE(detail::sm90_stream_k_code(c, problem(8192, 8192, 8192), 128));
  // A 2x1 cluster's CTA count comes from the loaded kernel: it always carries the code.
  Sm90TileConfig clustered = c;
  clustered.cluster_m = 2;
  EXPECT_TRUE(detail::sm90_stream_k_code(clustered, problem(1024, 1024, 1024), 132));
  // A grouped-k tile's kernel carries it only for a problem it splits.
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  EXPECT_FALSE(detail::sm90_stream_k_code(grouped, problem(16, 8192, 8192), 132));
  EXPECT_TRUE(detail::sm90_stream_k_code(grouped, problem(16, 4096, 4096), 132));
  // A cooperative 1x1 tile's kernel carries it only for a problem it cuts
  // (144 tiles); tiles that never cut have no stream-K code to leave out.
  Sm90TileConfig cooperative = c;
  cooperative.pingpong = false;
  EXPECT_FALSE(detail::sm90_stream_k_code(cooperative, problem(16, 4096, 4096), 132));
  EXPECT_TRUE(detail::sm90_stream_k_code(cooperative, problem(1536, 1536, 4096), 132));
  const Sm90TileConfig precise{128, 128, 1, 5, Sm90OperandClass::fp8, false, 1};
  EXPECT_FALSE(detail::sm90_stream_k_code(precise, problem(16, 4096, 4096), 132));
}

TEST(Sm90StreamK, SplitsSkinnyProblemsThatLeaveHalfTheSmsIdle) {
  const auto slices = [](const Sm90TileConfig& c, std::int64_t m, std::int64_t n, std::int64_t k, int sms = 132) {
    return detail::sm90_split_k_slices(c, problem(m, n, k), sms);
  };
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  EXPECT_EQ(slices(grouped, 8, 4096, 4096), 2);    // 64 tiles on 128 CTAs
  EXPECT_EQ(slices(grouped, 64, 4096, 4096), 2);
  EXPECT_EQ(slices(grouped, 16, 1024, 4096), 4);   // 16 tiles: 64 k-blocks in slices of 16
  EXPECT_EQ(slices(grouped, 16, 512, 8192), 8);    // 8 tiles: at most 8 slices
  EXPECT_EQ(slices(grouped, 16, 8192, 8192), 1);   // 128 tiles: every SM busy
  EXPECT_EQ(slices(grouped, 16, 4096, 4096, 100), 1);  // more tiles than half the SMs
  EXPECT_EQ(slices(grouped, 16, 4096, 1984), 1);   // 31 k-blocks: too shallow for two slices
  EXPECT_EQ(slices(grouped, 16, 4096, 2048), 2);
  EXPECT_EQ(slices(grouped, 128, 4096, 4096), 1);  // two rows of tiles
  const Sm90TileConfig plain{64, 64, 1, 13, Sm90OperandClass::bits16};
  EXPECT_EQ(slices(plain, 64, 4096, 4096), 1);  // measured mixed
  // Skinny along N (A holds the weights): one column of tiles.
  const Sm90TileConfig tall{128, 64, 1, 4, Sm90OperandClass::bits16, false, 0, 2};
  EXPECT_EQ(slices(tall, 4096, 16, 4096), 4);
  // Neither pingpong tiles (stream-K's) nor clusters nor promotion.
  EXPECT_EQ(slices(pingpong_128x128(), 128, 4096, 4096), 1);
  const Sm90TileConfig clustered{64, 64, 2, 3, Sm90OperandClass::bits16, false, 0, 4};
  EXPECT_EQ(slices(clustered, 16, 4096, 4096), 1);
  const Sm90TileConfig promoted{64, 64, 1, 3, Sm90OperandClass::fp8, false, 1, 4};
  EXPECT_EQ(slices(promoted, 16, 4096, 4096), 1);
}

TEST(Sm90StreamK, LaunchesTwoCtasPerSplitTileAndOnePerSmForStreamK) {
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  const detail::Sm90KCut split = detail::sm90_k_cut(grouped, problem(8, 4096, 4096), 132);
  EXPECT_EQ(split.slices, 2);
  EXPECT_EQ(split.sk_tiles, 64);
  EXPECT_EQ(split.ctas, 128);
  EXPECT_EQ(split.whole_ctas, 64);
  const detail::Sm90KCut stream_k = detail::sm90_k_cut(pingpong_128x128(), problem(8192, 8192, 8192), 132);
  EXPECT_EQ(stream_k.slices, 1);
  EXPECT_EQ(stream_k.sk_tiles, 136);  // the last partial wave (4096 % 132 = 4 tiles) and one full wave
  EXPECT_EQ(stream_k.ctas, 132);
  EXPECT_EQ(stream_k.whole_ctas, 128);  // 32 rounds of whole tiles take 128 CTAs as well as 132
  const detail::Sm90KCut whole = detail::sm90_k_cut(pingpong_128x128(), problem(1024, 1024, 1024), 132);
  EXPECT_EQ(whole.sk_tiles, 0);
  EXPECT_EQ(whole.ctas, 64);
  EXPECT_EQ(whole.whole_ctas, 64);
}

TEST(Sm90StreamK, WholeTilesLaunchAsFewCtasAsTakeTheSameRounds) {
  const auto whole_ctas = [](const Sm90TileConfig& c, std::int64_t m, std::int64_t n, int sms) {
    return detail::sm90_k_cut(c, problem(m, n, 4096), sms).whole_ctas;
  };
  EXPECT_EQ(whole_ctas(pingpong_128x128(), 4096, 4096, 132), 128);  // 1024 tiles: 8 rounds either way
  EXPECT_EQ(whole_ctas(pingpong_128x128(), 4096, 4224, 132), 132);  // 1056 tiles: 8 full rounds
  EXPECT_EQ(whole_ctas(pingpong_128x128(), 4096, 4352, 132), 121);  // 1088 tiles: 9 rounds
  EXPECT_EQ(whole_ctas(pingpong_128x128(), 128, 1024, 132), 8);     // fewer tiles than SMs
  const Sm90TileConfig clustered{128, 128, 2, 5, Sm90OperandClass::bits16, true};
  EXPECT_EQ(whole_ctas(clustered, 4096, 4096, 132), 128);  // 512 cluster tiles over 66 clusters: 64
  EXPECT_EQ(whole_ctas(clustered, 4096, 4096, 1), 2);      // never less than one cluster
}

/// Every item of every slot, checked against the rules the kernel relies on
/// (kSplitsK: the cooperative tiles' lists, which also split K).
template <bool kSplitsK = false>
void check_work_lists(int tiles, int k_blocks, int slots, int sk_tiles) {
  SCOPED_TRACE(::testing::Message() << tiles << " tiles of " << k_blocks << " k-blocks, " << slots << " slots, "
                                    << sk_tiles << " cut");
  std::vector<std::vector<int>> covered(tiles, std::vector<int>(k_blocks, 0));
  std::vector<int> writer_of(tiles, -1), finisher_of(tiles, -1), cut_at(tiles, -1);
  const int whole = tiles - sk_tiles;  // the tiles before the cut ones
  for (int slot = 0; slot < slots; ++slot) {
    const WorkList<kSplitsK> list(tiles, k_blocks, slots, slot, sk_tiles);
    int partials = 0, finishes = 0, first_cut_item = -1;
    for (int j = 0;; ++j) {
      const WorkItem w = list.item(j);
      if (w.tile < 0) break;
      ASSERT_LT(w.tile, tiles);
      ASSERT_LT(w.k_begin, w.k_end);
      ASSERT_LE(w.k_end, k_blocks);
      for (int k = w.k_begin; k < w.k_end; ++k) ++covered[w.tile][k];
      if (w.tile < whole) {
        EXPECT_LT(first_cut_item, 0) << "a whole tile after the cut ranges";
        EXPECT_EQ(w.role, WorkRole::whole);
        EXPECT_EQ(w.tile % slots, slot);
        continue;
      }
      if (first_cut_item < 0) first_cut_item = j;
      switch (w.role) {
        case WorkRole::whole:
          EXPECT_EQ(w.k_begin, 0);
          EXPECT_EQ(w.k_end, k_blocks);
          EXPECT_EQ(finishes, 0) << "the finish comes last";
          break;
        case WorkRole::writes_partial:
          EXPECT_EQ(j, first_cut_item) << "the partial is written first";
          EXPECT_EQ(w.k_begin, 0);
          writer_of[w.tile] = slot;
          cut_at[w.tile] = w.k_end;
          ++partials;
          break;
        case WorkRole::finishes:
          EXPECT_EQ(w.k_end, k_blocks);
          EXPECT_GT(w.k_begin, 0);
          finisher_of[w.tile] = slot;
          EXPECT_EQ(cut_at[w.tile] < 0 ? w.k_begin : cut_at[w.tile], w.k_begin);
          ++finishes;
          break;
      }
    }
    EXPECT_LE(partials, 1);
    EXPECT_LE(finishes, 1);
  }
  for (int t = 0; t < tiles; ++t) {
    for (int k = 0; k < k_blocks; ++k) ASSERT_EQ(covered[t][k], 1) << "tile " << t << " k-block " << k;
    // A cut tile: written by one slot, finished by the next, which reads the writer's partial.
    EXPECT_EQ(writer_of[t] < 0, finisher_of[t] < 0) << "tile " << t;
    if (writer_of[t] >= 0) {
      EXPECT_EQ(finisher_of[t], writer_of[t] + 1) << "tile " << t;
    }
  }
}

/// Split-K in `slices` slices of `tiles` tiles: slot s computes slice
/// s % slices of tile s / slices; the slices follow each other along K, the
/// last finishes the tile and adds the partials of the slots before it.
void check_split_lists(int tiles, int k_blocks, int slices) {
  SCOPED_TRACE(::testing::Message() << tiles << " tiles of " << k_blocks << " k-blocks in " << slices << " slices");
  const int slots = tiles * slices;
  std::vector<int> next_k(tiles, 0);
  for (int slot = 0; slot < slots; ++slot) {
    const WorkList<true> list(tiles, k_blocks, slots, slot, tiles);
    EXPECT_EQ(list.partial_writers(), slices - 1);
    const WorkItem w = list.item(0);
    ASSERT_EQ(w.tile, slot / slices);
    EXPECT_EQ(list.item(1).tile, -1) << "one item per CTA";
    EXPECT_EQ(w.k_begin, next_k[w.tile]) << "slot " << slot << ": the slices follow each other along K";
    ASSERT_LT(w.k_begin, w.k_end) << "slot " << slot;
    next_k[w.tile] = w.k_end;
    EXPECT_EQ(w.role, slot % slices == slices - 1 ? WorkRole::finishes : WorkRole::writes_partial) << "slot " << slot;
  }
  for (int t = 0; t < tiles; ++t) EXPECT_EQ(next_k[t], k_blocks) << "tile " << t;
}

TEST(Sm90StreamK, SplitKSlicesEachTileAlongK) {
  check_split_lists(64, 16, 2);  // 8x4096x4096 on 64x64 x4 (16 groups of 4 k-blocks)
  check_split_lists(16, 16, 4);  // 16x1024x4096
  check_split_lists(8, 32, 8);   // 16x512x8192
  check_split_lists(16, 7, 4);   // groups not a multiple of the slices
  check_split_lists(3, 9, 8);    // one k-block or two per slice
  // Stream-K's lists have one writer per finisher.
  EXPECT_EQ(WorkList<true>(1024, 64, 132, 0, 232).partial_writers(), 1);
  EXPECT_EQ(WorkList(1024, 64, 132, 0, 232).partial_writers(), 1);
}

TEST(Sm90StreamK, WorkListsCoverEveryKBlockOnceAndCutEachTileAtMostOnce) {
  check_work_lists(1024, 64, 132, 232);   // 4096^3
  check_work_lists(4096, 128, 132, 136);  // 8192^3
  check_work_lists(3584, 64, 132, 152);   // 4096x14336x4096
  check_work_lists(270, 32, 132, 138);    // 1920x2304x2048 (the GPU test's shape)
  check_work_lists(324, 32, 132, 192);    // ranges of 1.45 tiles
  check_work_lists(100, 7, 10, 10);       // ranges of exactly one tile's k-blocks on average
  check_work_lists(50, 1, 12, 0);         // no stream-K: every slot's tiles whole
  check_work_lists(50, 13, 12, 50);       // every tile cut along K
  check_work_lists(64, 16, 128, 64);      // split-K in two slices (8x4096x4096 on 64x64 x4)
  check_work_lists(16, 7, 32, 16);        // an odd number of stages
  // The cooperative tiles' lists: stream-K just over one wave.
  check_work_lists<true>(144, 47, 132, 144);  // 4500x1024x3000 on 128x256
  check_work_lists<true>(190, 32, 132, 190);  // ranges of 1.44 tiles
  check_work_lists<true>(133, 1, 132, 133);   // one k-block a tile
}

TEST(Sm90StreamK, BalancesTheCtasToWithinOneKBlock) {
  const int tiles = 1024, k_blocks = 64, slots = 132;
  int least = 1 << 30, most = 0;
  for (int slot = 0; slot < slots; ++slot) {
    const WorkList list(tiles, k_blocks, slots, slot, 232);
    int work = 0;
    for (int j = 0; list.item(j).tile >= 0; ++j) work += list.item(j).k_count();
    least = std::min(least, work);
    most = std::max(most, work);
  }
  EXPECT_LE(most - least, 1);
  EXPECT_EQ(most, (tiles * k_blocks + slots - 1) / slots);  // 7.76 tiles each instead of 8 for the busiest
}

TEST(Sm90WorkItems, StagedInputLoadsInOneOfTheItemsStagesAfterItsOperandsAreIssued) {
  using sm90::staged_input_stage;
  // Every item loads it at one of its own stages (else its epilogue waits forever).
  for (int ring = 2; ring <= 8; ++ring) {
    for (int stages = 1; stages <= 200; ++stages) {
      const int s = staged_input_stage(stages, ring);
      EXPECT_GE(s, 0) << stages << " stages, ring " << ring;
      EXPECT_LT(s, stages) << stages << " stages, ring " << ring;
    }
  }
  // Long tiles: once the producer, a ring ahead, has issued the last stage of A and B.
  EXPECT_EQ(staged_input_stage(64, 5), 59);   // 4096^3 on pingpong 128x128
  EXPECT_EQ(staged_input_stage(32, 5), 27);   // 2048^3
  EXPECT_EQ(staged_input_stage(128, 8), 120);  // M = 128 on 64x128
  // Short tiles: stage 2, or the last when there are fewer.
  EXPECT_EQ(staged_input_stage(16, 8), 8);  // 1024^3 on 64x128
  EXPECT_EQ(staged_input_stage(10, 8), 2);
  EXPECT_EQ(staged_input_stage(3, 5), 2);
  EXPECT_EQ(staged_input_stage(2, 5), 1);
  EXPECT_EQ(staged_input_stage(1, 5), 0);
}

}  // namespace
}  // namespace epigemm::testing
