// Persistent tile scheduler of the sm90 GEMM: clusters walk the output tiles
// of all batches in a grouped (swizzled), serpentine order, so the tiles in
// flight at one time share rows of A and columns of B in L2. Plain integer
// code, compiled for the device and, in the tests, for the host.
#pragma once

#include "fast_divide.cuh"
#include "host_device.cuh"
#include "sm90_gemm_params.cuh"

namespace epigemm::sm90 {

/// Output coordinates of one CTA's tile.
struct TileCoord {
  int m0 = 0;  ///< first row of the tile
  int n0 = 0;  ///< first column of the tile
  int l = 0;   ///< batch index
};

/// Sets the tile order's divisors in `p` (whose M, N and group_m are set) for
/// bm x bn tiles in clusters of cluster_m CTAs along M: the FastDivisors of a
/// group's cluster tiles (its span), of group_m, and of the last group's rows
/// where the cluster rows do not fill it (else group_m), the shifts in bytes
/// 0, 1 and 2 of order_shifts, as TileScheduler::tile reads them. The host
/// calls this before each launch.
EPG_HOST_DEVICE void set_tile_order_divisors(GemmParams& p, int bm, int bn, int cluster_m) {
  const unsigned rows = static_cast<unsigned>(((p.M + bm - 1) / bm + cluster_m - 1) / cluster_m);
  // At least one tile column, so that no divisor is 0 (an empty problem has no tile to order).
  const unsigned cols = p.N > 0 ? static_cast<unsigned>((p.N + bn - 1) / bn) : 1u;
  const unsigned group = static_cast<unsigned>(p.group_m);
  const FastDivisor span = make_fast_divisor(group * cols), whole = make_fast_divisor(group),
                    tail = make_fast_divisor(rows % group == 0 ? group : rows % group);
  p.span_magic = span.magic;
  p.group_magic = whole.magic;
  p.tail_magic = tail.magic;
  p.order_shifts = span.shift | whole.shift << 8 | tail.shift << 16;
}

/// Maps linear cluster-tile indices to tiles. A "cluster tile" is kClusterM
/// vertically adjacent CTA tiles that share the same columns of B. Cluster c
/// processes indices c, c + clusters, c + 2*clusters, ... (both CTAs of a
/// cluster see the same sequence, which keeps their multicasts paired).
template <int kBM, int kBN, int kClusterM>
struct TileScheduler {
  int cluster_rows = 0;  ///< cluster tiles along M
  int tiles_n = 0;       ///< tiles along N
  int per_batch = 0;     ///< cluster tiles in one batch
  int total = 0;         ///< cluster tiles in the whole problem
  unsigned group = 1;    ///< cluster rows per group (GemmParams::group_m, >= 1)
  unsigned span = 1;     ///< cluster tiles per group of rows
  /// GemmParams' FastDivisors of span, group and the last group's rows.
  unsigned span_magic = 1, group_magic = 1, tail_magic = 1, shifts = 0;

  EPG_HOST_DEVICE TileScheduler(const GemmParams& p) {
    const int tiles_m = (p.M + kBM - 1) / kBM;
    cluster_rows = (tiles_m + kClusterM - 1) / kClusterM;
    tiles_n = (p.N + kBN - 1) / kBN;
    per_batch = cluster_rows * tiles_n;
    total = per_batch * p.L;
    group = static_cast<unsigned>(p.group_m);
    span = group * static_cast<unsigned>(tiles_n);
    span_magic = p.span_magic;
    group_magic = p.group_magic;
    tail_magic = p.tail_magic;
    shifts = p.order_shifts;
  }

  /// Tile of cluster-tile `index` for the CTA of cluster rank `rank`.
  /// Within a batch, groups of `group` cluster rows are walked column by
  /// column: (row0, col0), (row1, col0), ..., (row0, col1), ...; every odd
  /// group walks them from the last column back, so it starts on the columns
  /// of B the group before read last, still in L2. An LRU model of L2 (16 KB
  /// boxes, CTAs in step) puts that at 112 MiB of A and B from DRAM instead
  /// of 160 at bf16 4096^3 on 128x128 pingpong with relu+F, and never more;
  /// on an H100 the fused rows at 8192^3 and 4096x14336x4096 ran in
  /// 0.98-0.99 of their time (within the runs' spread), 4096^3 unchanged.
  EPG_HOST_DEVICE TileCoord tile(int index, int rank) const {
    // The producer's first load waits for this, so it divides as little as
    // it can: unsigned, not by the batch's tiles for one batch (signed, this
    // took ~0.4 of the ~0.7 us from the producer's register release to that
    // load; unsigned, 1024^3 ran 1-4% faster and M = 16 and 128 0.2-0.8%:
    // H200, 2026-12-01), and by span and the group's rows through the host's
    // magic numbers (each otherwise a dependent I2F / MUFU.RCP / F2I chain
    // through the uniform datapath).
    const unsigned u = static_cast<unsigned>(index), batch = static_cast<unsigned>(per_batch);
    const unsigned l = total == per_batch ? 0u : u / batch;
    const unsigned r = u - l * batch;
    const unsigned g = fast_divide(r, span_magic, shifts & 0xffu);
    const unsigned first = g * group;
    const unsigned left = static_cast<unsigned>(cluster_rows) - first;
    const bool last = left < group;  // the last group, with fewer rows
    const unsigned rows = last ? left : group;
    const unsigned in = r - g * span;
    const unsigned step = fast_divide(in, last ? tail_magic : group_magic, (shifts >> (last ? 16 : 8)) & 0xffu);
    const unsigned row = first + (in - step * rows);
    const unsigned col = (g & 1u) ? static_cast<unsigned>(tiles_n) - 1u - step : step;
    TileCoord t;
    t.l = static_cast<int>(l);
    t.m0 = (static_cast<int>(row) * kClusterM + rank) * kBM;
    t.n0 = static_cast<int>(col) * kBN;
    return t;
  }
};

}  // namespace epigemm::sm90
