// Float conversions checked against independent references on random data:
// the compiler's _Float16, float bit arithmetic for bf16 and tf32, the
// hardware double->float conversion for f32, and a brute-force nearest
// search for fp8. Also the cases that catch double rounding through float.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "float_formats.hpp"

namespace epigemm::ir::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kSamples = 400000;

/// A random double with a random sign and a binary exponent in [lo, hi].
double random_double(std::mt19937_64& rng, int lo, int hi) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(lo, hi);
  const double v = std::ldexp(mantissa(rng), exponent(rng));
  return (rng() & 1) ? -v : v;
}

#if defined(__FLT16_MAX__)
TEST(ConvertReference, F16MatchesCompilerFloat16) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < kSamples; ++i) {
    const double v = random_double(rng, -27, 17);
    const auto expected = std::bit_cast<std::uint16_t>(static_cast<_Float16>(v));
    ASSERT_EQ(f16_bits(v), expected) << "value " << v;
  }
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = std::bit_cast<_Float16>(static_cast<std::uint16_t>(bits));
    const double expected = static_cast<double>(h);
    const double got = f16_value(static_cast<std::uint16_t>(bits));
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << bits;
    } else {
      ASSERT_EQ(got, expected) << bits;
    }
  }
}
#endif

/// bf16 from the bits of a float that holds the value exactly: add just
/// under half a unit, plus one more when the kept part is odd, then truncate.
std::uint16_t bf16_from_float_bits(float value) {
  const auto u = std::bit_cast<std::uint32_t>(value);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

TEST(ConvertReference, Bf16MatchesFloatBitRounding) {
  std::mt19937 rng(std::random_device{}());
  for (int i = 0; i < kSamples; ++i) {
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isnan(v)) continue;
    ASSERT_EQ(bf16_bits(v), bf16_from_float_bits(v)) << "value " << v;
  }
}

TEST(ConvertReference, F32MatchesHardwareConversion) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < kSamples; ++i) {
    const double v = random_double(rng, -155, 127);  // includes the subnormal range
    const auto expected = static_cast<double>(static_cast<float>(v));
    ASSERT_EQ(round_to(DType::f32, v), expected) << "value " << v;
  }
  const double flt_max = std::numeric_limits<float>::max();
  const double half_ulp_past = flt_max + std::ldexp(1.0, 103);
  EXPECT_EQ(round_to(DType::f32, half_ulp_past), kInf);
  EXPECT_EQ(round_to(DType::f32, std::nextafter(half_ulp_past, 0.0)), flt_max);
  EXPECT_EQ(round_to(DType::f32, -1e300), -kInf);
  EXPECT_EQ(round_to(DType::f32, std::ldexp(1.0, -150)), 0.0);  // tie with 0 and 2^-149
  EXPECT_EQ(round_to(DType::f32, std::ldexp(1.5, -149)), std::ldexp(1.0, -148));
}

/// tf32 from float bits: add half a unit of the 10-bit mantissa to the
/// magnitude (ties away from zero) and clear the 13 low bits.
std::uint32_t tf32_from_float_bits(float value) {
  return (std::bit_cast<std::uint32_t>(value) + 0x1000u) & ~0x1FFFu;
}

TEST(ConvertReference, Tf32RoundsTiesAwayFromZero) {
  std::mt19937 rng(std::random_device{}());
  for (int i = 0; i < kSamples; ++i) {
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isnan(v) || std::isinf(v)) continue;
    std::uint32_t got = 0;
    encode(DType::tf32, v, &got);
    ASSERT_EQ(got, tf32_from_float_bits(v)) << "value " << v;
    ASSERT_EQ(got & 0x1FFFu, 0u);
  }
  const double tie = 1.0 + std::ldexp(1.0, -11);  // halfway between 1 and 1 + 2^-10
  EXPECT_EQ(round_to(DType::tf32, tie), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(round_to(DType::tf32, -tie), -(1.0 + std::ldexp(1.0, -10)));
  EXPECT_EQ(round_to(DType::tf32, std::nextafter(tie, 0.0)), 1.0);
  std::uint32_t bits = 0;
  encode(DType::tf32, 3.0, &bits);
  EXPECT_EQ(decode(DType::tf32, &bits), 3.0);
}

