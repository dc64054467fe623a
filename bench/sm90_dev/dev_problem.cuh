// Problem buffers and kernel runner of the sm90 development harness: allocates
// A, B, D (16-byte-aligned leading dimensions, batch L), encodes the tensor
// maps a GemmConfig expects, sizes the persistent grid and launches.
#pragma once

#include "dev_common.cuh"

namespace dev {

inline long pad_to(long x, long m) { return (x + m - 1) / m * m; }

/// One GEMM problem for configuration Cfg: operands, outputs and reference.
template <class Cfg>
struct Problem {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  using TD = typename Cfg::TD;
  static constexpr bool kWide = sizeof(TA) == 1;  // fp8: reference uses bf16 copies

  int M, N, K, L;
  Operand A, B, D, Dblas, Aw, Bw;
  float* ref = nullptr;
  long ldd;

  Problem(int m, int n, int k, int l) : M(m), N(n), K(k), L(l) {
    const long align = 16 / (long)sizeof(TA);
    const long lda = Cfg::kMajorA == Major::K ? pad_to(K, align) : pad_to(M, align);
    const long ba = lda * (Cfg::kMajorA == Major::K ? M : K);
    const long ldb = Cfg::kMajorB == Major::K ? pad_to(K, align) : pad_to(N, align);
    const long bb = ldb * (Cfg::kMajorB == Major::K ? N : K);
    ldd = pad_to(N, 16 / (long)sizeof(TD));
    A = alloc_operand((size_t)ba * L, sizeof(TA), lda, ba);
    B = alloc_operand((size_t)bb * L, sizeof(TB), ldb, bb);
    D = alloc_operand((size_t)ldd * M * L, sizeof(TD), ldd, ldd * M);
    Dblas = alloc_operand((size_t)ldd * M * L, sizeof(TD), ldd, ldd * M);
    if (kWide) {
      Aw = alloc_operand(A.elems, 2, lda, ba);
      Bw = alloc_operand(B.elems, 2, ldb, bb);
    }
    DEV_CHECK_CUDA(cudaMalloc(&ref, sizeof(float) * (size_t)M * N * L));
  }
  ~Problem() {
    free_operand(A), free_operand(B), free_operand(D), free_operand(Dblas);
    free_operand(Aw), free_operand(Bw);
    cudaFree(ref);
  }

  /// Fresh uniform [-1, 1) operands.
  void fill(unsigned long long seed) {
    fill_random<<<1024, 256>>>((TA*)A.ptr, A.elems, seed, 1.f);
    fill_random<<<1024, 256>>>((TB*)B.ptr, B.elems, seed * 7919 + 1, 1.f);
    if (kWide) {
      widen_to_bf16<<<1024, 256>>>((const TA*)A.ptr, (__nv_bfloat16*)Aw.ptr, A.elems);
      widen_to_bf16<<<1024, 256>>>((const TB*)B.ptr, (__nv_bfloat16*)Bw.ptr, B.elems);
    }
    DEV_CHECK_CUDA(cudaGetLastError());
  }

  const Operand& ref_a() const { return kWide ? Aw : A; }
  const Operand& ref_b() const { return kWide ? Bw : B; }
  cudaDataType_t ref_type() const { return kWide ? CUDA_R_16BF : blas_type<TA>(); }

  /// f32 reference into `ref` (dense, ld N) through cuBLAS.
  void reference(cublasHandle_t h, cudaStream_t s) {
    cublas_gemm(h, Cfg::kMajorA, Cfg::kMajorB, M, N, K, L, ref_a(), ref_type(), ref_b(), ref_type(),
                ref, CUDA_R_32F, N, s);
  }
  /// cuBLAS writing the same output type as the kernel (the timing anchor).
  void blas(cublasHandle_t h, cudaStream_t s) {
    cublas_gemm(h, Cfg::kMajorA, Cfg::kMajorB, M, N, K, L, ref_a(), ref_type(), ref_b(), ref_type(),
                Dblas.ptr, blas_type<TD>(), ldd, s);
  }
};

/// A configured launch of gemm_kernel<Cfg, Epi> on one Problem.
template <class Cfg, class Epi>
struct Runner {
  sm90::CUtensorMap ma, mb, md;
  sm90::GemmParams p;
  int grid = 0;

  static constexpr auto kernel() { return &sm90::gemm_kernel<Cfg, Epi>; }

  /// Grid of one CTA per SM at most (whole clusters), never more than tiles.
  static int grid_size(int M, int N, int L, int sms) {
    const int tiles_m = (M + Cfg::kBM - 1) / Cfg::kBM;
    const long cluster_tiles = (long)((tiles_m + Cfg::kClusterM - 1) / Cfg::kClusterM) *
                               ((N + Cfg::kBN - 1) / Cfg::kBN) * L;
    int max_clusters = sms / Cfg::kClusterM;
    if (Cfg::kClusterM > 1) {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(Cfg::kClusterM * max_clusters);
      cfg.blockDim = dim3(Cfg::kThreads);
      cfg.dynamicSmemBytes = Cfg::kSmemBytes;
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = Cfg::kClusterM;
      attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      DEV_CHECK_CUDA(cudaOccupancyMaxActiveClusters(&max_clusters, kernel(), &cfg));
    }
    return (int)std::min<long>(max_clusters, cluster_tiles) * Cfg::kClusterM;
  }

  void init(const Problem<Cfg>& pr, int group, int sms) {
    using TA = typename Cfg::TA;
    using TD = typename Cfg::TD;
    const auto tin = map_type<TA>();
    if (Cfg::kMajorA == Major::K)
      ma = encode_map(pr.A, tin, pr.K, pr.M, pr.L, Cfg::kBoxA0, Cfg::kBoxA1);
    else
      ma = encode_map(pr.A, tin, pr.M, pr.K, pr.L, Cfg::kBoxA0, Cfg::kBoxA1);
    if (Cfg::kMajorB == Major::K)
      mb = encode_map(pr.B, tin, pr.K, pr.N, pr.L, Cfg::kBoxB0, Cfg::kBoxB1);
    else
      mb = encode_map(pr.B, tin, pr.N, pr.K, pr.L, Cfg::kBoxB0, Cfg::kBoxB1);
    md = encode_map(pr.D, map_type<TD>(), pr.N, pr.M, pr.L, Cfg::kBoxD0, Cfg::kBoxD1, Cfg::kSwizzleD);
    p.M = pr.M, p.N = pr.N, p.K = pr.K, p.L = pr.L;
    p.group_m = group;
    p.flags = sm90::kABatched | sm90::kBBatched | sm90::kCBatched;
    sm90::set_tile_order_divisors(p, Cfg::kBM, Cfg::kBN, Cfg::kClusterM);
    p.d = pr.D.ptr;
    p.ldd = pr.ldd;
    p.d_batch = pr.D.batch_stride;
    DEV_CHECK_CUDA(cudaFuncSetAttribute(kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        Cfg::kSmemBytes));
    grid = grid_size(pr.M, pr.N, pr.L, sms);
  }

  void launch(const Epi& epi, cudaStream_t s) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(Cfg::kThreads);
    cfg.dynamicSmemBytes = Cfg::kSmemBytes;
    cfg.stream = s;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = Cfg::kClusterM;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = Cfg::kClusterM > 1 ? 1 : 0;
    // No tail chunk of B, staged epilogue input or output: B's and D's maps stand in for theirs (unused).
    DEV_CHECK_CUDA(cudaLaunchKernelEx(&cfg, kernel(), ma, mb, mb, md, md, md, p, epi));
  }
};

}  // namespace dev
