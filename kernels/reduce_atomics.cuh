// Atomic combine of one partial reduction into an f32 output element, shared
// by every kernel's epilogue: sum through atomicAdd, max/min/amax through
// integer atomics on the float's bit pattern. NaN always wins, as in the CPU
// reference (max/min propagate NaN).
#pragma once

#include "epilogue_ops.cuh"
#include "epilogue_params.cuh"

// NOTE: for floats of the same sign, the order of their bit patterns read as
// integers follows their values: as signed ints for non-negative floats,
// reversed as unsigned ints for negative ones. max therefore takes atomicMax
// (int) for x >= 0 and atomicMin (unsigned) for x < 0; min the mirror image.
// A NaN is first made 0x7fffffff for max (the largest positive int, so it
// stays) and 0xffffffff for min (the largest unsigned, so it stays).

__device__ __forceinline__ void epg_atomic_max_f32(float* address, float x) {
  if (x != x) {
    atomicMax(reinterpret_cast<int*>(address), 0x7fffffff);
  } else if (__float_as_int(x) >= 0) {
    atomicMax(reinterpret_cast<int*>(address), __float_as_int(x));
  } else {
    atomicMin(reinterpret_cast<unsigned int*>(address), __float_as_uint(x));
  }
}

__device__ __forceinline__ void epg_atomic_min_f32(float* address, float x) {
  if (x != x) {
    atomicMax(reinterpret_cast<unsigned int*>(address), 0xffffffffu);
  } else if (__float_as_int(x) >= 0) {
    atomicMin(reinterpret_cast<int*>(address), __float_as_int(x));
  } else {
    atomicMax(reinterpret_cast<unsigned int*>(address), __float_as_uint(x));
  }
}

// Combines `value` into the f32 element at base[offset] with reduce op Op.
template <int Op, class T>
__device__ __forceinline__ void epg_atomic_reduce_f32(void* base, long long offset, T value) {
  float* address = static_cast<float*>(base) + offset;
  const float x = epg_encode<kEpgF32>(value);
  if constexpr (Op == kEpgReduceSum) {
    atomicAdd(address, x);
  } else if constexpr (Op == kEpgReduceMax) {
    epg_atomic_max_f32(address, x);
  } else if constexpr (Op == kEpgReduceMin) {
    epg_atomic_min_f32(address, x);
  } else {
    // amax: the value is already |x| (combined with epg_amax from 0), so
    // only non-negative numbers and NaN reach here.
    epg_atomic_max_f32(address, epg_m_abs(x));
  }
}

// A reduce output of store kind Kind: its elements per batch (M for a row
// reduction, N for a column one, 1 for a whole one), and the offset of
// element x of batch l in `o`.
template <int Kind>
__device__ __forceinline__ long long epg_reduce_extent(long long M, long long N) {
  return Kind == kEpgStoreRowReduce ? M : (Kind == kEpgStoreColumnReduce ? N : 1);
}
template <int Kind>
__device__ __forceinline__ long long epg_reduce_offset(const EpgOperand& o, long long l, long long x) {
  const long long stride = Kind == kEpgStoreRowReduce ? o.stride_m : o.stride_n;
  return l * o.stride_l + (Kind == kEpgStoreScalarReduce ? 0 : x * stride);
}

// Writes the neutral start value of reduce op Op at base[offset] (f32).
template <int Op>
__device__ __forceinline__ void epg_store_reduce_identity_f32(void* base, long long offset) {
  static_cast<float*>(base)[offset] = epg_reduce_identity<Op, float>();
}

// Combines `value` across the lanes of a warp whose lane index differs only
// in the bits of `lane_mask` (butterfly over those bits). Every lane of the
// warp must call it.
template <int Op, class T>
__device__ __forceinline__ T epg_warp_combine(T value, int lane_mask) {
#pragma unroll
  for (int bit = 16; bit >= 1; bit >>= 1) {
    if (lane_mask & bit) {
      const T other = __shfl_xor_sync(0xffffffffu, value, bit);
      value = epg_reduce_combine<Op>(value, other);
    }
  }
  return value;
}
