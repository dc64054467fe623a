// How fast the card streams the skinny GEMM's weights, by load mechanism: B
// is a bf16 8192 x 8192 matrix, K contiguous (128 MB, like the weights at
// M = 16, N = K = 8192). Each work unit is a band of R rows of B (N) times a
// range of K; a CTA streams its units through an mbarrier ring of S stages, as
// the GEMM's producer does, and a consumer warp releases each stage as soon
// as it lands (no math). Mechanisms: tma_stream (2-D boxes of R rows x 64 K,
// optionally several per stage, an evict_first hint, a 16-row A beside B),
// tma_stream3d (one 4-D box of several k-blocks per operand and stage: the
// grouped-k tiles; or the same bytes read as an N-major B, a 64-column band
// per CTA), cpasync_stream (16-byte cp.async by 128 threads),
// bulk_stream (1-D bulk copies), ldg_stream (plain loads in the mma.sync
// fragment pattern); a K-major band may also be read as two halves of its
// rows, the second half of K ahead (halves). Each runs after two kinds of L2
// flush: a 256 MB memset (leaves dirty lines) and a 256 MB read (leaves L2
// clean). Reported as the
// benchmark's "of copy" (bytes read / time over bytes read + written /
// device-to-device copy time), best of 20 event-timed runs (the 3-D and
// N-major reads also print the median).
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o tma_read bench/sm90_dev/tma_read.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdint>

#include "../../kernels/sm90_ptx.cuh"
#include "event_timing.cuh"

namespace {

using epigemm::sm90::mbar_arrive;
using epigemm::sm90::mbar_arrive_expect_tx;
using epigemm::sm90::mbar_wait;
using epigemm::sm90::smem_addr;

constexpr int kRows = 8192;  // N
constexpr int kCols = 8192;  // K (bf16)
constexpr long kBytes = static_cast<long>(kRows) * kCols * 2;
constexpr int kReps = 20;

/// A ring of `stages` stages of `stage_bytes` in the dynamic shared memory
/// (1024-byte aligned for the 128-byte swizzle), then a full and an empty
/// mbarrier per stage; thread 0 initialises them (`full_count` arrivals
/// complete a full barrier) and the whole block waits for that. The
/// producer waits on empty(), fills slot() and arrives on full(); the
/// consumer calls consume(); both then next().
struct StageRing {
  uint32_t data, full0, empty0;
  int stage_bytes, stages;
  int stage = 0;
  uint32_t phase = 0;

