// Device implementations of every operation of the op table (src/ir/op_table.cpp),
// one function per op named "epg_" + op name, for float and double compute
// types. The math follows the CPU reference: NaN propagates through
// maximum/minimum/relu/clamp, gelu is the erf form, softplus is PyTorch's.
#pragma once

#include "dtypes.cuh"

// ---- float/double overloads of the libm functions the ops need ----------
__device__ __forceinline__ float epg_m_exp(float x) { return expf(x); }
__device__ __forceinline__ double epg_m_exp(double x) { return exp(x); }
__device__ __forceinline__ float epg_m_expm1(float x) { return expm1f(x); }
__device__ __forceinline__ double epg_m_expm1(double x) { return expm1(x); }
__device__ __forceinline__ float epg_m_log(float x) { return logf(x); }
__device__ __forceinline__ double epg_m_log(double x) { return log(x); }
__device__ __forceinline__ float epg_m_log1p(float x) { return log1pf(x); }
__device__ __forceinline__ double epg_m_log1p(double x) { return log1p(x); }
__device__ __forceinline__ float epg_m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double epg_m_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float epg_m_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double epg_m_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float epg_m_erf(float x) { return erff(x); }
__device__ __forceinline__ double epg_m_erf(double x) { return erf(x); }
__device__ __forceinline__ float epg_m_sin(float x) { return sinf(x); }
__device__ __forceinline__ double epg_m_sin(double x) { return sin(x); }
__device__ __forceinline__ float epg_m_cos(float x) { return cosf(x); }
__device__ __forceinline__ double epg_m_cos(double x) { return cos(x); }
__device__ __forceinline__ float epg_m_tan(float x) { return tanf(x); }
__device__ __forceinline__ double epg_m_tan(double x) { return tan(x); }
__device__ __forceinline__ float epg_m_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double epg_m_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float epg_m_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double epg_m_abs(double x) { return fabs(x); }

template <class T>
__device__ __forceinline__ bool epg_isnan(T x) {
  return x != x;
}

