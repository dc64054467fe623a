// The sm90 (Hopper, sm_90a) GEMM kernel: D[l] = epi(A[l] x B[l]). TMA loads A
// and B into 128-byte-swizzled shared memory, one producer warpgroup feeds two
// or three consumer warpgroups (wgmma; cooperative or pingpong) through an mbarrier
// ring, a persistent grid walks the tiles (the last waves' cut along K by
// stream-K), 2x1 clusters share B by TMA multicast, and D leaves by TMA store.
#pragma once

#include "sm90_epilogue.cuh"
#include "sm90_gemm_config.cuh"
#include "sm90_ptx.cuh"
#include "sm90_tile_scheduler.cuh"
#include "sm90_totals.cuh"
#include "sm90_work_list.cuh"

namespace epigemm::sm90 {

/// Shared-memory addresses of one CTA's buffers (all 1024-byte aligned).
template <class Cfg>
struct SmemLayout {
  u32 base;
  __device__ __forceinline__ u32 tile_a(int stage) const { return base + stage * Cfg::kStageBytes; }
  __device__ __forceinline__ u32 tile_b(int stage) const { return tile_a(stage) + Cfg::kStageABytes; }
  /// Consumer `consumer`'s output staging slots for its 64-row block `row_block`.
  __device__ __forceinline__ u32 staging(int consumer, int row_block = 0) const {
    return base + Cfg::kEpiOffset + (consumer * Cfg::kWgRows + row_block) * Cfg::kRowBlockSlotBytes;
  }
  __device__ __forceinline__ u32 full_bar(int stage) const { return base + Cfg::kBarOffset + 8 * stage; }
  __device__ __forceinline__ u32 empty_bar(int stage) const {
    return base + Cfg::kBarOffset + 8 * (Cfg::kStages + stage);
  }
  /// Completes when a consumer's staged epilogue input has landed.
  __device__ __forceinline__ u32 staged_bar(int consumer) const {
    return base + Cfg::kBarOffset + 8 * (2 * Cfg::kStages + consumer);
  }
  /// Completes once the reduce outputs hold their identity (IdentityWait).
  __device__ __forceinline__ u32 identity_bar() const {
    return base + Cfg::kBarOffset + 8 * (2 * Cfg::kStages + Cfg::kConsumers);
  }
};

/// A position in the mbarrier ring: its stage and the parity of the pass.
template <int kStages>
struct RingPosition {
  int stage = 0;
  u32 phase = 0;
  __device__ __forceinline__ void next() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
  /// Moves past `count` stages (the other pingpong consumer's tile).
  __device__ __forceinline__ void skip(int count) {
    const int at = stage + count;
    stage = at % kStages;
    phase ^= static_cast<u32>(at / kStages) & 1u;
  }
};

/// Pipeline stages of a whole tile: k-blocks, or groups of kKGroup of them
/// (the unit of the work list's ranges along K).
template <class Cfg>
__device__ __forceinline__ int stage_count(int k_blocks) {
  return (k_blocks + Cfg::kKGroup - 1) / Cfg::kKGroup;
}

/// Skinny problems (M <= 32) on the grouped 64-row tiles, whose consumers
/// split N: wgmma puts output rows 16w..16w+15 in warp w of a warpgroup, so
/// every row lies in warps 0-1 of both consumers, and warp 0 of both runs
/// on SM sub-partition 0 (global warps 4 and 8), which then computes the
/// whole epilogue. Spread, the producer lands A 32 rows (4 KB) into the
/// stage's A region (kKGroup x 64 rows, of which at most 32 per k-block are
/// loaded), consumer 0 reads it from there and consumer 1 from 32 rows
/// earlier, so consumer 1's rows land in its warps 2-3 (sub-partitions 2-3).
/// Consumer 1 then numbers its threads from warp 2 (tid ^ 64) for
/// everything after the wgmmas, so its warps 2-3 take rows 0-31 and warps
/// 0-1 rows 32-63, which lie past M: no row is negative and every bounds
/// check stays as it is. Only kernels whose problems have edge tiles alone
/// (M < 64) carry the test.
template <class Cfg>
__device__ __forceinline__ bool spreads_rows(const GemmParams& p) {
  if constexpr (Cfg::kKGroup > 1 && Cfg::kWgAlongN == 2 && Cfg::kTileKinds == kEdgeTiles)
    return p.a_box_rows <= 32;
  else
    return false;
}
/// Where the producer lands A in a stage's A region (see spreads_rows).
inline constexpr u32 kSpreadABytes = 32 * 128;

/// The boxes of a plain (one k-block) stage that lie at least partly inside
/// A and B, and the bytes they bring. A box wholly past M or N is not
/// loaded: TMA fills one with zeros far more slowly than it loads data (H100,
/// bf16, 128x160, B row-major, GEMM alone, ncu: 1536x1664x4096, whose last
/// tile column's second 64-column chunk lay wholly past N, 42.4 us with the
/// box against 33.5 without; 1408x1792x4096 37.2 against 33.6), and the
/// accumulator rows and columns it feeds lie outside D, where the checked
/// epilogue reads none (whatever stale data the slot holds). Where they
/// multicast, both CTAs of a cluster count the same boxes: they share the
/// tile column, and the loads each leaves out are those neither issues.
/// Of `boxes` boxes `width` rows (or columns) each, laid from a tile's
/// start `left` rows (or columns) before the end of M (or N), how many lie
/// at least partly inside.
__device__ __forceinline__ int boxes_inside(int left, int boxes, int width) {
  if (left >= boxes * width) return boxes;
  return left <= 0 ? 0 : (left + width - 1) / width;
}

/// StageBoxes of a tile wholly inside M and N: every box, as constants.
template <class Cfg>
struct AllStageBoxes {
  static constexpr int a_chunks = Cfg::kMajorA == Major::K ? 1 : Cfg::kBM / 64;
  static constexpr int b_chunks = Cfg::kMajorB == Major::K ? Cfg::kClusterM : Cfg::kBMainChunks;
  static constexpr bool b_tail = Cfg::kBTail;
  static constexpr u32 bytes = Cfg::kStageLoadBytes;
};

template <class Cfg>
struct StageBoxes {
  int a_chunks = AllStageBoxes<Cfg>::a_chunks;  ///< A's boxes (M-major: 64-row chunks)
  int b_chunks = AllStageBoxes<Cfg>::b_chunks;  ///< B's (K-major: one per rank)
  bool b_tail = AllStageBoxes<Cfg>::b_tail;
  u32 bytes = AllStageBoxes<Cfg>::bytes;

