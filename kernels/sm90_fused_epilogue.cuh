// The generated epilogue (EpgEpilogue from src/codegen) as the sm90 GEMM's
// hook: a Tile per warpgroup tile whose context loads operands by their
// strides, hands output D back to the kernel (staged and TMA-stored), writes
// other tile outputs directly, and keeps reductions in registers until the
// chunk (columns) or tile (rows) ends, then warp shuffles and atomics; whole-
// output reductions run on across the tiles (Totals, see sm90_totals.cuh).
#pragma once

#include "dtypes.cuh"
#include "epilogue_ops.cuh"
#include "epilogue_params.cuh"
#include "reduce_atomics.cuh"

// The kernel's accumulator as the epilogue's Acc type. An f16 accumulator
// is the f32 sum rounded once, as the reference defines it; an int32
// accumulator (s8/u8 operands) arrives as it is.
template <class Acc> __device__ __forceinline__ Acc epg_sm90_acc(float acc);
template <> __device__ __forceinline__ float epg_sm90_acc<float>(float acc) { return acc; }
template <> __device__ __forceinline__ __half epg_sm90_acc<__half>(float acc) { return __float2half_rn(acc); }
template <class Acc> __device__ __forceinline__ Acc epg_sm90_acc(int acc) { return acc; }

// The type a value stored to D (or paired with its neighbour) is held in
// until the kernel rounds it: float, or double for int32 accumulators, so
// that both an int32 accumulator and an f32 compute value pass exactly.
template <class Acc> struct EpgSm90Result { using type = float; };
template <> struct EpgSm90Result<int> { using type = double; };

// A value stored to D, as the Result the kernel rounds to D's type.
__device__ __forceinline__ float epg_sm90_result(float v) { return v; }
__device__ __forceinline__ float epg_sm90_result(__half v) { return __half2float(v); }
__device__ __forceinline__ double epg_sm90_result(int v) { return v; }

// A value stored to D as the hook's DValue: an int32 accumulator stored as
// it is stays an int (the kernel stores it without a conversion).
template <class DValue, class V> __device__ __forceinline__ DValue epg_sm90_d_value(V v) { return epg_sm90_result(v); }
template <> __device__ __forceinline__ int epg_sm90_d_value<int, int>(int v) { return v; }

// Element `offset` of a DT input through the read-only (non-coherent) path.
// NOTE: epilogue inputs never overlap outputs (analyze() checks), so these
// loads may be scheduled ahead of the epilogue's own global stores.
template <int DT, class T>
__device__ __forceinline__ T epg_sm90_ldg(const void* base, long long offset) {
  using S = typename EpgStorage<DT>::type;
  return epg_decode<DT, T>(__ldg(static_cast<const S*>(base) + offset));
}

// The unsigned word as wide as two S (a pair of adjacent elements).
template <int kBytes> struct EpgSm90PairWord;
template <> struct EpgSm90PairWord<2> { using type = unsigned short; };
template <> struct EpgSm90PairWord<4> { using type = unsigned int; };
template <> struct EpgSm90PairWord<8> { using type = unsigned long long; };
template <> struct EpgSm90PairWord<16> { using type = uint4; };

// Whether bit i of a 64-bit mask is set (false past bit 63).
__host__ __device__ constexpr bool epg_sm90_bit(unsigned long long mask, int i) {
  return i < 64 && ((mask >> (i < 64 ? i : 0)) & 1);
}

// Two adjacent elements as one aligned load or store.
template <class S>
struct alignas(2 * sizeof(S)) EpgSm90Pair {
  S lo, hi;
};

// Stores a and b (float or double) rounded to DT at base[offset] and
// base[offset + 1]: one store when the pair is aligned to its size (always,
// with kAligned), else two.
template <int DT, bool kAligned, class V>
__device__ __forceinline__ void epg_sm90_store_pair(void* base, long long offset, V a, V b) {
  using S = typename EpgStorage<DT>::type;
  S* at = static_cast<S*>(base) + offset;
  const S lo = epg_encode<DT>(a), hi = epg_encode<DT>(b);
  if (kAligned || (reinterpret_cast<unsigned long long>(at) & (2 * sizeof(S) - 1)) == 0) {
    *reinterpret_cast<EpgSm90Pair<S>*>(at) = EpgSm90Pair<S>{lo, hi};
  } else {
    at[0] = lo;
    at[1] = hi;
  }
}

// Elements at[0] and at[1] of a DT input as one load through the read-only
// path; `at` is aligned to the pair's size.
template <int DT>
__device__ __forceinline__ EpgSm90Pair<typename EpgStorage<DT>::type> epg_sm90_ldg_pair(
    const typename EpgStorage<DT>::type* at) {
  using S = typename EpgStorage<DT>::type;
  using W = typename EpgSm90PairWord<2 * sizeof(S)>::type;
  const W word = __ldg(reinterpret_cast<const W*>(at));
  EpgSm90Pair<S> pair;
  memcpy(&pair, &word, sizeof word);
  return pair;
}

// Brings the 128-byte line holding `address` into L2.
__device__ __forceinline__ void epg_sm90_prefetch_l2(const void* address) {
  asm volatile("prefetch.global.L2 [%0];" : : "l"(address));
}