// ---- arithmetic ---------------------------------------------------------
template <class T> __device__ __forceinline__ T epg_add(T a, T b) { return a + b; }
template <class T> __device__ __forceinline__ T epg_sub(T a, T b) { return a - b; }
template <class T> __device__ __forceinline__ T epg_mul(T a, T b) { return a * b; }
template <class T> __device__ __forceinline__ T epg_div(T a, T b) { return a / b; }
// f32: div.full (at most 2 ulp from the IEEE quotient over the whole range,
// as the ML compilers' default division): about 9 instructions per element
// (operand scaling and one reciprocal) where div.rn costs about 16 and a
// call for operands out of its fast range.
template <>
__device__ __forceinline__ float epg_div<float>(float a, float b) {
  float q;
  asm("div.full.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
  return q;
}
template <class T> __device__ __forceinline__ T epg_neg(T a) { return -a; }
template <class T> __device__ __forceinline__ T epg_pow(T a, T b) { return epg_m_pow(a, b); }

// ---- comparisons: 1 when true, else 0 (false when either side is NaN,
// except != which is true) ------------------------------------------------
template <class T> __device__ __forceinline__ T epg_lt(T a, T b) { return a < b ? T(1) : T(0); }
template <class T> __device__ __forceinline__ T epg_le(T a, T b) { return a <= b ? T(1) : T(0); }
template <class T> __device__ __forceinline__ T epg_gt(T a, T b) { return a > b ? T(1) : T(0); }
template <class T> __device__ __forceinline__ T epg_ge(T a, T b) { return a >= b ? T(1) : T(0); }
template <class T> __device__ __forceinline__ T epg_eq(T a, T b) { return a == b ? T(1) : T(0); }
template <class T> __device__ __forceinline__ T epg_ne(T a, T b) { return a != b ? T(1) : T(0); }

// ---- NaN-propagating selection -------------------------------------------
template <class T>
__device__ __forceinline__ T epg_maximum(T a, T b) {
  if (epg_isnan(a)) return a;
  if (epg_isnan(b)) return b;
  return a < b ? b : a;
}
template <class T>
__device__ __forceinline__ T epg_minimum(T a, T b) {
  if (epg_isnan(a)) return a;
  if (epg_isnan(b)) return b;
  return b < a ? b : a;
}
// f32: one NaN-propagating min/max instruction (sm_80+) instead of two NaN
// tests and a compare with branches.
template <>
__device__ __forceinline__ float epg_maximum<float>(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
template <>
__device__ __forceinline__ float epg_minimum<float>(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
template <class T>
__device__ __forceinline__ T epg_clamp(T x, T lo, T hi) {
  return epg_minimum(epg_maximum(x, lo), hi);
}
template <class T>
__device__ __forceinline__ T epg_where(T cond, T a, T b) {
  return cond != T(0) ? a : b;
}
template <class T>
__device__ __forceinline__ T epg_abs(T x) {
  return epg_m_abs(x);
}

// ---- activations ---------------------------------------------------------
template <class T>
__device__ __forceinline__ T epg_relu(T x) {
  if (epg_isnan(x)) return x;
  return x > T(0) ? x : T(0);
}
template <class T>
__device__ __forceinline__ T epg_leaky_relu(T x, T slope) {
  return x > T(0) ? x : x * slope;
}
template <class T>
__device__ __forceinline__ T epg_sigmoid(T x) {
  return T(1) / (T(1) + epg_m_exp(-x));
}
// f32: 1 / (1 + 2^v) by one ex2 and one reciprocal (both approximate, 2 ulp):
// sigmoid, silu and gelu_tanh take 4, 5 and 7 instructions per element where
// expf (or tanhf) and an IEEE division took about 20 and a call.
// The logistic forms below (sigmoid, silu, gelu_tanh) pass v = -x log2 e or
// gelu_tanh's -2 u log2 e. Relative error under 4e-6 (sigmoid, silu) and
// 8e-6 (gelu_tanh) wherever the result is a normal float; 2^v overflowing
// gives 0 (the result is then below 1e-38); NaN stays NaN.
__device__ __forceinline__ float epg_logistic_exp2(float v) {
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(v));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return r;
}
template <>
__device__ __forceinline__ float epg_sigmoid<float>(float x) {
  return epg_logistic_exp2(x * -1.44269504088896341f);
}
template <class T>
__device__ __forceinline__ T epg_tanh(T x) {
  return epg_m_tanh(x);
}
template <class T>
__device__ __forceinline__ T epg_silu(T x) {
  return x / (T(1) + epg_m_exp(-x));
}
template <>
__device__ __forceinline__ float epg_silu<float>(float x) {
  return x * epg_sigmoid(x);
}
template <class T>
__device__ __forceinline__ T epg_gelu(T x) {
  // 0.5 x (1 + erf(x / sqrt(2)))
  return T(0.5) * x * (T(1) + epg_m_erf(x * T(0.70710678118654752440)));
}
// f32 gelu as x * Phi(x): Phi(x) = 1 - h for x >= 0 and h for x < 0, where
// h = erfc(|x| / sqrt 2) / 2 = s 2^(P(s) - x^2 (log2 e) / 2) with
// s = 1 / (1 + 0.175 |x|) and P a degree-5 minimax fit in s over |x| <= 5.7
// (s stays in (0, 1] for every x, so P needs no clamp). Both signs at once:
// gelu(x) = max(x, 0) - |x| h. 11 FMA-pipe operations with the caller's
// bias add, one rcp and one ex2 (a degree-9 polynomial in |x| with a
// predicated 1 - h took 14 and one ex2; each FMA-pipe operation per element
// costs ~0.35% of a pingpong GEMM's time). Relative error under 3e-6 for
// x > -5.5 (below it |gelu| < 2e-8; 0.5 x (1 + erff(x / sqrt 2)) loses every
// digit there). +inf gives +inf (|x| is capped at 1e30 where it meets
// h = 0), -inf gives 0 (the limit; the reference's 0.5 x (1 + erf) gives NaN),
// NaN stays NaN.
template <>
__device__ __forceinline__ float epg_gelu<float>(float x) {
  const float a = fminf(fabsf(x), 1e30f);
  float s;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(fmaf(a, 0.175f, 1.0f)));
  float p = -1.819036f;
  p = fmaf(p, s, 5.5850964f);
  p = fmaf(p, s, -5.557606f);
  p = fmaf(p, s, 4.0421286f);
  p = fmaf(p, s, 0.47802615f);
  p = fmaf(p, s, -3.7286096f);
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(fmaf(x * x, -0.72134752044448170f, p)));
  return fmaf(-a, s * e, fmaxf(x, 0.0f));
}
template <class T>
__device__ __forceinline__ T epg_gelu_tanh(T x) {
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  const T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
  return T(0.5) * x * (T(1) + epg_m_tanh(inner));
}
// f32: 0.5 (1 + tanh(u)) is the logistic function of 2u, so gelu_tanh(x) =
// x / (1 + 2^v) with v = -2 u log2 e = x (c0 + c1 x^2): five FMA-pipe
// operations and two MUFU.
template <>
__device__ __forceinline__ float epg_gelu_tanh<float>(float x) {
  const float v = x * fmaf(x * x, -0.102943239580023f, -2.30220819814432f);
  return x * epg_logistic_exp2(v);
}
template <class T>
__device__ __forceinline__ T epg_hardswish(T x) {
  return x * epg_minimum(epg_maximum(x + T(3), T(0)), T(6)) * T(1.0 / 6.0);
}
template <class T>
__device__ __forceinline__ T epg_elu(T x, T alpha) {
  return x > T(0) ? x : alpha * epg_m_expm1(x);
}
template <class T>
__device__ __forceinline__ T epg_softplus(T x) {
  // PyTorch's defaults (beta 1, threshold 20): linear above the threshold.
  return x > T(20) ? x : epg_m_log1p(epg_m_exp(x));
}

