// Compile-time configuration of the sm90 GEMM: operand types and majors, tile
// shape, pipeline depth, cluster shape, and everything derived from them (shared
// memory carve-up, TMA box sizes the host must encode, warpgroup tiling).
#pragma once

#include "sm90_chunk_cols.cuh"
#include "sm90_gemm_params.cuh"
#include "sm90_wgmma.cuh"

namespace epigemm::sm90 {

/// Which dimension of an operand is contiguous in memory.
/// A (M x K): K = row-major, MN = column-major.  B (K x N): K = column-major, MN = row-major.
enum class Major : int { K = 0, MN = 1 };

/// Largest dynamic shared memory one block may use on sm_90 (227 KB).
inline constexpr int kMaxSmemBytes = 232448;

/// The accumulator type of operand type T: int for s8/u8, else float.
template <class T>
struct AccumulatorOf {
  using type = float;
};
template <>
struct AccumulatorOf<signed char> {
  using type = int;
};
template <>
struct AccumulatorOf<unsigned char> {
  using type = int;
};


/// The tiles of a kernel's problems (GemmConfig's kTileKinds, a mask): tiles
/// wholly inside D, whose epilogue needs no bounds checks, and tiles that
/// cross D's M or N edge.
inline constexpr int kInsideTiles = 1;
inline constexpr int kEdgeTiles = 2;

/// Tile configuration. TA/TB: __half, __nv_bfloat16 (either major), or K-major
/// only: __nv_fp8_e4m3/__nv_fp8_e5m2, float (tf32: the low 13 mantissa bits
/// are ignored) or signed/unsigned char (s8/u8, int accumulators); TD: __half,
/// __nv_bfloat16, float, __nv_fp8_e4m3 or __nv_fp8_e5m2 (rounded to nearest
/// even, saturated to finite), int, signed char or unsigned char (nearest
/// even, saturated; NaN gives 0).
/// kBM x kBN: the CTA tile; its consumer warpgroups each own 64 x kWgN, with
/// kWgN = kBN (kBM = 128 or 192: two or three consumers stacked along M) or
/// kBN / 2 (kBM = 64), kWgN in {32, 64, 96, 128, 160, 192, 256} (96 and
/// 160: cooperative, 1x1; kBM = 192: cooperative, 1x1, one k-block a stage);
/// kStages: mbarrier ring depth; kClusterM: 1 or 2 (two CTAs along M share B
/// through TMA multicast);
/// kEpiSlots: output staging buffers (one chunk each: 64 rows x 128 bytes, or
/// x 64 bytes when the warpgroup tile is that narrow) per consumer warpgroup
/// and 64-row block (0 = one per output chunk, i.e. the whole row block);
/// kPingpong: the two consumers take alternate whole CTA tiles (kBM / 64
/// independent 64-row wgmma chains each), one's main loop running while the
/// other's epilogue does, instead of splitting each tile between them;
/// kPromoteKBlocks: 0 keeps every k-block's wgmmas in the f32 accumulators
/// (fp8 "fast accumulation": the tensor cores keep about 14 significant bits
/// of the running sum); 1 (fp8 only) has each k-block's wgmmas write one of
/// two fragments in turn, each added into the accumulators with f32 FADDs
/// while the next k-block's run ("promotion", precise accumulation);
/// kKGroup: k-blocks per pipeline stage, A's brought by one TMA load of a 4-D
/// box ({kBK, rows, k-blocks, 1} of the {kBK, M, K / kBK, L} view: K-major
/// A, K a multiple of kBK), B's by one such box when K-major (its rows cut
/// to N's like A's to M's), else by one box of kKGroup * kBK rows per
/// 64-column chunk; 1x1 clusters: fewer and larger loads, which streams a
/// skinny problem's weights faster;
/// kCutsTiles: false leaves stream-K's code out of a tile that could cut
/// (GemmParams::sk_tiles is then ignored): a quarter less code for ptxas;
/// kTileKinds: the kinds of tile the problems have (kInsideTiles,
/// kEdgeTiles or both); the epilogue is compiled once per kind: whole-tile
/// problems (M and N multiples of kBM and kBN, the host's promise) leave the
/// bounds-checked copy out, about half the code, and problems with no tile
/// wholly inside D (M below 64, or N below kWgN) the unchecked one;
/// kDColumnMajor: D's columns are contiguous (M stride 1; a 2-byte D): each
/// staged chunk holds one 128-byte line of its 64 rows per column, and TMA
/// stores it through a map of D as {M, N, L}.
template <class TA_, class TB_, class TD_, Major kMajorA_, Major kMajorB_, int kBM_, int kBN_,
          int kStages_, int kClusterM_, int kEpiSlots_ = 0, bool kPingpong_ = false,
          int kPromoteKBlocks_ = 0, int kKGroup_ = 1, bool kCutsTiles_ = true,
          int kTileKinds_ = kInsideTiles | kEdgeTiles, bool kDColumnMajor_ = false>
struct GemmConfig {
  using TA = TA_;
  using TB = TB_;
  using TD = TD_;
  using Acc = typename AccumulatorOf<TA_>::type;  ///< float, or int for s8/u8 A and B
  static constexpr Major kMajorA = kMajorA_;
  static constexpr Major kMajorB = kMajorB_;
  static constexpr int kBM = kBM_;
  static constexpr int kBN = kBN_;
  static constexpr int kStages = kStages_;
  static constexpr int kClusterM = kClusterM_;
  static constexpr bool kPingpong = kPingpong_;
  static constexpr int kPromoteKBlocks = kPromoteKBlocks_;
  static constexpr int kKGroup = kKGroup_;
  /// Whether tiles may be cut along K (GemmParams::sk_tiles), unless
  /// kCutsTiles is false: the pingpong tiles with one k-block per stage
  /// (stream-K of the last waves, or of every tile just over one wave), the
  /// cooperative 1x1 tiles with one (stream-K of every tile just over one
  /// wave) and the grouped-k cooperative 1x1 tiles (split-K in slices of
  /// K's stages), none with promotion nor of 192 rows (the host's
  /// Sm90TileConfig::may_cut_along_k); the others ignore sk_tiles, so their
  /// code stays that of whole tiles.
  static constexpr bool kStreamK =
      kCutsTiles_ && kPromoteKBlocks_ == 0 && kBM_ != 192 && (kPingpong_ ? kKGroup_ == 1 : kClusterM_ == 1);
  static constexpr int kTileKinds = kTileKinds_;
  static constexpr bool kDColumnMajor = kDColumnMajor_;
  static_assert(kTileKinds >= kInsideTiles && kTileKinds <= (kInsideTiles | kEdgeTiles), "a mask of tile kinds");