// Brings the 128-byte line holding `address` into the SM's L1.
__device__ __forceinline__ void epg_sm90_prefetch_l1(const void* address) {
  asm volatile("prefetch.global.L1 [%0];" : : "l"(address));
}

// The element type the kernel reads a staged input as (StagesInput in
// sm90_epilogue.cuh): one per dtype that can share D's staging slots.
template <int DT> struct EpgSm90Staged;
template <> struct EpgSm90Staged<kEpgF32> { using type = float; };
template <> struct EpgSm90Staged<kEpgF16> { using type = __half; };
template <> struct EpgSm90Staged<kEpgBf16> { using type = __nv_bfloat16; };
template <> struct EpgSm90Staged<kEpgE4m3> { using type = __nv_fp8_e4m3; };
template <> struct EpgSm90Staged<kEpgE5m2> { using type = __nv_fp8_e5m2; };
template <> struct EpgSm90Staged<kEpgI32> { using type = int; };
template <> struct EpgSm90Staged<kEpgI8> { using type = signed char; };
template <> struct EpgSm90Staged<kEpgU8> { using type = unsigned char; };

// Names the staged input's element type for the kernel (kStaged >= 0), or
// nothing (kStaged < 0): the kernel looks for StagedType.
template <class Epi, int kStaged, bool = (kStaged >= 0)>
struct EpgSm90StagedInput {};
template <class Epi, int kStaged>
struct EpgSm90StagedInput<Epi, kStaged, true> {
  using StagedType = typename EpgSm90Staged<Epi::kInDType[kStaged]>::type;
};

// Names the staged output's element type for the kernel (kStagedOut >= 0),
// or nothing: the kernel looks for StagedOutType.
template <class Epi, int kStagedOut, bool = (kStagedOut >= 0)>
struct EpgSm90StagedOutput {};
template <class Epi, int kStagedOut>
struct EpgSm90StagedOutput<Epi, kStagedOut, true> {
  using StagedOutType = typename EpgSm90Staged<Epi::kOutDType[kStagedOut]>::type;
};

// Whether any output of Epi has store kind Kind.
template <class Epi, int Kind>
__host__ __device__ constexpr bool epg_sm90_stores() {
  for (int j = 0; j < Epi::kNumOutputs; ++j) {
    if (Epi::kOutStoreKind[j] == Kind) return true;
  }
  return false;
}

// Whether one element's evaluation reads and writes no memory: every input
// is a scalar, the staged tile (kStaged) or, held in registers (kHold), a
// row or column vector's value; every output is D (kDSlot), the staged one
// (kStagedOut) or a reduction (combined in registers), so none is stored
// by the threads.
template <class Epi, int kDSlot, int kStaged, int kStagedOut, bool kHold>
__host__ __device__ constexpr bool epg_sm90_touches_no_memory() {
  for (int i = 0; i < Epi::kNumInputs; ++i) {
    const int kind = Epi::kInLoadKind[i];
    if (kind == kEpgLoadTile && i != kStaged) return false;
    if ((kind == kEpgLoadRow || kind == kEpgLoadColumn) && !kHold) return false;
  }
  for (int j = 0; j < Epi::kNumOutputs; ++j) {
    if (Epi::kOutStoreKind[j] == kEpgStoreTile && j != kDSlot && j != kStagedOut) return false;
  }
  return true;
}

// Whether any input of Epi has load kind Kind.
template <class Epi, int Kind>
__host__ __device__ constexpr bool epg_sm90_loads() {
  for (int i = 0; i < Epi::kNumInputs; ++i) {
    if (Epi::kInLoadKind[i] == Kind) return true;
  }
  return false;
}

// T when kUse, else void.
template <bool kUse, class T> struct EpgSm90If { using type = void; };
template <class T> struct EpgSm90If<true, T> { using type = T; };

// Epi: the generated EpgEpilogue; kDSlot: the output slot of D; kChunkCols:
// columns of one staged output chunk (Cfg::kChunkCols: 128 bytes of D, or the
// warpgroup tile when narrower); kUnitIn /
// kUnitOut: bit I (J) set when input I (output J) steps by one element along
// its contiguous axis (n for rows and tiles, m for columns), so its offsets
// need no multiply; kPairIn: bit I set when tile input I (read by the
// threads) has every pair of elements at an even column aligned to the
// pair's size, so each pair is loaded as one access; kPairOut: likewise
// for tile output J stored by the threads (else a pair is stored as one
// access where its address turns out aligned); kLoop: stage the chunks in a
// loop (long epilogues);
// kStaged: the full-tile input the kernel TMA-loads into the output staging
// slots (its value reaches Tile::operator() as `staged`), or -1;
// kStagedOut: the tile output besides D that the kernel stages and
// TMA-stores like D (its value leaves Tile::operator() through `aux`), or -1;
// kHoldVectors: where the Tile's row and column vector values come from:
// 0, each element loads its own (the compiler schedules them among the
// chunk's work, so each chunk waits for its loads); 1, the kernel begins a
// warpgroup tile's only chunk before its last main-loop stage
// (kBeginsChunkEarly), so the Tile loads them into registers when the
// chunk begins; 2, tiles of several chunks: each chunk's are loaded into
// registers while the chunk before it is computed (the first chunk's when
// it begins), so that only the first chunk waits for them;
// kDByThreads: 0 when TMA stores D; else D's rows, batches or pointer are not
// 16-byte aligned, so the kernel's threads store every chunk of D (TMA
// cannot), one element per store (1) or, where they are 4-byte aligned, in
// 4-byte words (4);
// DValue: the type of D's value handed to the kernel: the Compute type
// (float) when D is computed, or the accumulator's when D is the accumulator
// as it is (int for int32: D = accum into i32 is then a plain copy); by
// default float, or double (exact for both) for int32 accumulators.
template <class Epi, int kDSlot, int kChunkCols, unsigned long long kUnitIn, unsigned long long kUnitOut,
          unsigned long long kPairIn, unsigned long long kPairOut, bool kLoop = false, int kStaged = -1,
          int kStagedOut = -1, int kHoldVectors = 0, int kDByThreads = 0,
          class DValue = typename EpgSm90Result<typename Epi::Acc>::type>
