// Unsigned division by a divisor fixed for a whole launch: the host computes a
// magic number and a shift once, the kernel divides with a multiply-high, an
// add and a shift instead of the I2F / MUFU.RCP / F2I / correction sequence a
// run-time division compiles to. Host and device (the host computes the magic
// numbers with the same code the tests check).
#pragma once

#include "host_device.cuh"

namespace epigemm::sm90 {

/// n / d == (umulhi(n, magic) + n) >> shift for every n < 2^31, where
/// shift = ceil(log2 d) and magic = floor(2^32 (2^shift - d) / d) + 1
/// (magic is the low 32 bits of the 33-bit multiplier floor(2^(32 + shift) / d) + 1,
/// whose top bit the "+ n" adds back; below 2^31 that sum cannot overflow).
struct FastDivisor {
  unsigned magic = 1;
  unsigned shift = 0;
};

/// The FastDivisor of d, for 1 <= d <= 2^31.
EPG_HOST_DEVICE FastDivisor make_fast_divisor(unsigned d) {
  FastDivisor f;
  while ((1ull << f.shift) < d) ++f.shift;
  f.magic = static_cast<unsigned>((((1ull << f.shift) - d) << 32) / d + 1);
  return f;
}

/// n / d for n < 2^31, given d's magic number and shift.
EPG_HOST_DEVICE unsigned fast_divide(unsigned n, unsigned magic, unsigned shift) {
#if defined(__CUDA_ARCH__)
  const unsigned high = __umulhi(n, magic);
#else
  const unsigned high = static_cast<unsigned>((static_cast<unsigned long long>(n) * magic) >> 32);
#endif
  return (high + n) >> shift;
}

}  // namespace epigemm::sm90
