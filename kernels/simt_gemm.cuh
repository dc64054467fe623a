// A plain tiled CUDA-core GEMM with a generated epilogue: shared-memory tiles
// of A and B, a 4x4 register tile per thread, scalar loads with bounds checks
// (any M, N, K, strides, batch stride 0, pointers aligned to the element
// only). Correctness first: this is the GPU-side oracle, not the fast path.
#pragma once

#include "dtypes.cuh"
#include "epilogue_ops.cuh"
#include "epilogue_params.cuh"
#include "reduce_atomics.cuh"

constexpr int kEpgSimtBlockM = 64;
constexpr int kEpgSimtBlockN = 64;
constexpr int kEpgSimtBlockK = 16;
constexpr int kEpgSimtThreads = 256;
constexpr int kEpgSimtThreadsN = 16;  // threads along N; 16 along M
constexpr int kEpgSimtTileM = kEpgSimtBlockM / (kEpgSimtThreads / kEpgSimtThreadsN);  // 4
constexpr int kEpgSimtTileN = kEpgSimtBlockN / kEpgSimtThreadsN;                      // 4

// The kernel's argument: the GEMM operands and the epilogue operands.
template <class Epi>
struct EpgSimtArgs {
  EpgGemmArgs gemm;
  typename Epi::Params epi;
};

template <class A, class B> struct EpgSame { static constexpr bool value = false; };
template <class A> struct EpgSame<A, A> { static constexpr bool value = true; };

// The type the main loop multiplies and sums in, for each accumulator type.
// NOTE: an f16 accumulator sums in f32 and rounds once at the end, as the
// CPU reference defines the result (products and sums exact, one rounding).
template <class Acc> struct EpgSimtWork { using type = Acc; };
template <> struct EpgSimtWork<__half> { using type = float; };

// One A or B element in the work type W: float (tf32 operands rounded to
// 10 mantissa bits first), double, or int (8-bit and 32-bit integers).
template <int DT, class W>
__device__ __forceinline__ W epg_simt_operand(const void* base, long long offset) {
  using S = typename EpgStorage<DT>::type;
  if constexpr (EpgSame<W, int>::value) {
    static_assert(DT == kEpgI8 || DT == kEpgU8 || DT == kEpgI32, "an i32 accumulator needs integer operands");
    return static_cast<int>(static_cast<const S*>(base)[offset]);
  } else if constexpr (DT == kEpgTf32) {
    return static_cast<W>(epg_round_tf32(static_cast<const float*>(base)[offset]));
  } else {
    return epg_load<DT, W>(base, offset);
  }
}

__device__ __forceinline__ float epg_simt_mac(float acc, float a, float b) { return fmaf(a, b, acc); }
__device__ __forceinline__ double epg_simt_mac(double acc, double a, double b) { return fma(a, b, acc); }
// Integer products wrap modulo 2^32 (unsigned arithmetic keeps that defined).
__device__ __forceinline__ int epg_simt_mac(int acc, int a, int b) {
  return static_cast<int>(static_cast<unsigned>(acc) + static_cast<unsigned>(a) * static_cast<unsigned>(b));
}

// The finished sum as the epilogue's accumulator type.
template <class Acc, class W> __device__ __forceinline__ Acc epg_simt_finish(W sum) {
  if constexpr (EpgSame<Acc, __half>::value) return __float2half_rn(sum);
  else return sum;
}

// The epilogue context of this kernel: the thread's current output element
// (l, m, n) and its place (i, j) in the thread's register tile; loads and
// stores go straight to global memory, reductions gather in registers per
// row i / column j of the thread tile until flushed.
// kPartialCount: the rows and columns one thread holds (sm80_gemm.cuh holds
// more than this kernel's 4x4 tile).
template <class Epi, int kPartialCount = (kEpgSimtTileM > kEpgSimtTileN ? kEpgSimtTileM : kEpgSimtTileN)>
struct EpgSimtCtx {
  using Compute = typename Epi::Compute;
  static constexpr int kSlots = Epi::kNumReduce > 0 ? Epi::kNumReduce : 1;
  static constexpr int kPartials = kPartialCount;

  const typename Epi::Params& p;
  long long l = 0, m = 0, n = 0;
  int i = 0, j = 0;
  Compute partial[kSlots][kPartials];

  __device__ __forceinline__ explicit EpgSimtCtx(const typename Epi::Params& params) : p(params) {}

  template <int I>
  __device__ __forceinline__ Compute load() const {
    constexpr int kKind = Epi::kInLoadKind[I];
    constexpr int kDType = Epi::kInDType[I];
    const EpgOperand& o = p.in[I];
    if constexpr (kKind == kEpgLoadScalarValue) {
      return static_cast<Compute>(o.value);
    } else if constexpr (kKind == kEpgLoadScalarTensor) {
      return epg_load<kDType, Compute>(o.ptr, l * o.stride_l);
    } else if constexpr (kKind == kEpgLoadRow) {
      return epg_load<kDType, Compute>(o.ptr, l * o.stride_l + n * o.stride_n);
    } else if constexpr (kKind == kEpgLoadColumn) {
      return epg_load<kDType, Compute>(o.ptr, l * o.stride_l + m * o.stride_m);
    } else {
      return epg_load<kDType, Compute>(o.ptr, l * o.stride_l + m * o.stride_m + n * o.stride_n);
    }
  }

