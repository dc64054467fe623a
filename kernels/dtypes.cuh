// Typed loads and stores for every epigemm dtype, converting to and from the
// compute type exactly as src/ir/convert.cpp does on the host: f16/bf16 round
// to nearest even, fp8 round to nearest even and saturate to the largest
// finite value, integers round to nearest even and saturate with NaN -> 0.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "epilogue_params.cuh"

// ---- special values ------------------------------------------------------
template <class T> __device__ __forceinline__ T epg_infinity();
template <> __device__ __forceinline__ float epg_infinity<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double epg_infinity<double>() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
template <class T> __device__ __forceinline__ T epg_nan();
template <> __device__ __forceinline__ float epg_nan<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ __forceinline__ double epg_nan<double>() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

// ---- storage types ---------------------------------------------------------
template <int DT> struct EpgStorage;
template <> struct EpgStorage<kEpgF32> { using type = float; };
template <> struct EpgStorage<kEpgTf32> { using type = float; };
template <> struct EpgStorage<kEpgF16> { using type = __half; };
template <> struct EpgStorage<kEpgBf16> { using type = __nv_bfloat16; };
template <> struct EpgStorage<kEpgE4m3> { using type = __nv_fp8_storage_t; };
template <> struct EpgStorage<kEpgE5m2> { using type = __nv_fp8_storage_t; };
template <> struct EpgStorage<kEpgI8> { using type = signed char; };
template <> struct EpgStorage<kEpgU8> { using type = unsigned char; };
template <> struct EpgStorage<kEpgI32> { using type = int; };
template <> struct EpgStorage<kEpgF64> { using type = double; };

// ---- rounding helpers ------------------------------------------------------
// tf32: keep 10 mantissa bits, nearest with ties away from zero.
__device__ __forceinline__ float epg_round_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned int bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
#else
  if (!isfinite(x)) return x;
  unsigned int bits = __float_as_uint(x);
  bits = (bits + 0x1000u) & 0xffffe000u;
  return __uint_as_float(bits);
#endif
}

// Nearest even integer saturated to [lo, hi]; NaN gives 0.
__device__ __forceinline__ int epg_to_int_sat(float x, float lo, float hi) {
  if (x != x) return 0;
  x = rintf(x);
  if (x <= lo) return static_cast<int>(lo);
  if (x >= hi) return hi >= 2147483647.0f ? 2147483647 : static_cast<int>(hi);
  return static_cast<int>(x);
}
__device__ __forceinline__ int epg_to_int_sat(double x, double lo, double hi) {
  if (x != x) return 0;
  x = rint(x);
  if (x <= lo) return static_cast<int>(lo);
  if (x >= hi) return static_cast<int>(hi);
  return static_cast<int>(x);
}

__device__ __forceinline__ float epg_fp8_to_float(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t kind) {
  const __half_raw raw = __nv_cvt_fp8_to_halfraw(bits, kind);
  return __half2float(__half(raw));
}