  __device__ __forceinline__ StageBoxes(const GemmParams& p, const TileCoord& tile) {
    const int rows = p.M - tile.m0, cols = p.N - tile.n0;
    if constexpr (Cfg::kMajorA == Major::K) {
      a_chunks = boxes_inside(rows, 1, Cfg::kBM);
      bytes -= static_cast<u32>((1 - a_chunks) * Cfg::kTileABytes);
    } else {
      a_chunks = boxes_inside(rows, Cfg::kBM / 64, 64);
      bytes -= static_cast<u32>((Cfg::kBM / 64 - a_chunks) * Cfg::kMnChunkBytes);
    }
    if constexpr (Cfg::kMajorB == Major::K) {
      constexpr int kRows = Cfg::kBN / Cfg::kClusterM;  // each rank's rows of B
      b_chunks = boxes_inside(cols, Cfg::kClusterM, kRows);
      bytes -= static_cast<u32>((Cfg::kClusterM - b_chunks) * kRows * 128);
    } else {
      b_chunks = boxes_inside(cols, Cfg::kBMainChunks, Cfg::kBChunkCols);
      bytes -= static_cast<u32>((Cfg::kBMainChunks - b_chunks) * Cfg::kBMnChunkBytes);
      if constexpr (Cfg::kBTail) {
        if (cols <= Cfg::kBMainChunks * Cfg::kBChunkCols) {
          b_tail = false;
          bytes -= static_cast<u32>(Cfg::kBTailBytes);
        }
      }
    }
  }
};

/// The producer's k-blocks of one tile (one k-block a stage): the boxes
/// `boxes` counts inside M and N, their bytes expected on the stage's
/// full barrier.
template <class Cfg, class Boxes>
__device__ __forceinline__ void load_tile_stages(const SmemLayout<Cfg>& smem, const CUtensorMap* tma_a,
                                                 const CUtensorMap* tma_b, const CUtensorMap* tma_bt,
                                                 const Boxes& boxes, const TileCoord& tile, const WorkItem& item,
                                                 int rank, int la, int lb, bool hint_a, bool hint_b, u64 evict_first,
                                                 RingPosition<Cfg::kStages>& ring) {
  for (int kb = item.k_begin; kb < item.k_end; ++kb) {
    // Wait until every consumer in the cluster has released this stage.
    mbar_wait(smem.empty_bar(ring.stage), ring.phase ^ 1);
    const u32 full = smem.full_bar(ring.stage);
    mbar_arrive_expect_tx(full, boxes.bytes);
    const int k0 = kb * Cfg::kBK;
    const u32 a = smem.tile_a(ring.stage);
    if constexpr (Cfg::kMajorA == Major::K) {
      if (boxes.a_chunks > 0)
        tma_load_3d(a, tma_a, full, hint_a, evict_first, k0, tile.m0, la);  // kBM rows x 128 B
    } else {
#pragma unroll
      for (int c = 0; c < Cfg::kBM / 64; ++c)  // chunk c: kBK rows x 64 M elements
        if (c < boxes.a_chunks)
          tma_load_3d(a + c * Cfg::kMnChunkBytes, tma_a, full, hint_a, evict_first, tile.m0 + 64 * c, k0, la);
    }
    const u32 b = smem.tile_b(ring.stage);
    constexpr u16 kMask = static_cast<u16>((1 << Cfg::kClusterM) - 1);
    if constexpr (Cfg::kMajorB == Major::K) {
      constexpr int kRows = Cfg::kBN / Cfg::kClusterM;
      const u32 dst = b + rank * kRows * 128;
      if constexpr (Cfg::kClusterM == 1)
        tma_load_3d(dst, tma_b, full, hint_b, evict_first, k0, tile.n0, lb);
      else if (rank < boxes.b_chunks)
        tma_load_3d_multicast(dst, tma_b, full, kMask, hint_b, evict_first, k0, tile.n0 + rank * kRows, lb);
    } else if constexpr (Cfg::kBSplitsK) {
      constexpr int kRows = Cfg::kBK / Cfg::kClusterM;  // this CTA's rows of K of every chunk
#pragma unroll
      for (int chunk = 0; chunk < Cfg::kBChunks; ++chunk)
        if (chunk < boxes.b_chunks)
          tma_load_3d_multicast(b + chunk * Cfg::kBMnChunkBytes + rank * kRows * Cfg::kBSwizzleBytes, tma_b,
                                full, kMask, hint_b, evict_first, tile.n0 + Cfg::kBChunkCols * chunk,
                                k0 + rank * kRows, lb);
    } else if constexpr (Cfg::kBTail) {  // 1x1: whole chunks, then the tail through its own map
#pragma unroll
      for (int chunk = 0; chunk < Cfg::kBMainChunks; ++chunk)
        if (chunk < boxes.b_chunks)
          tma_load_3d(b + chunk * Cfg::kBChunkStride, tma_b, full, hint_b, evict_first,
                      tile.n0 + Cfg::kBChunkCols * chunk, k0, lb);
      if (boxes.b_tail)
        tma_load_3d(b + Cfg::kBMainChunks * Cfg::kBChunkStride, tma_bt, full, hint_b, evict_first,
                    tile.n0 + Cfg::kBChunkCols * Cfg::kBMainChunks, k0, lb);
    } else {
      constexpr int kChunks = Cfg::kBChunks / Cfg::kClusterM;
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const int chunk = rank * kChunks + c;
        if (chunk >= boxes.b_chunks) continue;
        const u32 dst = b + chunk * Cfg::kBMnChunkBytes;
        const int n0 = tile.n0 + Cfg::kBChunkCols * chunk;
        if constexpr (Cfg::kClusterM == 1)
          tma_load_3d(dst, tma_b, full, hint_b, evict_first, n0, k0, lb);
        else
          tma_load_3d_multicast(dst, tma_b, full, kMask, hint_b, evict_first, n0, k0, lb);
      }
    }
    ring.next();
  }
}

