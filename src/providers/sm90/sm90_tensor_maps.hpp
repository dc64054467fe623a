// The sm90 kernel's launch records on the host: the TMA tensor maps of A, B,
// D and the staged epilogue input and output (encoded through the driver, re-encoded only when a pointer,
// extent or stride changes) and the kernel's GemmParams.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <mutex>

#include "api/problem.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "providers/sm90/sm90_tile_config.hpp"
#include "runtime/driver.hpp"
#include "sm90_gemm_params.cuh"

namespace epigemm::detail {

/// The kernel's launch parameters, filled here and passed as they are.
using Sm90GemmParams = sm90::GemmParams;

/// GemmParams for a planned problem on tile `config` (tile order by
/// sm90_tile_order_group, with its divisors' magic numbers). An operand read
/// by at most two tiles, which the tile order runs side by side, is loaded
/// with the L2 evict_first policy.
Sm90GemmParams sm90_gemm_params(const Problem& problem, const Sm90Plan& plan, const Sm90TileConfig& config) noexcept;

/// Cluster rows per group of the tile order (walked column by column within
/// a group, odd groups from the last column back): 8, or 1 (row by row)
/// when N has at most 8 tile columns, so the CTAs that read the same rows
/// of A run side by side. H200, bf16, GEMM alone, ratio to cuBLASLt,
/// group 8 -> 1: 8192x128x8192 on 128x64 1.44 -> 1.00; 8192x256x8192 on
/// 128x128 1.07 -> 1.03; 4096x256x4096 on 64x128 1.08 -> 0.97;
/// 16384x256x4096 1.09 -> 1.035; 8192x512x8192 1.048 -> 1.03;
/// 8192x1024x8192 1.046 -> 1.035 (gelu+bias 1.078 -> 1.058).
int sm90_tile_order_group(std::int64_t N, const Sm90TileConfig& config) noexcept;

/// The L2 promotion of `operand`'s (A's or B's) TMA loads, on the 3-D and
/// the grouped 4-D maps alike: 256-byte lines, except 128 on a skinny
/// problem (one operand read by at most two tiles, as for evict_first) and
/// for rows whose pitch is not a multiple of 128 bytes. H200, bf16, 128
/// against 256 on A's and B's maps: M = 128, N = K = 8192 0.0381 -> 0.0374
/// ms, M = 16 0.0367 -> 0.0361 (B row-major), 3000^3 0.160 -> 0.138 ms;
/// 1024^3 ~2% slower, the large shapes unchanged. On the grouped maps of
/// 64x64 x2 at M = 16 with B column-major: 0.0378 -> 0.0365 ms (0.85 ->
/// 0.88 of copy).
CUtensorMapL2promotion sm90_operand_promotion(const Sm90Plan& plan, const Sm90TileConfig& config,
                                              const Sm90TmaView& operand) noexcept;

/// The six maps one launch passes, in the kernel's parameter order; bt is
/// B's tail chunk's (Sm90TileConfig::b_tail) or a copy of b; c and f are the
/// staged epilogue input's and output's, or copies of d's.
struct Sm90Maps {
  CUtensorMap a;
  CUtensorMap b;
  CUtensorMap bt;
  CUtensorMap d;
  CUtensorMap c;
  CUtensorMap f;
};

/// The last encoded maps of one operator (one tile configuration). Thread-safe.
class Sm90TensorMaps {
 public:
  explicit Sm90TensorMaps(const Sm90TileConfig& config) : config_(config) {}

  /// Copies into `out` the maps of `plan`'s views: the cached ones when the
  /// views and majors equal the last call's, else freshly encoded (and
  /// kept). Allocates nothing; throws Error(Cuda) naming the operand when
  /// the driver refuses an encoding.
  void get(const runtime::Driver& driver, const Sm90Plan& plan, Sm90Maps& out);

  /// How many times maps were encoded (for tests of the cache).
  std::uint64_t encodings() const;

 private:
  void encode(const runtime::Driver& driver, const Sm90Plan& plan);

  Sm90TileConfig config_;
  mutable std::mutex mutex_;
  bool valid_ = false;
  Sm90Plan last_;
  Sm90Maps maps_{};
  std::uint64_t encodings_ = 0;
};

}  // namespace epigemm::detail
