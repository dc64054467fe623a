// The sm90 GEMM's run-time launch parameters (problem extents, tile order,
// operand flags, the outputs' edge-chunk pointers, stream-K and reduction
// state). Plain data, compiled for the device and for the host, which fills
// the same struct it passes to the kernel.
#pragma once

namespace epigemm::sm90 {

/// Bits of GemmParams::flags.
enum GemmFlags : unsigned {
  kABatched = 1u,  ///< clear: one A serves every batch (its tensor map has L = 1)
  kBBatched = 2u,  ///< clear: one B serves every batch
  kCBatched = 4u,  ///< clear: one staged epilogue input serves every batch
  /// A (B) is read by one tile row (column) at a time: its loads ask L2 to
  /// evict those lines first (see l2_evict_first_policy).
  kAEvictFirst = 8u,
  kBEvictFirst = 16u,
};

/// Runtime problem description: filled by the host (sm90_gemm_params), read by
/// the kernel.
struct GemmParams {
  int M = 0, N = 0, K = 0, L = 1;
  int group_m = 8;  ///< cluster rows per group of the swizzled tile order (>= 1)
  /// GemmFlags: which operands are batched, and which loads ask L2 to evict
  /// their lines first.
  unsigned flags = kABatched | kBBatched | kCBatched;
  /// Grouped-k tiles (kKGroup > 1) only: rows of each k-block's A box, a
  /// multiple of 8 no larger than kBM (the rows of M a tile can hold, so
  /// that a skinny A is not padded by TMA: zero-filled rows cost as much as
  /// loaded ones). wgmma still reads 64 rows; the rows past these belong to
  /// output rows past M and are never stored.
  int a_box_rows = 0;
  /// Grouped-k tiles with a K-major B only: rows of each k-block's B box,
  /// likewise a multiple of 8 no larger than kBN (the columns of N a tile
  /// can hold); wgmma still reads kBN rows, the rows past these belonging to
  /// output columns past N. kBN for an N-major B.
  int b_box_rows = 0;
  /// The tile order's divisors as FastDivisors (fast_divide.cuh): the
  /// cluster tiles of one group of rows (group_m * tiles along N), group_m,
  /// and the rows of the last group when fewer (else group_m again); their
  /// shifts in bytes 0, 1 and 2 of order_shifts. The host fills them.
  unsigned span_magic = 1, group_magic = 1, tail_magic = 1;
  unsigned order_shifts = 0;
  /// D itself (row-major, element (l, m, n) at d + l*d_batch + m*ldd + n), used
  /// only for the edge chunks that TMA cannot store: a TMA store writes whole
  /// 16-byte units, so when N * sizeof(TD) is not a multiple of 16 the last
  /// columns of a row would spill into D's padding.
  void* d = nullptr;
  long long ldd = 0;
  long long d_batch = 0;
  /// The hook's staged output (see StagesOutput), likewise for its edge chunks.
  void* f = nullptr;
  long long ldf = 0;
  long long f_batch = 0;
  /// Stream-K: the last sk_tiles (cluster) tiles of the schedule are cut
  /// along K into one equal range per CTA (0: every tile whole; see
  /// sm90_work_list.cuh). Then sk_flags holds two zeroed words per CTA and
  /// sk_partials kBM * kBN words per CTA, where the CTA that computes a cut
  /// tile's first k-blocks leaves their sum for the one that finishes it;
  /// the finisher sets the flag back to zero.
  int sk_tiles = 0;
  /// The hook's reduce outputs: identity_flag is null when a fill kernel
  /// launched just before the GEMM writes their identity (see
  /// AwaitsIdentity); else a counter that the grid's first CTA raises by
  /// one once it has written them itself (few elements), which every CTA
  /// waits to reach identity_target (wrapping: the host counts the launches
  /// on the counter) before its first reduction.
  unsigned identity_target = 0;
  unsigned* sk_flags = nullptr;
  unsigned* sk_partials = nullptr;
  unsigned* identity_flag = nullptr;
};
// Past 128 bytes (and likewise as a __grid_constant__ parameter) NVRTC
// compiled the precise fp8 kernel differently, 72 instructions longer, and
// it ran 8% slower (8192^3 on the H200); at most 128 bytes its SASS is the
// same whatever the fields.
static_assert(sizeof(GemmParams) <= 128, "GemmParams must stay within 128 bytes");

}  // namespace epigemm::sm90