/// Producer: one elected thread issues the TMA loads of every k-block of every
/// tile this cluster owns, kStages ahead of the consumers. With a 2x1 cluster
/// each CTA loads its own A and half of B, multicasting that half to both.
template <class Cfg>
__device__ __forceinline__ void produce(const SmemLayout<Cfg>& smem, const CUtensorMap* tma_a,
                                        const CUtensorMap* tma_b, const CUtensorMap* tma_bt, const GemmParams& p) {
  const TileScheduler<Cfg::kBM, Cfg::kBN, Cfg::kClusterM> sched(p);
  const int rank = Cfg::kClusterM > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int k_blocks = (p.K + Cfg::kBK - 1) / Cfg::kBK;
  const bool hint_a = (p.flags & kAEvictFirst) != 0, hint_b = (p.flags & kBEvictFirst) != 0;
  const u64 evict_first = l2_evict_first_policy();
  const WorkList<!Cfg::kPingpong> work(sched.total, stage_count<Cfg>(k_blocks), gridDim.x / Cfg::kClusterM,
                      blockIdx.x / Cfg::kClusterM, Cfg::kStreamK ? p.sk_tiles : 0);
  RingPosition<Cfg::kStages> ring;
  for (int i = 0;; ++i) {
    const WorkItem item = work.item(i);
    if (item.tile < 0) break;
    const TileCoord tile = sched.tile(item.tile, rank);
    const int la = p.flags & kABatched ? tile.l : 0;
    const int lb = p.flags & kBBatched ? tile.l : 0;
    if constexpr (Cfg::kKGroup > 1) {
      // One 4-D box per operand and stage: kKGroup k-blocks of p.a_box_rows
      // rows of A and p.b_box_rows rows of B (k-blocks past K arrive as
      // zeros); an N-major B in one box of kKGroup * kBK rows per 64-column chunk.
      // With a K-major B and a single row of tiles, each CTA streams its own
      // rows of B, all at the same K offset; those addresses lie a multiple
      // of 64 rows apart and crowd the same DRAM channels. On 64x64 x4
      // (64 rows x 512 bytes per box) starting each tile column one stage
      // further along K (and wrapping) spreads them: 1.5% faster at M = 16;
      // on 16-bit 64x64 x2 0.5-1%. The 64x128 x2 tile measured 1% slower with it.
      // A tile cut along K streams its own range of groups, unstaggered.
      u32 bytes = static_cast<u32>(Cfg::kKGroup * (p.a_box_rows + p.b_box_rows) * 128);
      // An N-major B's chunks wholly past N are left out (see StageBoxes).
      int b_chunks = Cfg::kBChunks;
      if constexpr (Cfg::kMajorB == Major::MN) {
        b_chunks = boxes_inside(p.N - tile.n0, Cfg::kBChunks, Cfg::kBChunkCols);
        bytes -= static_cast<u32>((Cfg::kBChunks - b_chunks) * Cfg::kBChunkStride);
      }
      const u32 a_at = spreads_rows<Cfg>(p) ? kSpreadABytes : 0u;
      const int groups = item.k_count();
      constexpr bool kStaggers = Cfg::kMajorB == Major::K &&
                                 (Cfg::kKGroup >= 4 || (Cfg::kKGroup == 2 && Cfg::kBN == 64 && Cfg::kInBytes == 2));
      const int first =
          kStaggers && p.M <= Cfg::kBM && item.role == WorkRole::whole ? (tile.n0 / Cfg::kBN) % groups : 0;
      for (int g = 0; g < groups; ++g) {
        const int kg = item.k_begin + (first + g < groups ? first + g : first + g - groups);
        mbar_wait(smem.empty_bar(ring.stage), ring.phase ^ 1);
        const u32 full = smem.full_bar(ring.stage);
        mbar_arrive_expect_tx(full, bytes);
        tma_load_4d(smem.tile_a(ring.stage) + a_at, tma_a, full, hint_a, evict_first, 0, tile.m0, kg * Cfg::kKGroup,
                    la);
        if constexpr (Cfg::kMajorB == Major::K) {
          tma_load_4d(smem.tile_b(ring.stage), tma_b, full, hint_b, evict_first, 0, tile.n0, kg * Cfg::kKGroup, lb);
        } else {
#pragma unroll
          for (int c = 0; c < Cfg::kBChunks; ++c)
            if (c < b_chunks)
              tma_load_3d(smem.tile_b(ring.stage) + c * Cfg::kBChunkStride, tma_b, full, hint_b, evict_first,
                          tile.n0 + Cfg::kBChunkCols * c, kg * Cfg::kKGroup * Cfg::kBK, lb);
        }
        ring.next();
      }
    } else if (tile.m0 + Cfg::kBM <= p.M && tile.n0 + Cfg::kBN <= p.N) {
      // Inside tiles load every box with constant counts: counting them
      // from M and N for every tile too made 64x128 2-10% slower at 1024^3
      // and 768^3 (H100, flushed: this path took 0.907-0.978 of its time).
      load_tile_stages<Cfg>(smem, tma_a, tma_b, tma_bt, AllStageBoxes<Cfg>{}, tile, item, rank, la, lb, hint_a, hint_b,
                            evict_first, ring);
    } else {
      load_tile_stages<Cfg>(smem, tma_a, tma_b, tma_bt, StageBoxes<Cfg>(p, tile), tile, item, rank, la, lb, hint_a,
                            hint_b, evict_first, ring);
    }
  }
}

/// The reduce outputs' identity written by the GEMM itself (the host set
/// p.identity_flag): in the grid's first CTA one warp of the producer
/// warpgroup writes it and raises the counter; in every CTA that warp's
/// first lane waits for the counter to reach p.identity_target and completes
/// the CTA's identity barrier, long before a consumer first reduces. Only
/// the first CTA writes, so no CTA waits for one that may not have started.
template <class Epi>
__device__ __forceinline__ void provide_identity(const Epi& epi, const GemmParams& p, u32 identity_bar, int lane) {
  if (blockIdx.x == 0) {
    epi.fill_identity(lane, p.L, p.M, p.N);
    __threadfence();
    __syncwarp();
    if (lane == 0) counter_increment_release_gpu(p.identity_flag);
  }
  if (lane == 0) {
    counter_acquire_gpu(p.identity_flag, p.identity_target);
    mbar_arrive(identity_bar);
  }
}

