// The sm90 tile configurations, their shared-memory budget (mirroring
// kernels/sm90_gemm_config.cuh), metadata, and the tile-choice heuristic.
#include "providers/sm90/sm90_tile_config.hpp"

#include <algorithm>
#include <cmath>

namespace epigemm::detail {
namespace {

using C = Sm90OperandClass;

// Stages: 3 for 128x256, 5 for 128x128, 6 for 64x128 (what fits in 227 KB
// next to the output staging, and what the kernel was tuned with).
constexpr Sm90TileConfig kConfigs[] = {
    {128, 256, 2, 3, C::bits16}, {128, 256, 1, 3, C::bits16}, {128, 128, 1, 5, C::bits16},
    {128, 128, 2, 5, C::bits16}, {64, 128, 1, 6, C::bits16},  {128, 256, 2, 3, C::fp8},
    {128, 256, 1, 3, C::fp8},    {128, 128, 1, 5, C::fp8},    {128, 128, 2, 5, C::fp8},
    {64, 128, 1, 6, C::fp8},
};

int chunks_per_warpgroup(const Sm90TileConfig& c, int d_bytes) { return c.warpgroup_n() / c.chunk_cols(d_bytes); }

/// One staged output chunk is 64 rows of chunk_cols() elements.
int shared_bytes_with(const Sm90TileConfig& c, int d_bytes, int slots) {
  const int stage_bytes = (c.bm + c.bn) * 128;
  const int chunk_bytes = 64 * c.chunk_cols(d_bytes) * d_bytes;
  return 1024 + c.stages * stage_bytes + 2 * slots * chunk_bytes + 2 * c.stages * 8;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Throughput of one CTA tile relative to 128x256 when compute-bound: the
/// narrower tiles reload more operand bytes per multiply (measured on the
/// H200: 128x128 about 0.95 of 128x256 at 4096^3, 64x128 well below).
double tile_efficiency(const Sm90TileConfig& c) {
  if (c.bm == 128 && c.bn == 256) return 1.0;
  if (c.bm == 128) return 0.94;
  return 0.80;
}

}  // namespace

int Sm90TileConfig::chunk_cols(int d_bytes) const noexcept { return std::min(128 / d_bytes, warpgroup_n()); }

int Sm90TileConfig::epilogue_slots(int d_bytes) const noexcept {
  int slots = chunks_per_warpgroup(*this, d_bytes);
  while (slots > 1 && slots % 2 == 0 && shared_bytes_with(*this, d_bytes, slots) > kSm90MaxSharedBytes) slots /= 2;
  return slots;
}

int Sm90TileConfig::shared_bytes(int d_bytes) const noexcept {
  return shared_bytes_with(*this, d_bytes, epilogue_slots(d_bytes));
}

std::string Sm90TileConfig::shape_name() const {
  return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk()) + "_c" +
         std::to_string(cluster_m) + "x1";
}

std::span<const Sm90TileConfig> sm90_tile_configs() { return kConfigs; }

OperatorMetadata sm90_metadata(const Sm90TileConfig& c) {
  const bool fp8 = c.operands == C::fp8;
  OperatorMetadata md;
  md.name = "sm90_wgmma_" + c.shape_name() + (fp8 ? "_fp8" : "_16bit");
  md.provider = "sm90";
  md.min_sm = 90;
  md.tile = {c.bm, c.bn, c.bk()};
  md.cluster = {c.cluster_m, 1};
  md.stages = c.stages;
  md.extra["kernel"] = "sm90_gemm";
  md.extra["threads"] = "384";
  md.extra["target_sm"] = "90";
  md.extra["dtypes"] = fp8 ? "e4m3,e5m2" : "f16,bf16";
  md.extra["layouts"] = fp8 ? "A row-major, B column-major (both K-major)" : "A and B row- or column-major";
  md.extra["accumulators"] = fp8 ? "f32,f16" : "f32 (bf16), f32,f16 (f16)";
  md.extra["out_dtypes"] = "f16,bf16,f32,e4m3,e5m2 (row-major)";
  md.extra["reduce_outputs"] = "f32";
  return md;
}

double sm90_modelled_time(const Sm90TileConfig& c, const Problem& p, int sm_count) {
  const int sms = std::max(sm_count, c.cluster_m);
  const std::int64_t cluster_rows = ceil_div(ceil_div(p.M, c.bm), c.cluster_m);
  const std::int64_t cluster_tiles = cluster_rows * ceil_div(p.N, c.bn) * std::max<std::int64_t>(p.L, 1);
  const std::int64_t slots = sms / c.cluster_m;
  const double waves = static_cast<double>(ceil_div(cluster_tiles, slots));
  const double k_blocks = static_cast<double>(std::max<std::int64_t>(ceil_div(p.K, c.bk()), 1));
  double time = waves * k_blocks * (static_cast<double>(c.bm) * c.bn / tile_efficiency(c));
  // Many waves: the 2x1 multicast halves B's traffic and wins a little; a
  // few waves: the 1x1 grid balances better (measured at 8192^3 / 4096^3).
  const bool many_waves = waves >= 8;
  if (c.cluster_m == 2) time *= many_waves ? 0.995 : 1.005;
  return time;
}

int sm90_preference(const Sm90TileConfig& c, const Problem& p, int sm_count) {
  const double time = std::max(sm90_modelled_time(c, p, sm_count), 1.0);
  return 1'000'000 - static_cast<int>(std::lround(1000.0 * std::log2(time)));
}

}  // namespace epigemm::detail
