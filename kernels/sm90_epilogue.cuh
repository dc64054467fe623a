// Epilogue of the sm90 GEMM: applies the user's per-element hook to a consumer
// warpgroup's accumulators, stages the results in swizzled shared
// memory and writes them with TMA stores that run on during the next tile.
// A hook may have one full-tile input TMA-loaded into the same staging slots
// during the main loop; each warp reads its rows there and overwrites them
// with its results.
#pragma once

#include "sm90_gemm_config.cuh"

namespace epigemm::sm90 {

/// Epilogue hook contract. A trivially copyable functor passed to the kernel
/// by value (so it may hold pointers and scalars):
///   __device__ V operator()(Acc acc, int m, int n, int l) const;
/// It is called once for every in-bounds element (m < M, n < N) of batch l
/// with the accumulator (Cfg::Acc: float, or int for s8/u8 operands); its
/// result (V: float, double or int) is rounded to TD (floating point: nearest
/// even, fp8 saturated to finite; integers: nearest even, saturated, NaN
/// gives 0) and stored to D. An int result, or a double, reaches D with no
/// rounding through float.
/// It may read any global memory and write or reduce into other outputs itself.
///
/// A hook that keeps state across a warpgroup tile (e.g. partial reductions in
/// registers) defines instead a nested `Tile` type, built once per warpgroup
/// tile and used in place of operator():
///   __device__ Tile(const Epi& epi, int l, int M, int N);
///   __device__ void begin_chunk(int n0, int row0);
///   __device__ V operator()(Acc acc, float staged, float& aux, int m, int n, int h, int c);
///   __device__ void end_chunk(int n_chunk, int row0, int M, int N, int lane);
///   __device__ void end_tile(int row0, int M, int lane);
/// Thread `lane` of warp w owns rows row0 + 8h (h = 0, 1; row0 = m_base + 16w +
/// lane/4) and, in the output chunk starting at column n_chunk, the columns
/// n_chunk + 8*(c/2) + 2*(lane%4) + c%2 (c = 0 .. kChunkCols/4 - 1); the call
/// for an even c comes right before the one for c + 1 (when that is in D).
/// begin_chunk precedes each staged chunk's calls with the thread's first
/// column n0 = n_chunk + 2*(lane%4) and row0 (element (h, c) lies 8h rows and
/// 8*(c/2) + c%2 columns from them, so the hook can address its inputs from
/// one base per chunk, and load those it may: n0 and row0 can lie past D's
/// edge). For a tile of one chunk (kBeginsChunkEarly) the Tile is built and
/// the chunk begun before the tile's last main-loop stage. end_chunk
/// follows each staged chunk and end_tile the last one; every thread of the
/// warpgroup calls them together, so they may use warp shuffles. `staged` is
/// the element (m, n) of the hook's staged input (see StagesInput), else 0;
/// a hook with a staged output (StagesOutput) sets `aux` to its element.
struct IdentityEpilogue {
  template <class Acc>
  __device__ __forceinline__ Acc operator()(Acc acc, int, int, int) const {
    return acc;
  }
};

/// The Tile of a hook that has none: forwards to its operator().
template <class Epi>
struct PlainTile {
  const Epi& epi;
  int l;
  __device__ __forceinline__ PlainTile(const Epi& e, int batch, int, int) : epi(e), l(batch) {}
  __device__ __forceinline__ void begin_chunk(int, int) {}
  template <class Acc>
  __device__ __forceinline__ auto operator()(Acc acc, float, float&, int m, int n, int, int) const {
    return epi(acc, m, n, l);
  }
  __device__ __forceinline__ void end_chunk(int, int, int, int, int) {}
  __device__ __forceinline__ void end_tile(int, int, int) {}
};

template <class T>
struct VoidOf {
  using type = void;
};
/// Declares the trait Name<Epi>: `value` is Epi::member when the hook
/// defines that static constexpr bool, else false.
#define EPIGEMM_HOOK_FLAG(Name, member)                                     \
  template <class Epi, class = void>                                        \
  struct Name {                                                             \
    static constexpr bool value = false;                                    \
  };                                                                        \
  template <class Epi>                                                      \
  struct Name<Epi, typename VoidOf<decltype(Epi::member)>::type> {          \
    static constexpr bool value = Epi::member;                              \
  }

/// Epi::Tile when the hook defines one, else PlainTile<Epi>.
template <class Epi, class = void>
struct TileOf {
  using type = PlainTile<Epi>;
};
template <class Epi>
struct TileOf<Epi, typename VoidOf<typename Epi::Tile>::type> {
  using type = typename Epi::Tile;
};

/// Whether a consumer's warpgroup tile is a single staged chunk (one 64-row
/// block, one chunk): the kernel then begins that chunk (Tile::begin_chunk,
/// where a hook loads its row and column vector values) just before the
/// tile's last stage, so that those loads overlap the last wgmmas instead of
/// following them; store_warpgroup_tile does not begin it again. Not with
/// promotion (precise fp8): there the Tile, built before the main loop and
/// live through it, made every tile slower (8192^3 e4m3 with a scale tensor:
/// 7% over GEMM alone, 0.5% when the Tile is built after the main loop).
template <class Cfg>
inline constexpr bool kBeginsChunkEarly = Cfg::kChunksPerWg == 1 && Cfg::kWgRows == 1 && Cfg::kPromoteKBlocks == 0;

/// Whether a consumer's staged output (StagesOutput) goes to the ring on the
/// CTA's last tile, so that it need not wait for D's stores to read the
/// staging slots: the consumer's part of each stage's A (when the consumers
/// split M: its 64 rows) or B (split N: its half) is read by it alone, and
/// after that tile's main loop no load writes the ring again (one CTA, a
/// cooperative schedule, one k-block per stage; not with promotion). Chunk
/// c goes to stage c's part.
template <class Cfg>
inline constexpr int kRingPartBytes =
    Cfg::kWgAlongM > 1 ? Cfg::kTileABytes / Cfg::kWgAlongM : Cfg::kTileBBytes / 2;
template <class Cfg>
inline constexpr bool kAuxInRing = !Cfg::kPingpong && Cfg::kClusterM == 1 && Cfg::kKGroup == 1 &&
                                   Cfg::kPromoteKBlocks == 0 && Cfg::kWgRows == 1 &&
                                   (Cfg::kWgAlongM > 1 || Cfg::kMajorB == Major::K || Cfg::kWgN % 64 == 0) &&
                                   Cfg::kChunkBytes <= kRingPartBytes<Cfg> && Cfg::kChunksPerWg <= Cfg::kStages;

/// A hook that loads its vector values when a chunk begins (EpgSm90Hook's
/// kHoldVectors) is generated for the tiles that begin it early; the host's
/// rule (Sm90TileConfig::begins_chunk_early) must agree with the kernel's.
EPIGEMM_HOOK_FLAG(HoldsVectors, kHoldsVectors);

/// Whether a hook loads each chunk's vector values while the chunk before it
/// is computed (EpgSm90Hook's kHoldVectors 2): for tiles of several chunks only.
EPIGEMM_HOOK_FLAG(PreloadsVectors, kPreloadsVectors);

/// Whether a hook loads row or column vectors (`static constexpr bool
/// kLoadsVectors = true`): the kernel then takes its shared memory base
/// through a shuffle (see gemm_kernel).
EPIGEMM_HOOK_FLAG(LoadsVectors, kLoadsVectors);

/// Whether D's rows, batches or pointer are not 16-byte aligned, so that TMA
/// cannot store it (`static constexpr bool kStoresDByThreads = true`): every
/// chunk of D then leaves through the threads (copy_ragged_chunk), and the
/// kernel's D map is a placeholder it never uses.
EPIGEMM_HOOK_FLAG(StoresDByThreads, kStoresDByThreads);

/// Whether such a hook's D has its pointer, rows and batches 4-byte aligned
/// (`static constexpr bool kStoresDInWords = true`), so the threads store it
/// in words rather than element by element (see copy_ragged_chunk).
EPIGEMM_HOOK_FLAG(StoresDInWords, kStoresDInWords);

/// Whether a hook asks to prefetch its inputs when a tile's main loop starts:
/// a hook defining `static constexpr bool kPrefetchInputs = true` and
///   __device__ void prefetch(int m_base, int n_base, int cols, int l, int tid, int M, int N) const;
/// is called by each consumer thread (tid 0-127) for its warpgroup's 64 x cols
/// part of the tile before the tile's first k-block.
EPIGEMM_HOOK_FLAG(PrefetchesInputs, kPrefetchInputs);

template <class Epi>
__device__ __forceinline__ void prefetch_epilogue_inputs(const Epi& epi, int m_base, int n_base, int cols, int l,
                                                         int tid, int M, int N) {
  if constexpr (PrefetchesInputs<Epi>::value) epi.prefetch(m_base, n_base, cols, l, tid, M, N);
}

/// Whether a hook asks for its output chunks in a loop rather than unrolled
/// (`static constexpr bool kLoopChunks = true`): worth it when the epilogue is
/// long (transcendental functions), so that it is inlined once per chunk and
/// stays within the instruction cache; short epilogues run faster unrolled.
EPIGEMM_HOOK_FLAG(LoopsChunks, kLoopChunks);

/// Whether a hook reads one full-tile input from the output staging slots: a
/// hook defining `using StagedType = T` (T the input's element type, of D's
/// size: __half, __nv_bfloat16, float, int, __nv_fp8_e4m3, __nv_fp8_e5m2,
/// signed char or unsigned char) gets
/// that input's part of each warpgroup tile loaded into the slots by TMA while
/// the tile's main loop runs (the kernel's fourth tensor map, laid out like
/// D's), and its value for each element as the Tile's `staged` argument. The
/// slots must hold the whole warpgroup tile (kEpiRounds == 1) and the
/// consumer a single 64-row block (cooperative schedule).
template <class Epi, class = void>
struct StagesInput {
  static constexpr bool value = false;
  using type = float;
};
template <class Epi>
struct StagesInput<Epi, typename VoidOf<typename Epi::StagedType>::type> {
  static constexpr bool value = true;
  using type = typename Epi::StagedType;
};

/// Whether a hook hands back one full-tile output besides D for the kernel to
/// stage and TMA-store like D (`using StagedOutType = T`, T of D's size: __half,
/// __nv_bfloat16, float, __nv_fp8_e4m3 or __nv_fp8_e5m2): the Tile's `aux`
/// argument receives its value for each element. Same slot requirements as a
/// staged input, and the chunks unrolled.
template <class Epi, class = void>
struct StagesOutput {
  static constexpr bool value = false;
  using type = float;
};
template <class Epi>
struct StagesOutput<Epi, typename VoidOf<typename Epi::StagedOutType>::type> {
  static constexpr bool value = true;
  using type = typename Epi::StagedOutType;
};

/// Two values of type T as they lie in memory (first = low), widened to f32.
template <class T>
__device__ __forceinline__ float2 unpack2(u32 bits) {
  if constexpr (kSameType<T, __nv_bfloat16>) {
    return make_float2(__uint_as_float(bits << 16), __uint_as_float(bits & 0xffff0000u));
  } else if constexpr (kSameType<T, __half>) {
    __half2_raw raw;
    raw.x = static_cast<unsigned short>(bits & 0xffffu);
    raw.y = static_cast<unsigned short>(bits >> 16);
    return __half22float2(__half2(raw));
  } else if constexpr (kSameType<T, signed char> || kSameType<T, unsigned char>) {
    return make_float2(static_cast<float>(static_cast<T>(bits & 0xffu)),
                       static_cast<float>(static_cast<T>((bits >> 8) & 0xffu)));
  } else {
    static_assert(kSameType<T, __nv_fp8_e4m3> || kSameType<T, __nv_fp8_e5m2>, "unpack2 needs a 16- or 8-bit type");
    constexpr __nv_fp8_interpretation_t kKind = kSameType<T, __nv_fp8_e5m2> ? __NV_E5M2 : __NV_E4M3;
    return __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(bits), kKind)));
  }
}