struct EpgSm90Hook : EpgSm90StagedInput<Epi, kStaged>, EpgSm90StagedOutput<Epi, kStagedOut> {
  using Compute = typename Epi::Compute;
  using Params = typename Epi::Params;
  using Result = typename EpgSm90Result<typename Epi::Acc>::type;
  static constexpr int kReduceSlots = Epi::kNumReduce > 0 ? Epi::kNumReduce : 1;
  static constexpr int kInputs = Epi::kNumInputs > 0 ? Epi::kNumInputs : 1;
  static constexpr int kCols = kChunkCols / 4;  // a thread's columns in one chunk
  static constexpr int kOutputs = Epi::kNumOutputs > 0 ? Epi::kNumOutputs : 1;
  static constexpr int kVecSlots = kCols > 2 ? kCols : 2;  // a chunk's values of a row or column vector

  Params params;

  // Long epilogues stage their output chunks in a loop (see LoopsChunks).
  static constexpr bool kLoopChunks = kLoop;
  static_assert(kHoldVectors >= 0 && kHoldVectors <= 2, "kHoldVectors is 0, 1 or 2");
  // Row and column vector values loaded when a chunk begun early begins
  // (HoldsVectors), or one chunk ahead (PreloadsVectors).
  static constexpr bool kHoldsVectors = kHoldVectors == 1;
  static constexpr bool kPreloadsVectors = kHoldVectors == 2;
  static constexpr bool kStoresDByThreads = kDByThreads != 0;
  static constexpr bool kStoresDInWords = kDByThreads == 4;
  static constexpr bool kLoadsVectors = epg_sm90_loads<Epi, kEpgLoadRow>() || epg_sm90_loads<Epi, kEpgLoadColumn>();

  // The inputs the epilogue reads from global memory (full tiles but the
  // staged one, the tile's part of row and column vectors) are prefetched
  // into L2 when a tile's main loop starts (the kernel calls prefetch()
  // then), so the epilogue reads them from L2: with one tile per CTA (skinny
  // and one-wave problems) a load from DRAM there would be exposed. Scalar
  // tensors are not: prefetching them gained nothing measurable and made
  // precise fp8 with amax 5% slower at 8192^3.
  static constexpr bool kPrefetchInputs = true;

  // The reduce outputs' identity, when the GEMM writes it itself
  // (GemmParams::identity_flag): one warp, lane `lane` taking elements lane,
  // lane + 32, ... of each output over its batches (the host asks for this
  // only when they are few).
  static constexpr bool kFillsIdentity = Epi::kNumReduce > 0;
  __device__ __forceinline__ void fill_identity(int lane, int L, int M, int N) const {
    FillIdentity fill{params, lane, L, M, N};
    Epi::for_each_reduce(fill);
  }
  struct FillIdentity {
    const Params& p;
    int lane, L, M, N;
    template <int J>
    __device__ __forceinline__ void visit() {
      constexpr int kKind = Epi::kOutStoreKind[J];
      const EpgOperand& o = p.out[J];
      const int extent = static_cast<int>(epg_reduce_extent<kKind>(M, N));
      for (int i = lane; i < L * extent; i += 32) {
        const int l = i / extent, x = i - l * extent;
        epg_store_reduce_identity_f32<Epi::kOutReduceOp[J]>(o.ptr, epg_reduce_offset<kKind>(o, l, x));
      }
    }
  };

  // The reduce outputs hold their identity only once the fill kernel
  // launched just before the GEMM, or the grid's first CTA (fill_identity),
  // has written it (see AwaitsIdentity): row and column reductions add to
  // them from the first tile on (Totals::commit's caller waits for itself).
  static constexpr bool kAwaitsIdentity =
      epg_sm90_stores<Epi, kEpgStoreRowReduce>() || epg_sm90_stores<Epi, kEpgStoreColumnReduce>();

  __device__ __forceinline__ void prefetch(int m_base, int n_base, int cols, int l, int tid, int M, int N) const {
    prefetch_input<0>(m_base, n_base, cols, l, tid, M, N);
  }