/// Releases a stage: one thread per consumer warpgroup arrives on the stage's
/// empty barrier in every CTA of the cluster (their producers multicast into us).
template <class Cfg>
__device__ __forceinline__ void release_stage(const SmemLayout<Cfg>& smem, int stage, int tid) {
  if (tid != 0) return;
  if constexpr (Cfg::kClusterM == 1) {
    mbar_arrive(smem.empty_bar(stage));
  } else {
#pragma unroll
    for (int r = 0; r < Cfg::kClusterM; ++r)
      mbar_arrive_cluster(map_to_cta(smem.empty_bar(stage), static_cast<u32>(r)));
  }
}

/// Two accumulators as one 8-byte vector. (As floats or ints, never as
/// their bits: bit casts made the compiler carry the accumulators through
/// the main loop in integer registers, with moves ptxas serialized the
/// wgmmas for.)
__device__ __forceinline__ float2 acc_pair(float a, float b) { return make_float2(a, b); }
__device__ __forceinline__ int2 acc_pair(int a, int b) { return make_int2(a, b); }
template <class Acc>
using AccPair = decltype(acc_pair(Acc(), Acc()));

/// Stream-K: where consumer part `part` of CTA `cta` leaves a partial sum:
/// each thread's accumulators in pairs, pair v of thread tid at v * 128 +
/// tid, so that a warp writes 256 contiguous bytes.
template <class Cfg>
__device__ __forceinline__ AccPair<typename Cfg::Acc>* partial_slot(const GemmParams& p, int cta, int part) {
  constexpr int kPartWords = Cfg::kWgRows * Cfg::kAccRegs * 128;  // the CTA's parts fill kBM * kBN words
  return reinterpret_cast<AccPair<typename Cfg::Acc>*>(p.sk_partials + static_cast<long long>(cta) * Cfg::kBM * Cfg::kBN +
                                                       part * kPartWords);
}

/// Leaves this consumer's sum over the first k-blocks of a cut tile for the
/// CTA that finishes it (named barrier `barrier` joins the warpgroup).
template <class Cfg>
__device__ __forceinline__ void write_partial(const GemmParams& p, int part,
                                              const typename Cfg::Acc (&acc)[Cfg::kWgRows][Cfg::kAccRegs], int tid,
                                              int barrier) {
  AccPair<typename Cfg::Acc>* slot = partial_slot<Cfg>(p, blockIdx.x, part);
#pragma unroll
  for (int r = 0; r < Cfg::kWgRows; ++r)
#pragma unroll
    for (int v = 0; v < Cfg::kAccRegs / 2; ++v)
      __stcg(slot + (r * Cfg::kAccRegs / 2 + v) * 128 + tid, acc_pair(acc[r][2 * v], acc[r][2 * v + 1]));
  named_barrier_sync(barrier, 128);
  if (tid == 0) flag_release_gpu(p.sk_flags + Cfg::kConsumers * blockIdx.x + part, 1u);
}

/// Adds the partial sums the `writers` CTAs (clusters) just before this one
/// left for the cut tile this consumer finishes, nearest first: acc holds
/// the later k-blocks' sum, so the order of the additions is fixed. The
/// first thread waits for the flags and clears them for the next launch.
template <class Cfg>
__device__ __forceinline__ void add_partial(const GemmParams& p, int part,
                                            typename Cfg::Acc (&acc)[Cfg::kWgRows][Cfg::kAccRegs], int tid,
                                            int barrier, int writers) {
  if (tid == 0) {
    for (int w = 1; w <= writers; ++w) {
      unsigned* flag = p.sk_flags + Cfg::kConsumers * (static_cast<int>(blockIdx.x) - w * Cfg::kClusterM) + part;
      flag_acquire_gpu(flag, 1u);
      flag_store(flag, 0u);
    }
  }
  named_barrier_sync(barrier, 128);
  for (int w = 1; w <= writers; ++w) {
    const AccPair<typename Cfg::Acc>* slot =
        partial_slot<Cfg>(p, static_cast<int>(blockIdx.x) - w * Cfg::kClusterM, part);
#pragma unroll
    for (int r = 0; r < Cfg::kWgRows; ++r)
#pragma unroll
      for (int v = 0; v < Cfg::kAccRegs / 2; ++v) {
        const AccPair<typename Cfg::Acc> x = __ldcg(slot + (r * Cfg::kAccRegs / 2 + v) * 128 + tid);
        acc[r][2 * v] += x.x;
        acc[r][2 * v + 1] += x.y;
      }
  }
}

/// One k-step's wgmmas into a row block's accumulators: one m64n(kWgN), or
/// with B's tail chunk (Cfg::kBTail) one over the whole chunks (desc_b) and
/// an m64n32 over the tail (desc_bt) into the fragment's last registers. An
/// m64nN fragment holds its columns in groups of 8 in register order, so the
/// two laid end to end are the m64n(kWgN) one and the epilogue reads them as
/// such.
template <class Cfg>
__device__ __forceinline__ void wgmma_k_step(typename Cfg::Acc (&acc)[Cfg::kAccRegs], u64 desc_a, u64 desc_b,
                                             u64 desc_bt, int scale_d) {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  if constexpr (Cfg::kBTail) {
    using Acc = typename Cfg::Acc;
    constexpr int kMainN = Cfg::kWgN - Cfg::kBTailCols;
    wgmma_ss<TA, TB, kMainN, Cfg::kTransA, Cfg::kTransB>(*reinterpret_cast<Acc(*)[kMainN / 2]>(&acc[0]), desc_a,
                                                         desc_b, scale_d);
    wgmma_ss<TA, TB, Cfg::kBTailCols, Cfg::kTransA, Cfg::kTransB>(
        *reinterpret_cast<Acc(*)[Cfg::kBTailCols / 2]>(&acc[kMainN / 2]), desc_a, desc_bt, scale_d);
  } else {
    wgmma_ss<TA, TB, Cfg::kWgN, Cfg::kTransA, Cfg::kTransB>(acc, desc_a, desc_b, scale_d);
  }
}

