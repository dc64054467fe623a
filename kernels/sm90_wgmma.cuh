// wgmma.mma_async wrappers (shared-memory A and B) for the warpgroup tile
// widths the sm90 GEMM uses (N = 32, 64, 96, 128, 160, 192, 256): m64nNk16 for
// f16/bf16 (either operand K- or MN-major), m64nNk32 for fp8 e4m3/e5m2 and
// m64nNk8 for tf32 (f32 accumulators), m64nNk32 for s8/u8 (s32 accumulators);
// all but f16/bf16 K-major only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "sm90_ptx.cuh"

// Accumulator fragment of m64nNk{8,16,32} (f32 or s32 D), per thread of the warpgroup:
// (T128,V(N/2)) -> (M64,N): thread t = 32*w + l, value i:
//   row = 16*w + l/4 + 8*((i/2)%2),  col = 8*(i/4) + 2*(l%4) + i%2.

// Asm operand lists for the accumulators, read and written: constraint C is
// "+f" for f32 accumulators, "+r" for s32 ones.
#define EPIGEMM_ACC8(C, d, i) \
  C(d[i]), C(d[i + 1]), C(d[i + 2]), C(d[i + 3]), C(d[i + 4]), C(d[i + 5]), C(d[i + 6]), C(d[i + 7])
#define EPIGEMM_ACC32(C, d, i) \
  EPIGEMM_ACC8(C, d, i), EPIGEMM_ACC8(C, d, i + 8), EPIGEMM_ACC8(C, d, i + 16), EPIGEMM_ACC8(C, d, i + 24)
#define EPIGEMM_ACC_OPS16(C, d) EPIGEMM_ACC8(C, d, 0), EPIGEMM_ACC8(C, d, 8)
#define EPIGEMM_ACC_OPS32(C, d) EPIGEMM_ACC32(C, d, 0)
#define EPIGEMM_ACC_OPS48(C, d) EPIGEMM_ACC32(C, d, 0), EPIGEMM_ACC8(C, d, 32), EPIGEMM_ACC8(C, d, 40)
#define EPIGEMM_ACC_OPS64(C, d) EPIGEMM_ACC32(C, d, 0), EPIGEMM_ACC32(C, d, 32)
#define EPIGEMM_ACC_OPS80(C, d) EPIGEMM_ACC_OPS64(C, d), EPIGEMM_ACC8(C, d, 64), EPIGEMM_ACC8(C, d, 72)
#define EPIGEMM_ACC_OPS96(C, d) EPIGEMM_ACC32(C, d, 0), EPIGEMM_ACC32(C, d, 32), EPIGEMM_ACC32(C, d, 64)
#define EPIGEMM_ACC_OPS128(C, d) \
  EPIGEMM_ACC32(C, d, 0), EPIGEMM_ACC32(C, d, 32), EPIGEMM_ACC32(C, d, 64), EPIGEMM_ACC32(C, d, 96)

// The same accumulators as a PTX vector of operand numbers.
#define EPIGEMM_WGMMA_REGS16 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"

#define EPIGEMM_WGMMA_REGS32 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"

#define EPIGEMM_WGMMA_REGS48 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47}"

#define EPIGEMM_WGMMA_REGS64 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63}"

#define EPIGEMM_WGMMA_REGS80 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, " \
  "%74, %75, %76, %77, %78, %79}"

#define EPIGEMM_WGMMA_REGS96 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, " \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, " \
  "%92, %93, %94, %95}"

#define EPIGEMM_WGMMA_REGS128 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, " \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, " \
  "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, " \
  "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, " \
  "%123, %124, %125, %126, %127}"

// One 16-bit wgmma: operands after the accumulators are desc_a (PA), desc_b
// (PB), scale-d (PS, 0 makes D = A*B), trans-a (PTA) and trans-b (PTB).
#define EPIGEMM_WGMMA_16BIT(NAME, SHAPE, TYPES, REGS, ACC, R, PA, PB, PS, PTA, PTB)          \
  template <int kTransA, int kTransB>                                                       \
  static __device__ __forceinline__ void NAME(float(&d)[R], u64 desc_a, u64 desc_b,          \
                                              int scale_d) {                                \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PS ", 0;\n"                           \
                 "wgmma.mma_async.sync.aligned." SHAPE "." TYPES " " REGS ", %" #PA ", %" #PB \
                 ", p, 1, 1, %" #PTA ", %" #PTB ";\n}\n"                                    \
                 : ACC("+f", d)                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB));     \
  }

// One fp8 wgmma (both operands K-major, no transpose operands).
#define EPIGEMM_WGMMA_8BIT(NAME, SHAPE, TYPES, REGS, ACC, R, PA, PB, PS)                     \
  static __device__ __forceinline__ void NAME(float(&d)[R], u64 desc_a, u64 desc_b,          \
                                              int scale_d) {                                \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PS ", 0;\n"                           \
                 "wgmma.mma_async.sync.aligned." SHAPE "." TYPES " " REGS ", %" #PA ", %" #PB \
                 ", p, 1, 1;\n}\n"                                                          \
                 : ACC("+f", d)                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                 \
  }