  // Input I's part of the warpgroup's 64 x cols tile, one 128-byte line per
  // thread and step: the rows of a full tile whose rows are contiguous, the
  // columns of a row vector and the rows of a column vector (contiguous, or
  // one element each).
  template <int I>
  __device__ __forceinline__ void prefetch_input(int m_base, int n_base, int cols, int l, int tid, int M,
                                                 int N) const {
    if constexpr (I < Epi::kNumInputs) {
      constexpr int kKind = Epi::kInLoadKind[I];
      constexpr bool kUnit = epg_sm90_bit(kUnitIn, I);
      constexpr int kBytes = static_cast<int>(sizeof(typename EpgStorage<Epi::kInDType[I]>::type));
      const EpgOperand& o = params.in[I];
      const char* batch = static_cast<const char*>(o.ptr) + l * o.stride_l * kBytes;
      const int n_valid = N - n_base < cols ? N - n_base : cols;
      const int m_valid = M - m_base < 64 ? M - m_base : 64;
      if constexpr (kKind == kEpgLoadTile && kUnit && I != kStaged) {
        const int valid = n_valid * kBytes;
        const int lines = valid > 0 ? (valid + 127) / 128 + 1 : 0;
        const char* base = batch + (static_cast<long long>(m_base) * o.stride_m + n_base) * kBytes;
        for (int i = tid; i < 64 * lines; i += 128) {
          const int r = i / lines, c = i % lines;
          const int byte = c * 128 < valid ? c * 128 : valid - 1;
          if (m_base + r < M) epg_sm90_prefetch_l2(base + r * o.stride_m * kBytes + byte);
        }
      } else if constexpr (kKind == kEpgLoadRow || kKind == kEpgLoadColumn) {
        const int first = kKind == kEpgLoadRow ? n_base : m_base;
        const int count = kKind == kEpgLoadRow ? n_valid : m_valid;
        const long long stride = kKind == kEpgLoadRow ? o.stride_n : o.stride_m;
        const char* base = batch + first * stride * kBytes;
        if (kUnit) {
          const int valid = count * kBytes;
          const int lines = valid > 0 ? (valid + 127) / 128 + 1 : 0;
          for (int c = tid; c < lines; c += 128) epg_sm90_prefetch_l2(base + (c * 128 < valid ? c * 128 : valid - 1));
        } else {
          for (int i = tid; i < count; i += 128) epg_sm90_prefetch_l2(base + i * stride * kBytes);
        }
      }
      prefetch_input<I + 1>(m_base, n_base, cols, l, tid, M, N);
    }
  }

  // Per warpgroup tile: the batch, scalars loaded once, reduction partials
  // (rows: the thread's two rows h; columns: its kCols columns of the current
  // chunk; all: four, by row h and column parity, so that consecutive
  // elements do not wait on each other), for each contiguous tile output
  // the value of an even column waiting for its odd neighbour, so the two
  // leave together, and for each contiguous tile input read by the threads
  // the value of an odd column loaded with its even neighbour.
  struct Tile {
    // Elements outside D may be evaluated and dropped (EvaluatesFreely in
    // sm90_epilogue.cuh): their held vector values and staged inputs are
    // zeros or stale, their accumulators anything; nothing but the value
    // itself leaves, and their reductions combine the identity instead.
    static constexpr bool kEvaluatesFreely =
        epg_sm90_touches_no_memory<Epi, kDSlot, kStaged, kStagedOut, kHoldVectors != 0>();
    // Tile inputs and outputs handle an even column with its odd neighbour.
    static constexpr bool kPairsColumns = true;
    const Params& p;
    long long l;
    int M, N;
    Compute scalar[kInputs];
    Compute row[kReduceSlots][2];
    Compute col[kReduceSlots][kCols];
    Compute all[kReduceSlots][4];
    Result pending[kOutputs];
    Compute next_in[kInputs];
    // Per row, column and (unstaged) tile input, and per tile output stored
    // here: its element (row0, n0) of the current chunk (see begin_chunk), so
    // that each element's address is this pointer plus a constant offset.
    const void* chunk_in[kInputs];
    void* chunk_out[kOutputs];
    // With kHoldVectors, per row vector input, the thread's kCols elements of
    // the current chunk (by c); per column vector input, its two rows' (by
    // h). Loaded as stored and decoded where used, so that the loads are in
    // flight early (a decode right after a load would wait for it). With
    // kHoldVectors 2, `upcoming` holds the next chunk's row vector values
    // (its column values are this chunk's), loaded when this chunk begins;
    // `primed` says whether a chunk of this tile has begun.
    template <int I, bool = (I < Epi::kNumInputs)>
    struct Vectors : Vectors<I + 1> {
      typename EpgStorage<Epi::kInDType[I]>::type v[kVecSlots];
    };
    template <int I>
    struct Vectors<I, false> {};
    Vectors<0> vectors;
    Vectors<0> upcoming;
    bool primed = false;
    template <int I>
    __device__ __forceinline__ auto& vec() {
      return vec<I>(vectors);
    }
    template <int I>
    static __device__ __forceinline__ auto& vec(Vectors<0>& set) {
      return static_cast<Vectors<I>&>(set).v;
    }

    __device__ __forceinline__ Tile(const EpgSm90Hook& hook, int batch, int rows, int columns)
        : p(hook.params), l(batch), M(rows), N(columns) {
      load_scalars<0>();
      Reset reset{*this};
      Epi::for_each_reduce(reset);
    }

