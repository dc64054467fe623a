// The sm80 GEMM: f16/bf16 tensor cores through mma.sync (Ampere, Ada and
// Hopper), with the generated epilogue applied per element as in the simt
// kernel. A 128x128x32 block tile, 8 warps of 64x32, a ring of kStages
// k-tiles in dynamic shared memory, fragments read with ldmatrix. Loads take
// any stride and any element alignment: each operand moves in pieces of kVec
// elements along its unit-stride axis. Pieces of 16 bytes (kVec 8) go
// straight to shared memory with cp.async, kStages - 1 k-tiles ahead of the
// tensor cores; narrower pieces (8, 4 or 2 bytes, or single elements where
// the host found the pointer, strides or contiguous extent unaligned to
// more) pass through registers, one k-tile ahead.
#pragma once

#include "simt_gemm.cuh"

constexpr int kEpgSm80BlockM = 128;
constexpr int kEpgSm80BlockN = 128;
constexpr int kEpgSm80BlockK = 32;
constexpr int kEpgSm80Threads = 256;
constexpr int kEpgSm80WarpM = 64;  // 2 warps along M
constexpr int kEpgSm80WarpN = 32;  // 4 warps along N
constexpr int kEpgSm80FragsM = kEpgSm80WarpM / 16;  // m16 blocks per warp
constexpr int kEpgSm80FragsN = kEpgSm80WarpN / 8;   // n8 blocks per warp
// Each thread holds two rows (g, g + 8) of each m16 block and two columns of
// each n8 block: the epilogue's row and column partials.
constexpr int kEpgSm80Partials = 2 * (kEpgSm80FragsM > kEpgSm80FragsN ? kEpgSm80FragsM : kEpgSm80FragsN);

__device__ __forceinline__ unsigned epg_sm80_smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// kVec 16-bit elements moved as one piece.
template <int kVec> struct EpgSm80Piece;
template <> struct EpgSm80Piece<1> { using type = unsigned short; };
template <> struct EpgSm80Piece<2> { using type = unsigned int; };
template <> struct EpgSm80Piece<4> { using type = uint2; };
template <> struct EpgSm80Piece<8> { using type = uint4; };

// One operand's block tile, kRows x kCols elements, kCols along shared
// memory rows (pitch kCols + 8 elements: ldmatrix's eight 16-byte rows fall
// in distinct banks). Global element (row, col) is at
// base + row * s_row + col * s_col; kVec > 1 needs s_col == 1, s_row and the
// column extent multiples of kVec, and base aligned to a piece.
template <int kRows, int kCols, int kVec>
struct EpgSm80TileLoader {
  static constexpr int kPitch = kCols + 8;
  static constexpr int kElements = kRows * kPitch;  ///< one stage of the tile in shared memory
  static constexpr int kPiecesPerRow = kCols / kVec;
  static constexpr int kIters = kRows * kPiecesPerRow / kEpgSm80Threads;
  static_assert(kIters * kEpgSm80Threads == kRows * kPiecesPerRow, "the threads cover the tile");
  /// 16-byte pieces are copied by cp.async, without registers.
  static constexpr bool kAsync = kVec == 8;
  using Piece = typename EpgSm80Piece<kVec>::type;

  Piece regs[kAsync ? 1 : kIters];

  /// kAsync: copies the tile into `tile` (zeros past the extents) and
  /// returns at once; the caller commits and waits for the group.
  __device__ __forceinline__ void copy(unsigned short* tile, const unsigned short* base, long long row0,
                                       long long col0, long long rows, long long cols, long long s_row) const {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = threadIdx.x + it * kEpgSm80Threads;
      const long long r = row0 + e / kPiecesPerRow, c = col0 + (e % kPiecesPerRow) * kVec;
      const bool inside = r < rows && c < cols;
      const unsigned short* from = inside ? base + r * s_row + c : base;
      const unsigned to = epg_sm80_smem_address(tile + (e / kPiecesPerRow) * kPitch + (e % kPiecesPerRow) * kVec);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(from), "r"(inside ? 16 : 0));
    }
  }

  __device__ __forceinline__ void load(const unsigned short* base, long long row0, long long col0, long long rows,
                                       long long cols, long long s_row, long long s_col) {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = threadIdx.x + it * kEpgSm80Threads;
      const long long r = row0 + e / kPiecesPerRow, c = col0 + (e % kPiecesPerRow) * kVec;
      if (r < rows && c < cols) {
        regs[it] = *reinterpret_cast<const Piece*>(base + r * s_row + c * s_col);
      } else {
        regs[it] = Piece{};
      }
    }
  }

  __device__ __forceinline__ void store(unsigned short* tile) const {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int e = threadIdx.x + it * kEpgSm80Threads;
      *reinterpret_cast<Piece*>(tile + (e / kPiecesPerRow) * kPitch + (e % kPiecesPerRow) * kVec) = regs[it];
    }
  }
};