/// A staged input's 4-byte element (S: float or int) as the float a hook
/// takes, the int rounded to nearest; zero without a staged input.
template <bool kStaged, class S>
__device__ __forceinline__ float staged_word(u32 bits) {
  if constexpr (kStaged && kSameType<S, int>) {
    return __int2float_rn(static_cast<int>(bits));
  } else {
    return __uint_as_float(bits);
  }
}

/// unpack2<S>(bits) with a staged input, else zeros (and S is not looked at).
template <bool kStaged, class S>
__device__ __forceinline__ float2 staged_pair(u32 bits) {
  if constexpr (kStaged) {
    return unpack2<S>(bits);
  } else {
    (void)bits;
    return make_float2(0.f, 0.f);
  }
}

// A hook's result as the kernel rounds it to TD: float as it is, double or
// int without a detour through float (int converts exactly to double).
__device__ __forceinline__ float d_value(float v) { return v; }
__device__ __forceinline__ double d_value(double v) { return v; }
__device__ __forceinline__ double d_value(int v) { return v; }

/// Nearest even integer, saturated to the int range; NaN gives 0 (cvt.rni).
__device__ __forceinline__ int to_s32(float v) { return __float2int_rn(v); }
__device__ __forceinline__ int to_s32(double v) { return __double2int_rn(v); }
__device__ __forceinline__ int to_s32(int v) { return v; }