  // ---- operands and the instruction
  static constexpr int kInBytes = static_cast<int>(sizeof(TA));
  static constexpr int kBK = 128 / kInBytes;         ///< one 128-byte swizzle row of K
  static constexpr int kInstK = 32 / kInBytes;       ///< K of one wgmma: 8 (tf32), 16 (16-bit), 32 (8-bit)
  static constexpr int kKSteps = kBK / kInstK;       ///< wgmmas per stage and warpgroup
  static constexpr int kTransA = kMajorA == Major::MN ? 1 : 0;
  static constexpr int kTransB = kMajorB == Major::MN ? 1 : 0;

  // ---- threads: one producer warpgroup, two consumer warpgroups (three on
  // the cooperative 192-row tile, one per 64-row block)
  static constexpr int kConsumers = !kPingpong_ && kBM_ == 192 ? 3 : 2;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kProducerRegs = 40;
  /// What the register file leaves each consumer thread (64K registers).
  static constexpr int kConsumerRegs = kConsumers == 3 ? 152 : 232;
  static constexpr int kWgRows = kPingpong ? kBM / 64 : 1;    ///< 64-row blocks per consumer tile
  static constexpr int kWgAlongM = kPingpong ? 1 : kBM / 64;  ///< consumers stacked along M
  static constexpr int kWgAlongN = kPingpong ? 1 : kConsumers / kWgAlongM;
  static constexpr int kWgN = kBN / kWgAlongN;         ///< each consumer owns 64 x kWgN
  /// Consumers that read (and release) each pipeline stage.
  static constexpr int kStageReaders = kPingpong ? 1 : kConsumers;
  /// Named barriers 1 + c are consumer c's epilogue barriers; kOrderBarrier + c
  /// hands the tensor cores to pingpong consumer c (pingpong tiles have two
  /// consumers, so 3 is free for them); kTotalsBarrier joins the
  /// cooperative consumers to combine whole-output reductions (sm90_totals.cuh).
  static constexpr int kOrderBarrier = 3;
  static constexpr int kTotalsBarrier = 5;
  static constexpr int kAccRegs = kWgN / 2;            ///< accumulators per thread and row block