/// The main loop of one tile with promotion (fp8 precise accumulation,
/// cooperative, Cfg::kPromoteKBlocks = 1): each k-block's wgmmas write one of
/// two fragments in turn (scale-d = 0 at the first k-step), and while the
/// next k-block's run, this warpgroup waits for the previous ones
/// (wgmma_wait<1>), releases their stage and adds their fragment into `acc`
/// with f32 FADDs, so its own wgmmas keep the tensor cores busy through the
/// adds. (One fragment, waited for with wgmma_wait<0> before the adds, left
/// that to the other consumer and ran 11-13% slower at 8192^3.) The k-blocks
/// go in pairs so that each fragment stays in its own registers. A grouped
/// stage (Cfg::kKGroup = 2) holds one pair: A's second k-block
/// a_kblock_bytes after its first, B's b_kblock_bytes (TMA's zeros past K
/// in a partial last group). Releases every stage but the last, whose index
/// it returns (its wgmmas are complete); `acc` holds the tile's sum on
/// return. `issued(s)` runs once stage s's (first) wgmmas are issued.
template <class Cfg, class Issued>
__device__ __forceinline__ int mainloop_promoted(const SmemLayout<Cfg>& smem, float (&acc)[Cfg::kAccRegs],
                                                 u64 desc_a, u64 desc_b, u32 a_kblock_bytes, u32 b_kblock_bytes,
                                                 RingPosition<Cfg::kStages>& ring, int stages, int tid,
                                                 const Issued& issued) {
  static_assert(Cfg::kKGroup == 1 || Cfg::kKGroup == 2, "promotion takes one or two k-blocks per stage");
  constexpr bool kPaired = Cfg::kKGroup == 2;
  constexpr u32 kStep = 32;  // one wgmma's K slice of a K-major 128-byte row
  using Fragment = float[Cfg::kAccRegs];
  Fragment even, odd;  // the fragments of the even and the odd k-blocks
#pragma unroll
  for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = 0.0f;
  const int k_blocks = stages * Cfg::kKGroup;
  // Issues k-block kb's wgmmas into `part` (`second`: the second k-block of
  // a paired stage, whose stage the first one waited for); returns the stage
  // they read.
  const auto issue = [&](Fragment& part, int kb, bool second) {
    const int stage = ring.stage;
    if (!second) mbar_wait(smem.full_bar(stage), ring.phase);
    const u32 stage_off = static_cast<u32>(stage * Cfg::kStageBytes);
    const u32 a_off = stage_off + (second ? a_kblock_bytes : 0u), b_off = stage_off + (second ? b_kblock_bytes : 0u);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < Cfg::kKSteps; ++ks)
      wgmma_ss<typename Cfg::TA, typename Cfg::TB, Cfg::kWgN, 0, 0>(
          part, desc_advance(desc_a, a_off + ks * kStep), desc_advance(desc_b, b_off + ks * kStep), ks == 0 ? 0 : 1);
    wgmma_commit();
    if (!second) issued(kb / Cfg::kKGroup);
    if (!kPaired || second) ring.next();
    return stage;
  };
  // `part`'s sum into acc, once a wait has retired its wgmmas.
  const auto add = [&](Fragment& part) {
    fence_regs(part);
#pragma unroll
    for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] += part[i];
  };
  // Paired stages: an even k-block's stage goes back with the odd one after it.
  int even_stage = issue(even, 0, false);
  int kb = 1;
  for (; kb + 1 < k_blocks; kb += 2) {
    const int odd_stage = issue(odd, kb, kPaired);
    wgmma_wait<1>();  // the even k-block's wgmmas are done; the odd one's run
    if (!kPaired) release_stage(smem, even_stage, tid);
    add(even);
    even_stage = issue(even, kb + 1, false);
    wgmma_wait<1>();
    release_stage(smem, odd_stage, tid);
    add(odd);
  }
  if (kb == k_blocks) {  // the last k-block is even (never when paired)
    wgmma_wait<0>();
    add(even);
    return even_stage;
  }
  const int odd_stage = issue(odd, kb, kPaired);
  wgmma_wait<1>();
  if (!kPaired) release_stage(smem, even_stage, tid);
  add(even);
  wgmma_wait<0>();
  add(odd);
  return odd_stage;
}