// ldmatrix .x4 (kSuffix "" or ".trans") and mma m16n8k16 (kType "f16" or
// "bf16") as inline PTX.
#define EPG_SM80_LDMATRIX_X4(kSuffix, r, p)                                                  \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4" kSuffix ".shared.b16 {%0, %1, %2, %3}, [%4];\n" \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])                              \
               : "r"(epg_sm80_smem_address(p)))
#define EPG_SM80_MMA(kType, d, a, b0, b1)                                                                   \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." kType "." kType                                      \
               ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                      \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

template <bool kTrans>
__device__ __forceinline__ void epg_sm80_ldmatrix_x4(unsigned (&r)[4], const unsigned short* p) {
  if constexpr (kTrans) EPG_SM80_LDMATRIX_X4(".trans", r, p);
  else EPG_SM80_LDMATRIX_X4("", r, p);
}

// D (16x8, f32) += A (16x16) * B (16x8).
template <int DT>
__device__ __forceinline__ void epg_sm80_mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  static_assert(DT == kEpgF16 || DT == kEpgBf16, "mma.sync m16n8k16 takes f16 or bf16");
  if constexpr (DT == kEpgBf16) EPG_SM80_MMA("bf16", d, a, b0, b1);
  else EPG_SM80_MMA("f16", d, a, b0, b1);
}

#undef EPG_SM80_LDMATRIX_X4
#undef EPG_SM80_MMA

// Starts an operand's k-tile: the (mn0, k0) corner of its (mn, k) matrix,
// whose elements are s_mn and s_k apart, staged in rows of M/N (K-major) or
// of K. cp.async pieces land in `tile`; register pieces wait in the loader.
template <bool kKMajor, class Loader>
__device__ __forceinline__ void epg_sm80_fetch(Loader& loader, unsigned short* tile, const unsigned short* base,
                                               long long mn0, long long k0, long long mn, long long k, long long s_mn,
                                               long long s_k) {
  const long long row0 = kKMajor ? mn0 : k0, col0 = kKMajor ? k0 : mn0;
  const long long rows = kKMajor ? mn : k, cols = kKMajor ? k : mn;
  const long long s_row = kKMajor ? s_mn : s_k, s_col = kKMajor ? s_k : s_mn;
  if constexpr (Loader::kAsync) loader.copy(tile, base, row0, col0, rows, cols, s_row);
  else loader.load(base, row0, col0, rows, cols, s_row, s_col);
}

// One ldmatrix x4 of an operand's fragment at (mn, ks) of a stage whose rows
// are M/N (K-major) or K (read transposed); (row, col): this lane's row
// start within the fragment.
template <bool kKMajor, int kPitch>
__device__ __forceinline__ void epg_sm80_load_fragment(unsigned (&r)[4], const unsigned short* tile, int mn, int ks,
                                                       int row, int col) {
  if constexpr (kKMajor) epg_sm80_ldmatrix_x4<false>(r, tile + (mn + row) * kPitch + ks + col);
  else epg_sm80_ldmatrix_x4<true>(r, tile + (ks + row) * kPitch + mn + col);
}

// Combines the row and column partials across the warp (a row's values sit
// in the four lanes of one lane / 4, a column's in the eight of one
// lane % 4), then one lane per row / column / batch adds them into the
// output with atomics. Every thread must call it.
template <class Epi>
struct EpgSm80FlushPartials {
  EpgSimtCtx<Epi, kEpgSm80Partials>& ctx;
  long long m0, n0, M, N;  // the warp's first row and column
  int lane;
  template <int J>
  __device__ __forceinline__ void visit() {
    constexpr int kKind = Epi::kOutStoreKind[J];
    constexpr int kOp = Epi::kOutReduceOp[J];
    constexpr int kSlot = Epi::kOutReduceSlot[J];
    const EpgOperand& o = ctx.p.out[J];
    if constexpr (kKind == kEpgStoreRowReduce) {
#pragma unroll
      for (int i = 0; i < 2 * kEpgSm80FragsM; ++i) {
        const auto v = epg_warp_combine<kOp>(ctx.partial[kSlot][i], 0x03);
        const long long m = m0 + (i / 2) * 16 + lane / 4 + (i % 2) * 8;
        if (lane % 4 == 0 && m < M) epg_atomic_reduce_f32<kOp>(o.ptr, ctx.l * o.stride_l + m * o.stride_m, v);
      }
    } else if constexpr (kKind == kEpgStoreColumnReduce) {
#pragma unroll
      for (int j = 0; j < 2 * kEpgSm80FragsN; ++j) {
        const auto v = epg_warp_combine<kOp>(ctx.partial[kSlot][j], 0x1c);
        const long long n = n0 + (j / 2) * 8 + (lane % 4) * 2 + j % 2;
        if (lane < 4 && n < N) epg_atomic_reduce_f32<kOp>(o.ptr, ctx.l * o.stride_l + n * o.stride_n, v);
      }
    } else {
      const auto v = epg_warp_combine<kOp>(ctx.partial[kSlot][0], 0x1f);
      if (lane == 0) epg_atomic_reduce_f32<kOp>(o.ptr, ctx.l * o.stride_l, v);
    }
  }
};

