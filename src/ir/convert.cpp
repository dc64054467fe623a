// Host conversions between double and every DType. All binary float formats
// share one encoder that rounds the double once to the format's grid (so no
// double rounding through float), then handles overflow as the format wants.
#include "ir/convert.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace epigemm::ir {
namespace {

enum class Overflow { to_infinity, saturate };
enum class Ties { to_even, away_from_zero };

/// A binary float format: sign, exponent and mantissa fields, in bits.
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  /// true: an all-ones exponent means inf (mantissa 0) or NaN (IEEE);
  /// false: only the all-ones pattern is NaN, no inf (OCP e4m3fn).
  bool ieee_specials;
  Overflow overflow;
};

constexpr FloatFormat kF32{8, 23, true, Overflow::to_infinity};
constexpr FloatFormat kTf32{8, 10, true, Overflow::to_infinity};
constexpr FloatFormat kF16{5, 10, true, Overflow::to_infinity};
constexpr FloatFormat kBf16{8, 7, true, Overflow::to_infinity};
constexpr FloatFormat kE4m3{4, 3, false, Overflow::saturate};
constexpr FloatFormat kE5m2{5, 2, true, Overflow::saturate};

// tf32 keeps the f32 layout; its 10-bit mantissa sits in the top of f32's 23.
constexpr int kTf32Shift = kF32.mantissa_bits - kTf32.mantissa_bits;

constexpr std::uint64_t exponent_mask(const FloatFormat& f) { return (std::uint64_t{1} << f.exponent_bits) - 1; }
constexpr std::uint64_t mantissa_mask(const FloatFormat& f) { return (std::uint64_t{1} << f.mantissa_bits) - 1; }
constexpr std::uint64_t sign_bit(const FloatFormat& f) {
  return std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits);
}
constexpr int bias(const FloatFormat& f) { return (1 << (f.exponent_bits - 1)) - 1; }
/// Exponent of the smallest normal number (and the scale of subnormals).
constexpr int min_exponent(const FloatFormat& f) { return 1 - bias(f); }

constexpr std::uint64_t max_finite_bits(const FloatFormat& f) {
  if (f.ieee_specials) return ((exponent_mask(f) - 1) << f.mantissa_bits) | mantissa_mask(f);
  return (exponent_mask(f) << f.mantissa_bits) | (mantissa_mask(f) - 1);
}
constexpr std::uint64_t infinity_bits(const FloatFormat& f) { return exponent_mask(f) << f.mantissa_bits; }
constexpr std::uint64_t nan_bits(const FloatFormat& f) {
  if (f.ieee_specials) return infinity_bits(f) | (std::uint64_t{1} << (f.mantissa_bits - 1));  // quiet NaN
  return (exponent_mask(f) << f.mantissa_bits) | mantissa_mask(f);
}

double decode_float(std::uint64_t bits, const FloatFormat& f) {
  const bool negative = (bits & sign_bit(f)) != 0;
  const std::uint64_t exponent = (bits >> f.mantissa_bits) & exponent_mask(f);
  const std::uint64_t mantissa = bits & mantissa_mask(f);
  double magnitude;
  if (exponent == exponent_mask(f) && f.ieee_specials) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == exponent_mask(f) && mantissa == mantissa_mask(f)) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), min_exponent(f) - f.mantissa_bits);
  } else {
    const double significand = static_cast<double>(mantissa | (std::uint64_t{1} << f.mantissa_bits));
    magnitude = std::ldexp(significand, static_cast<int>(exponent) - bias(f) - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

// NOTE: the magnitude is scaled by a power of two so that one unit in the last
// place of the target becomes 1.0; the scaling is exact in double, so the one
// rounding below (to an integer) is the only rounding.
std::uint64_t encode_float(double value, const FloatFormat& f, Ties ties) {
  const std::uint64_t sign = std::signbit(value) ? sign_bit(f) : 0;
  if (std::isnan(value)) return sign | nan_bits(f);
  const std::uint64_t overflow_bits = f.overflow == Overflow::saturate ? max_finite_bits(f) : infinity_bits(f);
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | overflow_bits;
  if (magnitude == 0.0) return sign;

  int exponent = 0;
  std::frexp(magnitude, &exponent);
  exponent -= 1;  // magnitude is in [2^exponent, 2^(exponent+1))
  // Far beyond the largest binade: overflow without scaling anything.
  if (exponent > bias(f) + 1) return sign | overflow_bits;
  const int binade = exponent < min_exponent(f) ? min_exponent(f) : exponent;
  const double scaled = std::ldexp(magnitude, f.mantissa_bits - binade);  // in [0, 2^(m+1))
  double whole = std::floor(scaled);
  const double fraction = scaled - whole;
  bool round_up = fraction > 0.5;
  if (fraction == 0.5) round_up = ties == Ties::away_from_zero || std::fmod(whole, 2.0) != 0.0;
  if (round_up) whole += 1.0;
  // Subnormals are the integer itself; a normal number in binade e is
  // ((e - emin) << m) + significand, which also carries a rounding into the
  // next binade (significand == 2^(m+1)) correctly.
  const std::uint64_t bits =
      (static_cast<std::uint64_t>(binade - min_exponent(f)) << f.mantissa_bits) + static_cast<std::uint64_t>(whole);
  if (bits > max_finite_bits(f)) return sign | overflow_bits;
  return sign | bits;
}

/// Nearest integer to a finite value, ties to even.
double round_half_even(double value) {
  const double whole = std::floor(value);
  const double fraction = value - whole;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2.0) != 0.0)) return whole + 1.0;
  return whole + 0.0;  // -0.0 becomes +0.0: integers have no signed zero
}