    template <int I>
    __device__ __forceinline__ void load_scalars() {
      if constexpr (I < Epi::kNumInputs) {
        constexpr int kKind = Epi::kInLoadKind[I];
        const EpgOperand& o = p.in[I];
        if constexpr (kKind == kEpgLoadScalarValue) {
          scalar[I] = static_cast<Compute>(o.value);
        } else if constexpr (kKind == kEpgLoadScalarTensor) {
          scalar[I] = epg_load<Epi::kInDType[I], Compute>(o.ptr, l * o.stride_l);
        }
        load_scalars<I + 1>();
      }
    }

    // The thread's first column n0 and row row0 of the chunk that follows:
    // element (h, c) lies 8h rows and 8 (c / 2) + c % 2 columns from them.
    __device__ __forceinline__ void begin_chunk(int n0, int row0) {
      if constexpr (kHoldVectors == 2) {
        // The first chunk loads its vector values; the later ones take
        // those loaded one chunk ahead.
        if (primed) take_upcoming<0>();
        chunk_bases<0>(n0, row0, !primed);
        primed = true;
        load_row_vectors<0>(upcoming, n0 + kChunkCols);
      } else {
        chunk_bases<0>(n0, row0, true);
      }
      chunk_out_bases<0>(n0, row0);
      prefetch_next_tiles<0>(n0 - 2 * static_cast<int>(threadIdx.x % 4) + kChunkCols, row0);
    }

    // Tile inputs the threads read: the lines of the next chunk (first
    // column n_next) of the thread's two rows into L1, each lane of a quad
    // taking one 128-byte step along the row, so that the next chunk's loads
    // find them there rather than in L2 (each chunk of a looped epilogue
    // waits for its own loads).
    template <int I>
    __device__ __forceinline__ void prefetch_next_tiles(int n_next, int row0) const {
      if constexpr (I < Epi::kNumInputs) {
        if constexpr (Epi::kInLoadKind[I] == kEpgLoadTile && I != kStaged && epg_sm90_bit(kUnitIn, I)) {
          using S = typename EpgStorage<Epi::kInDType[I]>::type;
          constexpr int kRowBytes = kChunkCols * static_cast<int>(sizeof(S));
          const int q = static_cast<int>(threadIdx.x % 4);
          const int n = n_next + q * 128 / static_cast<int>(sizeof(S));
          if (q * 128 < kRowBytes + 128 && n_next < N) {
            const EpgOperand& o = p.in[I];
            const S* at = static_cast<const S*>(o.ptr) + l * o.stride_l + static_cast<long long>(row0) * o.stride_m +
                          (n < N ? n : N - 1);
            if (row0 < M) epg_sm90_prefetch_l1(at);
            if (row0 + 8 < M) epg_sm90_prefetch_l1(at + 8 * o.stride_m);
          }
        }
        prefetch_next_tiles<I + 1>(n_next, row0);
      }
    }

    // kHoldVectors 2: the row vector values loaded at the previous chunk's
    // begin_chunk become this chunk's (the column values stay: same rows).
    template <int I>
    __device__ __forceinline__ void take_upcoming() {
      if constexpr (I < Epi::kNumInputs) {
        if constexpr (Epi::kInLoadKind[I] == kEpgLoadRow) {
#pragma unroll
          for (int k = 0; k < kCols; ++k) vec<I>()[k] = vec<I>(upcoming)[k];
        }
        take_upcoming<I + 1>();
      }
    }

    // Each row vector input's values for the chunk whose thread's first
    // column is n0, into `set`.
    template <int I>
    __device__ __forceinline__ void load_row_vectors(Vectors<0>& set, int n0) {
      if constexpr (I < Epi::kNumInputs) {
        if constexpr (Epi::kInLoadKind[I] == kEpgLoadRow) load_row<I>(set, n0);
        load_row_vectors<I + 1>(set, n0);
      }
    }

    // Row vector input I's values for the chunk whose thread's first column is n0, into `set`.
    template <int I>
    __device__ __forceinline__ void load_row(Vectors<0>& set, int n0) {
      constexpr bool kUnit = epg_sm90_bit(kUnitIn, I);
      using S = typename EpgStorage<Epi::kInDType[I]>::type;
      const EpgOperand& o = p.in[I];
      const S* at = static_cast<const S*>(o.ptr) + l * o.stride_l + (kUnit ? n0 : n0 * o.stride_n);
      load_vector<I, kCols>(set, at, kUnit ? 1 : o.stride_n, N - n0, [](int c) { return 8 * (c / 2) + c % 2; });
    }

    template <int J>
    __device__ __forceinline__ void chunk_out_bases(int n0, int row0) {
      if constexpr (J < Epi::kNumOutputs) {
        if constexpr (Epi::kOutStoreKind[J] == kEpgStoreTile && J != kDSlot && J != kStagedOut) {
          using S = typename EpgStorage<Epi::kOutDType[J]>::type;
          const EpgOperand& o = p.out[J];
          chunk_out[J] = static_cast<S*>(o.ptr) + l * o.stride_l + row0 * o.stride_m +
                         (epg_sm90_bit(kUnitOut, J) ? n0 : n0 * o.stride_n);
        }
        chunk_out_bases<J + 1>(n0, row0);
      }
    }