/// Two floats rounded to TD and packed as they lie in memory (first = low).
template <class TD>
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 r;
  if constexpr (kSameType<TD, __nv_bfloat16>) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    static_assert(kSameType<TD, __half>, "pack2 needs a 16-bit type");
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}

/// The same for two doubles (each rounded once, as epg_encode does).
template <class TD>
__device__ __forceinline__ u32 pack2(double lo, double hi) {
  if constexpr (kSameType<TD, __nv_bfloat16>) {
    return static_cast<u32>(__bfloat16_as_ushort(__double2bfloat16(lo))) |
           (static_cast<u32>(__bfloat16_as_ushort(__double2bfloat16(hi))) << 16);
  } else {
    static_assert(kSameType<TD, __half>, "pack2 needs a 16-bit type");
    return static_cast<u32>(__half_as_ushort(__double2half(lo))) |
           (static_cast<u32>(__half_as_ushort(__double2half(hi))) << 16);
  }
}

/// Two floats rounded to fp8 TD (nearest even, saturated to the largest finite
/// value, as epg_encode) and packed as they lie in memory (first = low byte).
template <class TD>
__device__ __forceinline__ u16 pack2_fp8(float lo, float hi) {
  static_assert(kSameType<TD, __nv_fp8_e4m3> || kSameType<TD, __nv_fp8_e5m2>, "pack2_fp8 needs an fp8 type");
  constexpr __nv_fp8_interpretation_t kKind = kSameType<TD, __nv_fp8_e5m2> ? __NV_E5M2 : __NV_E4M3;
  return __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, kKind);
}

/// Two hook results rounded to a one-byte TD and packed (first = low byte):
/// fp8 as pack2_fp8 (doubles rounded once each), s8/u8 to the nearest even
/// integer saturated to the type's range, NaN to 0 (as epg_encode).
template <class TD, class V>
__device__ __forceinline__ u16 pack2_byte(V lo, V hi) {
  if constexpr (kIsInt8<TD>) {
    constexpr int kMin = kSameType<TD, signed char> ? -128 : 0, kMax = kSameType<TD, signed char> ? 127 : 255;
    const auto byte = [](V v) {
      const int i = to_s32(v);
      return static_cast<u16>((i < kMin ? kMin : i > kMax ? kMax : i) & 0xff);
    };
    return static_cast<u16>(byte(lo) | (byte(hi) << 8));
  } else if constexpr (kSameType<decltype(d_value(lo)), double>) {
    constexpr __nv_fp8_interpretation_t kKind = kSameType<TD, __nv_fp8_e5m2> ? __NV_E5M2 : __NV_E4M3;
    return static_cast<u16>(__nv_cvt_double_to_fp8(d_value(lo), __NV_SATFINITE, kKind) |
                            (__nv_cvt_double_to_fp8(d_value(hi), __NV_SATFINITE, kKind) << 8));
  } else {
    return pack2_fp8<TD>(lo, hi);
  }
}

/// The bits of a float through an opaque move. With a plain bit cast, a D
/// that is the accumulator as it is lets the compiler keep the accumulators
/// as integers across the main loop; the register moves it then puts around
/// every wgmma make ptxas serialize the wgmmas (C7517/C7519).
__device__ __forceinline__ u32 float_bits(float v) {
  u32 bits;
  asm("mov.b32 %0, %1;" : "=r"(bits) : "f"(v));
  return bits;
}

/// A hook result rounded to a four-byte TD (float or int), as its bits.
template <class TD, class V>
__device__ __forceinline__ u32 bits32(V v) {
  if constexpr (kSameType<TD, int>) {
    return static_cast<u32>(to_s32(v));
  } else {
    static_assert(kSameType<TD, float>, "a four-byte D is float or int");
    if constexpr (kSameType<V, float>) return float_bits(v);
    else return float_bits(__double2float_rn(d_value(v)));
  }
}