// A's tile: (M, K) rows of K when K-major, else (K, M) rows of M; B's alike.
template <bool kAKMajor, int kVecA>
using EpgSm80LoaderA = EpgSm80TileLoader<kAKMajor ? kEpgSm80BlockM : kEpgSm80BlockK,
                                         kAKMajor ? kEpgSm80BlockK : kEpgSm80BlockM, kVecA>;
template <bool kBKMajor, int kVecB>
using EpgSm80LoaderB = EpgSm80TileLoader<kBKMajor ? kEpgSm80BlockN : kEpgSm80BlockK,
                                         kBKMajor ? kEpgSm80BlockK : kEpgSm80BlockN, kVecB>;

// Dynamic shared memory of the kernel: kStages stages of A's and B's tiles.
template <bool kAKMajor, bool kBKMajor, int kStages>
__host__ __device__ constexpr int epg_sm80_shared_bytes() {
  return kStages * 2 * (EpgSm80LoaderA<kAKMajor, 1>::kElements + EpgSm80LoaderB<kBKMajor, 1>::kElements);
}

// Launch: blockDim.x = kEpgSm80Threads; grid (ceil(N/128), min(ceil(M/128),
// 65535), min(L, 65535)); epg_sm80_shared_bytes() of dynamic shared memory;
// the y and z dimensions loop when the grid is smaller. kAKMajor / kBKMajor:
// the operand's K stride is 1 (or it has no unit stride: then kVec is 1);
// else its M / N stride is 1.
template <int DA, int DB, bool kAKMajor, bool kBKMajor, int kVecA, int kVecB, int kStages, class Epi>
__device__ __forceinline__ void epg_sm80_gemm(const EpgSimtArgs<Epi>& args) {
  static_assert(DA == DB, "A and B have one 16-bit dtype");
  static_assert(kStages >= 2, "a ring of at least two k-tiles");
  using Acc = typename Epi::Acc;
  constexpr int BM = kEpgSm80BlockM, BN = kEpgSm80BlockN, BK = kEpgSm80BlockK;
  using LoaderA = EpgSm80LoaderA<kAKMajor, kVecA>;
  using LoaderB = EpgSm80LoaderB<kBKMajor, kVecB>;
  extern __shared__ __align__(128) unsigned short epg_sm80_smem[];
  unsigned short* const smem_a = epg_sm80_smem;                             // kStages x LoaderA::kElements
  unsigned short* const smem_b = epg_sm80_smem + kStages * LoaderA::kElements;  // kStages x LoaderB::kElements

  const EpgGemmArgs& g = args.gemm;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = warp / (BN / kEpgSm80WarpN), wn = warp % (BN / kEpgSm80WarpN);
  const long long n0 = static_cast<long long>(blockIdx.x) * BN;
  const long long k_tiles = (g.k + BK - 1) / BK;

  // Where this lane's ldmatrix rows start in the (m16, k16) A fragment and the
  // two (k16, n8) B fragments of one x4 load.
  const int quad = lane / 8, row8 = lane % 8;
  const int a_row = kAKMajor ? lane % 16 : (quad / 2) * 8 + row8;  // m (K-major) or k
  const int a_col = kAKMajor ? (lane / 16) * 8 : (quad % 2) * 8;   // k (K-major) or m
  const int b_row = kBKMajor ? (quad / 2) * 8 + row8 : (quad % 2) * 8 + row8;  // n (K-major) or k
  const int b_col = kBKMajor ? (quad % 2) * 8 : (quad / 2) * 8;                // k (K-major) or n

  for (long long l = blockIdx.z; l < g.l; l += gridDim.z) {
    const auto* a_batch = static_cast<const unsigned short*>(g.a) + l * g.a_sl;
    const auto* b_batch = static_cast<const unsigned short*>(g.b) + l * g.b_sl;
    for (long long m0 = static_cast<long long>(blockIdx.y) * BM; m0 < g.m;
         m0 += static_cast<long long>(gridDim.y) * BM) {
      float acc[kEpgSm80FragsM][kEpgSm80FragsN][4];
#pragma unroll
      for (int i = 0; i < kEpgSm80FragsM; ++i)
#pragma unroll
        for (int j = 0; j < kEpgSm80FragsN; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

      LoaderA load_a;
      LoaderB load_b;
      // Starts k-tile `kt` towards stage `stage`: cp.async pieces land
      // there; register pieces wait in load_a / load_b for put().
      const auto fetch = [&](long long kt, int stage) {
        const long long k0 = kt * BK;
        epg_sm80_fetch<kAKMajor>(load_a, smem_a + stage * LoaderA::kElements, a_batch, m0, k0, g.m, g.k, g.a_sm,
                                 g.a_sk);
        epg_sm80_fetch<kBKMajor>(load_b, smem_b + stage * LoaderB::kElements, b_batch, n0, k0, g.n, g.k, g.b_sn,
                                 g.b_sk);
      };
      // Moves the register pieces of the last fetch into stage `stage`.
      const auto put = [&](int stage) {
        if constexpr (!LoaderA::kAsync) load_a.store(smem_a + stage * LoaderA::kElements);
        if constexpr (!LoaderB::kAsync) load_b.store(smem_b + stage * LoaderB::kElements);
      };
      // One cp.async group per k-tile (empty past the last), so that
      // "all but kStages - 2 groups done" means the current k-tile landed.
      const auto commit = []() { asm volatile("cp.async.commit_group;\n" ::); };

#pragma unroll
      for (int s = 0; s < kStages - 1; ++s) {
        if (s < k_tiles) {
          fetch(s, s);
          put(s);
        }
        commit();
      }

      for (long long kt = 0; kt < k_tiles; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(kStages - 2));
        __syncthreads();  // k-tile kt is in its stage; stage (kt - 1) % kStages is free
        const long long next = kt + kStages - 1;
        const int next_stage = static_cast<int>(next % kStages);
        if (next < k_tiles) fetch(next, next_stage);
        commit();
        const int stage = static_cast<int>(kt % kStages);
        const unsigned short* ta = smem_a + stage * LoaderA::kElements;
        const unsigned short* tb = smem_b + stage * LoaderB::kElements;
#pragma unroll
        for (int ks = 0; ks < BK; ks += 16) {
          unsigned a[kEpgSm80FragsM][4];
          unsigned b[kEpgSm80FragsN / 2][4];
#pragma unroll
          for (int i = 0; i < kEpgSm80FragsM; ++i)
            epg_sm80_load_fragment<kAKMajor, LoaderA::kPitch>(a[i], ta, wm * kEpgSm80WarpM + i * 16, ks, a_row, a_col);
#pragma unroll
          for (int j = 0; j < kEpgSm80FragsN / 2; ++j)
            epg_sm80_load_fragment<kBKMajor, LoaderB::kPitch>(b[j], tb, wn * kEpgSm80WarpN + j * 16, ks, b_row, b_col);
#pragma unroll
          for (int i = 0; i < kEpgSm80FragsM; ++i)
#pragma unroll
            for (int j = 0; j < kEpgSm80FragsN; ++j)
              epg_sm80_mma<DA>(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
        }
        if (next < k_tiles) put(next_stage);
      }
      asm volatile("cp.async.wait_group 0;\n" ::);
      __syncthreads();  // every stage read before the next tile's prologue refills the ring

      // The epilogue: accumulator (i, j, r) is row wm0 + 16 i + lane / 4 +
      // 8 (r / 2), column wn0 + 8 j + 2 (lane % 4) + r % 2.
      const long long wm0 = m0 + wm * kEpgSm80WarpM, wn0 = n0 + wn * kEpgSm80WarpN;
      EpgSimtCtx<Epi, kEpgSm80Partials> ctx(args.epi);
      ctx.l = l;
      EpgSimtResetPartials<Epi, kEpgSm80Partials> reset{ctx};
      Epi::for_each_reduce(reset);
#pragma unroll
      for (int i = 0; i < kEpgSm80FragsM; ++i) {
#pragma unroll
        for (int j = 0; j < kEpgSm80FragsN; ++j) {
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            ctx.m = wm0 + i * 16 + lane / 4 + (r / 2) * 8;
            ctx.n = wn0 + j * 8 + (lane % 4) * 2 + r % 2;
            ctx.i = i * 2 + r / 2;
            ctx.j = j * 2 + r % 2;
            if (ctx.m < g.m && ctx.n < g.n) Epi::apply(ctx, epg_simt_finish<Acc>(acc[i][j][r]));
          }
        }
      }
      EpgSm80FlushPartials<Epi> flush{ctx, wm0, wn0, g.m, g.n, lane};
      Epi::for_each_reduce(flush);
    }
  }
}
