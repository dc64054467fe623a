// The width of the sm90 epilogue's staged output chunks: plain integer code
// that the kernel's GemmConfig and the host's Sm90TileConfig both compute
// it with, so the staging layout and the host's shared-memory budget agree.
#pragma once

#include "host_device.cuh"

namespace epigemm::sm90 {

/// Output columns per staging chunk for a D of `out_bytes` per element on a
/// warpgroup tile `wg_n` columns wide: 128 bytes of D, or the whole
/// warpgroup tile when it is narrower (32 columns of a 16-bit D and 64 of an
/// fp8 D: 64 bytes; 32 columns of an fp8 D: 32 bytes), as a power of two,
/// halved until it divides the warpgroup tile (192 columns of an fp8 D:
/// chunks of 64; 96 and 160 columns: chunks of 32).
EPG_HOST_DEVICE constexpr int staged_chunk_cols(int out_bytes, int wg_n) {
  const int widest = 128 / out_bytes < wg_n ? 128 / out_bytes : wg_n;
  int cols = 1;
  while (2 * cols <= widest) cols *= 2;
  while (wg_n % cols != 0) cols /= 2;
  return cols;
}

}  // namespace epigemm::sm90