/// Writes bytes 0 .. n - 1 (1 <= n <= 16) of the 16 bytes in w (w[0]'s low
/// byte first) to the 4-byte-aligned dst: 16 or 8 bytes at once where dst
/// allows, else words, and the last 1-3 bytes of an n that is not a multiple
/// of 4 in a 2- and a 1-byte store.
__device__ __forceinline__ void store_unit_words(unsigned char* dst, const u32 (&w)[4], int n) {
  const auto address = [&](int b) { return reinterpret_cast<unsigned long long>(dst + b); };
  if (n == 16 && (address(0) & 15) == 0) {
    *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    return;
  }
  int b = 0;
  for (; b + 4 <= n;) {
    const int i = b >> 2;
    const u32 lo = i == 0 ? w[0] : i == 1 ? w[1] : i == 2 ? w[2] : w[3];
    if ((address(b) & 7) == 0 && n - b >= 8) {
      const u32 hi = i == 0 ? w[1] : i == 1 ? w[2] : w[3];
      *reinterpret_cast<unsigned long long*>(dst + b) = lo | static_cast<unsigned long long>(hi) << 32;
      b += 8;
    } else {
      *reinterpret_cast<u32*>(dst + b) = lo;
      b += 4;
    }
  }
  if (b < n) {
    const int i = b >> 2;
    const u32 last = i == 0 ? w[0] : i == 1 ? w[1] : i == 2 ? w[2] : w[3];
    if (n - b >= 2) *reinterpret_cast<u16*>(dst + b) = static_cast<u16>(last);
    if ((n - b) & 1) dst[n - 1] = static_cast<unsigned char>(last >> (8 * ((n - 1) & 3)));
  }
}

/// Writes the in-bounds part of one staged chunk (64 rows x kChunkCols, swizzled
/// as staged_offset) with plain stores by the warpgroup's 128 threads, for the
/// chunk at a ragged N edge (or every chunk of a D whose rows TMA cannot
/// store), to the row-major tensor at `base` (row stride `ld`, batch stride
/// `batch`, elements). With `words` (its pointer, rows and batches 4-byte
/// aligned) consecutive threads take consecutive 16-byte units of a row,
/// each written in the widest stores its place allows (store_unit_words);
/// else consecutive elements, one store each. A column-major D's chunk
/// (Cfg::kDColumnMajor, `ld` its column stride, the ragged edge M's) goes
/// the same way along its columns' lines (staged_line_offset).
template <class Cfg>
__device__ __forceinline__ void copy_ragged_chunk(u32 chunk, void* base, long long ld, long long batch,
                                                  const GemmParams& p, int m_base, int col0, int l, int tid,
                                                  bool words) {
  constexpr bool kColumns = Cfg::kDColumnMajor;
  constexpr int kLines = kColumns ? Cfg::kChunkCols : 64;
  constexpr int kLineBytes = kColumns ? 128 : Cfg::kChunkRowBytes;
  constexpr int kLineElements = kLineBytes / Cfg::kOutBytes;
  const int rows = p.M - m_base < 64 ? p.M - m_base : 64;
  const int cols = p.N - col0 < Cfg::kChunkCols ? p.N - col0 : Cfg::kChunkCols;
  // The chunk's lines inside D, and the elements of each.
  const int lines = kColumns ? cols : rows, elements = kColumns ? rows : cols;
  const long long origin = l * batch + (kColumns ? static_cast<long long>(col0) * ld + m_base
                                                 : static_cast<long long>(m_base) * ld + col0);
  const auto place = [](int line, int byte) {
    return kColumns ? Cfg::staged_line_offset(line, byte) : Cfg::staged_offset(line, byte);
  };
  if (words) {
    constexpr int kUnits = kLineBytes / 16;
    unsigned char* first = static_cast<unsigned char*>(base) + origin * Cfg::kOutBytes;
    const long long pitch = ld * Cfg::kOutBytes;
    const int line_bytes = elements * Cfg::kOutBytes;
#pragma unroll 2
    for (int e = tid; e < kLines * kUnits; e += 128) {
      const int i = e / kUnits, u = e % kUnits;
      const int n = line_bytes - 16 * u;
      if (i >= lines || n <= 0) continue;
      u32 w[4];
      ld_shared_v4_b32(chunk + place(i, 16 * u), w);
      store_unit_words(first + i * pitch + 16 * u, w, n < 16 ? n : 16);
    }
    return;
  }
#pragma unroll 4
  for (int e = tid; e < kLines * kLineElements; e += 128) {
    const int i = e / kLineElements, j = e % kLineElements;
    if (i >= lines || j >= elements) continue;
    const u32 addr = chunk + place(i, j * Cfg::kOutBytes);
    const long long at = origin + static_cast<long long>(i) * ld + j;
    if constexpr (Cfg::kOutBytes == 1)
      static_cast<unsigned char*>(base)[at] = static_cast<unsigned char>(ld_shared_u8(addr));
    else if constexpr (Cfg::kOutBytes == 2)
      static_cast<u16*>(base)[at] = ld_shared_b16(addr);
    else
      static_cast<u32*>(base)[at] = ld_shared_b32(addr);
  }
}

/// Whether a hook's Tile may evaluate elements outside D and drop their
/// values (`static constexpr bool kEvaluatesFreely = true`: an element reads
/// and writes no memory, its `aux` is staged and never stored outside D,
/// and its operator() takes an eighth argument, false outside D, for which
/// it adds nothing to its reductions).
EPIGEMM_HOOK_FLAG(EvaluatesFreely, kEvaluatesFreely);

/// Whether a hook's Tile loads or stores an even column together with its
/// odd neighbour (`static constexpr bool kPairsColumns = true`): its
/// operator() then takes a ninth argument, false where the element's
/// neighbour (m, n + 1) lies past D's last column; the kernel leaves it out
/// (true) where it checks no bounds.
EPIGEMM_HOOK_FLAG(PairsColumns, kPairsColumns);