  template <int J, class V>
  __device__ __forceinline__ void store(V value) const {
    const EpgOperand& o = p.out[J];
    epg_store<Epi::kOutDType[J]>(o.ptr, l * o.stride_l + m * o.stride_m + n * o.stride_n, value);
  }

  template <int J>
  __device__ __forceinline__ void reduce(Compute value) {
    constexpr int kKind = Epi::kOutStoreKind[J];
    constexpr int kSlot = Epi::kOutReduceSlot[J];
    const int k = kKind == kEpgStoreRowReduce ? i : (kKind == kEpgStoreColumnReduce ? j : 0);
    partial[kSlot][k] = epg_reduce_combine<Epi::kOutReduceOp[J]>(partial[kSlot][k], value);
  }
};

// Visitors over the reduce outputs (Epi::for_each_reduce calls visit<J>()).
template <class Epi, int kPartialCount = EpgSimtCtx<Epi>::kPartials>
struct EpgSimtResetPartials {
  EpgSimtCtx<Epi, kPartialCount>& ctx;
  template <int J>
  __device__ __forceinline__ void visit() {
#pragma unroll
    for (int k = 0; k < kPartialCount; ++k)
      ctx.partial[Epi::kOutReduceSlot[J]][k] = epg_reduce_identity<Epi::kOutReduceOp[J], typename Epi::Compute>();
  }
};

// Combines the partials across the warp, then one lane per row / column /
// batch adds them into the output with atomics. Every thread must call it.
// NOTE: lane = ty_low * 16 + tx: lanes of one row differ in bits 0-3, lanes
// of one column in bit 4.
template <class Epi>
struct EpgSimtFlushPartials {
  EpgSimtCtx<Epi>& ctx;
  long long m0, n0, M, N;
  int tx, ty;
  template <int J>
  __device__ __forceinline__ void visit() {
    constexpr int kKind = Epi::kOutStoreKind[J];
    constexpr int kOp = Epi::kOutReduceOp[J];
    constexpr int kSlot = Epi::kOutReduceSlot[J];
    const EpgOperand& o = ctx.p.out[J];
    if constexpr (kKind == kEpgStoreRowReduce) {
#pragma unroll
      for (int i = 0; i < kEpgSimtTileM; ++i) {
        const auto v = epg_warp_combine<kOp>(ctx.partial[kSlot][i], 0x0f);
        const long long m = m0 + ty + 16 * i;
        if (tx == 0 && m < M) epg_atomic_reduce_f32<kOp>(o.ptr, ctx.l * o.stride_l + m * o.stride_m, v);
      }
    } else if constexpr (kKind == kEpgStoreColumnReduce) {
#pragma unroll
      for (int j = 0; j < kEpgSimtTileN; ++j) {
        const auto v = epg_warp_combine<kOp>(ctx.partial[kSlot][j], 0x10);
        const long long n = n0 + tx + kEpgSimtThreadsN * j;
        if ((ty & 1) == 0 && n < N) epg_atomic_reduce_f32<kOp>(o.ptr, ctx.l * o.stride_l + n * o.stride_n, v);
      }
    } else {
      const auto v = epg_warp_combine<kOp>(ctx.partial[kSlot][0], 0x1f);
      if ((threadIdx.x & 31) == 0) epg_atomic_reduce_f32<kOp>(o.ptr, ctx.l * o.stride_l, v);
    }
  }
};

// Writes each reduce output's identity at flat position `index` of its
// (L, M), (L, N) or (L) positions.
template <class Epi>
struct EpgSimtFillIdentity {
  const typename Epi::Params& p;
  long long index, L, M, N;
  template <int J>
  __device__ __forceinline__ void visit() {
    constexpr int kKind = Epi::kOutStoreKind[J];
    const EpgOperand& o = p.out[J];
    const long long extent = epg_reduce_extent<kKind>(M, N);
    if (index >= L * extent) return;
    const long long l = index / extent, x = index % extent;
    epg_store_reduce_identity_f32<Epi::kOutReduceOp[J]>(o.ptr, epg_reduce_offset<kKind>(o, l, x));
  }
};