#define EPIGEMM_DEFINE_WGMMA(N, R, REGS, ACC, PA, PB, PS, PTA, PTB)                            \
  template <>                                                                                 \
  struct Wgmma<N> {                                                                           \
    static constexpr int kRegs = R;                                                           \
    EPIGEMM_WGMMA_16BIT(f16, "m64n" #N "k16", "f32.f16.f16", REGS, ACC, R, PA, PB, PS, PTA, PTB) \
    EPIGEMM_WGMMA_16BIT(bf16, "m64n" #N "k16", "f32.bf16.bf16", REGS, ACC, R, PA, PB, PS, PTA,   \
                        PTB)                                                                  \
    EPIGEMM_WGMMA_8BIT(e4m3_e4m3, "m64n" #N "k32", "f32.e4m3.e4m3", REGS, ACC, R, PA, PB, PS)  \
    EPIGEMM_WGMMA_8BIT(e4m3_e5m2, "m64n" #N "k32", "f32.e4m3.e5m2", REGS, ACC, R, PA, PB, PS)  \
    EPIGEMM_WGMMA_8BIT(e5m2_e4m3, "m64n" #N "k32", "f32.e5m2.e4m3", REGS, ACC, R, PA, PB, PS)  \
    EPIGEMM_WGMMA_8BIT(e5m2_e5m2, "m64n" #N "k32", "f32.e5m2.e5m2", REGS, ACC, R, PA, PB, PS)  \
  };

// One integer wgmma (K-major only; no scale or transpose immediates). The s32
// sums wrap on overflow (no .satfinite), as the reference's int32 does.
#define EPIGEMM_WGMMA_INT(NAME, SHAPE, TYPES, REGS, ACC, R, PA, PB, PS)                      \
  static __device__ __forceinline__ void NAME(int(&d)[R], u64 desc_a, u64 desc_b, int scale_d) { \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PS ", 0;\n"                           \
                 "wgmma.mma_async.sync.aligned." SHAPE "." TYPES " " REGS ", %" #PA ", %" #PB \
                 ", p;\n}\n"                                                               \
                 : ACC("+r", d)                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                 \
  }

// tf32 (f32 accumulators, like fp8: scale immediates, no transpose) and the
// four s8/u8 pairings (s32 accumulators) for warpgroup width N.
#define EPIGEMM_DEFINE_WGMMA_TF32_INT8(N, R, REGS, ACC, PA, PB, PS)                             \
  template <>                                                                                 \
  struct WgmmaTf32Int8<N> {                                                                   \
    EPIGEMM_WGMMA_8BIT(tf32, "m64n" #N "k8", "f32.tf32.tf32", REGS, ACC, R, PA, PB, PS)          \
    EPIGEMM_WGMMA_INT(s8_s8, "m64n" #N "k32", "s32.s8.s8", REGS, ACC, R, PA, PB, PS)             \
    EPIGEMM_WGMMA_INT(s8_u8, "m64n" #N "k32", "s32.s8.u8", REGS, ACC, R, PA, PB, PS)             \
    EPIGEMM_WGMMA_INT(u8_s8, "m64n" #N "k32", "s32.u8.s8", REGS, ACC, R, PA, PB, PS)             \
    EPIGEMM_WGMMA_INT(u8_u8, "m64n" #N "k32", "s32.u8.u8", REGS, ACC, R, PA, PB, PS)             \
  };

namespace epigemm::sm90 {

/// wgmma.mma_async m64nN with both operands in shared memory; N is the
/// warpgroup tile width. Member functions are named after the operand types.
template <int kN>
struct Wgmma;

EPIGEMM_DEFINE_WGMMA(32, 16, EPIGEMM_WGMMA_REGS16, EPIGEMM_ACC_OPS16, 16, 17, 18, 19, 20)
EPIGEMM_DEFINE_WGMMA(64, 32, EPIGEMM_WGMMA_REGS32, EPIGEMM_ACC_OPS32, 32, 33, 34, 35, 36)
EPIGEMM_DEFINE_WGMMA(96, 48, EPIGEMM_WGMMA_REGS48, EPIGEMM_ACC_OPS48, 48, 49, 50, 51, 52)
EPIGEMM_DEFINE_WGMMA(128, 64, EPIGEMM_WGMMA_REGS64, EPIGEMM_ACC_OPS64, 64, 65, 66, 67, 68)
EPIGEMM_DEFINE_WGMMA(160, 80, EPIGEMM_WGMMA_REGS80, EPIGEMM_ACC_OPS80, 80, 81, 82, 83, 84)
EPIGEMM_DEFINE_WGMMA(192, 96, EPIGEMM_WGMMA_REGS96, EPIGEMM_ACC_OPS96, 96, 97, 98, 99, 100)
EPIGEMM_DEFINE_WGMMA(256, 128, EPIGEMM_WGMMA_REGS128, EPIGEMM_ACC_OPS128, 128, 129, 130, 131,
                     132)

/// The tf32 and int8 wgmmas of width N (both operands K-major).
template <int kN>
struct WgmmaTf32Int8;

EPIGEMM_DEFINE_WGMMA_TF32_INT8(32, 16, EPIGEMM_WGMMA_REGS16, EPIGEMM_ACC_OPS16, 16, 17, 18)
EPIGEMM_DEFINE_WGMMA_TF32_INT8(64, 32, EPIGEMM_WGMMA_REGS32, EPIGEMM_ACC_OPS32, 32, 33, 34)
EPIGEMM_DEFINE_WGMMA_TF32_INT8(128, 64, EPIGEMM_WGMMA_REGS64, EPIGEMM_ACC_OPS64, 64, 65, 66)
EPIGEMM_DEFINE_WGMMA_TF32_INT8(192, 96, EPIGEMM_WGMMA_REGS96, EPIGEMM_ACC_OPS96, 96, 97, 98)
EPIGEMM_DEFINE_WGMMA_TF32_INT8(256, 128, EPIGEMM_WGMMA_REGS128, EPIGEMM_ACC_OPS128, 128, 129,
                               130)

/// Compile-time type equality (no <type_traits> under NVRTC).
template <class A, class B>
inline constexpr bool kSameType = false;
template <class A>
inline constexpr bool kSameType<A, A> = true;

/// Whether T is one of the int8 types (signed char, unsigned char: s8, u8).
template <class T>
inline constexpr bool kIsInt8 = kSameType<T, signed char> || kSameType<T, unsigned char>;

/// Issues one wgmma for operand types TA x TB (f16, bf16, e4m3, e5m2, float
/// meaning tf32, signed/unsigned char meaning s8/u8) into the
/// (T128,V(N/2)) -> (M64,N) accumulator fragment `d` (float, or int for
/// s8/u8). kTransA/kTransB = 1 selects an MN-major operand (16-bit types only).
template <class TA, class TB, int kN, int kTransA, int kTransB, class Acc>
__device__ __forceinline__ void wgmma_ss(Acc (&d)[kN / 2], u64 desc_a, u64 desc_b,
                                         int scale_d) {
  using Op = Wgmma<kN>;
  using Op2 = WgmmaTf32Int8<kN>;
  if constexpr (kIsInt8<TA> || kIsInt8<TB>) {
    static_assert(kTransA == 0 && kTransB == 0, "int8 wgmma needs K-major A and B");
    static_assert(kIsInt8<TA> && kIsInt8<TB> && kSameType<Acc, int>,
                  "int8 wgmma takes s8/u8 A and B and int accumulators");
    if constexpr (kSameType<TA, signed char> && kSameType<TB, signed char>) {
      Op2::s8_s8(d, desc_a, desc_b, scale_d);
    } else if constexpr (kSameType<TA, signed char>) {
      Op2::s8_u8(d, desc_a, desc_b, scale_d);
    } else if constexpr (kSameType<TB, signed char>) {
      Op2::u8_s8(d, desc_a, desc_b, scale_d);
    } else {
      Op2::u8_u8(d, desc_a, desc_b, scale_d);
    }
  } else if constexpr (kSameType<TA, float> || kSameType<TB, float>) {
    static_assert(kTransA == 0 && kTransB == 0, "tf32 wgmma needs K-major A and B");
    static_assert(kSameType<TA, float> && kSameType<TB, float> && kSameType<Acc, float>,
                  "tf32 wgmma takes tf32 (float) A and B and float accumulators");
    Op2::tf32(d, desc_a, desc_b, scale_d);
  } else if constexpr (kSameType<TA, __half> && kSameType<TB, __half>) {
    Op::template f16<kTransA, kTransB>(d, desc_a, desc_b, scale_d);
  } else if constexpr (kSameType<TA, __nv_bfloat16> && kSameType<TB, __nv_bfloat16>) {
    Op::template bf16<kTransA, kTransB>(d, desc_a, desc_b, scale_d);
  } else {
    static_assert(kTransA == 0 && kTransB == 0, "fp8 wgmma needs K-major A and B");
    if constexpr (kSameType<TA, __nv_fp8_e4m3> && kSameType<TB, __nv_fp8_e4m3>) {
      Op::e4m3_e4m3(d, desc_a, desc_b, scale_d);
    } else if constexpr (kSameType<TA, __nv_fp8_e4m3> && kSameType<TB, __nv_fp8_e5m2>) {
      Op::e4m3_e5m2(d, desc_a, desc_b, scale_d);
    } else if constexpr (kSameType<TA, __nv_fp8_e5m2> && kSameType<TB, __nv_fp8_e4m3>) {
      Op::e5m2_e4m3(d, desc_a, desc_b, scale_d);
    } else {
      static_assert(kSameType<TA, __nv_fp8_e5m2> && kSameType<TB, __nv_fp8_e5m2>,
                    "unsupported wgmma operand types");
      Op::e5m2_e5m2(d, desc_a, desc_b, scale_d);
    }
  }
}

}  // namespace epigemm::sm90