  // ---- shared memory (every block 1024-byte aligned for the 128-byte swizzle)
  /// An N-major B comes in chunks of kBChunkCols columns by kBK rows of K,
  /// one TMA box each, swizzled across their kBSwizzleBytes-wide rows: 64
  /// columns (128 bytes), or 32 (64 bytes) on a tile of 96, so that a stage
  /// loads only the tile's own columns. A tile of 160 (kBTail) loads two
  /// chunks of 64 and its last 32 columns in a tail chunk of their own
  /// (the host's Sm90TileConfig::b_chunk_cols and b_tail say why).
  static constexpr int kBChunkCols = kMajorB_ == Major::MN && kBN_ % 64 != 0 && kBN_ < 128 ? 32 : 64;
  static constexpr int kBSwizzleBytes = kMajorB_ == Major::MN ? kBChunkCols * kInBytes : 128;
  static constexpr int kBChunks = (kBN + kBChunkCols - 1) / kBChunkCols;
  /// The tail chunk: kBTailCols columns by kBK rows, swizzled 64 bytes wide,
  /// loaded through B's second map (tma_bt) after the kBMainChunks whole
  /// ones and multiplied by its own m64n32 wgmma.
  static constexpr bool kBTail = kMajorB_ == Major::MN && kBN_ % 64 == 32 && kBN_ > 128;
  static constexpr int kBTailCols = 32;
  static constexpr int kBTailBytes = kBTailCols * kBK * kInBytes;
  static constexpr int kBMainChunks = kBTail ? kBN / 64 : kBChunks;
  static constexpr int kTileABytes = kBM * 128;  ///< kBM x kBK
  /// B's room in a stage: kBN x kBK, rounded up to whole 64-column chunks.
  static constexpr int kTileBBytes = (kBN + 63) / 64 * 64 * 128;
  /// A stage: kKGroup k-blocks of A, then kKGroup k-blocks of B.
  static constexpr int kStageABytes = kKGroup * kTileABytes;
  static constexpr int kStageBytes = kKGroup * (kTileABytes + kTileBBytes);
  static constexpr int kMnChunkBytes = kBK * 128;  ///< MN-major A: 64 M elements x kBK rows
  static constexpr int kBMnChunkBytes = kBK * kBSwizzleBytes;  ///< MN-major B: kBChunkCols x kBK
  /// What a plain stage's loads bring (a K-major B only its kBN rows).
  static constexpr int kStageLoadBytes =
      kTileABytes + (kMajorB_ == Major::K ? kBN * 128 : kBMainChunks * kBMnChunkBytes + (kBTail ? kBTailBytes : 0));
  /// An MN-major B's chunks lie this far apart in a stage (a grouped stage
  /// holds each chunk's kKGroup k-blocks together, one TMA box of kKGroup *
  /// kBK rows), and one k-block of B this far from the last.
  static constexpr int kBChunkStride = kKGroup * kBMnChunkBytes;
  static constexpr int kBKBlockStride = kMajorB_ == Major::MN ? kBMnChunkBytes : kTileBBytes;
  static constexpr int kOutBytes = static_cast<int>(sizeof(TD));
  /// Output columns per staging chunk (see staged_chunk_cols).
  static constexpr int kChunkCols = staged_chunk_cols(kOutBytes, kWgN);
  static constexpr int kChunkRowBytes = kChunkCols * kOutBytes;  ///< 128, 64 or 32
  static constexpr int kChunkBytes = 64 * kChunkRowBytes;        ///< 64 rows
  /// D's tensor-map swizzle span in bytes (128, 64 or 32): the chunk row
  /// width, or a column-major D's line of 64 rows (128).
  static constexpr int kSwizzleD = kDColumnMajor ? 128 : kChunkRowBytes;
  static constexpr int kChunksPerWg = kWgN / kChunkCols;
  static constexpr int kEpiSlots = kEpiSlots_ == 0 ? kChunksPerWg : kEpiSlots_;
  static constexpr int kEpiRounds = kChunksPerWg / kEpiSlots;
  static constexpr int kEpiOffset = kStages * kStageBytes;
  /// Each of a consumer's row blocks has its own kEpiSlots slots, so a
  /// pingpong consumer can hold a staged input for its whole tile.
  static constexpr int kRowBlockSlotBytes = kEpiSlots * kChunkBytes;
  static constexpr int kEpiBytes = kConsumers * kWgRows * kRowBlockSlotBytes;
  static constexpr int kBarOffset = kEpiOffset + kEpiBytes;
  /// mbarriers: kStages "full" and kStages "empty" for the ring, one per
  /// consumer for its staged epilogue input (see StagesInput), and one that
  /// completes once the reduce outputs hold their identity.
  static constexpr int kBarBytes = (2 * kStages + kConsumers + 1) * 8;
  /// Dynamic shared memory to request (includes 1 KB of alignment slack).
  static constexpr int kSmemBytes = 1024 + kBarOffset + kBarBytes;
  /// Offset of byte `byte` of row `row` in a staged output chunk, swizzled as
  /// D's tensor map is: 16-byte unit u of the chunk's linear offset o moves to
  /// u ^ ((o / 128) % (kChunkRowBytes / 16)), i.e. unit ^ (row % 8) for
  /// 128-byte rows, unit ^ ((row / 2) % 4) for 64-byte rows and
  /// unit ^ ((row / 4) % 2) for 32-byte rows.
  static __device__ __forceinline__ constexpr int staged_offset(int row, int byte) {
    const int o = row * kChunkRowBytes + byte;
    return o ^ (((o >> 7) & (kChunkRowBytes / 16 - 1)) << 4);
  }
  /// A column-major D's chunk: offset of byte `byte` (row byte / 2) of column
  /// `col`'s 128-byte line, swizzled as its tensor map is (unit ^ (col % 8)).
  static __device__ __forceinline__ constexpr int staged_line_offset(int col, int byte) {
    const int o = col * 128 + byte;
    return o ^ (((o >> 7) & 7) << 4);
  }