/// The hook's value for one accumulator (register coordinates h, c as in the
/// Tile contract; `staged`: the staged input's element; `aux`: receives the
/// staged output's); with kChecked, 0 outside D. A branch around each
/// element kept ptxas from interleaving the elements' dependency chains (at
/// M = 16, gelu's 16 per thread ran one after another); a Tile that
/// evaluates freely computes every element and selects.
template <bool kChecked, class Tile, class Acc>
__device__ __forceinline__ auto epi_value(Tile& tile, Acc acc, float staged, float& aux, int m, int n, int h, int c,
                                          int M, int N) {
  using V = decltype(tile(acc, staged, aux, m, n, h, c));
  if constexpr (kChecked && EvaluatesFreely<Tile>::value) {
    const bool inside = m < M && n < N;
    const V v = tile(acc, staged, aux, m, n, h, c, inside);
    return inside ? v : V(0);
  } else if constexpr (kChecked) {
    if (m >= M || n >= N) return V(0);
    if constexpr (PairsColumns<Tile>::value) return tile(acc, staged, aux, m, n, h, c, true, n + 1 < N);
  }
  return tile(acc, staged, aux, m, n, h, c);
}

/// One thread's part of a staged chunk as 32-bit words, in the order
/// write_chunk stores them. Thread t = 32*w + lane owns rows 16w + lane/4
/// (h = 0) and + 8 (h = 1), and in the chunk's 8-column group g the columns
/// 8g + 2*(lane%4) and + 1. 1- and 2-byte elements: word 2g + h holds the
/// pair (packed; 1-byte pairs in the low 16 bits); 4-byte: word 4g + 2h + k
/// holds column 8g + 2*(lane%4) + k.
template <class Cfg>
inline constexpr int kChunkWords = Cfg::kChunkCols / 8 * (Cfg::kOutBytes == 4 ? 4 : 2);

/// Where one thread's access (g, h) of a staged chunk lies (see
/// Cfg::staged_offset), which keeps every access free of bank conflicts:
/// 2-byte elements by an stmatrix/ldmatrix x4 per pair of groups (g even,
/// h unused; matrix i = (h = i%2, g + i/2), 8 rows x 16 bytes; lane 8i+r
/// addresses row r of matrix i); 1-byte pairs by 16-bit accesses (a warp's 8
/// rows sit in 8 different 16-byte units); 4-byte ones by 8-byte accesses.
/// A column-major D's matrices are stored transposed (stmatrix .trans):
/// lane 8i+r addresses the 16 bytes of matrix i's column r in that column's
/// line, and a matrix's 8 lines take 8 different units.
template <class Cfg>
__device__ __forceinline__ u32 chunk_place(u32 slot, int warp, int lane, int g, int h) {
  if constexpr (Cfg::kDColumnMajor) {
    const int mi = lane / 8;
    return slot + Cfg::staged_line_offset(8 * (g + mi / 2) + lane % 8, 2 * (16 * warp + 8 * (mi & 1)));
  } else if constexpr (Cfg::kOutBytes == 2) {
    const int mi = lane / 8;
    return slot + Cfg::staged_offset(16 * warp + lane % 8 + 8 * (mi & 1), 16 * (g + mi / 2));
  } else {
    return slot + Cfg::staged_offset(16 * warp + lane / 4 + 8 * h, (8 * g + 2 * (lane % 4)) * Cfg::kOutBytes);
  }
}

/// A thread's places in a staged chunk relative to the slot (chunk_place at
/// slot 0), computed once per warpgroup tile: one per access that lies more
/// than a constant away from the others. Row h = 1 lies 8 rows below h = 0
/// (the swizzle pattern repeats every 8 rows), and with 1-byte elements an
/// odd group 8 bytes after the even one (same 16-byte unit); 2-byte accesses
/// go by pairs of groups (stmatrix), 4-byte ones by group.
template <class Cfg>
struct ChunkPlaces {
  static constexpr int kGroupsPerPlace = Cfg::kOutBytes == 4 ? 1 : 2;
  static constexpr int kCount = Cfg::kChunkCols / 8 / kGroupsPerPlace;
  u32 at[kCount];

  /// Bytes between the places' columns. The thread's column bytes of place
  /// 0 lie below this, so place i's bytes are place 0's OR i * kStride, and
  /// the swizzle (an XOR of the row's pattern into the same bits) keeps it so.
  /// A column-major D's places lie 16 lines apart (the same swizzle), and
  /// place 0 in the first 16.
  static constexpr u32 kStride = Cfg::kDColumnMajor ? 16 * 128 : 8 * kGroupsPerPlace * Cfg::kOutBytes;

  __device__ __forceinline__ ChunkPlaces(int warp, int lane) {
    at[0] = chunk_place<Cfg>(0u, warp, lane, 0, 0);
#pragma unroll
    for (int i = 0; i < kCount; ++i) {
      if (i > 0) at[i] = at[0] ^ (i * kStride);
      // Pinned here: left to itself, the compiler recomputes them for
      // every chunk, in both the checked and unchecked code.
      asm volatile("" : "+r"(at[i]));
    }
  }

  /// chunk_place(slot, warp, lane, g, h).
  __device__ __forceinline__ u32 operator()(u32 slot, int g, int h) const {
    const int within = Cfg::kOutBytes == 1 ? 8 * (g % 2) : 0;
    const int row = Cfg::kOutBytes == 2 ? 0 : 8 * h * Cfg::kChunkRowBytes;
    return slot + at[g / kGroupsPerPlace] + within + row;
  }
};

/// Stores one thread's words of a chunk at their places (chunk_place).
template <class Cfg>
__device__ __forceinline__ void write_chunk(const u32 (&w)[kChunkWords<Cfg>], u32 slot,
                                            const ChunkPlaces<Cfg>& places) {
  constexpr int kGroups = Cfg::kChunkCols / 8;
  if constexpr (Cfg::kOutBytes == 2) {
#pragma unroll
    for (int g = 0; g < kGroups; g += 2) {
      if constexpr (Cfg::kDColumnMajor)
        stmatrix_x4_trans(places(slot, g, 0), w[2 * g], w[2 * g + 1], w[2 * g + 2], w[2 * g + 3]);
      else
        stmatrix_x4(places(slot, g, 0), w[2 * g], w[2 * g + 1], w[2 * g + 2], w[2 * g + 3]);
    }
  } else {
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const u32 at = places(slot, g, h);
        if constexpr (Cfg::kOutBytes == 1)
          st_shared_b16(at, static_cast<u16>(w[2 * g + h]));
        else
          st_shared_v2_b32(at, w[4 * g + 2 * h], w[4 * g + 2 * h + 1]);
      }
    }
  }
}