  __device__ StageRing(unsigned char* smem_raw, int stage_bytes_, int stages_, uint32_t full_count)
      : stage_bytes(stage_bytes_), stages(stages_) {
    data = (smem_addr(smem_raw) + 1023u) & ~1023u;
    full0 = data + stages * stage_bytes;
    empty0 = full0 + 8 * stages;
    if (threadIdx.x == 0) {
      for (int i = 0; i < stages; ++i) {
        epigemm::sm90::mbar_init(full0 + 8 * i, full_count);
        epigemm::sm90::mbar_init(empty0 + 8 * i, 1);
      }
      epigemm::sm90::fence_mbar_init();
    }
    __syncthreads();
  }
  __device__ uint32_t slot() const { return data + stage * stage_bytes; }
  __device__ uint32_t full() const { return full0 + 8 * stage; }
  /// Producer: waits until the consumer has released the current stage.
  __device__ void wait_empty() const { mbar_wait(empty0 + 8 * stage, phase ^ 1); }
  /// Consumer: waits for the current stage and releases it at once.
  __device__ void consume() const {
    mbar_wait(full(), phase);
    mbar_arrive(empty0 + 8 * stage);
  }
  __device__ void next() {
    if (++stage == stages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

struct Shape {
  int box_rows;     // R: rows of B per box (<= 256)
  int boxes;        // boxes per stage (stacked along N): a unit is R * boxes rows wide
  int k_group;      // boxes per stage along K (consecutive 128-byte columns, issued together)
  int stages;       // S
  int k_splits;     // K ranges per band
  int rotate;       // 1: each unit starts at a different k-block
  int contiguous;   // 1: the boxes tile the matrix viewed as rows of 128 bytes (contiguous reads)
  int evict_first;  // 1: loads carry an L2 evict_first cache hint
  int a_box_rows;   // > 0: each stage also loads a box this many rows tall of a 16-row A (the GEMM at M = 16)
  int n_major;      // tma_stream3d: 1 reads the matrix as an N-major B (N contiguous), 64 columns per band
  int halves;       // tma_stream3d, K-major: 1 reads a band's two halves of rows half of K apart (two boxes)
};

// One unit = (band, split); CTA b takes units b, b + grid, ...
__global__ void __launch_bounds__(64) tma_stream(const __grid_constant__ CUtensorMap map,
                                                 const __grid_constant__ CUtensorMap amap, Shape s) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int b_bytes = s.box_rows * 128 * s.boxes * s.k_group;
  const int stage_bytes = b_bytes + s.a_box_rows * 128 * s.k_group;
  StageRing ring(smem_raw, stage_bytes, s.stages, 1);
  const int band_rows = s.box_rows * s.boxes;
  const int bands = kRows / band_rows;
  const int units = bands * s.k_splits;
  const int kb_total = kCols / 64 / s.k_group;  // k-blocks of k_group boxes
  const int kb_per_split = kb_total / s.k_splits;
  const bool producer = threadIdx.x == 0, consumer = threadIdx.x == 32;
  if (!producer && !consumer) return;
  const uint64_t policy = epigemm::sm90::l2_evict_first_policy();
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const int band = u % bands, split = u / bands;
    const int first = split * kb_per_split;
    const int start = s.rotate ? u % kb_per_split : 0;
    for (int i = 0; i < kb_per_split; ++i) {
      const int kb = first + (start + i) % kb_per_split;
      const uint32_t full = ring.full();
      if (producer) {
        ring.wait_empty();
        mbar_arrive_expect_tx(full, stage_bytes);
        for (int g = 0; g < s.k_group; ++g) {
          if (s.a_box_rows > 0) {
            const uint32_t dst = ring.slot() + b_bytes + g * s.a_box_rows * 128;
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                "l"(reinterpret_cast<uint64_t>(&amap)), "r"(full), "r"((kb * s.k_group + g) * 64), "r"(0)
                : "memory");
          }
          for (int b = 0; b < s.boxes; ++b) {
            const uint32_t dst = ring.slot() + (g * s.boxes + b) * s.box_rows * 128;
            const int c0 = s.contiguous ? 0 : (kb * s.k_group + g) * 64;
            const int c1 = s.contiguous ? ((u * kb_per_split + i) * s.k_group + g) * s.box_rows
                                        : band * band_rows + b * s.box_rows;
            if (s.evict_first) {
              asm volatile(
                  "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
                  " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
                  "l"(reinterpret_cast<uint64_t>(&map)), "r"(full), "r"(c0), "r"(c1), "l"(policy)
                  : "memory");
            } else {
              asm volatile(
                  "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                  " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                  "l"(reinterpret_cast<uint64_t>(&map)), "r"(full), "r"(c0), "r"(c1)
                  : "memory");
            }
          }
        }
      } else {
        ring.consume();
      }
      ring.next();
    }
  }
}

// The same stream loaded by 128 producer threads with 16-byte cp.async into
// the 128-byte-swizzled layout (what TMA writes), each stage's completion
// tracked by the full barrier through cp.async.mbarrier.arrive.noinc.
__global__ void __launch_bounds__(160) cpasync_stream(const char* __restrict__ m, Shape s) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  StageRing ring(smem_raw, s.box_rows * 128 * s.k_group, s.stages, 128);
  const int bands = kRows / s.box_rows;
  const int units = bands * s.k_splits;
  const int kb_per_split = kCols / 64 / s.k_group / s.k_splits;
  const bool producer = threadIdx.x < 128, consumer = threadIdx.x == 128;
  if (!producer && !consumer) return;
  const int vectors = s.box_rows * 8 * s.k_group;  // 16-byte vectors per stage
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const int band = u % bands, split = u / bands;
    for (int i = 0; i < kb_per_split; ++i) {
      const int kb = split * kb_per_split + i;
      if (producer) {
        ring.wait_empty();
        const uint32_t base = ring.slot();
        for (int v = threadIdx.x; v < vectors; v += 128) {
          const int unit16 = v % 8, row = (v / 8) % s.box_rows, g = v / 8 / s.box_rows;
          const char* src = m + (static_cast<long>(band * s.box_rows + row) * kCols +
                                 (kb * s.k_group + g) * 64) * 2 + unit16 * 16;
          const uint32_t dst = base + g * s.box_rows * 128 + row * 128 + ((unit16 ^ (row & 7)) << 4);
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
        }
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(ring.full()) : "memory");
      } else {
        ring.consume();
      }
      ring.next();
    }
  }
}

