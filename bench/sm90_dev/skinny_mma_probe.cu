// Skinny GEMM probe (M = 16): how fast a 16-row mma.sync kernel fed by
// cp.async streams B, against cuBLAS in the same process. bf16, A row-major
// (M x K), B row-major (K x N) or K-major (N x K, "W"), D bf16 row-major.
// Each CTA computes 16 x BN of D; WN warps split BN, WK warps split each
// stage's BK (their partial sums meet in shared memory at the end); a ring of
// S stages is filled kStages - 1 ahead by cp.async.cg (16-byte pieces).
// Interleaved: every rep runs each variant and cuBLAS once, each after a
// 256 MiB L2 flush; medians. Prints ms, ratio to cuBLAS and the weights' rate
// as a fraction of a device-to-device copy of the weights.
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o skinny bench/sm90_dev/skinny_mma_probe.cu -lcublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

using u16 = unsigned short;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// kPrefetch: 0 none, 1 .L2::128B, 2 .L2::256B
template <int kPrefetch>
__device__ __forceinline__ void copy16(void* dst, const void* src) {
  if constexpr (kPrefetch == 0)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
  else if constexpr (kPrefetch == 1)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
  else
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const u16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldsm_x4_t(unsigned (&r)[4], const u16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <int BN_, int BK_, int S_, int WN_, int WK_, bool BKM_, int PF_>
struct Cfg {
  static constexpr int BN = BN_, BK = BK_, S = S_, WN = WN_, WK = WK_, PF = PF_;
  static constexpr bool BKM = BKM_;
  static constexpr int kThreads = 32 * WN * WK;
  static constexpr int kWarpN = BN / WN;  // columns per warp
  static constexpr int kWarpK = BK / WK;  // k per warp per stage
  static constexpr int kFragsN = kWarpN / 8;
  static constexpr int kPitchA = BK + 8;
  static constexpr int kPitchB = BKM ? BK + 8 : BN + 8;
  static constexpr int kStageA = 16 * kPitchA;
  static constexpr int kStageB = (BKM ? BN : BK) * kPitchB;
  static constexpr int kSmemBytes = S * (kStageA + kStageB) * 2;
  static_assert(kWarpN % 16 == 0 && kWarpK % 16 == 0, "warp tile");
};

template <class C>
__global__ void __launch_bounds__(C::kThreads) skinny_gemm(const u16* __restrict__ A, const u16* __restrict__ B,
                                                           __nv_bfloat16* __restrict__ D, int N, int K) {
  extern __shared__ __align__(128) u16 smem[];
  u16* sa = smem;
  u16* sb = smem + C::S * C::kStageA;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wn = warp % C::WN, wk = warp / C::WN;
  const long n0 = static_cast<long>(blockIdx.x) * C::BN;
  const int k_tiles = K / C::BK;

  const auto fetch = [&](int kt, int stage) {
    const long k0 = static_cast<long>(kt) * C::BK;
    u16* ta = sa + stage * C::kStageA;
    u16* tb = sb + stage * C::kStageB;
    constexpr int kPiecesA = 16 * C::BK / 8;
    for (int e = tid; e < kPiecesA; e += C::kThreads) {
      const int r = e / (C::BK / 8), c = e % (C::BK / 8);
      copy16<C::PF>(ta + r * C::kPitchA + c * 8, A + r * static_cast<long>(K) + k0 + c * 8);
    }
    constexpr int kPiecesB = C::BK * C::BN / 8;
#pragma unroll 4
    for (int e = tid; e < kPiecesB; e += C::kThreads) {
      if constexpr (C::BKM) {
        const int r = e / (C::BK / 8), c = e % (C::BK / 8);  // r: n, c: k piece
        copy16<C::PF>(tb + r * C::kPitchB + c * 8, B + (n0 + r) * K + k0 + c * 8);
      } else {
        const int r = e / (C::BN / 8), c = e % (C::BN / 8);  // r: k, c: n piece
        copy16<C::PF>(tb + r * C::kPitchB + c * 8, B + (k0 + r) * N + n0 + c * 8);
      }
    }
  };
  const auto commit = []() { asm volatile("cp.async.commit_group;\n" ::); };

  float acc[C::kFragsN][4];
#pragma unroll
  for (int j = 0; j < C::kFragsN; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.0f;

#pragma unroll
  for (int s = 0; s < C::S - 1; ++s) {
    if (s < k_tiles) fetch(s, s);
    commit();
  }
  const int quad = lane / 8, row8 = lane % 8;
  const int a_row = lane % 16, a_col = (lane / 16) * 8;
  const int b_row = C::BKM ? (quad / 2) * 8 + row8 : (quad % 2) * 8 + row8;
  const int b_col = C::BKM ? (quad % 2) * 8 : (quad / 2) * 8;

  for (int kt = 0; kt < k_tiles; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(C::S - 2));
    __syncthreads();
    const int next = kt + C::S - 1;
    if (next < k_tiles) fetch(next, next % C::S);
    commit();
    const int stage = kt % C::S;
    const u16* ta = sa + stage * C::kStageA;
    const u16* tb = sb + stage * C::kStageB;
#pragma unroll
    for (int ks = 0; ks < C::kWarpK; ks += 16) {
      const int k = wk * C::kWarpK + ks;
      unsigned a[4];
      ldsm_x4(a, ta + a_row * C::kPitchA + k + a_col);
#pragma unroll
      for (int jj = 0; jj < C::kFragsN / 2; ++jj) {
        const int n = wn * C::kWarpN + jj * 16;
        unsigned b[4];
        if constexpr (C::BKM) ldsm_x4(b, tb + (n + b_row) * C::kPitchB + k + b_col);
        else ldsm_x4_t(b, tb + (k + b_row) * C::kPitchB + n + b_col);
        mma_bf16(acc[2 * jj], a, b[0], b[1]);
        mma_bf16(acc[2 * jj + 1], a, b[2], b[3]);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::);
  if constexpr (C::WK > 1) {
    __syncthreads();
    float* red = reinterpret_cast<float*>(smem);  // [WK - 1][16][BN]
    if (wk > 0) {
#pragma unroll
      for (int j = 0; j < C::kFragsN; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int m = lane / 4 + (r / 2) * 8, n = wn * C::kWarpN + j * 8 + (lane % 4) * 2 + r % 2;
          red[((wk - 1) * 16 + m) * C::BN + n] = acc[j][r];
        }
    }
    __syncthreads();
    if (wk > 0) return;
#pragma unroll
    for (int j = 0; j < C::kFragsN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int m = lane / 4 + (r / 2) * 8, n = wn * C::kWarpN + j * 8 + (lane % 4) * 2 + r % 2;
        for (int w = 0; w < C::WK - 1; ++w) acc[j][r] += red[(w * 16 + m) * C::BN + n];
      }
  }
#pragma unroll
  for (int j = 0; j < C::kFragsN; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = lane / 4 + h * 8;
      const long n = n0 + wn * C::kWarpN + j * 8 + (lane % 4) * 2;
      *reinterpret_cast<__nv_bfloat162*>(D + m * static_cast<long>(N) + n) =
          __floats2bfloat162_rn(acc[j][2 * h], acc[j][2 * h + 1]);
    }
}

__global__ void flush_read(const int4* p, long n, int* sink) {
  int acc = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    acc ^= p[i].x;
  if (acc == 0x7fffffff) *sink = acc;
}

struct Variant {
  std::string name;
  std::function<void()> launch;
  std::vector<float> ms;
};

template <class C>
Variant make_variant(const char* label, const u16* a, const u16* b, __nv_bfloat16* d, int N, int K) {
  CHECK(cudaFuncSetAttribute(skinny_gemm<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
  char name[160];
  std::snprintf(name, sizeof name, "%s BN%d BK%d S%d w%dx%d pf%d (%d KB)", label, C::BN, C::BK, C::S, C::WN, C::WK,
                C::PF, C::kSmemBytes / 1024);
  return {name, [=] { skinny_gemm<C><<<N / C::BN, C::kThreads, C::kSmemBytes>>>(a, b, d, N, K); }, {}};
}

/// The probed configurations for one layout of B.
template <bool kKMajor>
void add_variants(std::vector<Variant>& vs, const char* label, const u16* a, const u16* b, __nv_bfloat16* d, int N,
                  int K) {
  vs.push_back(make_variant<Cfg<64, 128, 5, 4, 1, kKMajor, 0>>(label, a, b, d, N, K));
  vs.push_back(make_variant<Cfg<64, 128, 5, 4, 1, kKMajor, 2>>(label, a, b, d, N, K));
  vs.push_back(make_variant<Cfg<64, 128, 8, 4, 1, kKMajor, 0>>(label, a, b, d, N, K));
  vs.push_back(make_variant<Cfg<64, 128, 5, 4, 2, kKMajor, 0>>(label, a, b, d, N, K));
  vs.push_back(make_variant<Cfg<64, 256, 4, 4, 2, kKMajor, 0>>(label, a, b, d, N, K));
  vs.push_back(make_variant<Cfg<64, 64, 8, 4, 1, kKMajor, 0>>(label, a, b, d, N, K));
  vs.push_back(make_variant<Cfg<32, 128, 6, 2, 2, kKMajor, 0>>(label, a, b, d, N, K));
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int M = 16, N = 8192, K = 8192;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 60;
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__nv_bfloat16> ha(static_cast<size_t>(M) * K), hb(static_cast<size_t>(K) * N);
  for (auto& x : ha) x = __float2bfloat16(dist(rng));
  for (auto& x : hb) x = __float2bfloat16(dist(rng));
  __nv_bfloat16 *a, *b, *d, *ref, *copy_dst;
  CHECK(cudaMalloc(&a, ha.size() * 2));
  CHECK(cudaMalloc(&b, hb.size() * 2));
  CHECK(cudaMalloc(&copy_dst, hb.size() * 2));
  CHECK(cudaMalloc(&d, static_cast<size_t>(M) * N * 2));
  CHECK(cudaMalloc(&ref, static_cast<size_t>(M) * N * 2));
  CHECK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  const long flush_bytes = 256L << 20;
  int4* flush;
  int* sink;
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMemset(flush, 1, flush_bytes));
  CHECK(cudaMalloc(&sink, 4));
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1.0f, zero = 0.0f;
  const auto* ua = reinterpret_cast<const u16*>(a);
  const auto* ub = reinterpret_cast<const u16*>(b);

  for (int layout = 0; layout < 2; ++layout) {
    const bool kmajor = layout == 1;  // b holds W (N x K) when K-major
    std::vector<Variant> vs;
    vs.push_back({"cuBLAS", [&, kmajor] {
                    cublasGemmEx(h, kmajor ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, CUDA_R_16BF,
                                 kmajor ? K : N, a, CUDA_R_16BF, K, &zero, ref, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT);
                  },
                  {}});
    vs.push_back({"copy of B", [&] { cudaMemcpyAsync(copy_dst, b, hb.size() * 2, cudaMemcpyDeviceToDevice); }, {}});
    if (kmajor) add_variants<true>(vs, "kmaj", ua, ub, d, N, K);
    else add_variants<false>(vs, "row", ua, ub, d, N, K);
    // Correctness: every variant's D against cuBLAS's on poisoned outputs.
    vs[0].launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> hr(static_cast<size_t>(M) * N), hd(hr.size());
    CHECK(cudaMemcpy(hr.data(), ref, hr.size() * 2, cudaMemcpyDeviceToHost));
    for (size_t v = 2; v < vs.size(); ++v) {
      CHECK(cudaMemset(d, 0xff, hd.size() * 2));
      vs[v].launch();
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(hd.data(), d, hd.size() * 2, cudaMemcpyDeviceToHost));
      double worst = 0, norm = 0;
      for (size_t i = 0; i < hd.size(); ++i) {
        const double x = __bfloat162float(hd[i]), y = __bfloat162float(hr[i]);
        worst = std::max(worst, std::isnan(x) ? 1e30 : std::fabs(x - y));
        norm = std::max(norm, std::fabs(y));
      }
      std::printf("check %-40s max |d - ref| %.3g (max |ref| %.3g) %s\n", vs[v].name.c_str(), worst, norm,
                  worst <= 0.02 * norm ? "PASS" : "FAIL");
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int rep = 0; rep < reps; ++rep)
      for (size_t i = 0; i < vs.size(); ++i) {
        Variant& v = vs[(i + rep) % vs.size()];
        flush_read<<<528, 512>>>(flush, flush_bytes / 16, sink);
        cudaEventRecord(e0);
        v.launch();
        cudaEventRecord(e1);
        CHECK(cudaEventSynchronize(e1));
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep > 2) v.ms.push_back(ms);
      }
    const float base = median(vs[0].ms);
    const double copy_rate = 2.0 * hb.size() * 2 / median(vs[1].ms);
    std::printf("B %s, %dx%dx%d bf16, %d reps\n", kmajor ? "K-major (W)" : "row-major", M, N, K, reps);
    for (auto& v : vs) {
      const float ms = median(v.ms);
      std::printf("  %-44s %.4f ms  ratio %.3f  BW frac %.3f\n", v.name.c_str(), ms, ms / base,
                  hb.size() * 2 / ms / copy_rate);
    }
  }
  return 0;
}