    // Each input's base for the chunk (tile inputs, vectors not held), or
    // with kHoldVectors its vector values when `load_held` is true.
    template <int I>
    __device__ __forceinline__ void chunk_bases(int n0, int row0, bool load_held) {
      if constexpr (I < Epi::kNumInputs) {
        constexpr int kKind = Epi::kInLoadKind[I];
        constexpr bool kUnit = epg_sm90_bit(kUnitIn, I);
        using S = typename EpgStorage<Epi::kInDType[I]>::type;
        const EpgOperand& o = p.in[I];
        const S* base = static_cast<const S*>(o.ptr) + l * o.stride_l;
        if constexpr (kKind == kEpgLoadRow && kHoldVectors == 0) {
          chunk_in[I] = base + (kUnit ? n0 : n0 * o.stride_n);
        } else if constexpr (kKind == kEpgLoadColumn && kHoldVectors == 0) {
          chunk_in[I] = base + (kUnit ? row0 : row0 * o.stride_m);
        } else if constexpr (kKind == kEpgLoadRow) {
          if (load_held) load_row<I>(vectors, n0);
        } else if constexpr (kKind == kEpgLoadColumn) {
          const S* at = base + (kUnit ? row0 : row0 * o.stride_m);
          if (load_held) load_vector<I, 2>(vectors, at, kUnit ? 1 : o.stride_m, M - row0, [](int h) { return 8 * h; });
        } else if constexpr (kKind == kEpgLoadTile && I != kStaged) {
          chunk_in[I] = base + row0 * o.stride_m + (kUnit ? n0 : n0 * o.stride_n);
        }
        chunk_bases<I + 1>(n0, row0, load_held);
      }
    }

    // Elements 0 .. kCount - 1 of vector input I into `set`, element k
    // `offset(k)` steps from `at`; those `room` or more steps away lie
    // outside the input (zeros).
    template <int I, int kCount, class S, class Offset>
    static __device__ __forceinline__ void load_vector(Vectors<0>& set, const S* at, long long step, int room,
                                                       const Offset& offset) {
      if (offset(kCount - 1) < room) {
#pragma unroll
        for (int k = 0; k < kCount; ++k) vec<I>(set)[k] = __ldg(at + offset(k) * step);
      } else {
#pragma unroll
        for (int k = 0; k < kCount; ++k) {
          vec<I>(set)[k] = S{};
          if (offset(k) < room) vec<I>(set)[k] = __ldg(at + offset(k) * step);
        }
      }
    }

    // One element: h and c are the register coordinates of the kernel's Tile
    // contract (sm90_epilogue.cuh); `inside` false: an element outside D
    // evaluated freely, which adds nothing to the reductions; `next_inside`
    // false: the element's neighbour (m, n + 1) lies outside D.
    template <class KernelAcc>
    __device__ __forceinline__ DValue operator()(KernelAcc acc, float staged, float& aux, int m, int n, int h,
                                                 int c, bool inside = true, bool next_inside = true) {
      Ctx ctx{*this, m, n, h, c, staged, aux, DValue(0), inside, next_inside};
      Epi::apply(ctx, epg_sm90_acc<typename Epi::Acc>(acc));
      return ctx.result;
    }

    __device__ __forceinline__ void end_chunk(int n_chunk, int row0, int M, int N, int lane) {
      (void)row0;
      (void)M;
      FlushColumns flush{*this, n_chunk, N, lane};
      Epi::for_each_reduce(flush);
    }

    __device__ __forceinline__ void end_tile(int row0, int M, int lane) {
      FlushRowsAndAll flush{*this, row0, M, lane};
      Epi::for_each_reduce(flush);
    }
  };

  // The context the generated epilogue_apply() talks to for one element.
  struct Ctx {
    Tile& t;
    long long m, n;
    int h, c;
    float staged;      // input kStaged's element (m, n)
    float& aux;        // output kStagedOut's element (m, n)
    DValue result;
    bool inside;       // (m, n) lies in D (else: evaluated freely, not reduced)
    bool next_inside;  // (m, n + 1) lies in D

    template <int I>
    __device__ __forceinline__ Compute load() const {
      constexpr int kKind = Epi::kInLoadKind[I];
      constexpr int kDType = Epi::kInDType[I];
      const EpgOperand& o = t.p.in[I];
      constexpr bool kUnit = epg_sm90_bit(kUnitIn, I);
      if constexpr (I == kStaged) {
        return static_cast<Compute>(staged);
      } else if constexpr (kKind == kEpgLoadScalarValue || kKind == kEpgLoadScalarTensor) {
        return t.scalar[I];
      } else {
        // Offsets from the chunk's base (begin_chunk): constants, with unit strides.
        const int dn = 8 * (c / 2) + c % 2, dm = 8 * h;
        if constexpr (kKind == kEpgLoadRow && kHoldVectors != 0) {
          return epg_decode<kDType, Compute>(t.template vec<I>()[c]);
        } else if constexpr (kKind == kEpgLoadColumn && kHoldVectors != 0) {
          return epg_decode<kDType, Compute>(t.template vec<I>()[h]);
        } else if constexpr (kKind == kEpgLoadRow) {
          return epg_sm90_ldg<kDType, Compute>(t.chunk_in[I], kUnit ? dn : dn * o.stride_n);
        } else if constexpr (kKind == kEpgLoadColumn) {
          return epg_sm90_ldg<kDType, Compute>(t.chunk_in[I], kUnit ? dm : dm * o.stride_m);
        } else if constexpr (epg_sm90_bit(kPairIn, I)) {
          return load_pair_member<I>(dm * o.stride_m + dn);
        } else {
          return epg_sm90_ldg<kDType, Compute>(t.chunk_in[I], dm * o.stride_m + (kUnit ? dn : dn * o.stride_n));
        }
      }
    }

