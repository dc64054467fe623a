// Whole-output reductions of the sm90 GEMM across all of a CTA's tiles: each
// consumer thread keeps its running partial (the hook's Totals) over every
// tile it stores; when the batch changes and at the end, the warps (of both
// consumer warpgroups where they store parts of the same tiles) combine
// theirs through shared memory and one thread adds them with one atomic per
// output.
#pragma once

#include "sm90_epilogue.cuh"

namespace epigemm::sm90 {

/// Whole-output totals contract. A hook whose Tile computes whole-output
/// reductions may keep them across tiles by defining a nested `Totals`, built
/// once per consumer thread before its first tile:
///   __device__ explicit Totals(const Epi& epi);  // holds nothing yet
///   __device__ void add(const Tile& tile);        // after the tile's end_tile: folds its partials in
///   __device__ bool flushes_before(int l) const;  // holds partials that batch l's must not join
///   static constexpr int kBytes;                  // one thread's partials in shared memory
///   __device__ void warp_combine();               // every lane together: each gets the warp's partials
///   __device__ void save(unsigned char* to);
///   __device__ void merge(const unsigned char* from);  // combines a saved set into this one
///   __device__ void commit(const Epi& epi);       // one atomic per output, then holds nothing
///   __device__ void reset(int l);                 // holds the identity, for batch l (-1: nothing)
/// add() and the other member functions see only the calling thread's
/// registers, except warp_combine (shuffles).
struct NoTotals {
  template <class Epi>
  __device__ __forceinline__ explicit NoTotals(const Epi&) {}
  template <class Tile>
  __device__ __forceinline__ void add(const Tile&) {}
};

/// Epi::Totals when the hook defines it (and not as void), else NoTotals.
template <class Epi, class = void>
struct TotalsOf {
  using type = NoTotals;
  static constexpr bool value = false;
};
template <class T>
struct TotalsOrNone {
  using type = T;
  static constexpr bool value = true;
};
template <>
struct TotalsOrNone<void> {
  using type = NoTotals;
  static constexpr bool value = false;
};
template <class Epi>
struct TotalsOf<Epi, typename VoidOf<typename Epi::Totals>::type> : TotalsOrNone<typename Epi::Totals> {};

/// Whether the hook's row and column reductions add to their outputs from
/// the first tile on (`static constexpr bool kAwaitsIdentity = true`): each
/// consumer thread then waits for the outputs' identity (IdentityWait)
/// before its first epilogue. Whole-output totals wait before they commit.
EPIGEMM_HOOK_FLAG(AwaitsIdentity, kAwaitsIdentity);

/// Whether the hook can write its reduce outputs' identity itself
/// (`static constexpr bool kFillsIdentity = true` and
///   __device__ void fill_identity(int lane, int L, int M, int N) const;
/// called by the 32 lanes of one warp of the grid's first CTA when
/// GemmParams::identity_flag is set).
EPIGEMM_HOOK_FLAG(FillsIdentity, kFillsIdentity);

/// Waits until the reduce outputs hold their identity: written by the grid's
/// first CTA (`in_grid`: GemmParams::identity_flag; `bar` completes its phase
/// 0 in every CTA once the counter shows it), or by the fill kernel launched
/// before this grid, which with programmatic dependent launch may still be
/// running while the GEMM's main loop starts (griddepcontrol.wait).
struct IdentityWait {
  u32 bar;
  bool in_grid;
  __device__ __forceinline__ void operator()() const {
    if (in_grid) mbar_wait(bar, 0);
    else grid_dependency_wait();
  }
};

/// Shared memory for the partials of every warp of every consumer: static
/// shared memory, which the kernel's 1024-byte-aligned dynamic block pads to
/// 1 KB (the host counts that much: kSm90TotalsSharedBytes).
template <int kConsumers, class Totals>
__device__ __forceinline__ unsigned char* totals_scratch() {
  constexpr int kScratchBytes = kConsumers * 4 * Totals::kBytes;
  static_assert(kScratchBytes <= 1024, "whole-output partials exceed the 1 KB of static shared memory");
  __shared__ alignas(16) unsigned char scratch[kScratchBytes];
  return scratch;
}

/// Combines the Totals of consumer `consumer`'s warpgroup and has one thread
/// commit them, with one atomic per output and batch; afterwards every caller
/// holds nothing. Cooperative consumers store parts of the same tiles, so
/// they hold the same batch: all call it together (over named barrier
/// Cfg::kTotalsBarrier) and their partials join. Pingpong consumers, whose
/// tiles differ, flush apart (over their own epilogue barrier, 1 + consumer).
/// With `reuse`, the scratch may be written again right after the return (a
/// second barrier waits for the committing thread to read it). The
/// committing thread waits for the outputs' identity first.
template <class Cfg, class Totals, class Epi>
__device__ __forceinline__ void flush_totals(Totals& totals, const Epi& epi, int consumer, int tid, bool reuse,
                                             const IdentityWait& identity_ready) {
  constexpr bool all = !Cfg::kPingpong;
  const int barrier_id = all ? Cfg::kTotalsBarrier : 1 + consumer;
  unsigned char* scratch = totals_scratch<Cfg::kConsumers, Totals>();
  const int warp = tid / 32, lane = tid % 32;
  constexpr int threads = all ? 128 * Cfg::kConsumers : 128;
  totals.warp_combine();
  if (lane == 0) totals.save(scratch + (consumer * 4 + warp) * Totals::kBytes);
  named_barrier_sync(barrier_id, threads);
  if (tid == 0 && (!all || consumer == 0)) {
#pragma unroll
    for (int w = 1; w < 4; ++w) totals.merge(scratch + (consumer * 4 + w) * Totals::kBytes);
    if constexpr (all) {
#pragma unroll
      for (int w = 4; w < 4 * Cfg::kConsumers; ++w) totals.merge(scratch + w * Totals::kBytes);
    }
    identity_ready();
    totals.commit(epi);
  }
  totals.reset(-1);
  if (reuse) named_barrier_sync(barrier_id, threads);
}

}  // namespace epigemm::sm90