/// Loads one thread's words of a chunk from the places write_chunk stores
/// them (ldmatrix x4 is stmatrix x4's inverse).
template <class Cfg>
__device__ __forceinline__ void read_chunk(u32 (&w)[kChunkWords<Cfg>], u32 slot, const ChunkPlaces<Cfg>& places) {
  constexpr int kGroups = Cfg::kChunkCols / 8;
  if constexpr (Cfg::kOutBytes == 2) {
#pragma unroll
    for (int g = 0; g < kGroups; g += 2) {
      if constexpr (Cfg::kDColumnMajor)
        ldmatrix_x4_trans(places(slot, g, 0), w[2 * g], w[2 * g + 1], w[2 * g + 2], w[2 * g + 3]);
      else
        ldmatrix_x4(places(slot, g, 0), w[2 * g], w[2 * g + 1], w[2 * g + 2], w[2 * g + 3]);
    }
  } else {
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const u32 at = places(slot, g, h);
        if constexpr (Cfg::kOutBytes == 1)
          w[2 * g + h] = ld_shared_b16(at);
        else
          ld_shared_v2_b32(at, w[4 * g + 2 * h], w[4 * g + 2 * h + 1]);
      }
    }
  }
}

/// Two results rounded to a 1- or 2-byte T and packed as one word.
template <class T, class V>
__device__ __forceinline__ u32 pack_pair(V lo, V hi) {
  if constexpr (sizeof(T) == 1) return pack2_byte<T>(lo, hi);
  else return pack2<T>(d_value(lo), d_value(hi));
}

/// Writes output chunk `chunk` (warpgroup columns [chunk*kChunkCols, +kChunkCols))
/// into the staging slot at `slot`, from the chunk's accumulators, which the
/// caller has moved to the front of `acc` (register group g of the chunk is
/// acc[4g .. 4g+3]). The whole chunk's values are computed before the first
/// shared store, so the hook's global loads for all of them can be in flight
/// together. With a staged input (kStaged, elements of type S), the slot holds
/// that input's chunk: each thread reads its elements from exactly the places
/// it then writes, and a warp touches only its own 16 rows, so the chunk is
/// overwritten in place without a barrier. With a staged output (kAux,
/// elements of type TF), its words for the chunk go to `aux`.
/// `before_write()` runs between the computation and the shared stores (the
/// caller's wait for the slot to be free).
template <bool kChecked, class Cfg, bool kStaged, class S, bool kAux, class TF, class Tile, class BeforeWrite>
__device__ __forceinline__ void stage_chunk(Tile& tile, typename Cfg::Acc (&acc)[Cfg::kAccRegs], u32 slot,
                                            int chunk, int m_base, int n_base, int M, int N, int warp, int lane,
                                            const ChunkPlaces<Cfg>& places, u32 (&aux)[kChunkWords<Cfg>],
                                            const BeforeWrite& before_write) {
  constexpr int kGroups = Cfg::kChunkCols / 8;  // 8-column register groups per chunk
  constexpr int kWords = kChunkWords<Cfg>;
  const int m0 = m_base + 16 * warp + lane / 4;
  const int n_lane = n_base + 2 * (lane % 4);
  u32 in[kWords] = {};
  if constexpr (kStaged) read_chunk<Cfg>(in, slot, places);
  u32 out[kWords];
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    const int n = n_lane + 8 * (chunk * kGroups + g);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m0 + 8 * h;
      float a0 = 0.f, a1 = 0.f;
      if constexpr (Cfg::kOutBytes == 4) {
        const int w = 4 * g + 2 * h;
        const float s0 = staged_word<kStaged, S>(in[w]), s1 = staged_word<kStaged, S>(in[w + 1]);
        const auto v0 = epi_value<kChecked>(tile, acc[4 * g + 2 * h], s0, a0, m, n, h, 2 * g, M, N);
        const auto v1 = epi_value<kChecked>(tile, acc[4 * g + 2 * h + 1], s1, a1, m, n + 1, h, 2 * g + 1, M, N);
        out[w] = bits32<typename Cfg::TD>(v0);
        out[w + 1] = bits32<typename Cfg::TD>(v1);
        if constexpr (kAux) {
          aux[w] = bits32<TF>(a0);
          aux[w + 1] = bits32<TF>(a1);
        }
      } else {
        const int w = 2 * g + h;
        const float2 s = staged_pair<kStaged, S>(in[w]);
        const auto v0 = epi_value<kChecked>(tile, acc[4 * g + 2 * h], s.x, a0, m, n, h, 2 * g, M, N);
        const auto v1 = epi_value<kChecked>(tile, acc[4 * g + 2 * h + 1], s.y, a1, m, n + 1, h, 2 * g + 1, M, N);
        out[w] = pack_pair<typename Cfg::TD>(v0, v1);
        if constexpr (kAux) aux[w] = pack_pair<TF>(a0, a1);
      }
    }
  }
  if constexpr (kStaged) __syncwarp();  // every lane's reads precede the warp's stores
  before_write();
  write_chunk<Cfg>(out, slot, places);
}

