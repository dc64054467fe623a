// The sm90 tile configurations, their shared-memory budget (mirroring
// kernels/sm90_gemm_config.cuh), metadata, and the tile-choice heuristic.
#include "providers/sm90/sm90_tile_config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "epigemm/tensor.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "sm90_chunk_cols.cuh"

namespace epigemm::detail {
namespace {

using C = Sm90OperandClass;

// Stages: 3 for 128x256, 5 for 128x128 (pingpong too: each of its
// consumers stages both 64-row blocks); the skinny and one-wave tiles 64x128,
// 128x64 and 64x64 take as many as fit with an f32 D (8, 8 and 13):
// streaming a weight matrix needs ~100 KB of loads in flight per SM, and a
// one-wave problem's short main loop waits for the ring's first fill (fp8
// and int8 64x128 keep the 6 stages they were tuned with). New configurations go last, so the indices of the
// others stay put. tf32 stages hold the bytes of 16-bit ones and int8 stages
// those of fp8 ones (one 128-byte row of K per tile row), with the same
// accumulator count, so each takes the same tiles and stages.
constexpr Sm90TileConfig kConfigs[] = {
    {128, 256, 2, 3, C::bits16}, {128, 256, 1, 3, C::bits16}, {128, 128, 1, 5, C::bits16},
    {128, 128, 2, 5, C::bits16}, {64, 128, 1, 8, C::bits16},  {128, 256, 2, 3, C::fp8},
    {128, 256, 1, 3, C::fp8},    {128, 128, 1, 5, C::fp8},    {128, 128, 2, 5, C::fp8},
    {64, 128, 1, 6, C::fp8},     {128, 64, 1, 8, C::bits16},  {64, 64, 1, 13, C::bits16},
    {128, 64, 1, 8, C::fp8},     {64, 64, 1, 13, C::fp8},
    {128, 128, 2, 5, C::bits16, true}, {128, 128, 1, 5, C::bits16, true},
    {128, 128, 2, 5, C::fp8, true},    {128, 128, 1, 5, C::fp8, true},
    {128, 256, 2, 3, C::tf32},   {128, 256, 1, 3, C::tf32},   {128, 128, 1, 5, C::tf32},
    {128, 128, 2, 5, C::tf32},   {64, 128, 1, 6, C::tf32},    {128, 64, 1, 8, C::tf32},
    {64, 64, 1, 13, C::tf32},
    {128, 256, 2, 3, C::int8},   {128, 256, 1, 3, C::int8},   {128, 128, 1, 5, C::int8},
    {128, 128, 2, 5, C::int8},   {64, 128, 1, 6, C::int8},    {128, 64, 1, 8, C::int8},
    {64, 64, 1, 13, C::int8},
    // fp8 with precise accumulation (promotion every k-block): the tiles
    // whose warpgroups hold the accumulators and two fragments (at most 128 columns).
    {128, 128, 1, 5, C::fp8, false, 1}, {128, 128, 2, 5, C::fp8, false, 1}, {64, 128, 1, 6, C::fp8, false, 1},
    {128, 64, 1, 8, C::fp8, false, 1},  {64, 64, 1, 13, C::fp8, false, 1},
    // Skinny problems' weights streamed in 4-D boxes of several k-blocks
    // (32 KB of B per load on both): 3 x 64 KB and 4 x 48 KB stages.
    {64, 64, 1, 3, C::bits16, false, 0, 4}, {64, 128, 1, 4, C::bits16, false, 0, 2},
    // Skinny-N problems' weights (A) likewise, B's boxes cut to N's columns
    // when B is K-major: 4 x 48 KB stages.
    {128, 64, 1, 4, C::bits16, false, 0, 2},
    // Between 128x128 and 128x256, for the mid sizes whose tile count leaves
    // the last wave of those nearly empty (3072^3: 384 tiles, 2.9 waves): 4
    // stages of 40 KB. In 2x1 clusters an N-major B's three 64-column chunks
    // are divided along K (Sm90TileConfig::splits_b_along_k): rows not
    // 128-byte aligned (3000^3) fill L2 twice, and the cluster shares B.
    {128, 192, 1, 4, C::bits16}, {128, 192, 2, 4, C::bits16},
    // int8 and tf32 pingpong (as fp8's and 16-bit's): each consumer's
    // epilogue (for int8: i32 accumulators converted, an i32 C read) runs
    // beside the other's main loop instead of while the tensor cores wait.
    {128, 128, 2, 5, C::int8, true},
    {128, 128, 1, 5, C::int8, true},
    {128, 128, 2, 5, C::tf32, true},
    {128, 128, 1, 5, C::tf32, true},
    // The skinny tiles with grouped k-blocks (as 16-bit's) for the operand
    // classes that take K-major A and B only.
    {64, 64, 1, 3, C::fp8, false, 0, 4},  {64, 128, 1, 4, C::fp8, false, 0, 2},  {128, 64, 1, 4, C::fp8, false, 0, 2},
    {64, 64, 1, 3, C::int8, false, 0, 4}, {64, 128, 1, 4, C::int8, false, 0, 2}, {128, 64, 1, 4, C::int8, false, 0, 2},
    {64, 64, 1, 3, C::tf32, false, 0, 4}, {64, 128, 1, 4, C::tf32, false, 0, 2}, {128, 64, 1, 4, C::tf32, false, 0, 2},
    // And fp8's with precise accumulation, each k-block promoted: two per
    // stage (the promoted loop goes in pairs), so 64x64 takes 6 stages of 2.
    {64, 64, 1, 6, C::fp8, false, 1, 2},  {64, 128, 1, 4, C::fp8, false, 1, 2},  {128, 64, 1, 4, C::fp8, false, 1, 2},
    // 64x64 x4's ring bytes in 6 stages of 2 k-blocks: the skinny problems
    // whose B streams refill it sooner (see kDeepStagesCost).
    {64, 64, 1, 6, C::bits16, false, 0, 2},
    // Narrower than 128x192 for the one-wave mid sizes (1536^3: 120 tiles on
    // 132 SMs against 96 of 128x192); an N-major B loads two whole 64-column
    // chunks and a 32-column tail a stage (Sm90TileConfig::b_tail).
    // (128x144, 132 tiles there, ran 6-9% slower than this one on the H200:
    // its epilogue goes in nine 16-column chunks.)
    {128, 160, 1, 4, C::bits16},
    // Pingpong on a wider tile: each consumer holds 192 accumulators, and a
    // tile reads a third fewer bytes of A per multiply than 128x128 pingpong
    // while its epilogue still runs beside the other consumer's main loop
    // (see kSmallL2WidePingpongTime for where it is ranked).
    {128, 192, 1, 4, C::bits16, true},
    // 64x128 in 2x1 clusters for one wave of rows not 128-byte aligned, B
    // shared: H100, bf16, every epilogue, 7-9% faster than 1x1 at 1000^3 and
    // 19-20% at 1000x1000x4000; 27-31% slower at 1024^3 (aligned rows).
    {64, 128, 2, 8, C::bits16},
    // Three consumers stacked along M, each 64 x 96, for the one-wave mid
    // sizes whose tile count the 128-row tiles leave awkward (768x3072 and
    // 3072x768: 128 tiles on 132 SMs, against 96 of 128x192 or 120 of
    // 128x160; see kTallTileStreamingCost); 4 stages of 40 KB (an N-major B
    // comes in three 32-column chunks a stage, in room for 128 columns).
    {192, 96, 1, 4, C::bits16},
};

/// Whether a configuration comes again writing D column-major
/// (Sm90TileConfig::d_column_major): the 16-bit tiles but the grouped-k
/// ones. A row-major D runs there as D^T = B^T A^T, so a row-major B is
/// read K-major, as A^T; a column-major D runs as it is. See
/// kColumnMajorDCost for where they rank.
constexpr bool has_column_major_d_twin(const Sm90TileConfig& c) { return c.operands == C::bits16 && c.k_group == 1; }

/// kConfigs, then the column-major-D twins in kConfigs' order.
constexpr auto kAllConfigs = [] {
  constexpr std::size_t kTwins = static_cast<std::size_t>(std::count_if(
      std::begin(kConfigs), std::end(kConfigs), [](const Sm90TileConfig& c) { return has_column_major_d_twin(c); }));
  std::array<Sm90TileConfig, std::size(kConfigs) + kTwins> all{};
  std::size_t n = 0;
  for (const Sm90TileConfig& c : kConfigs) all[n++] = c;
  for (const Sm90TileConfig& c : kConfigs) {
    if (!has_column_major_d_twin(c)) continue;
    all[n] = c;
    all[n++].d_column_major = true;
  }
  return all;
}();

int chunks_per_warpgroup(const Sm90TileConfig& c, int d_bytes) { return c.warpgroup_n() / c.chunk_cols(d_bytes); }

int shared_bytes_with(const Sm90TileConfig& c, int slots, int d_bytes) {
  const int stage_bytes = (c.bm + (c.bn + 63) / 64 * 64) * 128 * c.k_group;  // B in whole 64-column chunks
  const int chunk_bytes = 64 * c.chunk_cols(d_bytes) * d_bytes;  // 64 rows
  const int row_blocks = c.pingpong ? c.bm / 64 : 1;  // slot sets per consumer
  // The ring's, one per consumer for staged inputs, one for the reduce outputs' identity.
  const int barrier_bytes = (2 * c.stages + c.consumers() + 1) * 8;
  return 1024 + c.stages * stage_bytes + c.consumers() * row_blocks * slots * chunk_bytes + barrier_bytes;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Throughput of one CTA tile relative to 128x256 when compute-bound: the
/// narrower tiles reload more operand bytes per multiply (measured on the
/// H200: 128x128 about 0.95 of 128x256 at 4096^3, 64x128 well below).
/// 128x64 moves the same bytes per multiply as 64x128 (its consumers share B
/// instead of A); with 6 stages 64x128 trailed its 8 at 1024^3, with 8 it
/// leads (bf16, 2026-11-29, ratio to cuBLAS: GEMM alone 0.996 against 1.030,
/// rowb+colb 1.018 against 1.052, relu+F 1.092 against 1.108) and, at M =
/// 128, N = K = 8192, the grouped 64x128 tile (0.849 of copy against 0.836,
/// GEMM alone); 64x64 is an estimate: its m64n32 wgmmas read
/// more shared memory per multiply. The 128x128 pingpong tile keeps pace
/// with 128x256 once each consumer has several tiles (see
/// kCooperativeEpilogueExposure), in every operand class (H200, 2026-11-30,
/// ratio to cuBLASLt's GEMM alone, 128x256 cooperative -> 128x128 pingpong
/// 1x1, at 8192^3 / 4096^3 / 2048^3: int8 1.06 / 1.05 / 0.74 -> 0.98 /
/// 1.01 / 0.69, with alpha*acc+beta*C 1.24 / 1.36 / 0.99 -> 1.04 / 1.25 /
/// 0.96; tf32 1.01 / 0.99 / 0.98 -> 0.96 / 0.99 / 0.96, with
/// alpha*acc+beta*C 1.05 / 1.08 / 1.12 -> 0.98 / 1.02 / 1.10; e4m3 fast
/// accumulation 1.00 / 0.99 / 1.01 -> 0.96 / 0.99 / 0.98).
double tile_efficiency(const Sm90TileConfig& c) {
  if (c.pingpong) return 1.0;
  if (c.bm == 128 && c.bn == 256) return 1.0;
  if (c.bm == 128 && c.bn == 192) return 0.97;  // an estimate between its neighbours
  if (c.bm == 128 && c.bn == 160) return 0.96;  // likewise
  if (c.bm == 128 && c.bn == 128) return 0.94;
  if (c.bm == 64 && c.bn == 128) return c.stages >= 8 ? 0.83 : 0.80;
  if (c.bm == 128 && c.bn == 64) return 0.82;
  if (c.bm == 192 && c.bn == 96) return 0.81;  // one wave (see kTallTileStreamingCost)
  return 0.60;
}

/// Cooperative tiles run every tile's epilogue while the tensor cores wait;
/// a pingpong consumer's epilogue runs beside the other's main loop. bf16
/// on the H200 (2026-11-29, 128x128 pingpong 1x1 against 128x256): GEMM
/// alone 0.98x / 0.96x the cooperative time at 4096x14336x4096 / 8192^3
/// (1.01x at 4096^3), the benchmark's epilogues 0.92-0.99x (relu+F 0.93x,
/// gelu 0.94-0.97x at the mid sizes). Pinned again on the H200 on
/// 2026-12-05 (after 128x256's later gains), 128x256 1x1 over 128x128
/// pingpong time: 8192^3 1.025-1.038, 4096x14336x4096 1.017-1.091, 4096^3
/// 1.025-1.037.
constexpr double kCooperativeEpilogueExposure = 1.02;
/// On the H100 (80 GB HBM3, a 50 MB L2) the same pins go the other way
/// where 128x256 runs many waves of long K: 128x256 1x1 over 128x128
/// pingpong time, bf16, timed in blocks of ~50 ms on two machines
/// (2026-12-05): 8192^3 0.94-0.975 (f16 0.905-0.945), 4096x14336x4096
/// 0.945-1.017; in 200 ms turns of `epigemm run --autotune 4 --turn-ms 200`
/// on two more: 8192^3 relu+F 0.86, gelu 0.84, 4096x14336x4096 relu+F 0.90,
/// gelu 0.94. Where 128x256 has few waves, pingpong stays ahead on both
/// cards (4096^3, 3.9 waves: 1.01-1.04). Nothing the driver reports
/// explains the difference (same SMs and 700 W cap; the H200 has 60 MB of L2
/// and HBM3e; under ncu pingpong draws more power per multiply);
/// the L2 size is the figure that tells the measured cards apart, so cards
/// with less than kSmallL2Bytes take this factor on that tile there, and
/// keep it in 1x1 clusters (2x1 measured 2-3% slower in 200 ms turns).
constexpr double kSmallL2WideTileEpilogueTime = 0.93;
constexpr std::int64_t kSmallL2Bytes = std::int64_t{56} << 20;
/// K of at least this many k-blocks counts as long for that factor: shorter
/// K exposes the cooperative epilogue more. relu+F in 200 ms turns on an
/// H100 (2026-12-05), 128x256 1x1 over pingpong's time, at 8+ waves: K =
/// 3072 (48 k-blocks) 0.90-0.98, K = 2560 0.94, K = 2048 0.93-1.005 (mixed),
/// K = 1536 1.00-1.08, K = 512 and 1024 1.07-1.09.
constexpr std::int64_t kSmallL2MinKBlocks = 40;
/// tf32 (f32 C and D: twice the epilogue's bytes) takes the same factor from
/// 80 k-blocks (K = 2560), and from 3 whole waves (more than two):
/// alpha*acc+beta*C on an H100 (2026-12-06, pinned, blocks of ~50 ms),
/// 128x256 1x1 over 128x128 pingpong time: 8192^3 0.91-0.945, 6144^3
/// 0.94, 8192x8192x2560 0.98, 4096x14336x4096 0.985-1.00, 3072x4096x2560
/// and 1536x8192x4096 (2.9 waves) 0.93; 8192x8192x2048 (64 k-blocks)
/// 1.06, x1024 1.12. At 4096^3 (3.9 waves) 0.93 in a process of its own
/// but 1.02 after the suite's 8192^3 rows: pingpong took 0.407-0.416 ms
/// alone and 0.368-0.377 after them (after 40 runs of them as well: where
/// the buffers land, not the card's load), while 128x256 held 0.381-0.386
/// in both.
/// int8 (i32 D) stays on pingpong there: 1.05 at 8192^3, 1.15 at
/// 4096x14336x4096.
constexpr std::int64_t kSmallL2Tf32MinKBlocks = 80;
constexpr double kSmallL2Tf32MinWaves = 3.0;
/// A GEMM alone (D = accum): a cooperative tile's only exposed epilogue is
/// D's store, which costs about as much as 1.5 k-blocks of its main loop
/// per 2 bytes of D's elements (a k-block takes about the same time in
/// every operand class), so it weighs on short K; and 128x256 reads less
/// shared memory per multiply than 128x128 pingpong, which makes it ~3.5%
/// faster per tile. On the H200 (2026-12-05, pinned, timed in blocks of
/// ~50 ms), 128x256 1x1 over 128x128 pingpong time, bf16 D: 0.98 at
/// 8192^3, 0.99 at 4096x14336x4096, 1.00 at 16384x4096x4096, 0.97-0.98 at
/// 2048x4096x4096 and 8192x1024x8192, 0.96 at 1024x4096x14336 (one wave
/// of 128x256); 1.013 at 8192x8192x1024 (16 k-blocks), 1.015 at 2048^3 (32
/// k-blocks, one tile per CTA, 2026-12-04), 1.04 / 1.08 at 2048x11008x4096
/// / 1024x14336x4096 (last waves). At 8192^3: e4m3 with fast accumulation
/// (bf16 D) 0.986, tf32 (f32 D) 0.988, int8 (i32 D) 1.02; tf32 at 4096^3
/// 0.997. In 2x1 clusters 128x256 took 1.005-1.02x its 1x1 time (bf16).
constexpr double kGemmAloneStoreKBlocks = 1.5;
constexpr double kWideTileGemmAloneTime = 0.965;
/// Where K is so short that D's store outlasts the main loop, pingpong's
/// consumers cannot hide each other's either, so the cooperative tile's
/// handicap stops growing (an estimate: 8192x8192x1024 fits it, shorter K
/// is unmeasured as a GEMM alone).
constexpr double kGemmAloneMaxExposure = 0.05;
/// Cards with an L2 under kSmallL2Bytes run a 16-bit GEMM alone faster on
/// 128x256 1x1 than that model says from K = 2048 on. H100, 2026-12-06,
/// `epigemm run --autotune 4-6 --flush-l2 --turn-ms 50-100` (three rounds),
/// bf16, 128x256 1x1 over 128x128 pingpong time: 4096x4096x2048 0.89 /
/// 0.89, 8192x4096x2048 0.90 / 0.85, 8192x8192x2048 0.965 / 0.93,
/// 8192x8192x3072 0.91, 6144x6144x2048 0.995; below 32 k-blocks it goes
/// either way: 8192x8192x1536 1.01, 8192x8192x1024 1.03, 4096x4096x1024
/// 0.95. The factor holds from kSmallL2GemmAloneMinWaves waves of 128x256
/// (one tile per CTA is unmeasured there).
constexpr double kSmallL2WideTileGemmAloneTime = 0.95;
constexpr std::int64_t kSmallL2GemmAloneMinKBlocks = 32;
constexpr double kSmallL2GemmAloneMinWaves = 3.0;
bool stores_accumulator_only(const Problem& p) {
  if (p.dag == nullptr || p.dag->outputs.size() != 1) return false;
  for (const ir::Node& n : p.dag->nodes)
    if (n.kind == ir::NodeKind::Load || n.kind == ir::NodeKind::Compute ||
        (n.kind == ir::NodeKind::Store && n.store_kind != ir::StoreKind::Tile))
      return false;
  return true;
}
/// Whether the epilogue reads a bound tile input (C).
bool reads_tile_input(const Problem& p) {
  return std::any_of(p.inputs.begin(), p.inputs.end(), [](const EpilogueOperand& in) {
    return in.load_kind == ir::LoadKind::Tile && in.tensor != nullptr;
  });
}
/// A 128-row tile with M <= 64 gives its second consumer rows wholly outside
/// M (zeros TMA fills in, and wgmmas over them): 128x64 took 71 us at M = 16,
/// N = K = 8192 (bf16 A/B, e4m3 D); 64x128 then took 52 us.
constexpr double kIdleConsumerCost = 1.4;
/// 64-row tiles in 2x1 clusters past one wave: 64x128 2x1 ran 18-22% slower
/// than 128x128 pingpong 2x1 at 4500x1000x2048 (B's rows unaligned; H100,
/// 2026-12-05), though in one wave it beat 64x128 1x1 (1000^3 7-9%).
constexpr double kShortClusterStreamingCost = 1.3;
/// A tile taller than M (wider than N) has TMA fill A's rows past M (B's
/// columns past N) with zeros, which costs the load as much as rows it
/// reads: at M = 16, N = K = 8192 (bf16) the 64x64 tile streamed B at 0.73 of
/// copy bandwidth, a 4-D box of 4 k-blocks cut to A's 16 rows at 0.89
/// (bench/sm90_dev/tma_read.cu); at M = 8192, N = 16 (B column-major) 128x64
/// took 45 us, 64x64 48 us, 64x128 with two k-blocks per stage 86 us. The
/// time grows by this factor times the zero-filled share of a stage's rows
/// (grouped-k tiles cut A's boxes to M's rows, and a K-major B's to N's, but
/// a partial last tile still loads whole boxes: M = 80 / 96 on 64x128 x2
/// took 47 / 43 us, on 128x64 x2, whose one box holds A's 80 / 96 rows,
/// 38 / 38.5 us).
constexpr double kPaddedRowsCost = 0.8;
/// The 192x96 tile (three consumers) brings 36 KB of A and B into shared
/// memory for every k-block of 18432 outputs, more per multiply than the
/// 128-row tiles: in one wave its 128 CTAs fill at ~10 TB/s, past it the fill rate falls to ~8 TB/s. H100,
/// bf16, every epilogue, pinned X Y Y X, flushed (2026-12-06), its time over
/// the previous pick's: one wave, 768x3072x4096 0.89-0.925 (128x192),
/// 3000x768x4096 0.93-0.96 (128x160), 1536^3 0.95-1.05 (128x160); two
/// waves, 3072x1536x4096 1.20-1.25 (128x128 pingpong); 4096^3 (7.2 waves)
/// 1.69-1.76 (128x256, 128x128 pingpong). In one wave it led on elongated
/// problems (3072x768x4096 0.80-0.83 of 128x160's time, 768x3072x8192
/// 0.93-0.96 of 128x192's, 384x6144x4096 0.93-0.98 and 6144x384x4096
/// 0.915-0.95 of 128x192's, 3072x768x1536 0.87-0.95 of 128x160's) but not
/// on a square one (1536x1536x4096: 1.04-1.11 of 128x160's, 41 us against
/// 31 at 3072x768x4096 with the same 128 tiles). There its N-major B is the
/// loss: with B column-major it took 30 us and tied 128x160 (ncu; see
/// kPartChunkNMajorBCost). tile_efficiency fits the one-wave time; every
/// problem takes this factor but those of one wave, at least
/// kTallTileMinKBlocks k-blocks (the shortest K measured) and a long side
/// at least kTallTileMinAspect times the short one (and the squarer ones
/// of kTallTileSquareCost). Those times were taken while an N-major B came
/// in two whole 64-column chunks a stage.
constexpr double kTallTileStreamingCost = 1.25;
constexpr std::int64_t kTallTileMinKBlocks = 24;
constexpr double kTallTileMinAspect = 3.5;
/// Since an N-major B comes in three 32-column chunks a stage, 192x96 leads
/// on one wave of a square problem at mid K too: its time over 128x192's
/// (the pick) at 1536^3 0.924-0.993, 1536x1536x2048 0.945-1.008, but
/// 1536x1536x4096 1.01-1.05; over 128x128's at 2304x1024x4096 1.12-1.16,
/// over 128x128 pingpong's at 3072x1536x4096 (two waves) 1.11-1.16 (H100,
/// bf16, B row-major, every epilogue, pin_ab, 2026-12-07). So one wave of
/// kTallTileMinKBlocks up to kTallTileSquareMaxKBlocks with an N-major B,
/// the long side under kTallTileSquareMaxAspect times the short one (only
/// square ones were measured), takes this lighter factor; a K-major B keeps
/// the full one (1536^3 GEMM alone: 15.7 us against 128x160's 16.0, a tie,
/// 2026-12-07).
constexpr double kTallTileSquareCost = 1.05;
constexpr std::int64_t kTallTileSquareMaxKBlocks = 40;
constexpr double kTallTileSquareMaxAspect = 1.5;
/// An N-major B came in three whole 64-column chunks on 128x160, so it loaded
/// part of its neighbour's columns, and every other tile's boxes began 64
/// bytes into a 128-byte line (32-column chunks ran slower still:
/// Sm90TileConfig::b_chunk_cols). It ran far slower than with a K-major B,
/// more than those bytes explain (H100, bf16, GEMM alone, ncu, 2026-12-06,
/// 128x160's time with B row-major over column-major: 1536^3 1.07, 1536x1536x2048 1.10,
/// 1536x1536x4096 and x8192 1.29-1.30, 2048x1024x4096 1.33; 128x128 and
/// 128x192 the same either way; 192x96's L2 sector reads at
/// 1536x1536x4096 rose by half). Pinned against it (X Y Y X, flushed,
/// every epilogue), the tiles this factor ranks first instead took
/// 0.93-0.985 of its time at 1536x1536x4096 (128x192), 0.85-0.975 and
/// 0.85-0.89 at 2304x2048x1536 and x4096 (128x128 pingpong), 0.965-1.056 at
/// 1536^3 (128x192, a tie); at 2304x1024x4096 128x192 took 0.73-0.76 of
/// it, and 128x128 (ranked first) as little (ncu). The 192x96 tile keeps its own gate
/// (kTallTileStreamingCost), measured with an N-major B: on the elongated
/// problems it takes it ran as fast with either major. With the tail chunk
/// (Sm90TileConfig::b_tail) 128x160 took 0.944-0.974 of the pick's time at
/// 1536x1536x4096 (128x192), 0.955-1.04 at 1536x1536x2048 (192x96) and
/// 0.957-1.042 at 2304x2048x4096 (128x128 pingpong), but 0.99-1.085 at
/// 1536^3 and 0.97-1.11 at 2304x2048x1536 (H100, bf16, every epilogue,
/// pin_ab, 2026-12-07): it stays, but for one wave of long K (below).
constexpr double kPartChunkNMajorBCost = 1.15;
/// The loss grows with K (above), and in one wave of short K 128x160's
/// smaller tiles win instead: 128x192 took 1.03-1.10 of its time with the
/// light epilogues (none, alpha*acc+beta*C, relu+F; 0.97-1.01 with the
/// others) at 3072x768x512 and x1024 and 1536x1536x1024 (H100, pin_ab,
/// 2026-12-07). From 24 k-blocks the two tie or the charge is right
/// (3072x768x1536 1.05 light, 0.975-1.01 others; 1536^3 a tie; 2304x1024x1536
/// 128x160 the slowest by ncu, 18.3-19.0 us against 16.5-17.3 on 128x192),
/// and past one wave it holds at short K too (2304x2048x1024: 128x128
/// pingpong 0.85-1.0 of 128x160's time), so only one wave of fewer
/// k-blocks than this goes uncharged.
constexpr std::int64_t kPartChunkOneWaveMinKBlocks = 24;
/// Yet on one wave of long K the tail-chunk tile beats the whole-chunk ones
/// the charge ranks first. On square problems its time (H100, bf16, B
/// row-major, every epilogue, pin_ab, 2026-12-07): over 128x192's,
/// 0.948-0.983 at 1536x1536 (K = 3072, 6144, 8192), 0.97-1.0 at
/// 1664x1536x6144, 0.977-0.994 at 1536x1664x4096; over 128x128's (cut along
/// K), 0.95-0.995 at 1536x1536x4096, 0.906-0.973 at 1408x1792x4096,
/// 0.936-0.994 at 1408x1664x4096; over 64x128's 0.89-0.97 at
/// 1408x1792x3072 (even before the producer left out B's chunks wholly past
/// N, without which 128x160 took 1.12-1.23 of the others' time at
/// 1536x1664x4096, 1408x1792x4096 and 1408x1664x4096). At K = 2048 it tied
/// 192x96 (0.946-1.026). Up to 2.4 times as long as wide, at K = 4096,
/// over the pick's time once the producer left out B's chunks wholly past N
/// (2026-12-07): 2304x1024 0.937-0.991 and 1024x2432 0.913-0.934 (128x128),
/// 1088x2048 0.859-0.886 (64x128), 2176x960 0.77-0.81 and 1920x1088
/// 0.935-1.031 (128x64), but 1024x2176 1.02-1.07 (128x128); 128x192 took
/// 1.04-1.06 of its time at 2304x1024; at K = 3072 and 8192 2304x1024
/// 0.953-1.013 and 0.961-0.99, 1088x2048x3072 0.83-0.86, 2176x960x8192
/// 0.72-0.76. So one wave from this many k-blocks, the long side under
/// kPartChunkLongKMaxAspect times the short one, goes uncharged. Where
/// 128x128 fills the wave it stays far ahead, as the model says without the
/// charge too (1408x1536x4096: 128x160 took 1.24-1.29 of its time,
/// 1280x1600x4096 1.10-1.15, 1536x1024x4096 1.26-1.30).
constexpr std::int64_t kPartChunkLongKMinKBlocks = 48;
constexpr double kPartChunkLongKMaxAspect = 2.5;
/// Ranks a grouped tile of 4 k-blocks per stage below the one of 2 (same
/// shape, same ring bytes in twice the stages) where B is streamed.
constexpr double kDeepStagesCost = 1.003;
std::int64_t round_up8(std::int64_t x) { return (x + 7) / 8 * 8; }

/// Rows of a TMA box along an extent in tiles of `tile`: the tile's, or
/// (`cut`: grouped-k boxes) min(extent, tile) rounded up to 8.
int box_rows(std::int64_t extent, int tile, bool cut) {
  return cut ? static_cast<int>(round_up8(std::min<std::int64_t>(extent, tile))) : tile;
}

/// Rows of the last tile's box (box_rows) that lie past the extent, which
/// TMA fills with zeros: the whole box's, or (`cut`) only those of a partial
/// last tile. The CTAs of that tile row are the slowest, and the kernel
/// waits for them.
std::int64_t padded_box_rows(std::int64_t extent, int tile, bool cut) {
  const std::int64_t last = extent - (extent - 1) / tile * tile;  // valid rows of the last tile
  return box_rows(extent, tile, cut) - (cut ? round_up8(last) : last);
}

/// The 128x192 pingpong tile against the picks of an H100 (50 MB of L2;
/// bf16 unless named, pinned, timed in blocks of ~50 ms, 2026-12-06), its
/// time over theirs: fused epilogues at 4096x14336x4096 (18 waves of it;
/// against 128x256 1x1) gelu 0.94, gelu_tanh 0.90, f16 gelu 0.95, relu+F,
/// alpha*acc+beta*C, rowb+colb and amax 0.99-1.01; at 8192^3 (21 waves)
/// gelu 0.96-0.98, alpha*acc+beta*C and rowb+colb 0.985, gelu_tanh 0.98,
/// f16 gelu 0.965, relu+F 0.99-1.00; 6144^3 (12 waves) gelu 0.955, relu+F
/// 0.99; 8192x8192x4096 gelu 0.91; 4096x8192x8192 (10.4 waves) gelu 1.005;
/// 8192x8192x2048 gelu 0.95 (against 128x128 pingpong, which it beat by
/// 5-7% at 4096x14336x4096 and 8192^3 too); 16384x4096x2048 gelu 0.895
/// and 3072x14336x4096 relu+F 0.95. It lost where it runs fewer waves
/// (4096^3, 5.3: gelu 1.08, relu+F 1.12; 2048x8192x8192, 5.2: 1.095;
/// 16384x2048x2048 and 8192x4096x2048, 10.7: gelu 1.02) and as a GEMM alone
/// (4096x14336x4096: 1.035). So on cards with an L2 under kSmallL2Bytes its
/// fused 16-bit epilogues of at least kWidePingpongMinWaves waves (counted
/// whole: 11.6 is 12) and kWidePingpongMinKBlocks k-blocks take
/// this factor, and skip the padded-rows term (its last tile column, 128
/// of 192 columns at N = 8192 or 14336, is one of 43 or 75 there, and the
/// waves count it whole already); everywhere else it ranks behind the
/// others (kWidePingpongElsewhere), and is there to pin or to time. On an
/// H200 (2026-12-06, pinned X Y Y X, flushed) it took 0.975-1.05 of 128x128
/// pingpong's time on the rows above (8192^3, 4096x14336x4096, 6144^3,
/// K = 2048) and 1.13 at 4096^3: no lead on that card.
/// Its staging slots do not hold a consumer's whole part, so its threads
/// read tile inputs (C) from global memory, and each chunk of the epilogue
/// waits for its own. Epilogues that read C (H100, 2026-12-06, bf16,
/// autotune's interleaved rounds without an L2 flush), the tile's time over
/// the fastest of five others at 4096x14336x4096 / 8192x8192x2048:
/// silu(acc + bias) * C 1.01-1.065 / 1.08-1.10; gelu(acc + C + colb +
/// bias) 1.03 / 1.16; F = acc*alpha + 2C + colb, D = gelu(F + bias) with F
/// out 1.10 / 1.31, and with a row sum of F and amax of D too 1.17 / 1.42
/// (1.15 at 8192x8192x4096). From K = 6144 it led: gelu(acc + C + colb +
/// bias) at 6144^3 0.955-0.965, the heaviest 0.91 there and 0.96 at
/// 8192^3; gelu(acc + C) at 6144^3 took 1.015-1.03 of 128x256 2x1's time,
/// ahead of 1x1's. (Pinned, relu+F and alpha*acc+beta*C took 0.99-1.01 of
/// 128x256 1x1's at 4096x14336x4096, above.) Epilogues without C kept it
/// first at the two shapes: gelu with F out 0.91 / 1.01, with column sums
/// 0.93 / 0.95, with amax 0.94 / 0.92. So epilogues that read a tile rank
/// it first only from kWidePingpongReadMinKBlocks k-blocks. Since 4837f6b
/// each chunk asks for the next one's lines of C in L1 (H100, 2026-12-06,
/// pinned X Y Y X, unflushed): gelu(acc + C) on this tile took 0.935-0.945
/// of its time before, the heaviest 0.97-0.98, the others 0.98-1.01; with
/// it, relu+F and alpha*acc+beta*C at 4096x14336x4096 (suite, flushed)
/// took 0.99-1.04 of 128x256 1x1's time, so the threshold stays.
constexpr double kSmallL2WidePingpongTime = 0.92;
constexpr double kWidePingpongMinWaves = 12.0;
constexpr std::int64_t kWidePingpongMinKBlocks = 32;
constexpr std::int64_t kWidePingpongReadMinKBlocks = 96;
constexpr double kWidePingpongElsewhere = 1.25;

/// Below this many tiles per CTA a pingpong consumer has no other tile to
/// hide its epilogue behind (1024^3: 1.27-1.59x cuBLAS, against 1.05-1.26x
/// on 64x128). Two are enough: at 2048^3 (bf16, H200, 2026-11-30) 128x128
/// pingpong took 1.008x cuBLASLt's time alone and 1.144x with gelu+bias,
/// 128x256 cooperative (one wave of 64 tiles) 1.015x and 1.182x.
constexpr double kPingpongMinWaves = 2.0;

/// Modelled cost of promotion (precise fp8 accumulation): each consumer
/// adds a fragment into its f32 accumulators every k-block, beside its next
/// wgmmas (128x128 precise took 1.07x the fast 128x256's time at 8192^3 on
/// the H200; every precise tile pays it, so it only ranks them below fast
/// ones of the same modelled time, which kFastAccumulationDemotion does anyway).
constexpr double kPromotionCost = 1.05;
/// Stream-K: the k-blocks of time a cut tile's partial sum costs (64 KB
/// written to and read back from L2 by one warpgroup: about 1 us against
/// 0.35 us per k-block of a 128x128 pingpong tile), and how much slower the
/// CTAs compute while they walk their cut ranges than in whole-tile waves
/// (measured at 4096^3 with 1.76 and 2.76 tiles per range: the loss grows
/// with the range, one tile time per tile of range; the CTAs fall out of
/// step with the neighbours that read the same operand rows and columns).
constexpr double kStreamKFixupKBlocks = 4.0;
constexpr double kStreamKSlowdown = 1.65;
/// The cooperative 1x1 tiles cut only problems under two waves, every tile
/// (H100, bf16, 2026-12-06, every epilogue): ranges of 1.09 tiles took
/// 1.19-1.25 times their whole tiles' time (4500x1024x3000 and
/// 4608x1024x3072 on 128x256, against 3072x1024x3000's one wave), ranges
/// of 1.64 tiles on 128x192 about 1.5 times (18-25% slower than two whole
/// waves at 4500x1024x3000). 1.4 lies between: cut problems stay under about
/// 1.35 waves, near the ranges measured to gain.
constexpr double kCooperativeStreamKSlowdown = 1.4;
/// Where B's rows are unaligned the cut 128x256 1x1 tile lost to whole
/// tiles in 2x1 clusters, which share B's fill (H200, bf16, 2026-12-06):
/// 1.24-1.27x 128x192 2x1's time at 1000x5000x3000 (every epilogue), 1.06x
/// 128x128 pingpong 2x1's at 4500x1000x2048 (GEMM alone); with B's rows
/// aligned it won (4500x1024x3000, 4608x1024x3072).
constexpr double kCooperativeStreamKUnalignedBCost = 1.1;
double stream_k_slowdown(const Sm90TileConfig& c) {
  return c.pingpong ? kStreamKSlowdown : kCooperativeStreamKSlowdown;
}
/// Split-K's partial sums on a grouped-k tile, each at most 32 KB (64x128
/// f32), half a pingpong tile's, in k-blocks of that tile's time.
constexpr double kSplitKFixupKBlocks = 2.0;
/// And a margin: a split ranks above whole tiles only where it puts clearly
/// more SMs to work (M = 16, N = K = 8192 keeps its 128 whole 64x64 x4
/// tiles rather than 64 split 64x128 x2 ones).
constexpr double kSplitKCost = 1.15;
/// The tiles are ranked as if they split K in two slices at most: the
/// rankings with more slices put wider tiles first (64x128 x2 in 4 slices
/// at M = 8 and 64, N = K = 4096; 128x64 x2 at N = 16), and those ran
/// 1-18% slower than the 64x64 x4 (or plain 64x64) tile that two slices
/// rank first (H200, 2026-11-30). The tile ranked first then runs in all
/// the slices it has (sm90_split_k_slices).
constexpr int kSplitKRankedSlices = 2;
/// A box row of an operand whose rows (pitch, batch stride or base) are not
/// 128-byte aligned spans two 128-byte lines, and costs the L2 -> shared
/// memory fill as much as two: bf16, H200 (2026-11-30), 3000^3 (A's and
/// B's rows 6000 bytes apart) took 141 us on 128x128 pingpong (modelled
/// 148), 111 on 128x128 2x1 (112), 105 on 128x256 2x1 (math-bound, as
/// aligned), against 85 us for 3072^3 on 128x128 pingpong; by the model's
/// picks (128x128 1x1 pingpong -> 2x1 pingpong or 128x256 2x1) 3072x3000x3072
/// 1.48x -> 1.21x cuBLASLt's time, 5000^3 1.34x -> 1.16x, 4000^3 unchanged.
constexpr double kUnalignedRowFill = 2.0;
/// How far fast-accumulating fp8 operators rank below the precise ones:
/// more than any difference of modelled time (1000 per factor of two).
constexpr int kFastAccumulationDemotion = 100'000;
/// The tiles that write D column-major (Sm90TileConfig::d_column_major)
/// run a row-major D as D^T = B^T A^T, where a row-major B is read as the
/// M-major A' = B^T and A as the K-major B' = A^T. On the part-chunk tiles
/// (128x160, 192x96), whose N-major B is slow, that ran faster than the
/// model's figure for the K-major B' (H100, bf16, A and B row-major, X Y Y
/// X, flushed, 300 ms turns, 2026-12-07; time over the row-major tiles'
/// pick): 1536^3 0.929 (GEMM alone) and 0.937 (relu+F) on 128x160 against
/// 192x96, 1536x1536x4096 0.925 and 0.916 on 128x160 against 128x160,
/// 768x3072x4096 0.898 and 0.925 on 192x96 against 192x96, 2304x1024x4096
/// 0.929-0.930 and 1024x2304x4096 0.881-0.890 on 128x160 (against 128x160
/// and 128x192), 1536x1536x1024 0.926-0.952; so they take this factor
/// where their problem's A is M-major and B K-major. But 192x96 only where
/// its problem (the transpose) is at least as tall as wide: on the wide
/// transposes of 6144x384x4096 and 3072x768x4096 it took 1.014-1.041 of
/// the row-major 192x96's time.
constexpr double kColumnMajorDPartChunkGain = 0.92;
/// The other column-major-D tiles rank first only where the model finds
/// them this much faster: on the same card the whole-chunk ones tied or
/// lost (2048^3 128x128 pingpong 1.008 and 1.029, 4096^3 128x256 1.020 and
/// 0.998, 1024x4096x4096 0.998 and 0.988; 2304x1024x4096 128x192 1.036
/// and 1.039 against 128x160), and a column-major D run as it is on 192x96
/// took 1.073 and 1.054 of the time of its transpose on the row-major
/// 128x160 at 1536^3 (4096^3 on 128x256: 0.986 and 1.001). Where the
/// model's M and N swapped clear it (1408x1792x4096 with B column-major,
/// 128x160), 0.987-0.988.
constexpr double kColumnMajorDCost = 1.10;
/// One wave of a long epilogue (sm90_long_epilogue: gelu's erf) leaves it
/// exposed after the main loop, and 192x96's three consumers (48
/// accumulators a thread) finish it sooner than the two-consumer tiles they
/// compete with there: gelu(acc + bias) over the GEMM alone at 1536^3 (bf16,
/// the sweeps, H100 and H200) took 1.4-1.6 us on 192x96, 3.0-4.3 on 128x160
/// (80 a thread, either D order), 3.6 on 128x192 (96). So 192x96 gains this
/// many ns there (H100, gelu, flushed: 0.69-0.97 of the former pick's time
/// at each of the fifteen shapes it moves in a grid of 1848, e.g. 1536^3
/// 0.903, 1536x1536x512 0.757, 768x3072x512 0.688, with B column-major
/// 3072x768x512 0.848), where its tiles fill at least half the SMs
/// (on fewer, the smaller tiles rank first, whose tails are shorter still:
/// 64x128's 32 a thread, 1.0 us) and at most half its modelled time. A
/// charge on every tile's accumulators instead (35 ns each, once a wave)
/// also moved 128x128 picks to 64x128 and pingpong ones to 128x160 dcol,
/// which lost 8-22%.
constexpr double kLongEpilogueTallTileCredit = 1440.0;

// The H200 the model assumes (fitted to our measurements).
/// ns per bm x bn tile-element and k-block at 128x256's rate (8192^3 bf16:
/// 16 waves x 128 k-blocks x 32768 in ~1.5 ms; fp8 and int8 k-blocks are
/// twice as deep at twice the rate, tf32 ones half as deep at half the rate).
constexpr double kNsPerTileElement = 0.0224;
/// DRAM bandwidth, bytes per ns (a device-to-device copy moves 4.2-4.3 TB/s).
constexpr double kDramBytesPerNs = 4200.0;
/// Load latency, ns: with it, the rings of B in flight per SM keep the
/// skinny tiles' measured order at N = K = 8192 (bf16, clean flush): 64 KB
/// (128x64 x2, 128 CTAs) streamed as fast as 128 KB (64x128 x2) at M = 128
/// (39.6 against 38.8 us), and 64 CTAs of 64x128 trail 128 of 64x64 at M = 16.
constexpr double kLoadLatencyNs = 500.0;
/// Rate at which L2 fills the CTAs' shared memory, bytes per ns: at M = 128,
/// N = K = 8192 the 64x64 tile moved 537 MB into shared memory in 52 us
/// (10.2 TB/s) while 64x128 and 128x64 moved 402 MB in 47-48 us; the
/// 128x128 pingpong tile moved 2.1 GB in 190 us at 4096^3 (11 TB/s) without
/// being limited by it.
constexpr double kL2FillBytesPerNs = 12000.0;

/// The fill cost of one box row of A or B (kUnalignedRowFill unless its
/// rows, batches and base are 128-byte aligned, or it is repacked into
/// 128-byte rows).
double row_fill_cost(const MatrixOperand& x, bool is_b, Sm90OperandClass operands, std::int64_t L) {
  if (sm90_repacks(x, is_b, operands, L)) return 1.0;
  const std::int64_t bytes = size_bytes(x.dtype);
  const std::int64_t pitch = x.layout == Layout::col_major ? x.col_stride : x.row_stride;
  const bool base = x.tensor == nullptr || reinterpret_cast<std::uintptr_t>(x.tensor->data) % 128 == 0;
  const bool aligned = base && pitch * bytes % 128 == 0 && (L <= 1 || x.batch_stride * bytes % 128 == 0);
  return aligned ? 1.0 : kUnalignedRowFill;
}

}  // namespace

int Sm90TileConfig::operand_bytes() const noexcept {
  switch (operands) {
    case C::fp8: case C::int8: return 1;
    case C::tf32: return 4;
    case C::bits16: break;
  }
  return 2;
}

int Sm90TileConfig::chunk_cols(int d_bytes) const noexcept { return sm90::staged_chunk_cols(d_bytes, warpgroup_n()); }

bool Sm90TileConfig::begins_chunk_early(int d_bytes) const noexcept {
  const int row_blocks = pingpong ? bm / 64 : 1;
  return row_blocks == 1 && chunks_per_warpgroup(*this, d_bytes) == 1 && promote_k_blocks == 0;
}

int Sm90TileConfig::vector_hold(int d_bytes, bool edge_tiles, bool looped_chunks) const noexcept {
  if (begins_chunk_early(d_bytes)) return 1;
  return chunks_per_warpgroup(*this, d_bytes) > 1 && edge_tiles && !looped_chunks ? 2 : 0;
}

int Sm90TileConfig::epilogue_slots(int d_bytes) const noexcept {
  // The most slots that fit, dividing the warpgroup's chunks (which the stores go round in).
  const int chunks = chunks_per_warpgroup(*this, d_bytes);
  int slots = chunks;
  while (slots > 1 && shared_bytes_with(*this, slots, d_bytes) > kSm90MaxSharedBytes) {
    --slots;
    while (chunks % slots != 0) --slots;
  }
  return slots;
}

int Sm90TileConfig::shared_bytes(int d_bytes) const noexcept {
  return shared_bytes_with(*this, epilogue_slots(d_bytes), d_bytes);
}

std::string Sm90TileConfig::shape_name() const {
  return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk()) + "_c" +
         std::to_string(cluster_m) + "x1" + (pingpong ? "_pingpong" : "") +
         (k_group > 1 ? "_kgroup" + std::to_string(k_group) : "") + (promote_k_blocks > 0 ? "_precise" : "") +
         (d_column_major ? "_dcol" : "");
}

std::span<const Sm90TileConfig> sm90_tile_configs() { return kAllConfigs; }

int sm90_a_box_rows(std::int64_t M, const Sm90TileConfig& config) noexcept {
  return box_rows(M, config.bm, config.k_group > 1);
}

int sm90_b_box_rows(std::int64_t N, const Sm90TileConfig& config, bool b_k_major) noexcept {
  return box_rows(N, config.bn, config.k_group > 1 && b_k_major);
}

namespace {

/// Metadata facts of one operand class.
struct ClassFacts {
  const char* suffix;
  const char* dtypes;
  const char* layouts;
  const char* accumulators;
  const char* out_dtypes;
};

ClassFacts class_facts(C operands) {
  constexpr const char* kKMajor =
      "any (A row-major and B column-major are read as they lie, when TMA-aligned; others are repacked K-major)";
  constexpr const char* kFloatOut = "f16,bf16,f32,e4m3,e5m2,i8,u8,i32";
  switch (operands) {
    case C::fp8: return {"_fp8", "e4m3,e5m2", kKMajor, "f32,f16", kFloatOut};
    case C::tf32: return {"_tf32", "tf32", kKMajor, "f32", kFloatOut};
    case C::int8: return {"_int8", "i8,u8", kKMajor, "i32", "i32,i8,u8,f32,f16,bf16,e4m3,e5m2"};
    case C::bits16: break;
  }
  return {"_16bit", "f16,bf16",
          "any (row- or column-major A and B are read as they lie, when TMA-aligned; others are repacked)",
          "f32 (bf16), f32,f16 (f16)", kFloatOut};
}

}  // namespace

OperatorMetadata sm90_metadata(const Sm90TileConfig& c) {
  const ClassFacts facts = class_facts(c.operands);
  OperatorMetadata md;
  md.name = "sm90_wgmma_" + c.shape_name() + facts.suffix;
  md.provider = "sm90";
  md.min_sm = 90;
  md.tile = {c.bm, c.bn, c.bk()};
  md.cluster = {c.cluster_m, 1};
  md.stages = c.stages;
  if (c.k_group > 1) md.extra["k_blocks_per_stage"] = std::to_string(c.k_group);
  md.extra["schedule"] = c.pingpong ? "pingpong" : "cooperative";
  md.extra["kernel"] = "sm90_gemm";
  md.extra["threads"] = std::to_string(c.threads());
  md.extra["target_sm"] = "90";
  md.extra["dtypes"] = facts.dtypes;
  md.extra["layouts"] = facts.layouts;
  md.extra["accumulators"] = facts.accumulators;
  md.extra["out_dtypes"] = facts.out_dtypes;
  if (c.operands == C::fp8) md.extra["fp8_accumulation"] = c.promote_k_blocks > 0 ? "precise" : "fast";
  md.extra["reduce_outputs"] = "f32";
  if (c.d_column_major) {
    md.extra["out_dtypes"] = "f16,bf16";
    md.extra["d_store"] = "column-major: a row-major D runs as D^T = B^T A^T";
  } else {
    md.extra["d_store"] = "row-major: a column-major D runs as D^T = B^T A^T";
  }
  return md;
}

std::int64_t sm90_cluster_tiles(const Sm90TileConfig& c, std::int64_t M, std::int64_t N, std::int64_t L) noexcept {
  return ceil_div(ceil_div(M, c.bm), c.cluster_m) * ceil_div(N, c.bn) * std::max<std::int64_t>(L, 1);
}

std::int64_t sm90_stream_k_tiles(const Sm90TileConfig& c, std::int64_t tiles, std::int64_t k_blocks,
                                 std::int64_t slots) noexcept {
  if (!c.may_cut_along_k() || c.k_group > 1 || slots < 1 || k_blocks < 1 || tiles <= slots) return 0;
  const std::int64_t rest = tiles % slots;
  if (rest == 0 || (!c.pingpong && tiles >= 2 * slots)) return 0;
  // Under two waves every tile, else the last partial wave and one full
  // wave: ranges of cut / slots tiles, computed slower, against the two
  // waves of whole tiles they replace.
  const std::int64_t cut = tiles < 2 * slots ? tiles : rest + slots;
  const double range = static_cast<double>(cut) / static_cast<double>(slots);
  const double cut_time = range * stream_k_slowdown(c) + kStreamKFixupKBlocks / static_cast<double>(k_blocks);
  return cut_time < 2.0 ? cut : 0;
}

int sm90_split_k_slices(const Sm90TileConfig& c, const Problem& p, int sm_count) noexcept {
  if (c.k_group == 1 || !c.may_cut_along_k() || (p.M > c.bm && p.N > c.bn)) return 1;
  const std::int64_t tiles = sm90_cluster_tiles(c, p.M, p.N, p.L);
  if (tiles < 1) return 1;
  const std::int64_t slices =
      std::min({kSm90SplitKMaxSlices, sm_count / tiles, ceil_div(p.K, c.bk()) / kSm90SplitKMinKBlocks});
  return static_cast<int>(std::max<std::int64_t>(slices, 1));
}

Sm90KCut sm90_k_cut(const Sm90TileConfig& c, const Problem& p, int max_ctas) noexcept {
  const std::int64_t cm = c.cluster_m;
  const std::int64_t tiles = sm90_cluster_tiles(c, p.M, p.N, p.L);
  Sm90KCut cut;
  const std::int64_t slots = std::max<std::int64_t>(1, std::min<std::int64_t>(max_ctas / cm, tiles));
  cut.ctas = slots * cm;
  // Whole tiles: as few CTAs as take the same number of rounds.
  const std::int64_t rounds = ceil_div(tiles, slots);
  cut.whole_ctas = (rounds > 0 ? ceil_div(tiles, rounds) : 0) * cm;
  cut.slices = sm90_split_k_slices(c, p, max_ctas);
  if (cut.slices > 1) {
    cut.sk_tiles = tiles;
    cut.ctas = cut.slices * tiles;
  } else {
    cut.sk_tiles = sm90_stream_k_tiles(c, tiles, ceil_div(p.K, c.bk()), cut.ctas / cm);
  }
  return cut;
}

bool sm90_stream_k_code(const Sm90TileConfig& c, const Problem& p, int sm_count) noexcept {
  if (!c.may_cut_along_k()) return false;
  if (c.pingpong && c.cluster_m > 1) return true;
  return sm90_k_cut(c, p, sm_count).sk_tiles > 0;
}

int sm90_tile_kinds(const Sm90TileConfig& c, const Problem& p) noexcept {
  const bool inside = p.M >= 64 && p.N >= c.warpgroup_n();
  // A cluster's CTAs take adjacent tiles along M: where M's tile rows do not
  // fill the last cluster, its other CTAs' tiles lie wholly past M. They run
  // the main loop for the multicast, and the epilogue's checked copy (the
  // unchecked one would read vectors past M, write tile outputs there and
  // add those rows to reductions).
  const bool edge = p.M % (c.bm * c.cluster_m) != 0 || p.N % c.bn != 0;
  return (inside ? kSm90InsideTiles : 0) | (edge || !inside ? kSm90EdgeTiles : 0);
}

const char* sm90_model_bound_name(Sm90ModelBound bound) noexcept {
  switch (bound) {
    case Sm90ModelBound::math: return "math";
    case Sm90ModelBound::dram: return "DRAM";
    case Sm90ModelBound::l2_fill: return "L2 fill";
  }
  return "?";
}

double sm90_modelled_time(const Sm90TileConfig& c, const Problem& p, int sm_count, std::int64_t l2_bytes,
                          Sm90ModelBound* bound) {
  const int sms = std::max(sm_count, c.cluster_m);
  const std::int64_t cluster_tiles = sm90_cluster_tiles(c, p.M, p.N, p.L);
  const std::int64_t slots = sms / c.cluster_m;
  const std::int64_t k_block_count = std::max<std::int64_t>(ceil_div(p.K, c.bk()), 1);
  // Split-K: each CTA computes one slice of K, then the partial sums' trip.
  const int slices = std::min(sm90_split_k_slices(c, p, sms), kSplitKRankedSlices);
  const bool split = slices > 1;
  const double k_blocks = split ? static_cast<double>(ceil_div(k_block_count, slices)) +
                                      kSplitKFixupKBlocks * (slices - 1)
                                : static_cast<double>(k_block_count);
  // Stream-K: the cut tiles (the last two waves, or all of them under two
  // waves) take the time of the cut ranges (see sm90_stream_k_tiles).
  const std::int64_t cut = sm90_stream_k_tiles(c, cluster_tiles, k_block_count, slots);
  const double waves = cut > 0 ? static_cast<double>((cluster_tiles - cut) / slots) +
                                     static_cast<double>(cut) / static_cast<double>(slots) * stream_k_slowdown(c) +
                                     kStreamKFixupKBlocks / k_blocks
                               : static_cast<double>(ceil_div(cluster_tiles, slots));
  const double math = waves * k_blocks * (static_cast<double>(c.bm) * c.bn / tile_efficiency(c)) * kNsPerTileElement;
  // Memory: every byte of A, B and D crosses DRAM once; the busy CTAs keep
  // `stages` k-blocks of the streamed operand in flight each, which caps the
  // rate by Little's law: A when at most two tile columns read each of its
  // rows (N = 16: A holds the weights), else B (the weights of a skinny M;
  // bigger problems are not limited by it); only the rows inside M and N
  // come from memory (TMA fills the rest with zeros).
  const double in_bytes = c.operand_bytes();
  const double L = static_cast<double>(std::max<std::int64_t>(p.L, 1));
  const double M = static_cast<double>(p.M), N = static_cast<double>(p.N), K = static_cast<double>(p.K);
  const double bytes = L * ((M * K + K * N) * in_bytes + M * N * size_bytes(p.D.dtype));
  const double busy_ctas = static_cast<double>(std::min(cluster_tiles, slots) * c.cluster_m) * slices;
  const double a_rows = static_cast<double>(std::min<std::int64_t>(c.bm, p.M));
  const double b_rows = static_cast<double>(std::min<std::int64_t>(c.bn, p.N));
  const bool a_streamed = ceil_div(p.N, c.bn) <= 2;
  const double in_flight = busy_ctas * c.stages * c.k_group * (a_streamed ? a_rows : b_rows) * 128.0;
  const double rate = 1.0 / (1.0 / kDramBytesPerNs + kLoadLatencyNs / in_flight);
  // L2 -> shared memory: for every k-block each tile loads a 128-byte row
  // of K for each of its rows of A (only those inside M: TMA fills the rest
  // with zeros) and each of its columns of B (a cluster shares them), so
  // narrow tiles re-read the other operand more often.
  // Grouped-k tiles cut A's boxes to M's rows and a K-major B's to N's.
  // Rows not 128-byte aligned cost twice (kUnalignedRowFill) once the CTAs
  // stream for more than one wave (in one wave the ring's first fill and
  // the epilogue dominate: 1000^3 and 2000^3 ran 4-12% slower on the tiles
  // that load fewer rows).
  // A cluster's shared B eases the fill only where B's rows are unaligned
  // (H100, 2026-12-05, bf16, every epilogue): with B's rows aligned 128x192
  // ran 0-15% slower in 2x1 clusters than in 1x1, whether A's rows were
  // aligned or not (3072^3, 3000x3072x3000, 2000x3072x1000, 6000x3072x3000),
  // and 128x128 pingpong in 2x1 12-31% slower than the 1x1 tiles this
  // ranks first (3072x1024x3000, 3072x1536x3000, 1536x4096x3000; it lost
  // only at 4500x1024x3000, 4-9% faster than pingpong 1x1); with B's rows
  // unaligned 128x192 ran 23-26% faster in 2x1 (3000^3, 3072x3000x3072).
  const bool b_cut = c.k_group > 1 && p.B.row_stride == 1;
  const double b_row_cost = row_fill_cost(p.B, true, c.operands, p.L);
  const double b_loaded = b_cut ? b_rows : static_cast<double>(c.bn) / (b_row_cost > 1.0 ? c.cluster_m : 1);
  const bool streaming = cluster_tiles > slots;
  const double a_cost = streaming ? row_fill_cost(p.A, false, c.operands, p.L) : 1.0,
               b_cost = streaming ? b_row_cost : 1.0;
  const double fill = static_cast<double>(cluster_tiles * c.cluster_m * k_block_count) * 128.0 *
                      (a_rows * a_cost + b_loaded * b_cost);
  const double dram = bytes / rate, l2_fill = fill / kL2FillBytesPerNs;
  double time = std::max({math, dram, l2_fill});
  if (bound != nullptr)
    *bound = time == math ? Sm90ModelBound::math : time == dram ? Sm90ModelBound::dram : Sm90ModelBound::l2_fill;
  // Ties (memory- or fill-bound shapes) go to the tile that computes faster.
  time *= 1.0 + 0.05 * (1.0 - tile_efficiency(c));
  // Many waves: the 2x1 multicast halves B's traffic and wins a little; a
  // few waves: the 1x1 grid balances better (measured at 8192^3 / 4096^3).
  const bool many_waves = waves >= 8;
  const bool wide_pingpong = c.pingpong && c.bn == 192;
  const bool wide_pingpong_ranked =
      wide_pingpong && l2_bytes < kSmallL2Bytes && c.operands == C::bits16 && !stores_accumulator_only(p) &&
      waves >= kWidePingpongMinWaves &&
      k_block_count >= (reads_tile_input(p) ? kWidePingpongReadMinKBlocks : kWidePingpongMinKBlocks);
  if (c.pingpong) {
    if (waves < kPingpongMinWaves) time *= 1.25;
    if (c.cluster_m == 2) time *= 1.01;  // 1x1 measured 1-4% faster at the mid sizes
    if (wide_pingpong) time *= wide_pingpong_ranked ? kSmallL2WidePingpongTime : kWidePingpongElsewhere;
  } else {
    // int8 (whose i32 D the store term would also keep on pingpong at 8192^3,
    // but whose short-K picks it would move unmeasured) and the fp8 tiles
    // that promote (unmeasured) keep the flat exposure.
    const bool gemm_alone = c.operands != C::int8 && c.promote_k_blocks == 0 && stores_accumulator_only(p);
    if (gemm_alone) {
      time *= 1.0 + std::min(kGemmAloneStoreKBlocks * size_bytes(p.D.dtype) / 2.0 / k_blocks, kGemmAloneMaxExposure);
      if (c.bm == 128 && c.bn == 256) {
        time *= kWideTileGemmAloneTime;
        if (c.cluster_m == 1 && c.operands == C::bits16 && l2_bytes < kSmallL2Bytes &&
            k_block_count >= kSmallL2GemmAloneMinKBlocks && waves >= kSmallL2GemmAloneMinWaves)
          time *= kSmallL2WideTileGemmAloneTime;
      }
    } else {
      time *= kCooperativeEpilogueExposure;
    }
    const bool long_k_on_waves =
        c.operands == C::bits16 ? many_waves && k_block_count >= kSmallL2MinKBlocks
                                : c.operands == C::tf32 && waves >= kSmallL2Tf32MinWaves &&
                                      k_block_count >= kSmallL2Tf32MinKBlocks;
    const bool small_l2_wide =
        !gemm_alone && l2_bytes < kSmallL2Bytes && c.bm == 128 && c.bn == 256 && long_k_on_waves;
    if (small_l2_wide) time *= kSmallL2WideTileEpilogueTime;
    // Promotion: 1x1 measured 1-2.5% faster at 8192^3 (fp8 e4m3, H200, 2026-11-29).
    if (c.cluster_m == 2)
      time *= many_waves && c.promote_k_blocks == 0 && !gemm_alone && !small_l2_wide ? 0.995 : 1.005;
  }
  if (c.promote_k_blocks > 0) time *= kPromotionCost;
  if (split) time *= kSplitKCost;
  if (cut > 0 && !c.pingpong && b_row_cost > 1.0) time *= kCooperativeStreamKUnalignedBCost;
  // The same ring bytes in more, smaller stages: a stage is refilled only
  // once both consumers have released it, so with B streamed the 64x64 tile
  // of 6 stages of 2 k-blocks ran faster than 3 of 4 (M = 16, N = K = 8192,
  // every epilogue: 2-2.5% with B row-major, 0.5-1% column-major). The model
  // cannot tell the two apart, so the 4-k-block ring yields where B streams.
  if (c.operands == C::bits16 && c.k_group >= 4 && !a_streamed) time *= kDeepStagesCost;
  if (c.bm >= 128 && p.M <= c.bm - 64) time *= kIdleConsumerCost;
  const bool b_n_major = !sm90_reads_k_major(p.B, true, c.operands, p.L);
  const double long_side = std::max(M, N), short_side = std::min(M, N);
  if (c.bm == 128 && c.bn % 64 != 0 && b_n_major && (streaming || k_block_count >= kPartChunkOneWaveMinKBlocks)) {
    const bool waived = !streaming && c.b_tail(false) && k_block_count >= kPartChunkLongKMinKBlocks &&
                        long_side < kPartChunkLongKMaxAspect * short_side;
    if (!waived) time *= kPartChunkNMajorBCost;
  }
  if (c.bm == 192) {
    const bool one_wave_long_k = !streaming && k_block_count >= kTallTileMinKBlocks;
    const bool square_mid_k = one_wave_long_k && b_n_major && long_side < kTallTileSquareMaxAspect * short_side &&
                              k_block_count < kTallTileSquareMaxKBlocks;
    if (square_mid_k)
      time *= kTallTileSquareCost;
    else if (!one_wave_long_k || long_side < kTallTileMinAspect * short_side)
      time *= kTallTileStreamingCost;
  }
  if (c.bm == 64 && c.cluster_m == 2 && streaming) time *= kShortClusterStreamingCost;
  const double padded_rows = static_cast<double>(padded_box_rows(p.M, c.bm, c.k_group > 1) +
                                                padded_box_rows(p.N, c.bn, b_cut));
  if (!wide_pingpong_ranked) time *= 1.0 + kPaddedRowsCost * padded_rows / (c.bm + c.bn);
  if (c.d_column_major) {
    const bool a_m_major = !sm90_reads_k_major(p.A, false, c.operands, p.L);
    const bool gains = c.bn % 64 != 0 && a_m_major && !b_n_major && (c.bm != 192 || p.M >= p.N);
    time *= gains ? kColumnMajorDPartChunkGain : kColumnMajorDCost;
  }
  const bool most_of_one_wave = !streaming && 2 * cluster_tiles >= slots;
  if (c.bm == 192 && most_of_one_wave && p.dag != nullptr && sm90_long_epilogue(*p.dag, p.compute))
    time -= std::min(kLongEpilogueTallTileCredit, 0.5 * time);
  return time;
}

int sm90_preference(const Sm90TileConfig& c, const Problem& p, int sm_count, std::int64_t l2_bytes) {
  const double time = std::max(sm90_modelled_time(c, p, sm_count, l2_bytes), 1.0);
  const int fast_fp8 = c.accumulates_fp8_fast() ? kFastAccumulationDemotion : 0;
  return 1'000'000 - fast_fp8 - static_cast<int>(std::lround(1000.0 * std::log2(time)));
}

}  // namespace epigemm::detail
