// Encodes the sm90 kernel's tensor maps (3-D, 128-byte swizzle, or 64- or
// 32-byte for the narrow chunks of D and the staged input; 4-D A and B for
// grouped-k tiles; boxes as kernels/sm90_gemm_config.cuh expects; A's and
// B's L2 promotion by sm90_operand_promotion) and keeps the last set per
// operator.
#include "providers/sm90/sm90_tensor_maps.hpp"

#include <cstring>

#include "sm90_tile_scheduler.cuh"

namespace epigemm::detail {
namespace {

CUtensorMapDataType map_type(DType t) {
  switch (t) {
    case DType::f16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::f32: case DType::tf32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::i32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT8;  // e4m3, e5m2, i8, u8: raw bytes
  }
}

bool same_view(const Sm90TmaView& x, const Sm90TmaView& y) {
  return x.data == y.data && x.dtype == y.dtype && std::memcmp(x.dims, y.dims, sizeof x.dims) == 0 &&
         std::memcmp(x.strides, y.strides, sizeof x.strides) == 0;
}

bool same_maps(const Sm90Plan& x, const Sm90Plan& y) {
  return x.a_k_major == y.a_k_major && x.b_k_major == y.b_k_major && x.d_column_major == y.d_column_major &&
         same_view(x.a, y.a) && same_view(x.b, y.b) &&
         same_view(x.d, y.d) && x.staged_input == y.staged_input && (x.staged_input < 0 || same_view(x.c, y.c)) &&
         x.staged_output == y.staged_output && (x.staged_output < 0 || same_view(x.f, y.f));
}

/// Whether an operand is read by at most two tiles (`across` the extent
/// along which tiles of `tile` share it), which the tile order runs side by
/// side; one shared by every batch is reused across batches, however few
/// its tiles.
bool streamed_once(std::int64_t across, int tile, std::int64_t L, bool batched) {
  return (L == 1 || batched) && (across + tile - 1) / tile <= 2;
}

void encode_one(const runtime::Driver& driver, const Sm90TmaView& v, unsigned box0, unsigned box1, const char* what,
                CUtensorMap& map, CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B,
                CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  const cuuint64_t dims[3] = {v.dims[0], v.dims[1], v.dims[2]};
  const cuuint64_t strides[2] = {v.strides[0], v.strides[1]};
  const cuuint32_t box[3] = {box0, box1, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  driver.check(driver.tensor_map_encode_tiled(&map, map_type(v.dtype), 3, const_cast<void*>(v.data), dims, strides,
                                              box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                              swizzle, promotion,
                                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               what);
}

/// A K-major operand's {K, rows, L} view as {bk, rows, K / bk, L}: the
/// k-block becomes the third dimension, so one box {bk, box_rows, k_group,
/// 1} brings k_group k-blocks, each box_rows rows, one after another.
void encode_grouped(const runtime::Driver& driver, const Sm90TmaView& v, unsigned bk, unsigned box_rows,
                    unsigned k_group, const char* what, CUtensorMap& map, CUtensorMapL2promotion promotion) {
  const std::uint64_t row_bytes = 128;  // bk elements
  const cuuint64_t dims[4] = {bk, v.dims[1], v.dims[0] / bk, v.dims[2]};
  const cuuint64_t strides[3] = {v.strides[0], row_bytes, v.strides[1]};
  const cuuint32_t box[4] = {bk, box_rows, k_group, 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  driver.check(driver.tensor_map_encode_tiled(&map, map_type(v.dtype), 4, const_cast<void*>(v.data), dims, strides,
                                              box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                              CU_TENSOR_MAP_SWIZZLE_128B, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               what);
}

}  // namespace

Sm90GemmParams sm90_gemm_params(const Problem& p, const Sm90Plan& plan, const Sm90TileConfig& config) noexcept {
  Sm90GemmParams g;
  g.M = static_cast<int>(p.M);
  g.N = static_cast<int>(p.N);
  g.K = static_cast<int>(p.K);
  g.L = static_cast<int>(p.L);
  g.group_m = sm90_tile_order_group(p.N, config);
  sm90::set_tile_order_divisors(g, config.bm, config.bn, config.cluster_m);
  using namespace sm90;
  g.flags = (plan.a_batched ? kABatched : 0u) | (plan.b_batched ? kBBatched : 0u) | (plan.c_batched ? kCBatched : 0u) |
            (streamed_once(p.N, config.bn, p.L, plan.a_batched) ? kAEvictFirst : 0u) |
            (streamed_once(p.M, config.bm, p.L, plan.b_batched) ? kBEvictFirst : 0u);
  g.a_box_rows = sm90_a_box_rows(p.M, config);
  g.b_box_rows = sm90_b_box_rows(p.N, config, plan.b_k_major);
  g.d = const_cast<void*>(plan.d.data);
  g.ldd = plan.ldd;
  g.d_batch = plan.d_batch;
  if (plan.staged_output >= 0) {
    g.f = const_cast<void*>(plan.f.data);
    g.ldf = plan.ldf;
    g.f_batch = plan.f_batch;
  }
  return g;
}

int sm90_tile_order_group(std::int64_t N, const Sm90TileConfig& config) noexcept {
  return (N + config.bn - 1) / config.bn <= 8 ? 1 : 8;
}

CUtensorMapL2promotion sm90_operand_promotion(const Sm90Plan& plan, const Sm90TileConfig& config,
                                              const Sm90TmaView& operand) noexcept {
  // D's view is {N, M, L}, or {M, N, L} when column-major.
  const int m_dim = plan.d_column_major ? 0 : 1;
  const auto M = static_cast<std::int64_t>(plan.d.dims[m_dim]), N = static_cast<std::int64_t>(plan.d.dims[1 - m_dim]),
             L = static_cast<std::int64_t>(plan.d.dims[2]);
  const bool skinny = streamed_once(N, config.bn, L, plan.a_batched) || streamed_once(M, config.bm, L, plan.b_batched);
  return skinny || operand.strides[0] % 128 != 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                 : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

void Sm90TensorMaps::get(const runtime::Driver& driver, const Sm90Plan& plan, Sm90Maps& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!valid_ || !same_maps(plan, last_)) encode(driver, plan);
  out = maps_;
}

std::uint64_t Sm90TensorMaps::encodings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return encodings_;
}

void Sm90TensorMaps::encode(const runtime::Driver& driver, const Sm90Plan& plan) {
  valid_ = false;
  const int bk = config_.bk();
  // D: {N, M, L} in chunks of 64 rows x 128 bytes, or x 64 or 32 bytes
  // (swizzled across that span) when a warpgroup's tile is that narrow
  // (Cfg::kSwizzleD); column-major {M, N, L} in chunks of the same columns,
  // each a 128-byte line of 64 rows.
  const int d_bytes = size_bytes(plan.d_dtype);
  const unsigned chunk_cols = static_cast<unsigned>(config_.chunk_cols(d_bytes));
  const unsigned d0 = plan.d_column_major ? 64 : chunk_cols, d1 = plan.d_column_major ? chunk_cols : 64;
  const unsigned d_row_bytes = d0 * static_cast<unsigned>(d_bytes);
  const CUtensorMapSwizzle d_swizzle = d_row_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : d_row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                           : CU_TENSOR_MAP_SWIZZLE_32B;
  if (config_.k_group > 1) {
    // A's view is {K, M, L}.
    const unsigned rows = static_cast<unsigned>(sm90_a_box_rows(static_cast<std::int64_t>(plan.a.dims[1]), config_));
    encode_grouped(driver, plan.a, static_cast<unsigned>(bk), rows, static_cast<unsigned>(config_.k_group),
                   "encoding the TMA tensor map of A", maps_.a, sm90_operand_promotion(plan, config_, plan.a));
    if (plan.b_k_major) {  // B's view is {K, N, L}
      const unsigned b_rows =
          static_cast<unsigned>(sm90_b_box_rows(static_cast<std::int64_t>(plan.b.dims[1]), config_, true));
      encode_grouped(driver, plan.b, static_cast<unsigned>(bk), b_rows, static_cast<unsigned>(config_.k_group),
                     "encoding the TMA tensor map of B", maps_.b, sm90_operand_promotion(plan, config_, plan.b));
    } else {  // {N, K, L}: per 64-column chunk, a box of k_group k-blocks of rows
      encode_one(driver, plan.b, 64, static_cast<unsigned>(bk * config_.k_group), "encoding the TMA tensor map of B",
                 maps_.b, CU_TENSOR_MAP_SWIZZLE_128B, sm90_operand_promotion(plan, config_, plan.b));
    }
  } else {
    // A: K-major {K, M, L} in boxes of bk x bm; M-major {M, K, L} in 64 x bk.
    const unsigned a0 = plan.a_k_major ? bk : 64, a1 = plan.a_k_major ? config_.bm : bk;
    // B: K-major {K, N, L} in bk x (bn / cluster); N-major {N, K, L} in
    // chunks of 64 or 32 columns x bk (x bk / cluster where the cluster
    // divides it along K), swizzled across the chunk's row.
    const unsigned b0 = static_cast<unsigned>(config_.b_box_dim0(plan.b_k_major));
    const unsigned b1 = static_cast<unsigned>(config_.b_box_dim1(plan.b_k_major));
    const CUtensorMapSwizzle b_swizzle =
        config_.b_swizzle_bytes(plan.b_k_major) == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
    encode_one(driver, plan.a, a0, a1, "encoding the TMA tensor map of A", maps_.a, CU_TENSOR_MAP_SWIZZLE_128B,
               sm90_operand_promotion(plan, config_, plan.a));
    encode_one(driver, plan.b, b0, b1, "encoding the TMA tensor map of B", maps_.b, b_swizzle,
               sm90_operand_promotion(plan, config_, plan.b));
  }
  if (config_.b_tail(plan.b_k_major))
    encode_one(driver, plan.b, static_cast<unsigned>(config_.b_tail_cols()), static_cast<unsigned>(bk),
               "encoding the TMA tensor map of B's tail chunk", maps_.bt, CU_TENSOR_MAP_SWIZZLE_64B,
               sm90_operand_promotion(plan, config_, plan.b));
  else
    maps_.bt = maps_.b;
  // A D that TMA cannot store leaves through the threads; its map is a
  // placeholder the kernel never uses.
  if (plan.d_by_threads)
    maps_.d = maps_.a;
  else
    encode_one(driver, plan.d, d0, d1, "encoding the TMA tensor map of D", maps_.d, d_swizzle);
  // The staged input's chunks share D's slots, so its map is D's shape of box.
  if (plan.staged_input >= 0)
    encode_one(driver, plan.c, d0, d1, "encoding the TMA tensor map of the staged epilogue input", maps_.c, d_swizzle);
  else
    maps_.c = maps_.d;
  if (plan.staged_output >= 0)
    encode_one(driver, plan.f, d0, d1, "encoding the TMA tensor map of the staged epilogue output", maps_.f, d_swizzle);
  else
    maps_.f = maps_.d;
  last_ = plan;
  valid_ = true;
  ++encodings_;
}

}  // namespace epigemm::detail