/// Consumer warpgroup `consumer` (0 .. kConsumers - 1): wgmma over the k-blocks of each tile
/// into kWgRows (T128,V(kWgN/2)) -> (M64,N kWgN) register fragments, then the
/// epilogue. Cooperative: every consumer works on every tile, each on its
/// 64 x kWgN part. Pingpong: consumer c takes tiles c, c + 2, ... of the CTA's
/// sequence whole (kWgRows independent accumulator chains keep the tensor
/// cores busy), and the two hand the tensor cores to each other between main
/// loops (order barriers), so one's epilogue runs while the other's main loop
/// does. The hand-over also keeps a consumer from waiting on a stage more than
/// one pass of the ring ahead, which the mbarrier parity could not tell apart.
template <class Cfg, class Epi>
__device__ __forceinline__ void consume(const SmemLayout<Cfg>& smem, const CUtensorMap* tma_d,
                                        const CUtensorMap* tma_c, const CUtensorMap* tma_f, const GemmParams& p,
                                        const Epi& epi, int consumer) {
  const TileScheduler<Cfg::kBM, Cfg::kBN, Cfg::kClusterM> sched(p);
  const int rank = Cfg::kClusterM > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int k_blocks = (p.K + Cfg::kBK - 1) / Cfg::kBK;
  // Consumer 1 of a spread skinny tile numbers its threads from warp 2
  // (spreads_rows); the hardware's warp still picks the wgmma fragment.
  const bool spread = spreads_rows<Cfg>(p);
  const int tid = static_cast<int>(threadIdx.x % 128) ^ (spread && consumer == 1 ? 64 : 0);
  // This warpgroup's 64 x kWgN part of the CTA tile.
  const int wg_m = Cfg::kWgAlongM > 1 ? consumer : 0;
  const int wg_n = Cfg::kWgAlongN == 2 ? consumer : 0;

  // Stage-0 descriptors. K-major: 128-byte rows, 8-row atoms 1024 B apart; one
  // wgmma's K slice is 32 bytes along the row. MN-major: chunks of 64
  // elements (B's kBChunkCols) kMnChunkBytes apart (LBO; B's kBChunkStride),
  // 8-row K groups of 128-byte rows 1024 B apart (SBO; B's rows are
  // kBSwizzleBytes wide); one wgmma's K slice is kInstK rows.
  u64 desc_a, desc_b;
  constexpr u32 kStepA = Cfg::kMajorA == Major::K ? 32 : Cfg::kInstK * 128;
  constexpr u32 kRowBlockA = Cfg::kMajorA == Major::K ? 64 * 128 : Cfg::kMnChunkBytes;  // 64 rows of A
  constexpr u32 kStepB = Cfg::kMajorB == Major::K ? 32 : Cfg::kInstK * Cfg::kBSwizzleBytes;
  if constexpr (Cfg::kMajorA == Major::K)
    desc_a = make_desc_sw128(smem.tile_a(0) + wg_m * 64 * 128 + (spread && consumer == 0 ? kSpreadABytes : 0u), 16,
                             1024);
  else
    desc_a = make_desc_sw128(smem.tile_a(0) + wg_m * Cfg::kMnChunkBytes, Cfg::kMnChunkBytes, 1024);
  if constexpr (Cfg::kMajorB == Major::K)
    desc_b = make_desc_sw128(smem.tile_b(0) + wg_n * Cfg::kWgN * 128, 16, 1024);
  else  // a 32-wide warpgroup tile may start half-way into a 64-element chunk
    desc_b = make_desc_swizzled<Cfg::kBSwizzleBytes>(
        smem.tile_b(0) + (wg_n * Cfg::kWgN / Cfg::kBChunkCols) * Cfg::kBChunkStride +
            (wg_n * Cfg::kWgN % Cfg::kBChunkCols) * Cfg::kInBytes,
        Cfg::kBChunkStride, 8 * Cfg::kBSwizzleBytes);

  // B's tail chunk (Cfg::kBTail): one 64-byte swizzle atom wide, 8-row K groups 512 B apart.
  const u64 desc_bt = make_desc_swizzled<64>(smem.tile_b(0) + Cfg::kBMainChunks * Cfg::kBChunkStride, 0, 512);
  typename Cfg::Acc acc[Cfg::kWgRows][Cfg::kAccRegs];  // per row block: (T128,V(kWgN/2)) -> (M64,N kWgN)
  using EpiTile = typename TileOf<Epi>::type;
  static_assert(!HoldsVectors<Epi>::value || kBeginsChunkEarly<Cfg>,
                "the hook holds vector values only for tiles whose one chunk begins early");
  static_assert(!PreloadsVectors<Epi>::value || Cfg::kChunksPerWg > 1,
                "the hook preloads vector values only for tiles of several chunks");
  // Whole-output reductions over all of this consumer's tiles.
  typename TotalsOf<Epi>::type totals(epi);

  // A staged epilogue input is loaded once the main loop is under way
  // (after stage issue_kb's wgmmas are issued), one load per tile, late in
  // the tile (staged_input_stage; H200, bf16, against stage 2:
  // alpha*acc+beta*C and relu+F 3-3.5% faster at 2048^3, 0.2-2% at 4096^3,
  // 8192^3 and 4096x14336x4096; one-tile problems at 1024^3, M = 16 and 128
  // unchanged).
  // Stages per tile: k-blocks, or groups of kKGroup of them; in a grouped
  // stage A's k-blocks lie p.a_box_rows rows apart, a K-major B's
  // p.b_box_rows rows.
  const int k_stages = stage_count<Cfg>(k_blocks);
  const u32 a_kblock_bytes = Cfg::kKGroup > 1 ? static_cast<u32>(p.a_box_rows * 128) : 0u;
  const u32 b_kblock_bytes = Cfg::kKGroup > 1 && Cfg::kMajorB == Major::K ? static_cast<u32>(p.b_box_rows * 128)
                                                                          : static_cast<u32>(Cfg::kBKBlockStride);
  u32 staged_parity = 0;
  const IdentityWait identity_ready{smem.identity_bar(), p.identity_flag != nullptr};
  bool awaited_identity = false;

  // The CTA's work items (whole tiles, or with stream-K pieces of tiles cut
  // along K); a pingpong consumer takes every other one and skips the
  // other's stages. The producer walks the same list.
  const WorkList<!Cfg::kPingpong> work(sched.total, k_stages, gridDim.x / Cfg::kClusterM, blockIdx.x / Cfg::kClusterM,
                      Cfg::kStreamK ? p.sk_tiles : 0);
  const auto stages_of = [](const WorkItem& w) { return w.k_count(); };
  // Whose partial sums this consumer writes and reads (the pingpong
  // consumers own whole tiles, the cooperative ones a part each).
  const int part = Cfg::kPingpong ? 0 : consumer;
  constexpr int kTileStride = Cfg::kPingpong ? 2 : 1;
  RingPosition<Cfg::kStages> ring;
  if (Cfg::kPingpong && consumer == 1) ring.skip(stages_of(work.item(0)));
  for (int i = Cfg::kPingpong ? consumer : 0;; i += kTileStride) {
    const WorkItem item = work.item(i);
    if (item.tile < 0) break;
    const TileCoord tile = sched.tile(item.tile, rank);
    const int item_stages = stages_of(item);
    const int issue_kb = staged_input_stage(item_stages, Cfg::kStages);
    if (item.stores()) {
#pragma unroll
      for (int r = 0; r < Cfg::kWgRows; ++r)
        prefetch_epilogue_inputs(epi, tile.m0 + (wg_m + r) * 64, tile.n0 + wg_n * Cfg::kWgN, Cfg::kWgN, tile.l, tid,
                                 p.M, p.N);
    }
    // Pingpong: wait for the other consumer to have issued the previous item.
    if (Cfg::kPingpong && i > 0) named_barrier_sync(Cfg::kOrderBarrier + consumer, 256);
    // Once k-block kb's wgmmas are issued: the staged input's load, when due.
    const auto issued = [&](int kb) {
      if constexpr (StagesInput<Epi>::value) {
        if (kb == issue_kb && tid == 0 && item.stores())
          load_staged_input<Cfg>(tma_c, smem.staging(consumer), smem.staged_bar(consumer), p, tile.m0 + wg_m * 64,
                                 tile.n0 + wg_n * Cfg::kWgN, p.flags & kCBatched ? tile.l : 0);
      }
    };
    // A tile of one chunk (kBeginsChunkEarly): the hook's Tile, built before
    // the main loop, begins its chunk just before the wait for the last
    // stage, so the hook's loads overlap the last wgmmas.
    EpiTile* early_tile = nullptr;
    const auto before_last_stage = [&] {
      if constexpr (kBeginsChunkEarly<Cfg>)
        if (item.stores())
          early_tile->begin_chunk(tile.n0 + wg_n * Cfg::kWgN + 2 * (tid % 4),
                                  tile.m0 + wg_m * 64 + 16 * (tid / 32) + (tid % 32) / 4);
    };
    const auto main_loop = [&] {
      int prev = 0;
      // Promotion (precise fp8 accumulation) runs its own loop; then this one has nothing to do.
      if constexpr (Cfg::kPromoteKBlocks > 0) {
        prev = mainloop_promoted<Cfg>(smem, acc[0], desc_a, desc_b, a_kblock_bytes, b_kblock_bytes, ring,
                                      item_stages, tid, issued);
      }
      const int plain_stages = Cfg::kPromoteKBlocks > 0 ? 0 : item_stages;
      // One k-block: wait for its stage, issue its wgmmas, release the previous one.
      const auto stage = [&](int kb) {
        if (kb + 1 == plain_stages) before_last_stage();
        mbar_wait(smem.full_bar(ring.stage), ring.phase);
        const u32 stage_off = static_cast<u32>(ring.stage * Cfg::kStageBytes);
        wgmma_fence();
#pragma unroll
        for (int j = 0; j < Cfg::kKGroup; ++j) {
          const u32 a_off = stage_off + j * a_kblock_bytes, b_off = stage_off + j * b_kblock_bytes;
#pragma unroll
          for (int ks = 0; ks < Cfg::kKSteps; ++ks) {
            // The first k-step of a tile overwrites the accumulators (scale-d = 0).
#pragma unroll
            for (int r = 0; r < Cfg::kWgRows; ++r)
              wgmma_k_step<Cfg>(acc[r], desc_advance(desc_a, a_off + ks * kStepA + r * kRowBlockA),
                                desc_advance(desc_b, b_off + ks * kStepB),
                                desc_advance(desc_bt, b_off + ks * Cfg::kInstK * Cfg::kBTailCols * Cfg::kInBytes),
                                (kb > 0 || j > 0 || ks > 0) ? 1 : 0);
          }
        }
        wgmma_commit();
        if (kb > 0) {
          wgmma_wait<1>();  // the previous k-block's wgmmas are done with its stage
          release_stage(smem, prev, tid);
        }
        prev = ring.stage;
        ring.next();
      };
      if constexpr (StagesInput<Epi>::value) {
        // Two loops, split where the staged input's load is issued, so that
        // neither tests for it each k-block (1024^3: 78 instructions a
        // k-block in one loop, 55 and 56 in two; H200, bf16, in-process A/B
        // against one loop: alpha*acc+beta*C 2% faster at 1024^3, 0.3% at
        // 4096^3; relu+F and M = 128 unchanged).
        const int split = issue_kb + 1 < plain_stages ? issue_kb + 1 : plain_stages;
        int kb = 0;
        for (; kb < split; ++kb) stage(kb);
        if (kb > 0) issued(kb - 1);
        for (; kb < plain_stages; ++kb) stage(kb);
      } else {
        for (int kb = 0; kb < plain_stages; ++kb) stage(kb);
      }
      // Pingpong: every wgmma of this item is issued; the other consumer may go.
      const WorkItem next = work.item(i + 1);
      if (Cfg::kPingpong && next.tile >= 0) named_barrier_arrive(Cfg::kOrderBarrier + (1 - consumer), 256);
      wgmma_wait<0>();
#pragma unroll
      for (int r = 0; r < Cfg::kWgRows; ++r) fence_regs(acc[r]);
      release_stage(smem, prev, tid);
      if (Cfg::kPingpong) ring.skip(stages_of(next));
    };
    // After the main loop, stream-K: the sum over a cut tile's first
    // k-blocks is left for the next CTA (and the item is done: false), the
    // sum over its last ones gets the previous CTA's added.
    const auto combine_partials = [&] {
      if (item.role == WorkRole::writes_partial) {
        write_partial<Cfg>(p, part, acc, tid, 1 + consumer);
        return false;
      }
      if (item.role == WorkRole::finishes)
        add_partial<Cfg>(p, part, acc, tid, 1 + consumer, work.partial_writers());
      return true;
    };

    // Before the epilogue.
    const auto prepare_epilogue = [&] {
      // The reduce outputs' identity may still be on its way (the main loop
      // above overlaps its writes); they are visible to this thread after the wait.
      if (AwaitsIdentity<Epi>::value && !awaited_identity) {
        identity_ready();
        awaited_identity = true;
      }
      // A new batch of a batched whole output: the partials so far leave first
      // (cooperative: every consumer sees the same tiles and they flush together).
      if constexpr (TotalsOf<Epi>::value) {
        if (totals.flushes_before(tile.l)) flush_totals<Cfg>(totals, epi, consumer, tid, true, identity_ready);
      }
    };
    const auto store = [&](EpiTile& epi_tile, int r) {
      // The staged output on the CTA's last tile: in this consumer's part of the ring's stages.
      u32 aux_ring = 0;
      if constexpr (StagesOutput<Epi>::value && kAuxInRing<Cfg>) {
        if (work.item(i + kTileStride).tile < 0)
          aux_ring = (Cfg::kWgAlongM > 1 ? smem.tile_a(0) : smem.tile_b(0)) + consumer * kRingPartBytes<Cfg>;
      }
      store_warpgroup_tile<Cfg>(epi, epi_tile, acc[r], tma_d, tma_f, smem.staging(consumer, r), aux_ring, p,
                                tile.m0 + (wg_m + r) * 64, tile.n0 + wg_n * Cfg::kWgN, tile.l, tid, 1 + consumer,
                                smem.staged_bar(consumer), staged_parity, totals);
    };
    if constexpr (kBeginsChunkEarly<Cfg>) {
      EpiTile epi_tile(epi, tile.l, p.M, p.N);
      early_tile = &epi_tile;
      main_loop();
      if (!combine_partials()) continue;
      prepare_epilogue();
      store(epi_tile, 0);
    } else {
      main_loop();
      if (!combine_partials()) continue;
      prepare_epilogue();
#pragma unroll
      for (int r = 0; r < Cfg::kWgRows; ++r) {
        EpiTile epi_tile(epi, tile.l, p.M, p.N);
        store(epi_tile, r);
      }
    }
    staged_parity ^= 1;
  }
  // One atomic per whole output (and batch) for the CTA, or for each pingpong consumer.
  if constexpr (TotalsOf<Epi>::value)
    flush_totals<Cfg>(totals, epi, consumer, tid, false, identity_ready);
  if (tid == 0) tma_store_wait<0>();  // staging must outlive the last stores
}