// Launch: blockDim.x = kEpgSimtThreads; grid (ceil(N/64), min(ceil(M/64), 65535),
// min(L, 65535)); the y and z dimensions loop when the grid is smaller.
template <int DA, int DB, class Epi>
__device__ __forceinline__ void epg_simt_gemm(const EpgSimtArgs<Epi>& args) {
  using Acc = typename Epi::Acc;
  using Work = typename EpgSimtWork<Acc>::type;
  const EpgGemmArgs& g = args.gemm;
  // As: (K16, M64) -> tile of A; Bs: (K16, N64) -> tile of B. One column of
  // padding keeps the transposed stores of row-major A off one bank.
  __shared__ Work as[kEpgSimtBlockK][kEpgSimtBlockM + 1];
  __shared__ Work bs[kEpgSimtBlockK][kEpgSimtBlockN + 1];
  const int tid = threadIdx.x;
  const int tx = tid % kEpgSimtThreadsN, ty = tid / kEpgSimtThreadsN;
  const bool a_k_fast = g.a_sk == 1, b_n_fast = g.b_sn == 1;
  const long long n0 = static_cast<long long>(blockIdx.x) * kEpgSimtBlockN;

  for (long long l = blockIdx.z; l < g.l; l += gridDim.z) {
    const char* a_batch = static_cast<const char*>(g.a) + l * g.a_sl * sizeof(typename EpgStorage<DA>::type);
    const char* b_batch = static_cast<const char*>(g.b) + l * g.b_sl * sizeof(typename EpgStorage<DB>::type);
    for (long long m0 = static_cast<long long>(blockIdx.y) * kEpgSimtBlockM; m0 < g.m;
         m0 += static_cast<long long>(gridDim.y) * kEpgSimtBlockM) {
      // acc: (T256, V4x4) -> (M: ty + 16 i, N: tx + 16 j)
      Work acc[kEpgSimtTileM][kEpgSimtTileN];
#pragma unroll
      for (int i = 0; i < kEpgSimtTileM; ++i)
#pragma unroll
        for (int j = 0; j < kEpgSimtTileN; ++j) acc[i][j] = Work(0);

      for (long long k0 = 0; k0 < g.k; k0 += kEpgSimtBlockK) {
        // Each thread moves 4 elements of A and 4 of B; consecutive threads
        // walk the operand's contiguous axis when it has one.
#pragma unroll
        for (int r = 0; r < (kEpgSimtBlockM * kEpgSimtBlockK) / kEpgSimtThreads; ++r) {
          const int e = tid + r * kEpgSimtThreads;
          const int kk = a_k_fast ? e % kEpgSimtBlockK : e / kEpgSimtBlockM;
          const int mm = a_k_fast ? e / kEpgSimtBlockK : e % kEpgSimtBlockM;
          const long long gm = m0 + mm, gk = k0 + kk;
          as[kk][mm] = (gm < g.m && gk < g.k) ? epg_simt_operand<DA, Work>(a_batch, gm * g.a_sm + gk * g.a_sk)
                                              : Work(0);
        }
#pragma unroll
        for (int r = 0; r < (kEpgSimtBlockN * kEpgSimtBlockK) / kEpgSimtThreads; ++r) {
          const int e = tid + r * kEpgSimtThreads;
          const int nn = b_n_fast ? e % kEpgSimtBlockN : e / kEpgSimtBlockK;
          const int kk = b_n_fast ? e / kEpgSimtBlockN : e % kEpgSimtBlockK;
          const long long gn = n0 + nn, gk = k0 + kk;
          bs[kk][nn] = (gn < g.n && gk < g.k) ? epg_simt_operand<DB, Work>(b_batch, gk * g.b_sk + gn * g.b_sn)
                                              : Work(0);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kEpgSimtBlockK; ++kk) {
          Work a[kEpgSimtTileM], b[kEpgSimtTileN];
#pragma unroll
          for (int i = 0; i < kEpgSimtTileM; ++i) a[i] = as[kk][ty + 16 * i];
#pragma unroll
          for (int j = 0; j < kEpgSimtTileN; ++j) b[j] = bs[kk][tx + kEpgSimtThreadsN * j];
#pragma unroll
          for (int i = 0; i < kEpgSimtTileM; ++i)
#pragma unroll
            for (int j = 0; j < kEpgSimtTileN; ++j) acc[i][j] = epg_simt_mac(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
      }

      EpgSimtCtx<Epi> ctx(args.epi);
      ctx.l = l;
      EpgSimtResetPartials<Epi> reset{ctx};
      Epi::for_each_reduce(reset);
#pragma unroll
      for (int i = 0; i < kEpgSimtTileM; ++i) {
#pragma unroll
        for (int j = 0; j < kEpgSimtTileN; ++j) {
          ctx.m = m0 + ty + 16 * i;
          ctx.n = n0 + tx + kEpgSimtThreadsN * j;
          ctx.i = i;
          ctx.j = j;
          if (ctx.m < g.m && ctx.n < g.n) Epi::apply(ctx, epg_simt_finish<Acc>(acc[i][j]));
        }
      }
      EpgSimtFlushPartials<Epi> flush{ctx, m0, n0, g.m, g.n, tx, ty};
      Epi::for_each_reduce(flush);
    }
  }
}

// Fills every reduce output with its identity; launch with a 1-D grid
// covering L * max(M, N) threads (a grid-stride loop covers the rest).
template <class Epi>
__device__ __forceinline__ void epg_simt_fill_identity(const EpgSimtArgs<Epi>& args) {
  const EpgGemmArgs& g = args.gemm;
  const long long total = g.l * (g.m > g.n ? g.m : g.n);
  for (long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; index < total;
       index += static_cast<long long>(gridDim.x) * blockDim.x) {
    EpgSimtFillIdentity<Epi> fill{args.epi, index, g.l, g.m, g.n};
    Epi::for_each_reduce(fill);
  }
}
