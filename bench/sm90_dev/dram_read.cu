// DRAM read ceiling of the card, as the benchmark's skinny rows see it: reads
// of a 128 MB matrix (8192 rows of 16 KB, like bf16 B at N = K = 8192) timed
// with CUDA events after an L2 flush, reported as a fraction of a
// device-to-device copy of the same bytes (bytes read / time over bytes read
// + written / copy time, the benchmark's "BW frac").
//   band_read: CTA c reads a band W bytes wide of every row in its range, row
//              after row (the pattern of a narrow-N tile walking down K);
//   seq_read:  each CTA reads contiguous 16-byte vectors, U loads in flight
//              per thread.
// Build: nvcc -O3 -arch=sm_90a -o dram_read bench/sm90_dev/dram_read.cu
#include <cuda_runtime.h>

#include <cstdio>

#include "event_timing.cuh"

namespace {

constexpr long kRows = 8192;
constexpr long kRowBytes = 16384;
constexpr long kBytes = kRows * kRowBytes;
constexpr int kReps = 10;

__global__ void band_read(const int4* __restrict__ m, int width, int row_groups, float* sink) {
  const int bands = static_cast<int>(kRowBytes / width);
  const int band = blockIdx.x % bands, group = blockIdx.x / bands;
  const long rows = kRows / row_groups;
  const long vectors_per_row = width / 16;
  const long total = rows * vectors_per_row;
  int acc = 0;
  for (long p0 = threadIdx.x; p0 < total; p0 += 8L * blockDim.x) {
    int4 x[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const long p = p0 + static_cast<long>(u) * blockDim.x;
      const long row = group * rows + p / vectors_per_row;
      x[u] = p < total ? m[(row * kRowBytes + static_cast<long>(band) * width) / 16 + p % vectors_per_row]
                       : int4{0, 0, 0, 0};
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) acc ^= x[u].x ^ x[u].y ^ x[u].z ^ x[u].w;
  }
  if (acc == 0x12345678) sink[0] = 1.0f;  // keeps the loads
}

template <int U>
__global__ void seq_read(const int4* __restrict__ m, long n, float* sink) {
  int acc = 0;
  for (long base = static_cast<long>(blockIdx.x) * U * blockDim.x; base < n;
       base += static_cast<long>(gridDim.x) * U * blockDim.x) {
    int4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = __ldcs(&m[base + u * blockDim.x + threadIdx.x]);
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= x[u].x ^ x[u].y ^ x[u].z ^ x[u].w;
  }
  if (acc == 0x12345678) sink[0] = 1.0f;
}

// Best of kReps event-timed runs of `launch`, each after rewriting `flush`.
template <class Launch>
float best_ms(char* flush, cudaEvent_t a, cudaEvent_t b, Launch launch) {
  return best_event_ms(kReps, a, b, [&](int i) { cudaMemset(flush, i, 256 << 20); }, launch);
}

}  // namespace

int main() {
  int4* m = nullptr;
  char* copy = nullptr;
  char* flush = nullptr;
  float* sink = nullptr;
  cudaMalloc(&m, kBytes);
  cudaMalloc(&copy, kBytes);
  cudaMalloc(&flush, 256 << 20);
  cudaMalloc(&sink, sizeof(float));
  cudaMemset(m, 1, kBytes);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);

  const float copy_ms = best_ms(flush, a, b, [&] { cudaMemcpyAsync(copy, m, kBytes, cudaMemcpyDeviceToDevice); });
  std::printf("copy 128 MB: %.1f us, %.2f TB/s (read + written)\n", copy_ms * 1e3, 2.0 * kBytes / copy_ms / 1e9);
  const auto report = [&](const char* what, float ms) {
    std::printf("%-28s %.1f us  %.2f TB/s read  %.2f of copy\n", what, ms * 1e3, kBytes / ms / 1e9,
                copy_ms / 2 / ms);
  };
  char label[64];
  for (int width : {128, 256, 512, 1024, 2048, 16384}) {
    for (int ctas : {128, 264, 528}) {
      const int bands = static_cast<int>(kRowBytes / width);
      if (ctas % bands != 0) continue;
      std::snprintf(label, sizeof label, "band W=%d B, %d CTAs:", width, ctas);
      report(label, best_ms(flush, a, b, [&] { band_read<<<ctas, 256>>>(m, width, ctas / bands, sink); }));
    }
  }
  const long vectors = kBytes / 16;
  for (int ctas : {132, 264, 528, 1056, 4096}) {
    std::snprintf(label, sizeof label, "sequential, %d CTAs, U=4:", ctas);
    report(label, best_ms(flush, a, b, [&] { seq_read<4><<<ctas, 256>>>(m, vectors, sink); }));
    std::snprintf(label, sizeof label, "sequential, %d CTAs, U=8:", ctas);
    report(label, best_ms(flush, a, b, [&] { seq_read<8><<<ctas, 256>>>(m, vectors, sink); }));
  }
  std::printf("empty kernel between events: %.1f us\n",
              best_ms(flush, a, b, [&] { seq_read<4><<<132, 256>>>(m, 0, sink); }) * 1e3);
  const cudaError_t err = cudaGetLastError();
  std::printf("%s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