// Contiguous 1-D bulk copies (cp.async.bulk, no tensor map) of `chunk` bytes
// through a ring of S stages; CTA b takes chunks b, b + grid, ...
__global__ void __launch_bounds__(64) bulk_stream(const char* __restrict__ m, int chunk, int stages) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  StageRing ring(smem_raw, chunk, stages, 1);
  const bool producer = threadIdx.x == 0, consumer = threadIdx.x == 32;
  if (!producer && !consumer) return;
  const long chunks = kBytes / chunk;
  for (long c = blockIdx.x; c < chunks; c += gridDim.x) {
    if (producer) {
      ring.wait_empty();
      mbar_arrive_expect_tx(ring.full(), chunk);
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                       ring.slot()),
                   "l"(m + c * chunk), "r"(chunk), "r"(ring.full())
                   : "memory");
    } else {
      ring.consume();
    }
    ring.next();
  }
}

// Plain 16-byte loads in the pattern of mma.sync B fragments read straight
// from global memory: lane t of a warp reads row 8g + t / 4 at K offset
// 8 (t % 4) + 32 u (u < U, all in flight), i.e. 8 rows x 64 bytes per load.
// A CTA covers `rows` rows of B (rows / 8 row groups) and K / splits of K; its
// 8 warps split the row groups and then K.
template <int U, bool kStreaming>
__global__ void __launch_bounds__(256) ldg_stream(const int4* __restrict__ m, int rows, int splits, float* sink) {
  const int groups = rows / 8, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int bands = kRows / rows;
  const int band = blockIdx.x % bands, split = blockIdx.x / bands;
  const int group = warp % groups, part = warp / groups, parts = 8 / groups;
  const int k_len = kCols / splits / parts;  // elements of K per warp
  const int row = band * rows + group * 8 + lane / 4;
  const int4* p = m + (static_cast<long>(row) * kCols + split * (kCols / splits) + part * k_len + 8 * (lane % 4)) / 8;
  int acc = 0;
  for (int k = 0; k < k_len; k += 32 * U) {
    int4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = kStreaming ? __ldcs(p + (k + 32 * u) / 8) : p[(k + 32 * u) / 8];
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= x[u].x ^ x[u].y ^ x[u].z ^ x[u].w;
  }
  if (acc == 0x12345678) sink[0] = 1.0f;
}

__global__ void read_all(const int4* __restrict__ m, long n, int* sink) {
  int acc = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int4 x = m[i];  // default policy: the lines replace what L2 held
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x12345678) sink[0] = 1;
}

// How times_ms (and best_ms) empties L2 before each run: rewrite a 256 MB buffer (false) or
// read a different 256 MB buffer, leaving no dirty lines (true).
bool g_read_flush = false;
char* g_clean = nullptr;