    // Tile input I's element `offset` from the chunk's base, with kPairIn's
    // alignment. An even column loads its odd neighbour with it as one
    // access, unless that neighbour lies outside D; the odd column,
    // evaluated next and only inside D, takes that value.
    template <int I>
    __device__ __forceinline__ Compute load_pair_member(long long offset) const {
      constexpr int kDType = Epi::kInDType[I];
      using S = typename EpgStorage<kDType>::type;
      if (c % 2 == 1) return t.next_in[I];
      if (next_inside) {
        const EpgSm90Pair<S> pair = epg_sm90_ldg_pair<kDType>(static_cast<const S*>(t.chunk_in[I]) + offset);
        t.next_in[I] = epg_decode<kDType, Compute>(pair.hi);
        return epg_decode<kDType, Compute>(pair.lo);
      }
      return epg_sm90_ldg<kDType, Compute>(t.chunk_in[I], offset);
    }

    template <int J, class V>
    __device__ __forceinline__ void store(V value) {
      constexpr bool kUnit = epg_sm90_bit(kUnitOut, J);
      const EpgOperand& o = t.p.out[J];
      if constexpr (J == kDSlot) {
        result = epg_sm90_d_value<DValue>(value);
      } else if constexpr (J == kStagedOut) {
        aux = static_cast<float>(epg_sm90_result(value));
      } else if constexpr (kUnit) {
        // Even column: wait for the odd one unless it lies outside D.
        // Offsets from the chunk's base (begin_chunk).
        const long long at = 8 * h * o.stride_m + 8 * (c / 2) + c % 2;
        if (c % 2 == 0 && next_inside) {
          t.pending[J] = epg_sm90_result(value);
        } else if (c % 2 == 0) {
          epg_store<Epi::kOutDType[J]>(t.chunk_out[J], at, value);
        } else {
          epg_sm90_store_pair<Epi::kOutDType[J], epg_sm90_bit(kPairOut, J)>(t.chunk_out[J], at - 1, t.pending[J],
                                                                          Result(epg_sm90_result(value)));
        }
      } else {
        epg_store<Epi::kOutDType[J]>(t.chunk_out[J], 8 * h * o.stride_m + (8 * (c / 2) + c % 2) * o.stride_n, value);
      }
    }

    template <int J>
    __device__ __forceinline__ void reduce(Compute element) {
      constexpr int kKind = Epi::kOutStoreKind[J];
      constexpr int kOp = Epi::kOutReduceOp[J];
      constexpr int kSlot = Epi::kOutReduceSlot[J];
      const Compute value = inside ? element : epg_reduce_identity<kOp, Compute>();
      if constexpr (kKind == kEpgStoreRowReduce) {
        t.row[kSlot][h] = epg_reduce_combine<kOp>(t.row[kSlot][h], value);
      } else if constexpr (kKind == kEpgStoreColumnReduce) {
        t.col[kSlot][c] = epg_reduce_combine<kOp>(t.col[kSlot][c], value);
      } else {
        t.all[kSlot][2 * h + (c & 1)] = epg_reduce_combine<kOp>(t.all[kSlot][2 * h + (c & 1)], value);
      }
    }
  };

  // Visitors over the reduce outputs (Epi::for_each_reduce calls visit<J>()).
  struct Reset {
    Tile& t;
    template <int J>
    __device__ __forceinline__ void visit() {
      constexpr int kSlot = Epi::kOutReduceSlot[J];
      const Compute identity = epg_reduce_identity<Epi::kOutReduceOp[J], Compute>();
      t.row[kSlot][0] = t.row[kSlot][1] = identity;
#pragma unroll
      for (int c = 0; c < kCols; ++c) t.col[kSlot][c] = identity;
      t.all[kSlot][0] = t.all[kSlot][1] = t.all[kSlot][2] = t.all[kSlot][3] = identity;
    }
  };

  // Column reductions of one chunk: the 8 row-lanes of a column combine by
  // shuffles (lane bits 2-4), then lanes 0-3 add their columns with atomics.
  struct FlushColumns {
    Tile& t;
    int n_chunk, N, lane;
    template <int J>
    __device__ __forceinline__ void visit() {
      if constexpr (Epi::kOutStoreKind[J] == kEpgStoreColumnReduce) {
        constexpr int kOp = Epi::kOutReduceOp[J];
        constexpr int kSlot = Epi::kOutReduceSlot[J];
        const EpgOperand& o = t.p.out[J];
#pragma unroll
        for (int c = 0; c < kCols; ++c) {
          const Compute v = epg_warp_combine<kOp>(t.col[kSlot][c], 0x1c);
          const int n = n_chunk + 8 * (c / 2) + 2 * (lane % 4) + c % 2;
          if (lane < 4 && n < N) epg_atomic_reduce_f32<kOp>(o.ptr, t.l * o.stride_l + n * o.stride_n, v);
          t.col[kSlot][c] = epg_reduce_identity<kOp, Compute>();
        }
      }
    }
  };

