// The tile configurations the sm90 provider offers (CTA tile, cluster,
// pipeline depth, operand class), what each one costs in shared memory, its
// operator metadata, and the heuristic that ranks them for a problem shape.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "api/problem.hpp"
#include "epigemm/operator.hpp"

namespace epigemm::detail {

/// The operand families that share one kernel shape: 16-bit (f16, bf16;
/// 64 elements of K per stage), 8-bit float (e4m3, e5m2; 128 per stage),
/// tf32 (32 per stage) and 8-bit integer (i8, u8; 128 per stage).
enum class Sm90OperandClass { bits16, fp8, tf32, int8 };

/// One kernel shape: kernels/sm90_gemm_config.cuh's GemmConfig minus the
/// dtypes and majors, which come from the problem.
struct Sm90TileConfig {
  int bm = 128;         ///< CTA tile rows: 64, 128 or 192 (cooperative, 1x1, one k-block a stage)
  int bn = 256;         ///< CTA tile columns
  int cluster_m = 1;    ///< 1 or 2 CTAs along M sharing B by multicast
  int stages = 3;       ///< depth of the TMA/mbarrier ring
  Sm90OperandClass operands = Sm90OperandClass::bits16;
  /// The two consumers take alternate whole tiles (one's epilogue under the
  /// other's main loop) instead of sharing each tile.
  bool pingpong = false;
  /// fp8 only: 0 = fast accumulation (the tensor cores' reduced-precision
  /// sum over all of K); 1 = precise accumulation, the wgmma results of
  /// every k-block (128 K elements) added into f32 accumulators by the
  /// consumers ("promotion"; cooperative tiles at most 128 columns wide per
  /// warpgroup, which hold the accumulators and two fragments).
  int promote_k_blocks = 0;
  /// k-blocks per pipeline stage (Cfg::kKGroup): > 1 loads A's k-blocks of a
  /// stage with one 4-D TMA box cut to the rows of M the tile holds, and B's
  /// with one box (K-major) or one per 64 columns (N-major); needs a K-major
  /// A and K a multiple of bk() (the 64x64 and 64x128 tiles that stream
  /// skinny problems' weights).
  int k_group = 1;
  /// The kernel writes D column-major (the kernel's Cfg::kDColumnMajor; a
  /// 2-byte D): its tile's M runs along D's contiguous axis, so the operator
  /// runs a row-major D as the transposed problem D^T = B^T A^T, and a
  /// column-major one as it is (the other tiles the other way round).
  bool d_column_major = false;