// One 3-D box per stage and operand: B viewed as {64, rows, K / 64} (the
// k-block as the outer dimension) so that one TMA op brings k_group k-blocks
// of R rows (k-block j at j * R * 128 bytes, the layout a ring of k_group
// single k-block stages would have), and A likewise with a_box_rows rows.
// n_major: the same matrix read as an N-major B (the benchmark's "B
// row-major"): band b is 64 columns wide, one 2-D box of 64 columns x 64 *
// k_group rows of K per stage (box_rows must be 64).
__global__ void __launch_bounds__(64) tma_stream3d(const __grid_constant__ CUtensorMap map,
                                                   const __grid_constant__ CUtensorMap amap, Shape s) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const int b_bytes = s.box_rows * 128 * s.k_group;
  const int stage_bytes = b_bytes + s.a_box_rows * 128 * s.k_group;
  StageRing ring(smem_raw, stage_bytes, s.stages, 1);
  const int bands = s.n_major ? kCols / 64 : kRows / s.box_rows;
  const int groups = (s.n_major ? kRows : kCols) / 64 / s.k_group;
  const bool producer = threadIdx.x == 0, consumer = threadIdx.x == 32;
  if (!producer && !consumer) return;
  const uint64_t policy = epigemm::sm90::l2_evict_first_policy();
  for (int band = blockIdx.x; band < bands; band += gridDim.x) {
    for (int i = 0; i < groups; ++i) {
      // rotate: band b starts b groups along K and wraps (the GEMM's stagger on 64x64 x4).
      const int g = s.rotate ? (i + band) % groups : i;
      const uint32_t full = ring.full();
      if (producer) {
        ring.wait_empty();
        mbar_arrive_expect_tx(full, stage_bytes);
        const uint32_t dst = ring.slot();
        if (s.n_major)
          asm volatile(
              "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
              " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
              "l"(reinterpret_cast<uint64_t>(&map)), "r"(full), "r"(band * 64), "r"(g * 64 * s.k_group), "l"(policy)
              : "memory");
        else
          for (int h = 0; h < (s.halves ? 2 : 1); ++h) {
            // halves: the second half of the band's rows streams K from half-way round.
            const int rows = s.halves ? s.box_rows / 2 : s.box_rows;
            const int gh = h == 0 ? g : (g + groups / 2) % groups;
            asm volatile(
                "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
                " [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst + h * rows * 128 * s.k_group),
                "l"(reinterpret_cast<uint64_t>(&map)), "r"(full), "r"(0), "r"(band * s.box_rows + h * rows),
                "r"(gh * s.k_group), "l"(policy)
                : "memory");
          }
        if (s.a_box_rows > 0)
          asm volatile(
              "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
              " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst + b_bytes),
              "l"(reinterpret_cast<uint64_t>(&amap)), "r"(full), "r"(0), "r"(0), "r"(g * s.k_group)
              : "memory");
      } else {
        ring.consume();
      }
      ring.next();
    }
  }
}

// {64, rows, K / 64} view of a rows x K bf16 matrix, box {64, box_rows, k_group}.
CUtensorMap make_map3d(void* base, int rows, int box_rows, int k_group) {
  CUtensorMap map;
  const cuuint64_t dims[3] = {64, static_cast<cuuint64_t>(rows), kCols / 64};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(kCols) * 2, 128};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), static_cast<cuuint32_t>(k_group)};
  const cuuint32_t elem[3] = {1, 1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, base, dims, strides, box,
                                            elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) std::printf("cuTensorMapEncodeTiled (3-D) failed: %d\n", static_cast<int>(r));
  return map;
}

template <class Launch>
EventTimes times_ms(char* flush, cudaEvent_t a, cudaEvent_t b, Launch launch) {
  const auto flush_l2 = [&](int i) {
    if (g_read_flush)
      read_all<<<528, 512>>>(reinterpret_cast<const int4*>(g_clean), (256 << 20) / 16, reinterpret_cast<int*>(flush));
    else
      cudaMemset(flush, i, 256 << 20);
  };
  return event_times_ms(kReps, a, b, flush_l2, launch);
}

template <class Launch>
float best_ms(char* flush, cudaEvent_t a, cudaEvent_t b, Launch launch) {
  return times_ms(flush, a, b, launch).best;
}

