// Persistent tile scheduler of the sm90 GEMM: clusters walk the output tiles
// of all batches in a grouped (swizzled) order, so the tiles in flight at one
// time share rows of A and columns of B in L2.
#pragma once

#include "sm90_gemm_config.cuh"

namespace epigemm::sm90 {

/// Output coordinates of one CTA's tile.
struct TileCoord {
  int m0 = 0;  ///< first row of the tile
  int n0 = 0;  ///< first column of the tile
  int l = 0;   ///< batch index
};

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
  int group = 1;         ///< cluster rows per group

  __device__ __forceinline__ TileScheduler(const GemmParams& p) {
    const int tiles_m = (p.M + kBM - 1) / kBM;
    cluster_rows = (tiles_m + kClusterM - 1) / kClusterM;
    tiles_n = (p.N + kBN - 1) / kBN;
    per_batch = cluster_rows * tiles_n;
    total = per_batch * p.L;
    group = p.group_m < 1 ? 1 : p.group_m;
  }

  /// Tile of cluster-tile `index` for the CTA of cluster rank `rank`.
  /// Within a batch, groups of `group` cluster rows are walked column by
  /// column: (row0, col0), (row1, col0), ..., (row0, col1), ...
  __device__ __forceinline__ TileCoord tile(int index, int rank) const {
    // Unsigned, and no division by the batch's tiles for one batch: the
    // producer's first load waits for these divisions (signed, ~0.4 of the
    // ~0.7 us from its register release to that load; its data lands ~0.8
    // us later). H200, 2026-12-01: 1024^3 every epilogue 1-4% faster, M = 16
    // and 128 (N = K = 8192) 0.2-0.8%.
    const unsigned u = static_cast<unsigned>(index), batch = static_cast<unsigned>(per_batch);
    const unsigned l = total == per_batch ? 0u : u / batch;
    const unsigned r = u - l * batch;
    const unsigned span = static_cast<unsigned>(group * tiles_n);
    const unsigned g = r / span;
    const unsigned first = g * static_cast<unsigned>(group);
    const unsigned left = static_cast<unsigned>(cluster_rows) - first;
    const unsigned rows = left < static_cast<unsigned>(group) ? left : static_cast<unsigned>(group);
    const unsigned in = r - g * span;
    const unsigned col = in / rows;
    const unsigned row = first + (in - col * rows);
    TileCoord t;
    t.l = static_cast<int>(l);
    t.m0 = (static_cast<int>(row) * kClusterM + rank) * kBM;
    t.n0 = static_cast<int>(col) * kBN;
    return t;
  }
};

}  // namespace epigemm::sm90