/// The GEMM kernel. Launch with Cfg::kThreads threads, Cfg::kSmemBytes of
/// dynamic shared memory, a 1-D grid of a multiple of kClusterM CTAs (at most
/// one per SM; more CTAs than tiles is allowed) and, for kClusterM == 2, a
/// cluster dimension of (2, 1, 1). Tensor maps (3-D, SWIZZLE_128B, boxes in
/// GemmConfig): A {K, M, L} or {M, K, L}; B {K, N, L} or {N, K, L}; D {N, M, L};
/// C, the hook's staged input if it has one (StagesInput), and F, its staged
/// output (StagesOutput), laid out as D (any valid map otherwise: unused).
/// `params` also carries D's pointer and strides (edge chunks, see GemmParams);
/// `epi` is the per-element hook (see IdentityEpilogue for the contract); it is
/// a __grid_constant__ parameter, so hooks read their fields in place.
template <class Cfg, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap tma_a,
                const __grid_constant__ CUtensorMap tma_b,
                const __grid_constant__ CUtensorMap tma_bt,
                const __grid_constant__ CUtensorMap tma_d,
                const __grid_constant__ CUtensorMap tma_c,
                const __grid_constant__ CUtensorMap tma_f, const GemmParams params,
                const __grid_constant__ Epi epi) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Where the hook loads row or column vectors, ptxas rebuilt the base from
  // SR_CgaCtaId in every main-loop stage (a read whose latency the wgmmas of
  // a narrow tile do not hide) rather than keep it; a shuffle's result it
  // keeps. H200, 2026-11-30, against the plain base: 64x4096x4096 gelu(acc +
  // bias) with B column-major 12% faster, a*acc+rowb+colb 8%; 1024^3 and
  // 4096^3 2-5%. Not for the other epilogues, where its code ran up to 3.5%
  // slower (64x4096x4096 GEMM alone and amax on plain 64x64).
  const u32 smem_base = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const SmemLayout<Cfg> smem{LoadsVectors<Epi>::value ? __shfl_sync(0xffffffffu, smem_base, 0) : smem_base};
  // Broadcast from lane 0 so the compiler knows it is warp-uniform and keeps
  // what derives from it (the wgmma descriptors) in uniform registers.
  const int warpgroup = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);

  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < Cfg::kStages; ++s) {
      mbar_init(smem.full_bar(s), 1);
      mbar_init(smem.empty_bar(s), Cfg::kStageReaders * Cfg::kClusterM);
    }