  /// Bytes of one A or B element: 1, 2 or 4.
  int operand_bytes() const noexcept;
  /// K per pipeline stage: one 128-byte swizzle row.
  int bk() const noexcept { return 128 / operand_bytes(); }
  /// Whether this tile's problems may be cut along K (the kernel's
  /// Cfg::kStreamK mirrors this, unless its kernel leaves the code out),
  /// those of two consumers without promotion: pingpong tiles, cooperative
  /// 1x1 ones with one k-block per stage (stream-K, sm90_stream_k_tiles) and
  /// the grouped-k cooperative 1x1 tiles (split-K, sm90_split_k_slices).
  bool may_cut_along_k() const noexcept {
    return promote_k_blocks == 0 && consumers() == 2 && (pingpong ? k_group == 1 : cluster_m == 1);
  }
  /// Consumer warpgroups (Cfg::kConsumers): two, or one per 64-row block of
  /// the cooperative 192-row tile.
  int consumers() const noexcept { return bm == 192 && !pingpong ? 3 : 2; }
  /// Threads of a CTA: the producer warpgroup and the consumers.
  int threads() const noexcept { return 128 * (1 + consumers()); }
  /// fp8 operands accumulated without promotion (cuBLASLt's fast accumulation).
  bool accumulates_fp8_fast() const noexcept { return operands == Sm90OperandClass::fp8 && promote_k_blocks == 0; }
  /// Whether a cluster's CTAs divide an N-major B along K (each loads
  /// bk() / cluster_m rows of every chunk) because its chunks do not divide
  /// among them (the kernel's Cfg::kBSplitsK).
  bool splits_b_along_k(bool b_k_major) const noexcept {
    return !b_k_major && cluster_m > 1 && b_chunks() % cluster_m != 0;
  }
  /// Columns of an N-major B's chunks (the kernel's Cfg::kBChunkCols; the
  /// first dimension of its TMA box): 64, or 32 on a tile 96 wide, so that a
  /// stage loads only the tile's columns, not 128. 192x96 ran in 0.90-0.956
  /// of its 64-column time at 1536^3 and 1536x1536x4096 (0.99 at
  /// 3072x768x4096); 128x160 in five 32-column chunks took 1.07-1.14 at
  /// those shapes (0.94 at 2304x1024x4096), so it loads two of 64 and a
  /// tail (b_tail) instead (H100, bf16, every epilogue, pin_ab, 2026-12-07).
  int b_chunk_cols() const noexcept { return bn % 64 != 0 && bn < 128 ? 32 : 64; }
  /// Whether an N-major B's last 32 columns come in a tail chunk of their
  /// own (the kernel's Cfg::kBTail), through a second map of 32 x bk() boxes
  /// swizzled 64 bytes wide, after whole 64-column chunks: on 128x160, whose
  /// third 64-column chunk loaded 32 columns of the next tile. Its time over
  /// three whole chunks': 1536x1536x4096 0.885-0.908, 1536x1024x4096
  /// 0.92-0.975, 2304x1024x4096 0.914-0.95; on 192x96 (one whole chunk and
  /// a tail, against three of 32 columns) 1536^3 1.00-1.02, 1536x1536x4096
  /// 0.955-0.986, 3072x768x4096 1.076-1.084, so 192x96 keeps its three (H100,
  /// bf16, every epilogue, pin_ab, 2026-12-07).
  bool b_tail(bool b_k_major) const noexcept { return !b_k_major && bn % 64 == 32 && bn > 128; }
  /// The tail chunk's width in columns (the kernel's Cfg::kBTailCols): one
  /// 64-byte swizzle atom of a 16-bit B.
  static constexpr int b_tail_cols() noexcept { return 32; }
  /// An N-major B's chunks a k-block, the last one partly past the tile
  /// where they do not divide its width (the kernel's Cfg::kBChunks).
  int b_chunks() const noexcept { return (bn + b_chunk_cols() - 1) / b_chunk_cols(); }
  /// The first dimension of B's TMA box (the kernel's Cfg::kBoxB0): bk()
  /// elements of K for a K-major B, b_chunk_cols() of N for an N-major one.
  int b_box_dim0(bool b_k_major) const noexcept { return b_k_major ? bk() : b_chunk_cols(); }
  /// The swizzle span of B's TMA box in bytes (the kernel's 128, or an
  /// N-major B's Cfg::kBSwizzleBytes).
  int b_swizzle_bytes(bool b_k_major) const noexcept { return b_k_major ? 128 : b_chunk_cols() * operand_bytes(); }
  /// The second dimension of B's TMA box on a tile of one k-block per stage
  /// (the kernel's Cfg::kBoxB1): bn / cluster_m rows of N for a K-major B;
  /// bk() rows of K of a chunk for an N-major B, bk() / cluster_m
  /// where the cluster divides it along K.
  int b_box_dim1(bool b_k_major) const noexcept {
    if (b_k_major) return bn / cluster_m;
    return splits_b_along_k(b_k_major) ? bk() / cluster_m : bk();
  }
  /// Columns each consumer warpgroup owns (the consumers split the CTA tile:
  /// along M from 128 rows, else along N; or each owns whole tiles when pingpong).
  int warpgroup_n() const noexcept { return bm >= 128 || pingpong ? bn : bn / 2; }
  /// Columns of one staged output chunk (Cfg::kChunkCols) for a D of
  /// `d_bytes` per element: kernels/sm90_chunk_cols.cuh's rule (160 and 96
  /// columns: 32).
  int chunk_cols(int d_bytes) const noexcept;
  /// Whether each consumer's part of a tile is one 64-row block of one staged
  /// chunk for a D of `d_bytes`, on a tile without promotion (the kernel's
  /// kBeginsChunkEarly): the kernel then begins the chunk before the tile's
  /// last stage, and the hook loads its vector inputs there (EpgSm90Hook's
  /// kHoldVectors).
  bool begins_chunk_early(int d_bytes) const noexcept;
  /// Where the hook's Tile keeps its row and column vector values for a D of
  /// `d_bytes` (EpgSm90Hook's kHoldVectors): 1 for a chunk begun early; 2
  /// (each chunk's loaded while the one before it is computed) where a
  /// 64-row block has several chunks, unrolled (not `looped_chunks`), in a
  /// kernel that has edge tiles (`edge_tiles`): there each chunk's branch
  /// between the inside and the edge path keeps ptxas from issuing the next
  /// chunk's loads early, as it does in whole-tile kernels; else 0 (loaded
  /// by each element).
  int vector_hold(int d_bytes, bool edge_tiles, bool looped_chunks) const noexcept;
  /// Output staging chunks each consumer holds at once for a D of
  /// `d_bytes` per element: the whole warpgroup tile when shared memory
  /// allows, else the largest divisor of its chunk count that fits.
  int epilogue_slots(int d_bytes) const noexcept;
  /// Dynamic shared memory of the kernel (Cfg::kSmemBytes).
  int shared_bytes(int d_bytes) const noexcept;
  /// "128x256x64_c2x1", "128x128x64_c2x1_pingpong", "128x128x128_c1x1_precise",
  /// "64x64x64_c1x1_kgroup4", "128x160x64_c1x1_dcol".
  std::string shape_name() const;
};

/// Rows of A's TMA box per k-block (GemmParams::a_box_rows): bm, or for
/// grouped-k tiles M rounded up to 8 when that is fewer.
int sm90_a_box_rows(std::int64_t M, const Sm90TileConfig& config) noexcept;
/// Rows of B's TMA box per k-block (GemmParams::b_box_rows): bn, or for
/// grouped-k tiles with a K-major B, N rounded up to 8 when that is fewer.
int sm90_b_box_rows(std::int64_t N, const Sm90TileConfig& config, bool b_k_major) noexcept;

/// Cluster tiles (cluster_m vertically adjacent CTA tiles, the kernel's
/// TileScheduler units) of an L x M x N output.
std::int64_t sm90_cluster_tiles(const Sm90TileConfig& config, std::int64_t M, std::int64_t N,
                                std::int64_t L) noexcept;

/// Stream-K (GemmParams::sk_tiles): how many of the last of `tiles`
/// (cluster) tiles of `k_blocks` k-blocks to cut along K into one equal
/// range per slot when `slots` CTAs (clusters) run them; 0 for none. Under
/// two waves every tile, else as many as the last partial wave plus one
/// full wave, so that each range spans at least a tile and a tile is cut at
/// most once. Only tiles with one k-block per stage that may cut
/// (may_cut_along_k: pingpong tiles, and cooperative 1x1 ones under two
/// waves), and only when the cut ranges, which compute slower than whole
/// tiles (pingpong about 1.65 times, cooperative 1.2-1.5) and pay for the
/// partial sums' trip through L2, still end before the two waves of whole
/// tiles they replace: on pingpong tiles a last wave at most about a sixth
/// full (8192^3 and 4096x14336x4096 on 132 SMs, not 4096^3) or a problem of
/// at most about 1.15 waves, on cooperative ones a problem of at most about
/// 1.35 waves (4500x1024x3000 on 128x256).
std::int64_t sm90_stream_k_tiles(const Sm90TileConfig& config, std::int64_t tiles, std::int64_t k_blocks,
                                 std::int64_t slots) noexcept;

/// Split-K (GemmParams::sk_tiles = tiles on S times as many CTAs): how
/// many slices S of K a grouped-k tile runs each tile of skinny problem `p`
/// in (one row or one column of tiles: a weight matrix streamed past a few
/// activations), one CTA per slice; the last adds the others' partial sums
/// and runs the epilogue. 1 (no split) unless the tiles fill at most half of
/// the `sm_count` SMs; then as many slices as fit on the SMs, at most
/// kSm90SplitKMaxSlices, each of at least kSm90SplitKMinKBlocks k-blocks
/// (so that the slices outweigh the partial sums' trip through L2). The
/// weights then stream through more SMs, faster on the H200 than whole
/// tiles: M = 8, N = K = 4096 (2 slices) 10-12%, M = 16, N = 1024, K = 4096
/// (8 slices) 24%, M = 16, N = 512, K = 8192 (8) 45%; 16 slices of 8
/// k-blocks ran slower than 8 of 16. Not the plain 64x64 tile at M = 64: there
/// light epilogues ran 6-8% slower in two slices, heavy ones up to 13%
/// faster.
int sm90_split_k_slices(const Sm90TileConfig& config, const Problem& p, int sm_count) noexcept;
inline constexpr std::int64_t kSm90SplitKMinKBlocks = 16;
inline constexpr std::int64_t kSm90SplitKMaxSlices = 8;

/// How a launch of problem `p` cuts K when `max_ctas` CTAs fit on the
/// device at once (1x1 tiles: its SM count): GemmParams::sk_tiles (0: every
/// tile whole) and the CTAs to launch with it: `slices` per tile for
/// split-K (sm90_split_k_slices), else one per SM up to the tiles, the last
/// waves cut by stream-K (sm90_stream_k_tiles). Whole tiles launch
/// `whole_ctas`: as few CTAs as finish the tiles in the same number of
/// rounds (4096^3 on 128x128: 128 CTAs of 8 tiles rather than 132 of 7 or
/// 8), which leaves the spare SMs' share of L2 and DRAM to the others (H200,
/// bf16 and f16 4096^3, every epilogue 0.5-2.5% faster), except where
/// Sm90Plan::unaligned_tile_rows says otherwise.
struct Sm90KCut {
  std::int64_t sk_tiles = 0;
  std::int64_t ctas = 0;
  std::int64_t whole_ctas = 0;
  int slices = 1;  ///< > 1: split-K
};
Sm90KCut sm90_k_cut(const Sm90TileConfig& config, const Problem& p, int max_ctas) noexcept;

/// Whether `config`'s kernel for problem `p` on `sm_count` SMs carries
/// stream-K's code: on tiles that can cut (sm90_stream_k_tiles), a 2x1
/// cluster's always (how many of its clusters run comes from the loaded
/// kernel) and a 1x1 tile's only when the problem's last waves are cut. The
/// kernel without it has a quarter less code to compile (0.88 -> 0.65 s for
/// the 128x128 pingpong unit of relu+F); a cooperative tile's only when
/// the problem splits (sm90_split_k_slices).
bool sm90_stream_k_code(const Sm90TileConfig& config, const Problem& problem, int sm_count) noexcept;

/// The kinds of tile of a problem, the kernel's kTileKinds mask
/// (kernels/sm90_gemm_config.cuh): tiles wholly inside D and tiles that
/// cross its M or N edge.
inline constexpr int kSm90InsideTiles = 1;
inline constexpr int kSm90EdgeTiles = 2;
inline constexpr int kSm90AllTileKinds = kSm90InsideTiles | kSm90EdgeTiles;

/// The kinds of tile `config` cuts `problem` into: inside tiles when M is at
/// least 64 and N at least one consumer's columns, edge tiles when M is not
/// a multiple of the cluster's rows (a cluster's tiles past M count) or N of
/// the tile's columns. The kernel compiles the epilogue once per
/// kind present: whole-tile problems leave the bounds-checked copy out (0.65
/// -> 0.35 s for the 128x128 pingpong unit of relu+F), problems with no tile
/// inside (M = 16) the unchecked one (0.48 -> 0.26 s on 64x64 x4). A kernel
/// of both kinds, once loaded, serves the problems of one kind too
/// (Sm90Operator::kernels_for): a problem of one kind compiles its own
/// kernel only while none of both kinds is loaded.
int sm90_tile_kinds(const Sm90TileConfig& config, const Problem& problem) noexcept;

/// Largest dynamic shared memory of one sm_90 block (227 KB).
inline constexpr int kSm90MaxSharedBytes = 232448;
/// Static shared memory of a kernel whose epilogue has whole-output
/// reductions (their per-warp partials, padded to the dynamic block's
/// 1024-byte alignment; see kernels/sm90_totals.cuh): it comes on top of
/// shared_bytes() and must fit beside it.
inline constexpr int kSm90TotalsSharedBytes = 1024;
/// SM count assumed when no device can be asked (an H100/H200 SXM).
inline constexpr int kSm90DefaultSmCount = 132;
/// L2 size assumed when no device can be asked (the H200's, which the
/// heuristic is fitted to).
inline constexpr std::int64_t kSm90DefaultL2Bytes = std::int64_t{60} << 20;

/// Every configuration offered: for each operand class, 128x256 (2x1 and
/// 1x1 clusters), 128x128 (1x1 and 2x1), 64x128 for small M, 128x64 and
/// 64x64 with deep rings for memory-bound (skinny) problems, and (16-bit and
/// fp8) 128x128 pingpong (1x1 and 2x1); fp8 ones accumulate fast, and fp8
/// 128x128 (1x1 and 2x1), 64x128, 128x64 and 64x64 also come with precise
/// accumulation (promote_k_blocks = 1); 16-bit 64x64, 64x128 and 128x64
/// also load 4, 2 and 2 k-blocks per stage (k_group) for skinny problems.
std::span<const Sm90TileConfig> sm90_tile_configs();

/// Metadata: provider "sm90", name "sm90_wgmma_<shape>_<class>", tile,
/// cluster, stages, min_sm 90, and extra facts (dtypes, layouts,
/// accumulators, output dtypes, kernel; fp8 operators also
/// "fp8_accumulation": "precise" or "fast", for metadata filters).
OperatorMetadata sm90_metadata(const Sm90TileConfig& config);

/// Which of the model's three terms is the largest.
enum class Sm90ModelBound { math, dram, l2_fill };
const char* sm90_model_bound_name(Sm90ModelBound bound) noexcept;

/// The heuristic's modelled time of `problem` on `config` with `sm_count`
/// SMs, in nanoseconds of an H200: the largest of the math (waves of tiles
/// over the SMs, fractional with stream-K, times the time of one tile: its
/// area over its relative efficiency), the memory traffic (A, B and D's bytes at the DRAM
/// bandwidth, slowed when too few loads are in flight: the busy CTAs times
/// the streamed operand's bytes in their rings over the load latency) and
/// the L2 -> shared memory fill (the box rows the tiles load, rows not
/// 128-byte aligned costing more), times small factors that favour 2x1
/// clusters when many waves share B and charge the zero-filled rows of
/// partial tiles. `l2_bytes` is the device's L2 size, which tells the
/// H100's ranking of fused epilogues from the H200's (kSmallL2Bytes in the
/// source). `bound`, when given, receives the largest term.
double sm90_modelled_time(const Sm90TileConfig& config, const Problem& problem, int sm_count,
                          std::int64_t l2_bytes = kSm90DefaultL2Bytes, Sm90ModelBound* bound = nullptr);

/// preference() for `config`: higher for a smaller modelled time; always
/// far above the simt provider's. fp8 operators with fast accumulation rank
/// below every precise one (as cuBLASLt and torch._scaled_mm, epigemm's fp8
/// GEMMs accumulate precisely unless the user opts in): pick them with a
/// metadata filter on extra["fp8_accumulation"] == "fast".
int sm90_preference(const Sm90TileConfig& config, const Problem& problem, int sm_count,
                    std::int64_t l2_bytes = kSm90DefaultL2Bytes);

}  // namespace epigemm::detail