/// Rounds to an integer in [lo, hi]; NaN becomes 0.
double round_to_integer(double value, double lo, double hi) {
  if (std::isnan(value)) return 0.0;
  if (value <= lo) return lo;
  if (value >= hi) return hi;
  return round_half_even(value);
}

constexpr double kI8Min = -128.0, kI8Max = 127.0;
constexpr double kU8Min = 0.0, kU8Max = 255.0;
constexpr double kI32Min = -2147483648.0, kI32Max = 2147483647.0;

template <typename T>
T load(const void* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void store(T value, void* p) {
  std::memcpy(p, &value, sizeof(T));
}

std::uint32_t f32_bits(double value) { return static_cast<std::uint32_t>(encode_float(value, kF32, Ties::to_even)); }

std::uint32_t tf32_bits(double value) {
  return static_cast<std::uint32_t>(encode_float(value, kTf32, Ties::away_from_zero) << kTf32Shift);
}

double f32_value(std::uint32_t bits) { return decode_float(bits, kF32); }

}  // namespace

std::uint16_t f16_bits(double value) noexcept {
  return static_cast<std::uint16_t>(encode_float(value, kF16, Ties::to_even));
}
double f16_value(std::uint16_t bits) noexcept { return decode_float(bits, kF16); }

std::uint16_t bf16_bits(double value) noexcept {
  return static_cast<std::uint16_t>(encode_float(value, kBf16, Ties::to_even));
}
double bf16_value(std::uint16_t bits) noexcept { return decode_float(bits, kBf16); }

std::uint8_t e4m3_bits(double value) noexcept {
  return static_cast<std::uint8_t>(encode_float(value, kE4m3, Ties::to_even));
}
double e4m3_value(std::uint8_t bits) noexcept { return decode_float(bits, kE4m3); }

std::uint8_t e5m2_bits(double value) noexcept {
  return static_cast<std::uint8_t>(encode_float(value, kE5m2, Ties::to_even));
}
double e5m2_value(std::uint8_t bits) noexcept { return decode_float(bits, kE5m2); }

double decode(DType dtype, const void* p) noexcept {
  switch (dtype) {
    case DType::f32:
    case DType::tf32: return f32_value(load<std::uint32_t>(p));
    case DType::f16: return f16_value(load<std::uint16_t>(p));
    case DType::bf16: return bf16_value(load<std::uint16_t>(p));
    case DType::e4m3: return e4m3_value(load<std::uint8_t>(p));
    case DType::e5m2: return e5m2_value(load<std::uint8_t>(p));
    case DType::i8: return static_cast<double>(load<std::int8_t>(p));
    case DType::u8: return static_cast<double>(load<std::uint8_t>(p));
    case DType::i32: return static_cast<double>(load<std::int32_t>(p));
    case DType::f64: return load<double>(p);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

void encode(DType dtype, double value, void* p) noexcept {
  switch (dtype) {
    case DType::f32: store(f32_bits(value), p); return;
    case DType::tf32: store(tf32_bits(value), p); return;
    case DType::f16: store(f16_bits(value), p); return;
    case DType::bf16: store(bf16_bits(value), p); return;
    case DType::e4m3: store(e4m3_bits(value), p); return;
    case DType::e5m2: store(e5m2_bits(value), p); return;
    case DType::i8: store(static_cast<std::int8_t>(round_to_integer(value, kI8Min, kI8Max)), p); return;
    case DType::u8: store(static_cast<std::uint8_t>(round_to_integer(value, kU8Min, kU8Max)), p); return;
    case DType::i32: store(static_cast<std::int32_t>(round_to_integer(value, kI32Min, kI32Max)), p); return;
    case DType::f64: store(value, p); return;
  }
}

double round_to(DType dtype, double value) noexcept {
  switch (dtype) {
    case DType::f32: return f32_value(f32_bits(value));
    case DType::tf32: return f32_value(tf32_bits(value));
    case DType::f16: return f16_value(f16_bits(value));
    case DType::bf16: return bf16_value(bf16_bits(value));
    case DType::e4m3: return e4m3_value(e4m3_bits(value));
    case DType::e5m2: return e5m2_value(e5m2_bits(value));
    case DType::i8: return round_to_integer(value, kI8Min, kI8Max);
    case DType::u8: return round_to_integer(value, kU8Min, kU8Max);
    case DType::i32: return round_to_integer(value, kI32Min, kI32Max);
    case DType::f64: return value;
  }
  return value;
}

}  // namespace epigemm::ir