  // ---- TMA boxes the host must encode (innermost first; 3-D with L; SWIZZLE_128B,
  // but an MN-major B's kBSwizzleBytes and D's kSwizzleD)
  /// A: K-major {kBK, kBM, 1}; MN-major {64, kBK, 1} issued kBM/64 times.
  static constexpr int kBoxA0 = kMajorA == Major::K ? kBK : 64;
  static constexpr int kBoxA1 = kMajorA == Major::K ? kBM : kBK;
  /// An MN-major B whose 64-column chunks do not divide among the cluster's
  /// CTAs (128x192 in 2x1: three) is divided along K instead: each CTA loads
  /// kBK / kClusterM rows of K of every chunk (whole swizzle atoms).
  static constexpr bool kBSplitsK = kMajorB_ == Major::MN && kClusterM_ > 1 && kBChunks % kClusterM_ != 0;
  /// B: K-major {kBK, kBN/kClusterM, 1}; MN-major {kBChunkCols, kBK, 1}
  /// issued kBChunks/kClusterM times, or {kBChunkCols, kBK/kClusterM, 1}
  /// kBChunks times (kBSplitsK); swizzled kBSwizzleBytes wide. B's tail
  /// (kBTail, its own map): {kBTailCols, kBK, 1}, swizzled 64 bytes wide.
  static constexpr int kBoxB0 = kMajorB == Major::K ? kBK : kBChunkCols;
  static constexpr int kBoxB1 = kMajorB == Major::K ? kBN / kClusterM : kBSplitsK ? kBK / kClusterM : kBK;
  /// D row-major (dims {N, M, L}): {kChunkCols, 64, 1}; column-major ({M, N,
  /// L}): {64, kChunkCols, 1}; swizzle kSwizzleD bytes.
  static constexpr int kBoxD0 = kDColumnMajor ? 64 : kChunkCols;
  static constexpr int kBoxD1 = kDColumnMajor ? kChunkCols : 64;

