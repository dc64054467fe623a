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

// Writes the neutral start value of reduce op Op at base[offset] (f32).
template <int Op>
__device__ __forceinline__ void epg_store_reduce_identity_f32(void* base, long long offset) {
  static_cast<float*>(base)[offset] = epg_reduce_identity<Op, float>();
}

// Writes each reduce output's identity at flat position `index` of its
// (L, M), (L, N) or (L) positions.
template <class Epi>
struct EpgFillIdentity {
  const typename Epi::Params& p;
  long long index, L, M, N;
  template <int J>
  __device__ __forceinline__ void visit() {
    constexpr int kKind = Epi::kOutStoreKind[J];
    const EpgOperand& o = p.out[J];
    const long long extent = kKind == kEpgStoreRowReduce ? M : (kKind == kEpgStoreColumnReduce ? N : 1);
    if (index >= L * extent) return;
    const long long l = index / extent, x = index % extent;
    const long long stride = kKind == kEpgStoreRowReduce ? o.stride_m : o.stride_n;
    const long long offset = l * o.stride_l + (kKind == kEpgStoreScalarReduce ? 0 : x * stride);
    epg_store_reduce_identity_f32<Epi::kOutReduceOp[J]>(o.ptr, offset);
  }
};

// Every reduce output's identity at flat position `index` (a grid-stride
// loop over L * max(M, N) positions covers them all).
template <class Epi>
__device__ __forceinline__ void epg_fill_reduce_identity(const typename Epi::Params& p, long long index, long long L,
                                                         long long M, long long N) {
  EpgFillIdentity<Epi> fill{p, index, L, M, N};
  Epi::for_each_reduce(fill);
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
