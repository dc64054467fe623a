// Helpers of the standalone sm90 GEMM development harness: error checks,
// random fills, device-side error norms, operand buffers with their tensor
// maps, and the cuBLAS reference. Host code built with nvcc; not part of CMake.
#pragma once

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <thread>
#include <vector>

#include "../../kernels/sm90_gemm.cuh"

namespace dev {

namespace sm90 = epigemm::sm90;
using sm90::Major;

#define DEV_CHECK_CUDA(x)                                                                 \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)
#define DEV_CHECK_CU(x)                                                                 \
  do {                                                                                  \
    CUresult r_ = (x);                                                                  \
    if (r_ != CUDA_SUCCESS) {                                                           \
      const char* s_ = nullptr;                                                         \
      cuGetErrorString(r_, &s_);                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");   \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)
#define DEV_CHECK_CUBLAS(x)                                                            \
  do {                                                                                 \
    cublasStatus_t s_ = (x);                                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)

/// Deterministic hash -> uniform float in [-1, 1).
__device__ __forceinline__ float hash_uniform(unsigned long long i, unsigned long long seed) {
  unsigned long long x = i * 0x9E3779B97F4A7C15ull ^ (seed + 0x632BE59BD9B4E019ull);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29; x *= 0x94D049BB133111EBull; x ^= x >> 32;
  return static_cast<float>(x & 0xFFFFFF) / 8388608.0f - 1.0f;
}

/// Fills n elements of type T with uniform [-scale, scale) values.
template <class T>
__global__ void fill_random(T* p, size_t n, unsigned long long seed, float scale) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = T(hash_uniform(i, seed) * scale);
}

/// Widens fp8/16-bit values to bf16 (exact for e4m3/e5m2), for the reference.
template <class T>
__global__ void widen_to_bf16(const T* src, __nv_bfloat16* dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = __float2bfloat16(static_cast<float>(src[i]));
}

/// Error sums: [0] sum (out-exp)^2, [1] sum exp^2, [2] non-finite outputs,
/// [3] padding elements that lost their poison. exp = relu(alpha*ref + rb[n] + cb[m])
/// when `epi` is set, else ref.
template <class TD>
__global__ void compare_kernel(const TD* out, const float* ref, int M, int N, int L, long ldd,
                               int epi, float alpha, const float* rb, const float* cb,
                               unsigned short poison16, double* sums) {
  double se = 0, sr = 0, bad = 0, pad = 0;
  const long total = (long)L * M * ldd;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total; i += (long)gridDim.x * blockDim.x) {
    const long n = i % ldd, m = (i / ldd) % M, l = i / ((long)ldd * M);
    if (n >= N) {
      if constexpr (sizeof(TD) == 2) {
        unsigned short bits;
        memcpy(&bits, &out[i], 2);
        pad += bits != poison16;
      }
      continue;
    }
    float e = ref[((long)l * M + m) * N + n];
    if (epi) e = fmaxf(alpha * e + rb[n] + cb[m], 0.f);
    const float o = static_cast<float>(out[i]);
    if (!isfinite(o)) bad += 1;
    se += (double)(o - e) * (o - e);
    sr += (double)e * e;
  }
  atomicAdd(&sums[0], se);
  atomicAdd(&sums[1], sr);
  atomicAdd(&sums[2], bad);
  atomicAdd(&sums[3], pad);
}

/// A device matrix operand of (L, rows, cols) logical shape stored with the
/// given major; `ld` is the stride of the non-contiguous dimension (elements).
struct Operand {
  void* ptr = nullptr;
  size_t elems = 0;
  int elem_bytes = 2;
  long ld = 0;
  long batch_stride = 0;
};

/// Allocates `elems` elements of `bytes` each.
inline Operand alloc_operand(size_t elems, int bytes, long ld, long batch_stride) {
  Operand o;
  o.elems = elems;
  o.elem_bytes = bytes;
  o.ld = ld;
  o.batch_stride = batch_stride;
  DEV_CHECK_CUDA(cudaMalloc(&o.ptr, elems * bytes));
  return o;
}

inline void free_operand(Operand& o) {
  if (o.ptr) DEV_CHECK_CUDA(cudaFree(o.ptr));
  o.ptr = nullptr;
}

/// Encodes a 3-D tensor map over dims {d0 (contiguous), d1, d2} (128-byte
/// swizzle unless `swizzle_bytes` is 64).
inline sm90::CUtensorMap encode_map(const Operand& o, CUtensorMapDataType type, unsigned long long d0,
                                    unsigned long long d1, unsigned long long d2, unsigned box0,
                                    unsigned box1, int swizzle_bytes = 128) {
  CUtensorMap map;
  const cuuint64_t dims[3] = {d0, d1, d2};
  const cuuint64_t strides[2] = {(cuuint64_t)o.ld * o.elem_bytes,
                                 (cuuint64_t)(o.batch_stride ? o.batch_stride : o.ld * d1) * o.elem_bytes};
  const cuuint32_t box[3] = {box0, box1, 1};
  const cuuint32_t estr[3] = {1, 1, 1};
  DEV_CHECK_CU(cuTensorMapEncodeTiled(&map, type, 3, o.ptr, dims, strides, box, estr,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  sm90::CUtensorMap out;
  static_assert(sizeof(out) == sizeof(map), "tensor map size");
  std::memcpy(&out, &map, sizeof(map));
  return out;
}

template <class T>
constexpr CUtensorMapDataType map_type() {
  if constexpr (std::is_same_v<T, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  else if constexpr (std::is_same_v<T, __half>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

template <class T>
constexpr cudaDataType_t blas_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, __half>) return CUDA_R_16F;
  else return CUDA_R_16BF;
}

/// D = A x B through cuBLAS for row-major D (ldd), A/B in either major.
/// Column-major view: D^T (N x M) = op(B) (N x K) * op(A) (K x M).
inline void cublas_gemm(cublasHandle_t h, Major ma, Major mb, int M, int N, int K, int L,
                        const Operand& A, cudaDataType_t ta, const Operand& B, cudaDataType_t tb,
                        void* D, cudaDataType_t td, long ldd, cudaStream_t s) {
  const float one = 1.f, zero = 0.f;
  DEV_CHECK_CUBLAS(cublasSetStream(h, s));
  const cublasOperation_t opb = mb == Major::MN ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t opa = ma == Major::K ? CUBLAS_OP_N : CUBLAS_OP_T;
  const long sa = A.batch_stride, sb = B.batch_stride, sd = ldd * M;
  DEV_CHECK_CUBLAS(cublasGemmStridedBatchedEx(h, opb, opa, N, M, K, &one, B.ptr, tb, (int)B.ld, sb,
                                              A.ptr, ta, (int)A.ld, sa, &zero, D, td, (int)ldd, sd,
                                              L, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/// Waits for `s`, giving up (exit 3) if the work hangs for longer than `seconds`.
inline void sync_or_die(cudaStream_t s, const char* what, double seconds = 30) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(s);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) {
      std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
      std::exit(2);
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
      std::printf("HANG in %s\n", what);
      std::fflush(stdout);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

inline double median(std::vector<float> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace dev