// ---- elementary functions ------------------------------------------------
template <class T> __device__ __forceinline__ T epg_exp(T x) { return epg_m_exp(x); }
template <class T> __device__ __forceinline__ T epg_log(T x) { return epg_m_log(x); }
template <class T> __device__ __forceinline__ T epg_sqrt(T x) { return epg_m_sqrt(x); }
template <class T> __device__ __forceinline__ T epg_rsqrt(T x) { return T(1) / epg_m_sqrt(x); }
template <class T> __device__ __forceinline__ T epg_sin(T x) { return epg_m_sin(x); }
template <class T> __device__ __forceinline__ T epg_cos(T x) { return epg_m_cos(x); }
template <class T> __device__ __forceinline__ T epg_tan(T x) { return epg_m_tan(x); }
template <class T> __device__ __forceinline__ T epg_erf(T x) { return epg_m_erf(x); }

// ---- casts: round to the type, keep computing in T -----------------------
template <class T> __device__ __forceinline__ T epg_to_f16(T x) { return epg_round_to<kEpgF16>(x); }
template <class T> __device__ __forceinline__ T epg_to_bf16(T x) { return epg_round_to<kEpgBf16>(x); }
template <class T> __device__ __forceinline__ T epg_to_f32(T x) { return epg_round_to<kEpgF32>(x); }
template <class T> __device__ __forceinline__ T epg_to_e4m3(T x) { return epg_round_to<kEpgE4m3>(x); }
template <class T> __device__ __forceinline__ T epg_to_e5m2(T x) { return epg_round_to<kEpgE5m2>(x); }
template <class T> __device__ __forceinline__ T epg_to_i8(T x) { return epg_round_to<kEpgI8>(x); }
template <class T> __device__ __forceinline__ T epg_to_u8(T x) { return epg_round_to<kEpgU8>(x); }
template <class T> __device__ __forceinline__ T epg_to_i32(T x) { return epg_round_to<kEpgI32>(x); }

// ---- reduction combine steps: (running, x) -> running --------------------
template <class T> __device__ __forceinline__ T epg_sum(T running, T x) { return running + x; }
template <class T> __device__ __forceinline__ T epg_max(T running, T x) { return epg_maximum(running, x); }
template <class T> __device__ __forceinline__ T epg_min(T running, T x) { return epg_minimum(running, x); }
template <class T> __device__ __forceinline__ T epg_amax(T running, T x) { return epg_maximum(running, epg_m_abs(x)); }

// The combine step and neutral start value of a reduce op.
template <int Op, class T>
__device__ __forceinline__ T epg_reduce_combine(T running, T x) {
  if constexpr (Op == kEpgReduceSum) return epg_sum(running, x);
  else if constexpr (Op == kEpgReduceMax) return epg_max(running, x);
  else if constexpr (Op == kEpgReduceMin) return epg_min(running, x);
  else return epg_amax(running, x);
}
template <int Op, class T>
__device__ __forceinline__ T epg_reduce_identity() {
  if constexpr (Op == kEpgReduceMax) return -epg_infinity<T>();
  else if constexpr (Op == kEpgReduceMin) return epg_infinity<T>();
  else return T(0);
}