// ---- encode: compute value -> storage (rounding once) ----------------------
template <int DT> __device__ __forceinline__ typename EpgStorage<DT>::type epg_encode(float x) {
  if constexpr (DT == kEpgF32) return x;
  else if constexpr (DT == kEpgTf32) return epg_round_tf32(x);
  else if constexpr (DT == kEpgF16) return __float2half_rn(x);
  else if constexpr (DT == kEpgBf16) return __float2bfloat16_rn(x);
  else if constexpr (DT == kEpgE4m3) return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
  else if constexpr (DT == kEpgE5m2) return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
  else if constexpr (DT == kEpgI8) return static_cast<signed char>(epg_to_int_sat(x, -128.0f, 127.0f));
  else if constexpr (DT == kEpgU8) return static_cast<unsigned char>(epg_to_int_sat(x, 0.0f, 255.0f));
  else if constexpr (DT == kEpgI32) return epg_to_int_sat(x, -2147483648.0f, 2147483648.0f);
  else return static_cast<double>(x);
}
template <int DT> __device__ __forceinline__ typename EpgStorage<DT>::type epg_encode(double x) {
  if constexpr (DT == kEpgF32) return __double2float_rn(x);
  else if constexpr (DT == kEpgTf32) return epg_round_tf32(__double2float_rn(x));
  else if constexpr (DT == kEpgF16) return __double2half(x);
  else if constexpr (DT == kEpgBf16) return __double2bfloat16(x);
  else if constexpr (DT == kEpgE4m3) return __nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
  else if constexpr (DT == kEpgE5m2) return __nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
  else if constexpr (DT == kEpgI8) return static_cast<signed char>(epg_to_int_sat(x, -128.0, 127.0));
  else if constexpr (DT == kEpgU8) return static_cast<unsigned char>(epg_to_int_sat(x, 0.0, 255.0));
  else if constexpr (DT == kEpgI32) return epg_to_int_sat(x, -2147483648.0, 2147483647.0);
  else return x;
}
// Integer accumulators convert through double, which holds them exactly.
template <int DT> __device__ __forceinline__ typename EpgStorage<DT>::type epg_encode(int x) {
  if constexpr (DT == kEpgI32) return x;
  else return epg_encode<DT>(static_cast<double>(x));
}
// f16 accumulators widen exactly to float first.
template <int DT> __device__ __forceinline__ typename EpgStorage<DT>::type epg_encode(__half x) {
  if constexpr (DT == kEpgF16) return x;
  else return epg_encode<DT>(__half2float(x));
}

// ---- decode: storage -> compute type ---------------------------------------
template <int DT, class T> __device__ __forceinline__ T epg_decode(typename EpgStorage<DT>::type v) {
  if constexpr (DT == kEpgF32 || DT == kEpgTf32) return static_cast<T>(v);
  else if constexpr (DT == kEpgF16) return static_cast<T>(__half2float(v));
  else if constexpr (DT == kEpgBf16) return static_cast<T>(__bfloat162float(v));
  else if constexpr (DT == kEpgE4m3) return static_cast<T>(epg_fp8_to_float(v, __NV_E4M3));
  else if constexpr (DT == kEpgE5m2) return static_cast<T>(epg_fp8_to_float(v, __NV_E5M2));
  else if constexpr (DT == kEpgI8 || DT == kEpgU8) return static_cast<T>(static_cast<int>(v));
  else if constexpr (DT == kEpgI32) {
    if constexpr (sizeof(T) == 4) return __int2float_rn(v);
    else return static_cast<T>(v);
  } else {
    if constexpr (sizeof(T) == 4) return __double2float_rn(v);
    else return static_cast<T>(v);
  }
}

// ---- memory access ---------------------------------------------------------
// Element `offset` (in elements) of a DT array, as a T.
template <int DT, class T> __device__ __forceinline__ T epg_load(const void* base, long long offset) {
  using S = typename EpgStorage<DT>::type;
  return epg_decode<DT, T>(static_cast<const S*>(base)[offset]);
}
// Stores `value` (float, double, int or __half) rounded to DT.
template <int DT, class V> __device__ __forceinline__ void epg_store(void* base, long long offset, V value) {
  using S = typename EpgStorage<DT>::type;
  static_cast<S*>(base)[offset] = epg_encode<DT>(value);
}

// `x` rounded to DT and back (the casts to_f16, to_i8, ...).
template <int DT, class T> __device__ __forceinline__ T epg_round_to(T x) {
  return epg_decode<DT, T>(epg_encode<DT>(x));
}

// An accumulator value (float, double, int or __half) in the compute type T.
template <class T> __device__ __forceinline__ T epg_from_acc(float acc) { return static_cast<T>(acc); }
template <class T> __device__ __forceinline__ T epg_from_acc(double acc) {
  if constexpr (sizeof(T) == 4) return __double2float_rn(acc);
  else return static_cast<T>(acc);
}
template <class T> __device__ __forceinline__ T epg_from_acc(int acc) {
  if constexpr (sizeof(T) == 4) return __int2float_rn(acc);
  else return static_cast<T>(acc);
}
template <class T> __device__ __forceinline__ T epg_from_acc(__half acc) {
  return static_cast<T>(__half2float(acc));
}