/// The nearest finite value of an fp8 format by trying every pattern; ties
/// go to the even pattern; values beyond max saturate.
std::uint32_t fp8_nearest(const SmallFloat& f, double v) {
  if (std::fabs(v) >= f.max_finite) return (v < 0 ? f.sign_bit : 0u) | f.max_finite_bits;
  std::uint32_t best = 0;
  double best_error = kInf;
  const std::uint32_t sign = std::signbit(v) ? f.sign_bit : 0u;
  for (std::uint32_t magnitude = 0; magnitude <= f.max_finite_bits; ++magnitude) {
    const double error = std::fabs(std::fabs(v) - f.from_bits(magnitude));
    if (error < best_error || (error == best_error && magnitude % 2 == 0)) {
      best = magnitude;
      best_error = error;
    }
  }
  return sign | best;
}

TEST(ConvertReference, Fp8MatchesBruteForceNearest) {
  std::mt19937_64 rng(std::random_device{}());
  for (const SmallFloat& f : {e4m3_format(), e5m2_format()}) {
    const int lo = static_cast<int>(std::log2(f.min_subnormal)) - 2;
    const int hi = static_cast<int>(std::log2(f.max_finite)) + 2;
    for (int i = 0; i < kSamples / 4; ++i) {
      const double v = random_double(rng, lo, hi);
      ASSERT_EQ(f.to_bits(v), fp8_nearest(f, v)) << f.name << " value " << v;
    }
  }
}

// A double a hair above a midpoint of the target must round up. Going through
// float first would land exactly on the midpoint and round to even (down).
TEST(ConvertReference, RoundsOnceFromDouble) {
  const double hair = std::ldexp(1.0, -40);
  EXPECT_EQ(f16_bits(1.0 + std::ldexp(1.0, -11) + hair), 0x3C01);
  EXPECT_EQ(f16_bits(-(1.0 + std::ldexp(1.0, -11) + hair)), 0xBC01);
  EXPECT_EQ(bf16_bits(1.0 + std::ldexp(1.0, -8) + hair), 0x3F81);
  EXPECT_EQ(e4m3_bits(1.0 + std::ldexp(1.0, -4) + hair), 0x39);
  EXPECT_EQ(e5m2_bits(1.0 + std::ldexp(1.0, -3) + hair), 0x3D);
  // tf32 rounds ties away; a hair below the midpoint must still round down.
  EXPECT_EQ(round_to(DType::tf32, 1.0 + std::ldexp(1.0, -11) - hair), 1.0);
  // Subnormal f16: halfway between 2^-24 and 2^-23, plus a hair.
  EXPECT_EQ(f16_bits(std::ldexp(1.5, -24) + std::ldexp(1.0, -60)), 0x0002);
  EXPECT_EQ(f16_bits(std::ldexp(1.0, -25) + std::ldexp(1.0, -60)), 0x0001);
}

TEST(ConvertReference, EncodeDecodeThroughMemory) {
  std::mt19937_64 rng(std::random_device{}());
  for (DType dtype : kAllDTypes) {
    for (int i = 0; i < 1000; ++i) {
      const double v = random_double(rng, -6, 6);
      unsigned char buffer[8];
      std::memset(buffer, 0xAB, sizeof(buffer));
      encode(dtype, v, buffer);
      EXPECT_EQ(decode(dtype, buffer), round_to(dtype, v)) << to_string(dtype) << " " << v;
      for (int b = size_bytes(dtype); b < 8; ++b) ASSERT_EQ(buffer[b], 0xAB) << "wrote past the element";
    }
  }
  const double v = 0.1;
  double stored = 0;
  encode(DType::f64, v, &stored);
  EXPECT_EQ(stored, v);
  EXPECT_EQ(round_to(DType::f64, v), v);
  EXPECT_NE(round_to(DType::f32, v), v);
  EXPECT_EQ(round_to(DType::f32, v), static_cast<double>(0.1f));
}

}  // namespace
}  // namespace epigemm::ir::testing
