// Copies GEMM operands that TMA cannot read as they lie (rows not 16 bytes
// apart, a misaligned base or batch stride, no unit stride, or an MN-major
// operand the tensor cores cannot transpose) into a workspace whose rows are
// 128-byte aligned, before the GEMM reads them. One launch serves A and B:
// each takes its own range of blocks. Element (l, o, i) of an operand's
// destination (i its contiguous axis) is element
// src + l*src_batch + o*src_outer + i*src_inner of its source. Bytes past
// `inner` in each destination row are written as zeros.
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

/// Sources with a unit inner stride: each thread writes 16-byte pieces of
/// destination rows, reading their elements one by one (the source rows may
/// start at any element), so a warp reads and writes 512 contiguous bytes.
template <int kBytes>
__device__ void epg_repack_rows(const EpgRepackOperand& op, unsigned block) {
  using T = typename EpgRepackWord<kBytes>::type;
  constexpr int kPer = 16 / kBytes;
  const long long pieces = (op.inner + kPer - 1) / kPer;
  const long long total = op.batches * op.outer * pieces;
  const long long step = static_cast<long long>(op.blocks) * kEpgRepackThreads;
  for (long long w = static_cast<long long>(block) * kEpgRepackThreads + threadIdx.x; w < total; w += step) {
    const long long piece = w % pieces, row = w / pieces;
    const long long o = row % op.outer, l = row / op.outer;
    const long long i0 = piece * kPer;
    const T* src = static_cast<const T*>(op.src) + l * op.src_batch + o * op.src_outer + i0;
    union {
      uint4 vector;
      T elements[kPer];
    } out;
#pragma unroll
    for (int e = 0; e < kPer; ++e) out.elements[e] = i0 + e < op.inner ? src[e] : T(0);
    *reinterpret_cast<uint4*>(static_cast<T*>(op.dst) + l * op.dst_batch + o * op.dst_pitch + i0) = out.vector;
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
  const long long tiles_i = (op.inner + kTile - 1) / kTile, tiles_o = (op.outer + kTile - 1) / kTile;
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
    // Whole rows of the tile, padding included (the destination rows are
    // whole 16-byte pieces; elements past `inner` are written as zeros).
    const long long row_end = (op.inner * kBytes + 15) / 16 * 16 / kBytes;
    for (int e = threadIdx.x; e < kTile * kTile; e += kEpgRepackThreads) {
      const int i = e % kTile, o = e / kTile;
      if (o0 + o < op.outer && i0 + i < row_end) {
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