/// Issued by thread 0 of a consumer while its tile's main loop runs: once the
/// previous tile's stores have read the staging slots, TMA-loads the staged
/// input's part of this consumer's tile (kWgRows blocks of 64 rows from
/// m_base, block r into the slots at staging + r * kRowBlockSlotBytes;
/// columns from n_base; batch lc) into them, chunk by chunk, completing
/// `bar`'s phase. Chunks wholly outside the input are skipped (and not counted).
template <class Cfg>
__device__ __forceinline__ void load_staged_input(const CUtensorMap* tma_c, u32 staging, u32 bar,
                                                  const GemmParams& p, int m_base, int n_base, int lc) {
  tma_store_wait_read<0>();
  int chunks = 0;  // per row block inside M
#pragma unroll
  for (int s = 0; s < Cfg::kChunksPerWg; ++s) chunks += n_base + s * Cfg::kChunkCols < p.N ? 1 : 0;
  int blocks = 0;
#pragma unroll
  for (int r = 0; r < Cfg::kWgRows; ++r) blocks += m_base + 64 * r < p.M ? 1 : 0;
  mbar_arrive_expect_tx(bar, static_cast<u32>(blocks * chunks * Cfg::kChunkBytes));
#pragma unroll
  for (int r = 0; r < Cfg::kWgRows; ++r) {
#pragma unroll
    for (int s = 0; s < Cfg::kChunksPerWg; ++s) {
      if (r < blocks && s < chunks) {
        const u32 dst = staging + r * Cfg::kRowBlockSlotBytes + s * Cfg::kChunkBytes;
        const int col = n_base + s * Cfg::kChunkCols, row = m_base + 64 * r;
        if constexpr (Cfg::kDColumnMajor) tma_load_3d(dst, tma_c, bar, row, col, lc);
        else tma_load_3d(dst, tma_c, bar, col, row, lc);
      }
    }
  }
}

