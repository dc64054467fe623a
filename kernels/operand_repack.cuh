// Copies GEMM operands that TMA cannot read as they lie (rows not 16 bytes
// apart, a misaligned base or batch stride, no unit stride, or an MN-major
// operand the tensor cores cannot transpose) into a workspace whose rows are
// 128-byte aligned, before the GEMM reads them. One launch serves A and B:
// each takes its own range of blocks. Element (l, o, i) of an operand's
// destination (i its contiguous axis) is element
// src + l*src_batch + o*src_outer + i*src_inner of its source. Each
// destination row is written whole: zeros past `inner`, up to its pitch.
#pragma once

/// One operand to repack (strides and extents in elements).
struct EpgRepackOperand {
  const void* src;
  void* dst;
  long long batches, outer, inner;
  long long src_batch, src_outer, src_inner;
  long long dst_pitch, dst_batch;  ///< multiples of 16 bytes
  int through_tiles;               ///< 1: src_inner != 1, read through shared-memory tiles
  int blocks;                      ///< the grid's blocks for this operand (0: none)
  int row_lanes;                   ///< rows: threads per row (a power of two up to kEpgRepackThreads)
};

/// The kernel's argument: A's work, then B's.
struct EpgRepackArgs {
  EpgRepackOperand op[2];
};

constexpr int kEpgRepackThreads = 256;
constexpr int kEpgRepackTile = 64;  ///< elements per side of a shared-memory tile

template <int kBytes> struct EpgRepackWord;
template <> struct EpgRepackWord<1> { using type = unsigned char; };
template <> struct EpgRepackWord<2> { using type = unsigned short; };
template <> struct EpgRepackWord<4> { using type = unsigned int; };

/// The 16 bytes at `s` of a row that ends at `end` (zeros past it), read as
/// one or two aligned 16-byte loads where both lie inside [begin, end),
/// else byte by byte (the ends of a row).
__device__ __forceinline__ uint4 epg_repack_load16(const char* s, const char* begin, const char* end) {
  const unsigned shift = static_cast<unsigned>(reinterpret_cast<unsigned long long>(s) & 15);
  const char* base = s - shift;
  if (base >= begin && base + (shift != 0 ? 32 : 16) <= end) {
    const uint4 lo = __ldg(reinterpret_cast<const uint4*>(base));
    if (shift == 0) return lo;
    const uint4 hi = __ldg(reinterpret_cast<const uint4*>(base + 16));
    const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const unsigned q = shift >> 2, r = (shift & 3) * 8;
    unsigned word[5];
#pragma unroll
    for (int k = 0; k < 5; ++k) word[k] = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
    return make_uint4(__funnelshift_r(word[0], word[1], r), __funnelshift_r(word[1], word[2], r),
                      __funnelshift_r(word[2], word[3], r), __funnelshift_r(word[3], word[4], r));
  }
  union {
    uint4 vector;
    unsigned char bytes[16];
  } out;
#pragma unroll
  for (int k = 0; k < 16; ++k) out.bytes[k] = s + k < end ? static_cast<unsigned char>(s[k]) : 0;
  return out.vector;
}

/// Sources with a unit inner stride: row_lanes threads per row, each
/// writing 16-byte pieces of the destination row from the aligned 16-byte
/// pieces of the source row around them, so a warp reads and writes
/// contiguous bytes.
template <int kBytes>
__device__ void epg_repack_rows(const EpgRepackOperand& op, unsigned block) {
  const int rows_per_block = kEpgRepackThreads / op.row_lanes;
  const int lane = threadIdx.x % op.row_lanes;
  const long long rows = op.batches * op.outer, row_bytes = op.inner * kBytes, pitch_bytes = op.dst_pitch * kBytes;
  for (long long row = static_cast<long long>(block) * rows_per_block + threadIdx.x / op.row_lanes; row < rows;
       row += static_cast<long long>(op.blocks) * rows_per_block) {
    const long long o = row % op.outer, l = row / op.outer;
    const char* src = static_cast<const char*>(op.src) + (l * op.src_batch + o * op.src_outer) * kBytes;
    char* dst = static_cast<char*>(op.dst) + (l * op.dst_batch + o * op.dst_pitch) * kBytes;
    for (long long byte = 16LL * lane; byte < pitch_bytes; byte += 16LL * op.row_lanes) {
      *reinterpret_cast<uint4*>(dst + byte) = epg_repack_load16(src + byte, src, src + row_bytes);
    }
  }
}

/// Other sources (an MN-major operand made K-major, or no unit stride):
/// 64x64-element tiles read along the source's outer axis when that one has
/// unit stride, else along the inner axis, and written along the inner axis.
template <int kBytes>
__device__ void epg_repack_tiles(const EpgRepackOperand& op, unsigned block) {
  using T = typename EpgRepackWord<kBytes>::type;
  constexpr int kTile = kEpgRepackTile;
  __shared__ T tile[kTile][kTile + 1];
  // Along the inner axis the tiles cover the destination's whole pitch.
  const long long tiles_i = (op.dst_pitch + kTile - 1) / kTile, tiles_o = (op.outer + kTile - 1) / kTile;
  const long long total = op.batches * tiles_o * tiles_i;
  const bool read_along_outer = op.src_outer == 1;
  for (long long t = block; t < total; t += op.blocks) {
    const long long i0 = t % tiles_i * kTile, o0 = t / tiles_i % tiles_o * kTile, l = t / (tiles_i * tiles_o);
    const T* src = static_cast<const T*>(op.src) + l * op.src_batch;
    for (int e = threadIdx.x; e < kTile * kTile; e += kEpgRepackThreads) {
      const int fast = e % kTile, slow = e / kTile;
      const int o = read_along_outer ? fast : slow, i = read_along_outer ? slow : fast;
      if (o0 + o < op.outer && i0 + i < op.inner) tile[o][i] = src[(o0 + o) * op.src_outer + (i0 + i) * op.src_inner];
    }
    __syncthreads();
    T* dst = static_cast<T*>(op.dst) + l * op.dst_batch;
    // Whole rows of the tile, up to the pitch (zeros past `inner`).
    for (int e = threadIdx.x; e < kTile * kTile; e += kEpgRepackThreads) {
      const int i = e % kTile, o = e / kTile;
      if (o0 + o < op.outer && i0 + i < op.dst_pitch) {
        dst[(o0 + o) * op.dst_pitch + i0 + i] = i0 + i < op.inner ? tile[o][i] : T(0);
      }
    }
    __syncthreads();
  }
}

template <int kBytes>
__device__ void epg_repack_operands(const EpgRepackArgs& args) {
  const bool first = blockIdx.x < static_cast<unsigned>(args.op[0].blocks);
  const EpgRepackOperand& op = first ? args.op[0] : args.op[1];
  const unsigned block = first ? blockIdx.x : blockIdx.x - args.op[0].blocks;
  if (op.through_tiles) {
    epg_repack_tiles<kBytes>(op, block);
  } else {
    epg_repack_rows<kBytes>(op, block);
  }
}