  static_assert(sizeof(TA) == sizeof(TB), "A and B must have the same element size");
  static_assert(kInBytes == 2 || (kMajorA == Major::K && kMajorB == Major::K),
                "8-bit and tf32 operands must be K-major");
  static_assert(kSameType<typename AccumulatorOf<TA_>::type, typename AccumulatorOf<TB_>::type>,
                "A and B must both be integers (s8/u8) or both floating point");
  static_assert(kBM == 64 || kBM == 128 || kBM == 192, "kBM must be 64, 128 or 192");
  static_assert(kBM != 192 || (!kPingpong && kClusterM == 1 && kKGroup == 1 && kPromoteKBlocks == 0),
                "the 192-row tile is cooperative, 1x1, of one k-block a stage, without promotion");
  // 128 per thread, but for the 128x192 pingpong tile's 192: its consumers
  // give the epilogue what is left of kConsumerRegs.
  static_assert(kWgRows * kAccRegs <= (kPingpong && kBN == 192 ? 192 : 128),
                "a consumer holds at most 128 accumulators per thread (192 on the 128x192 pingpong tile)");
  static_assert(kWgN == 32 || kWgN == 64 || kWgN == 96 || kWgN == 128 || kWgN == 160 || kWgN == 192 ||
                    kWgN == 256,
                "warpgroup tile width must be 32, 64, 96, 128, 160, 192 or 256");
  static_assert(kBN % 64 == 0 || (kBM >= 128 && kClusterM == 1 && kKGroup == 1 && !kPingpong),
                "a tile width of part chunks (96, 160) is for the cooperative 1x1 tiles of 128 or 192 rows");
  static_assert(kClusterM == 1 || kClusterM == 2, "cluster must be 1x1 or 2x1");
  static_assert(kMajorB == Major::K ? (kBN / kClusterM) % 8 == 0
                                    : kBChunks % kClusterM == 0 || (kBK / kClusterM) % 8 == 0,
                "B tile cannot be split across the cluster");
  static_assert(kOutBytes == 1 || kOutBytes == 2 || kOutBytes == 4,
                "D must be fp8, s8/u8, f16, bf16, f32 or int");
  static_assert(kChunkRowBytes == 128 || kChunkRowBytes == 64 || kChunkRowBytes == 32,
                "staged rows must be 32, 64 or 128 bytes");
  static_assert(!kDColumnMajor || kOutBytes == 2, "a column-major D is 2-byte (f16 or bf16)");
  static_assert(kWgN % kChunkCols == 0 && kChunksPerWg % kEpiSlots == 0,
                "staging slots must divide the warpgroup's output chunks");
  static_assert(kStages >= 2, "need at least two pipeline stages");
  static_assert(kPromoteKBlocks == 0 || kPromoteKBlocks == 1, "kPromoteKBlocks is 0 (no promotion) or 1");
  static_assert(kPromoteKBlocks == 0 || kInBytes == 1, "promotion is for fp8 operands only");
  static_assert(kPromoteKBlocks == 0 || !kPingpong, "promotion needs the cooperative schedule");
  static_assert(kPromoteKBlocks == 0 || kKGroup <= 2, "promotion takes one or two k-blocks per stage");
  static_assert(kPromoteKBlocks == 0 || kWgRows * kAccRegs <= 64,
                "promotion holds three accumulator sets: warpgroup tiles at most 128 columns wide");
  static_assert(kSmemBytes <= kMaxSmemBytes, "tile configuration exceeds shared memory");
  static_assert(kKGroup >= 1, "kKGroup counts k-blocks per stage");
  static_assert(kKGroup == 1 || (kMajorA == Major::K && kClusterM == 1 && !kPingpong),
                "grouped-k stages need a K-major A, a 1x1 cluster and the cooperative schedule");
  static_assert(kKGroup * kBK <= 256 || kMajorB == Major::K, "a grouped N-major B box is at most 256 rows of K");
};

}  // namespace epigemm::sm90