/// Stores one consumer warpgroup's 64 x kWgN tile at (m_base, n_base, l)
/// through `tile`, the hook's Tile for it (TileOf<Epi>, built by the caller).
/// `acc` is the (T128,V(kWgN/2)) -> (M64,N kWgN) wgmma accumulator fragment;
/// it is consumed (shifted down one chunk at a time). `staging` holds
/// kEpiSlots chunks of 64 rows x kChunkRowBytes; a chunk is swizzled like the
/// D tensor map (Cfg::staged_offset), which also keeps the staging stores free
/// of bank conflicts. Tiles wholly inside D skip the bounds checks; a kernel
/// whose problems have tiles of one kind only (Cfg::kTileKinds) compiles
/// only that kind's copy. Only
/// thread 0 issues, commits and waits for TMA stores. With a staged input
/// (StagesInput<Epi>), the slots already hold it once phase `staged_parity`
/// of `staged_bar` completes (load_staged_input). With a staged output
/// (StagesOutput<Epi>), its chunks wait in registers until D's stores have
/// read the slots, then take their place and leave through `tma_f`; or,
/// when `aux_ring` is not 0 (the consumer's last tile, kAuxInRing), they go
/// at once to chunk c's place aux_ring + c * Cfg::kStageBytes in the ring
/// and leave with D's.
///
/// The chunks work on the front of `acc`, and the rest moves down after each
/// one: unrolled, that costs nothing; as a loop (LoopsChunks), the user's
/// epilogue is inlined once per chunk rather than once per tile. The tile's
/// whole-output partials end in `totals` (see sm90_totals.cuh).
template <class Cfg, class Epi, class Tile, class Totals>
__device__ __forceinline__ void store_warpgroup_tile(const Epi&, Tile& tile,
                                                     typename Cfg::Acc (&acc)[Cfg::kAccRegs],
                                                     const CUtensorMap* tma_d, const CUtensorMap* tma_f,
                                                     u32 staging, u32 aux_ring, const GemmParams& p, int m_base, int n_base,
                                                     int l, int tid, int barrier_id, u32 staged_bar,
                                                     u32 staged_parity, Totals& totals) {
  constexpr int kChunkRegs = Cfg::kChunkCols / 2;  // accumulators of one chunk per thread
  constexpr bool kStaged = StagesInput<Epi>::value;
  using S = typename StagesInput<Epi>::type;
  constexpr bool kAux = StagesOutput<Epi>::value;
  using TF = typename StagesOutput<Epi>::type;
  constexpr bool kLoop = LoopsChunks<Epi>::value;
  static_assert(!(kStaged || kAux) || Cfg::kEpiRounds == 1,
                "staged inputs and outputs need the whole row block in the slots");
  static_assert(!(kAux && kLoop), "a staged output's chunks wait in registers: unrolled chunks only");
  const int M = p.M, N = p.N;
  // TMA stores write whole 16-byte units: a chunk that straddles a ragged
  // edge of D's contiguous extent (N, or a column-major D's M) is written by
  // the threads instead (see copy_ragged_chunk).
  constexpr bool kInside = (Cfg::kTileKinds & kInsideTiles) != 0, kEdge = (Cfg::kTileKinds & kEdgeTiles) != 0;
  const bool ragged = kEdge && ((Cfg::kDColumnMajor ? M : N) * Cfg::kOutBytes) % 16 != 0;
  const bool inside = !kEdge || (kInside && m_base + 64 <= M && n_base + Cfg::kWgN <= N);
  const int warp = tid / 32, lane = tid % 32;
  const int row0 = m_base + 16 * warp + lane / 4;
  const ChunkPlaces<Cfg> places(warp, lane);
  u32 aux[kAux ? Cfg::kChunksPerWg : 1][kChunkWords<Cfg>];

  constexpr bool kDByThreads = StoresDByThreads<Epi>::value;
  constexpr bool kDInWords = StoresDInWords<Epi>::value;
  // Issues the TMA stores (or the ragged edge's thread stores, or with
  // `by_threads` every chunk's) of chunks first .. first + count - 1 of a
  // tensor mapped by `map`, chunk first + s staged at slot0 + s * stride.
  const auto store_slots = [&](const CUtensorMap* map, void* base, long long ld, long long batch, int first,
                               int count, u32 slot0, u32 stride, bool by_threads) {
#pragma unroll
    for (int s = 0; s < count; ++s) {
      const int col0 = n_base + (first + s) * Cfg::kChunkCols;
      if (col0 >= N || m_base >= M) continue;  // wholly outside D
      const u32 slot = slot0 + s * stride;
      const bool at_ragged_edge = ragged && (Cfg::kDColumnMajor ? m_base + 64 > M : col0 + Cfg::kChunkCols > N);
      if (by_threads || at_ragged_edge) {
        // TMA-stored tensors (the ragged edge) have 16-byte aligned lines.
        copy_ragged_chunk<Cfg>(slot, base, ld, batch, p, m_base, col0, l, tid, by_threads ? kDInWords : true);
      } else if (tid == 0) {
        if constexpr (Cfg::kDColumnMajor) tma_store_3d(map, slot, m_base, col0, l);
        else tma_store_3d(map, slot, col0, m_base, l);
      }
    }
    if (tid == 0) tma_store_commit();
  };

  // Bulk-store groups a row block commits: one per round of D's chunks, and
  // the staged output's. A row block's slots were last read by the stores of
  // the consumer's row block kWgRows blocks back: the groups of the blocks in
  // between (this tile's earlier ones) may still be reading their own slots.
  constexpr int kGroupsPerRowBlock = Cfg::kEpiRounds + (kAux ? 1 : 0);
  constexpr int kOtherBlocksGroups = (Cfg::kWgRows - 1) * kGroupsPerRowBlock;
  const auto chunk_step = [&](int chunk) {
    const int slot = chunk % Cfg::kEpiSlots;
    // The staged input has landed (its load waited for earlier stores).
    if constexpr (kStaged)
      if (chunk == 0) mbar_wait(staged_bar, staged_parity);
    // Else a round's slots are free once the stores that last used them have
    // read them: waited for after its first chunk is computed, before that
    // chunk's shared stores, so the computation overlaps the stores' reads.
    const auto before_write = [&] {
      if constexpr (!kStaged) {
        if (slot == 0) {
          if (tid == 0) {
            if (chunk == 0) tma_store_wait_read<kOtherBlocksGroups>();
            else tma_store_wait_read<0>();
          }
          named_barrier_sync(barrier_id, 128);
        }
      }
    };
    const u32 slot_addr = staging + slot * Cfg::kChunkBytes;
    u32(&chunk_aux)[kChunkWords<Cfg>] = aux[kAux ? chunk : 0];
    // Once for both paths (the compiler would compute the hook's bases in each);
    // the kernel has begun a tile's only chunk already (kBeginsChunkEarly).
    if constexpr (!kBeginsChunkEarly<Cfg>) tile.begin_chunk(n_base + chunk * Cfg::kChunkCols + 2 * (lane % 4), row0);
    if (inside) {
      if constexpr (kInside)
        stage_chunk<false, Cfg, kStaged, S, kAux, TF>(tile, acc, slot_addr, chunk, m_base, n_base, M, N, warp, lane,
                                                      places, chunk_aux, before_write);
    } else if constexpr (kEdge) {
      stage_chunk<true, Cfg, kStaged, S, kAux, TF>(tile, acc, slot_addr, chunk, m_base, n_base, M, N, warp, lane,
                                                   places, chunk_aux, before_write);
    }
    tile.end_chunk(n_base + chunk * Cfg::kChunkCols, row0, M, N, lane);
    if constexpr (kAux)
      if (aux_ring != 0) write_chunk<Cfg>(chunk_aux, aux_ring + chunk * Cfg::kStageBytes, places);

    if (slot == Cfg::kEpiSlots - 1) {
      // Make the generic-proxy writes visible to the TMA engine, then issue
      // this round's chunks.
      fence_proxy_async_smem();
      named_barrier_sync(barrier_id, 128);
      store_slots(tma_d, p.d, p.ldd, p.d_batch, chunk + 1 - Cfg::kEpiSlots, Cfg::kEpiSlots,
                  staging, Cfg::kChunkBytes, kDByThreads);
    }
  };
  // The next chunk's accumulators to the front.
  const auto shift_down = [&] {
#pragma unroll
    for (int i = 0; i + kChunkRegs < Cfg::kAccRegs; ++i) acc[i] = acc[i + kChunkRegs];
  };
  if constexpr (kLoop) {
    // Leaves before the last chunk's moves (an `if` around them became
    // selects, executed all the same).
#pragma unroll 1
    for (int chunk = 0;; ++chunk) {
      chunk_step(chunk);
      if (chunk + 1 == Cfg::kChunksPerWg) break;
      shift_down();
    }
  } else {
#pragma unroll
    for (int chunk = 0; chunk < Cfg::kChunksPerWg; ++chunk) {
      chunk_step(chunk);
      shift_down();
    }
  }
  if constexpr (kAux) {
    if (aux_ring != 0) {
      // Staged in the ring with D's chunks, and made visible with them.
      store_slots(tma_f, p.f, p.ldf, p.f_batch, 0, Cfg::kChunksPerWg, aux_ring, Cfg::kStageBytes, false);
    } else {
      // D's stores have read the slots: the staged output takes them.
      if (tid == 0) tma_store_wait_read<0>();
      named_barrier_sync(barrier_id, 128);
#pragma unroll
      for (int chunk = 0; chunk < Cfg::kChunksPerWg; ++chunk)
        write_chunk<Cfg>(aux[chunk], staging + chunk * Cfg::kChunkBytes, places);
      fence_proxy_async_smem();
      named_barrier_sync(barrier_id, 128);
      store_slots(tma_f, p.f, p.ldf, p.f_batch, 0, Cfg::kChunksPerWg, staging, Cfg::kChunkBytes, false);
    }
  }
  tile.end_tile(row0, M, lane);
  totals.add(tile);
  // The threads' reads of a ragged (or thread-stored) chunk finish before
  // thread 0 lets the next tile's staged input overwrite the slots.
  if (kStaged && (ragged || kDByThreads)) named_barrier_sync(barrier_id, 128);
}

}  // namespace epigemm::sm90