#pragma unroll
    for (int c = 0; c < Cfg::kConsumers; ++c) mbar_init(smem.staged_bar(c), 1);
    // Only where the hook reduces (the other kernels' code stays as it was).
    if constexpr (FillsIdentity<Epi>::value) mbar_init(smem.identity_bar(), 1);
    fence_mbar_init();
  }
  if constexpr (Cfg::kClusterM > 1)
    cluster_sync();  // the peer's barriers exist before anyone signals them
  else
    __syncthreads();
  // Launched as the programmatic dependent of the stream's previous kernel:
  // nothing above touched global memory, and nothing below may until that
  // kernel is done with what this grid reads and writes. After an identity
  // fill the wait comes later (IdentityWait): the fill started in stream
  // order, so the kernels before it are done and the main loop overlaps it.
  // (This grid does not let its own dependents start early: a trigger at its
  // start made back-to-back M = 128 GEMMs 20% slower, one after its last
  // main loop gained nothing over the implicit one at its end.)
  if (!(AwaitsIdentity<Epi>::value && params.identity_flag == nullptr)) grid_dependency_wait();

  if (warpgroup == 0) {
    setmaxnreg_dec<Cfg::kProducerRegs>();
    if (threadIdx.x < 32) {
      if (elect_one()) {
        prefetch_tensormap(&tma_a);
        prefetch_tensormap(&tma_b);
        if constexpr (Cfg::kBTail) prefetch_tensormap(&tma_bt);
        produce<Cfg>(smem, &tma_a, &tma_b, &tma_bt, params);
      }
    } else if (threadIdx.x < 64) {
      if constexpr (FillsIdentity<Epi>::value)
        if (params.identity_flag != nullptr) provide_identity(epi, params, smem.identity_bar(), threadIdx.x % 32);
    }
  } else {
    setmaxnreg_inc<Cfg::kConsumerRegs>();
    if (StagesInput<Epi>::value && threadIdx.x % 128 == 0) prefetch_tensormap(&tma_c);
    if (StagesOutput<Epi>::value && threadIdx.x % 128 == 0) prefetch_tensormap(&tma_f);
    consume<Cfg>(smem, &tma_d, &tma_c, &tma_f, params, epi, warpgroup - 1);
  }

  // No CTA may leave while its peer can still arrive on its barriers.
  if constexpr (Cfg::kClusterM > 1) cluster_sync();
#endif
}

}  // namespace epigemm::sm90