CUtensorMap make_map(void* base, int box_rows, CUtensorMapL2promotion promotion, bool contiguous,
                     int rows = kRows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {contiguous ? 64u : static_cast<cuuint64_t>(kCols),
                              contiguous ? static_cast<cuuint64_t>(kRows) * (kCols / 64)
                                         : static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {contiguous ? 128u : static_cast<cuuint64_t>(kCols) * 2};
  const cuuint32_t box[2] = {64, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box,
                                            elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                            promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) std::printf("cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
  return map;
}

}  // namespace

int main() {
  char* m = nullptr;
  char* copy = nullptr;
  char* flush = nullptr;
  cudaMalloc(&m, kBytes);
  cudaMalloc(&copy, kBytes);
  cudaMalloc(&flush, 256 << 20);
  cudaMemset(m, 1, kBytes);
  cudaFuncSetAttribute(tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaMalloc(&g_clean, 256 << 20);
  char* a_small = nullptr;
  cudaMalloc(&a_small, 16 * kCols * 2);
  cudaMemset(a_small, 1, 16 * kCols * 2);
  cudaMemset(g_clean, 3, 256 << 20);
  for (int mode = 0; mode < 2; ++mode) {
  g_read_flush = mode == 1;
  std::printf("== L2 flush: %s\n", g_read_flush ? "read 256 MB (clean)" : "memset 256 MB (dirty)");
  const float copy_ms = best_ms(flush, a, b, [&] { cudaMemcpyAsync(copy, m, kBytes, cudaMemcpyDeviceToDevice); });
  std::printf("copy 128 MB: %.1f us, %.2f TB/s (read + written)\n", copy_ms * 1e3, 2.0 * kBytes / copy_ms / 1e9);

  struct Case {
    Shape s;
    int ctas_per_sm;  // 0: grid = units (one per SM at most, as the GEMM's 128 tiles)
    int promotion;    // L2 promotion: 0 none, 128, 256 bytes
  };
  const Case cases[] = {
      {{64, 1, 1, 13, 1, 0, 0, 1, 0}, 0, 256},
      {{64, 1, 1, 13, 1, 0, 0, 1, 16}, 0, 256},
  };
  for (const Case& c : cases) {
    const Shape& s = c.s;
    const CUtensorMapL2promotion promotion = c.promotion == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                             : c.promotion == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                                  : CU_TENSOR_MAP_L2_PROMOTION_NONE;
    const CUtensorMap map = make_map(m, s.box_rows, promotion, s.contiguous != 0);
    const int units = kRows / (s.box_rows * s.boxes) * s.k_splits;
    const int grid = c.ctas_per_sm == 0 ? units : (units < sms * c.ctas_per_sm ? units : sms * c.ctas_per_sm);
    const int smem = s.stages * (s.box_rows * s.boxes + s.a_box_rows) * 128 * s.k_group + 16 * s.stages + 1024;
    const CUtensorMap amap = make_map(a_small, s.a_box_rows > 0 ? s.a_box_rows : 16, promotion, false, 16);
    const float ms = best_ms(flush, a, b, [&] { tma_stream<<<grid, 64, smem>>>(map, amap, s); });
    std::printf("TMA A%2d%s%s R=%3d x%d kgroup=%d S=%2d splits=%d rotate=%d promo=%3d grid=%4d smem=%3d KB: %.1f us  %.2f TB/s  "
                "%.3f of copy\n",
                s.a_box_rows, s.contiguous ? " contiguous" : "", s.evict_first ? " evict_first" : "", s.box_rows, s.boxes, s.k_group, s.stages, s.k_splits, s.rotate, c.promotion, grid, smem / 1024,
                ms * 1e3, kBytes / ms / 1e9, copy_ms / 2 / ms);
  }
  cudaFuncSetAttribute(tma_stream3d, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  struct Case3d {
    int box_rows, k_group, stages, a_rows, rotate = 0, halves = 0;
  };
  for (const Case3d& c : {Case3d{64, 2, 6, 16}, Case3d{64, 2, 6, 16, 1}, Case3d{64, 2, 6, 16, 0, 1},
                          Case3d{64, 2, 6, 16, 1, 1}, Case3d{64, 4, 3, 16, 1}, Case3d{64, 4, 3, 16, 1, 1},
                          Case3d{64, 1, 12, 16, 1}}) {
    Shape s{};
    s.rotate = c.rotate;
    s.halves = c.halves;
    s.box_rows = c.box_rows;
    s.k_group = c.k_group;
    s.stages = c.stages;
    s.a_box_rows = c.a_rows;
    const CUtensorMap map = make_map3d(m, kRows, c.halves ? c.box_rows / 2 : c.box_rows, c.k_group);
    const CUtensorMap amap = make_map3d(a_small, 16, c.a_rows > 0 ? c.a_rows : 16, c.k_group);
    const int smem = c.stages * (c.box_rows + c.a_rows) * 128 * c.k_group + 16 * c.stages + 1024;
    const int grid = kRows / c.box_rows;
    const EventTimes t = times_ms(flush, a, b, [&] { tma_stream3d<<<grid, 64, smem>>>(map, amap, s); });
    std::printf("TMA 3-D R=%3d kblocks/op=%d S=%2d A%2d%s%s grid=%4d smem=%3d KB: best %.1f us (%.3f of copy), median %.1f us (%.3f)\n",
                c.box_rows, c.k_group, c.stages, c.a_rows, c.rotate ? " staggered" : "",
                c.halves ? " halves" : "", grid, smem / 1024,
                t.best * 1e3, copy_ms / 2 / t.best, t.median * 1e3, copy_ms / 2 / t.median);
  }
  // K-major (the 3-D boxes above) against N-major at the same stage bytes.
  for (const Case3d& c : {Case3d{64, 4, 3, 16}, Case3d{64, 2, 6, 16}, Case3d{64, 1, 12, 16}}) {
    Shape s{};
    s.n_major = 1;
    s.box_rows = 64;
    s.k_group = c.k_group;
    s.stages = c.stages;
    s.a_box_rows = c.a_rows;
    const CUtensorMap map = make_map(m, 64 * c.k_group, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, false);
    const CUtensorMap amap = make_map3d(a_small, 16, c.a_rows > 0 ? c.a_rows : 16, c.k_group);
    const int smem = c.stages * (64 + c.a_rows) * 128 * c.k_group + 16 * c.stages + 1024;
    const int grid = kCols / 64;
    const EventTimes t = times_ms(flush, a, b, [&] { tma_stream3d<<<grid, 64, smem>>>(map, amap, s); });
    std::printf("TMA N-major 64 cols x %3d K rows S=%2d A%2d grid=%4d smem=%3d KB: best %.1f us (%.3f of copy), median %.1f us (%.3f)\n",
                64 * c.k_group, c.stages, c.a_rows, grid, smem / 1024, t.best * 1e3, copy_ms / 2 / t.best,
                t.median * 1e3, copy_ms / 2 / t.median);
  }
  cudaFuncSetAttribute(cpasync_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  struct CpCase {
    Shape s;
    int ctas_per_sm;
  };
  const CpCase cp_cases[] = {
      {{64, 1, 2, 3, 4, 0, 0, 0}, 4},
  };
  for (const CpCase& c : cp_cases) {
    const Shape& s = c.s;
    const int units = kRows / s.box_rows * s.k_splits;
    const int grid = c.ctas_per_sm == 0 ? units : (units < sms * c.ctas_per_sm ? units : sms * c.ctas_per_sm);
    const int smem = s.stages * s.box_rows * 128 * s.k_group + 16 * s.stages + 1024;
    const float ms = best_ms(flush, a, b, [&] { cpasync_stream<<<grid, 160, smem>>>(m, s); });
    std::printf("cp.async R=%3d kgroup=%d S=%2d splits=%d grid=%4d smem=%3d KB: %.1f us  %.2f TB/s  %.3f of copy\n",
                s.box_rows, s.k_group, s.stages, s.k_splits, grid, smem / 1024, ms * 1e3, kBytes / ms / 1e9,
                copy_ms / 2 / ms);
  }
  cudaFuncSetAttribute(bulk_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  for (int chunk : {16384}) {
    for (int ctas_per_sm : {1}) {
      const int stages = 98304 / chunk / ctas_per_sm;
      const int smem = stages * chunk + 16 * stages + 1024;
      const float ms = best_ms(flush, a, b, [&] { bulk_stream<<<sms * ctas_per_sm, 64, smem>>>(m, chunk, stages); });
      std::printf("bulk chunk=%5d S=%2d grid=%4d: %.1f us  %.2f TB/s  %.3f of copy\n", chunk, stages,
                  sms * ctas_per_sm, ms * 1e3, kBytes / ms / 1e9, copy_ms / 2 / ms);
    }
  }
  float* sink = nullptr;
  cudaMalloc(&sink, sizeof(float));
  struct LdgCase {
    int rows, splits, unroll;
  };
  const LdgCase ldg_cases[] = {{16, 1, 8}, {64, 4, 8}};
  for (const LdgCase& c : ldg_cases) {
    for (int streaming : {0, 1}) {
      const int grid = kRows / c.rows * c.splits;
      const float ms = best_ms(flush, a, b, [&] {
        if (streaming)
          ldg_stream<8, true><<<grid, 256>>>(reinterpret_cast<const int4*>(m), c.rows, c.splits, sink);
        else
          ldg_stream<8, false><<<grid, 256>>>(reinterpret_cast<const int4*>(m), c.rows, c.splits, sink);
      });
      std::printf("ldg%s rows=%2d splits=%d U=%d grid=%4d: %.1f us  %.2f TB/s  %.3f of copy\n",
                  streaming ? ".cs" : "", c.rows, c.splits, c.unroll, grid, ms * 1e3, kBytes / ms / 1e9,
                  copy_ms / 2 / ms);
    }
  }
  }
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