  // Row reductions (the 4 column-lanes of a row combine, lane%4 == 0 adds).
  // Whole-output ones stay in the Tile for Totals::add.
  struct FlushRowsAndAll {
    Tile& t;
    int row0, M, lane;
    template <int J>
    __device__ __forceinline__ void visit() {
      constexpr int kKind = Epi::kOutStoreKind[J];
      constexpr int kOp = Epi::kOutReduceOp[J];
      constexpr int kSlot = Epi::kOutReduceSlot[J];
      const EpgOperand& o = t.p.out[J];
      if constexpr (kKind == kEpgStoreRowReduce) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const Compute v = epg_warp_combine<kOp>(t.row[kSlot][h], 0x03);
          const long long m = row0 + 8 * h;
          if (lane % 4 == 0 && m < M) epg_atomic_reduce_f32<kOp>(o.ptr, t.l * o.stride_l + m * o.stride_m, v);
        }
      }
    }
  };

  // Whole-output reductions across every tile a consumer thread stores (the
  // kernel's Totals contract, sm90_totals.cuh): one running value per reduce
  // slot (those of whole outputs are used) for batch l. Batches join unless
  // some whole output has a batch stride.
  struct TotalsOfHook {
    static constexpr int kBytes = kReduceSlots * static_cast<int>(sizeof(Compute));
    Compute v[kReduceSlots];
    int l;
    bool batched;

    __device__ __forceinline__ explicit TotalsOfHook(const EpgSm90Hook& hook) : batched(false) {
      Batched find{hook.params, batched};
      Epi::for_each_reduce(find);
      reset(-1);
    }
    __device__ __forceinline__ bool flushes_before(int batch) const { return l >= 0 && batched && batch != l; }
    __device__ __forceinline__ void reset(int batch) {
      l = batch;
      Visit<kReset> visit{*this, nullptr, nullptr, nullptr};
      Epi::for_each_reduce(visit);
    }
    __device__ __forceinline__ void add(const Tile& t) {
      l = static_cast<int>(t.l);
      Visit<kAdd> visit{*this, &t, nullptr, nullptr};
      Epi::for_each_reduce(visit);
    }
    __device__ __forceinline__ void warp_combine() {
      Visit<kWarp> visit{*this, nullptr, nullptr, nullptr};
      Epi::for_each_reduce(visit);
    }
    __device__ __forceinline__ void save(unsigned char* to) {
      Visit<kSave> visit{*this, nullptr, nullptr, reinterpret_cast<Compute*>(to)};
      Epi::for_each_reduce(visit);
    }
    __device__ __forceinline__ void merge(const unsigned char* from) {
      Visit<kMerge> visit{*this, nullptr, reinterpret_cast<const Compute*>(from), nullptr};
      Epi::for_each_reduce(visit);
    }
    __device__ __forceinline__ void commit(const EpgSm90Hook& hook) {
      if (l >= 0) {
        Commit visit{*this, hook.params};
        Epi::for_each_reduce(visit);
      }
      reset(-1);
    }

    enum Step { kReset, kAdd, kWarp, kSave, kMerge };
    template <int kStep>
    struct Visit {
      TotalsOfHook& self;
      const Tile* tile;
      const Compute* from;
      Compute* to;
      template <int J>
      __device__ __forceinline__ void visit() {
        if constexpr (Epi::kOutStoreKind[J] == kEpgStoreScalarReduce) {
          constexpr int kOp = Epi::kOutReduceOp[J];
          constexpr int kSlot = Epi::kOutReduceSlot[J];
          Compute& v = self.v[kSlot];
          if constexpr (kStep == kReset) {
            v = epg_reduce_identity<kOp, Compute>();
          } else if constexpr (kStep == kAdd) {
            const Compute (&a)[4] = tile->all[kSlot];
            v = epg_reduce_combine<kOp>(v, epg_reduce_combine<kOp>(epg_reduce_combine<kOp>(a[0], a[1]),
                                                                   epg_reduce_combine<kOp>(a[2], a[3])));
          } else if constexpr (kStep == kWarp) {
            v = epg_warp_combine<kOp>(v, 0x1f);
          } else if constexpr (kStep == kSave) {
            to[kSlot] = v;
          } else {
            v = epg_reduce_combine<kOp>(v, from[kSlot]);
          }
        }
      }
    };
    struct Batched {
      const Params& p;
      bool& batched;
      template <int J>
      __device__ __forceinline__ void visit() {
        if constexpr (Epi::kOutStoreKind[J] == kEpgStoreScalarReduce) batched = batched || p.out[J].stride_l != 0;
      }
    };
    struct Commit {
      const TotalsOfHook& self;
      const Params& p;
      template <int J>
      __device__ __forceinline__ void visit() {
        if constexpr (Epi::kOutStoreKind[J] == kEpgStoreScalarReduce) {
          const EpgOperand& o = p.out[J];
          epg_atomic_reduce_f32<Epi::kOutReduceOp[J]>(o.ptr, self.l * o.stride_l, self.v[Epi::kOutReduceSlot[J]]);
        }
      }
    };
  };
  using Totals = typename EpgSm90If<epg_sm90_stores<Epi, kEpgStoreScalarReduce>(), TotalsOfHook>::type;
};
