// The small float formats under test (f16, bf16, e4m3, e5m2), described by
// constants written from the format specifications, not taken from the code
// under test, plus the conversion functions that handle each one.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ir/convert.hpp"

namespace epigemm::ir::testing {

struct SmallFloat {
  std::string name;
  int bits;                        ///< total width: 8 or 16
  std::uint32_t sign_bit;
  std::uint32_t max_finite_bits;   ///< largest finite positive pattern
  std::uint32_t min_normal_bits;   ///< smallest normal positive pattern
  std::uint32_t one_bits;          ///< the pattern of 1.0
  double max_finite;               ///< its value
  double min_subnormal;            ///< value of pattern 1
  double min_normal;
  bool saturates;                  ///< satfinite (fp8) vs overflow to inf
  bool has_inf;
  std::uint32_t (*to_bits)(double);
  double (*from_bits)(std::uint32_t);
};

inline std::uint32_t f16_to(double v) { return f16_bits(v); }
inline double f16_from(std::uint32_t b) { return f16_value(static_cast<std::uint16_t>(b)); }
inline std::uint32_t bf16_to(double v) { return bf16_bits(v); }
inline double bf16_from(std::uint32_t b) { return bf16_value(static_cast<std::uint16_t>(b)); }
inline std::uint32_t e4m3_to(double v) { return e4m3_bits(v); }
inline double e4m3_from(std::uint32_t b) { return e4m3_value(static_cast<std::uint8_t>(b)); }
inline std::uint32_t e5m2_to(double v) { return e5m2_bits(v); }
inline double e5m2_from(std::uint32_t b) { return e5m2_value(static_cast<std::uint8_t>(b)); }

// f16: 1.5.10, max 65504, smallest subnormal 2^-24, smallest normal 2^-14.
inline SmallFloat f16_format() {
  return {"f16", 16, 0x8000, 0x7BFF, 0x0400, 0x3C00, 65504.0, std::ldexp(1.0, -24), std::ldexp(1.0, -14), false, true, f16_to, f16_from};
}
// bf16: 1.8.7, max (2 - 2^-7) * 2^127, smallest subnormal 2^-133.
inline SmallFloat bf16_format() {
  return {"bf16", 16, 0x8000, 0x7F7F, 0x0080, 0x3F80, 3.3895313892515355e38, std::ldexp(1.0, -133), std::ldexp(1.0, -126),
          false,  true, bf16_to, bf16_from};
}
// e4m3fn: 1.4.3, bias 7, max 1.75 * 2^8 = 448, smallest subnormal 2^-9.
inline SmallFloat e4m3_format() {
  return {"e4m3", 8, 0x80, 0x7E, 0x08, 0x38, 448.0, std::ldexp(1.0, -9), std::ldexp(1.0, -6), true, false, e4m3_to, e4m3_from};
}
// e5m2: 1.5.2, bias 15, max 1.75 * 2^15 = 57344, smallest subnormal 2^-16.
inline SmallFloat e5m2_format() {
  return {"e5m2", 8, 0x80, 0x7B, 0x04, 0x3C, 57344.0, std::ldexp(1.0, -16), std::ldexp(1.0, -14), true, true, e5m2_to, e5m2_from};
}

inline SmallFloat all_small_floats(int i) {
  switch (i) {
    case 0: return f16_format();
    case 1: return bf16_format();
    case 2: return e4m3_format();
    default: return e5m2_format();
  }
}

/// Whether a pattern is a NaN, from the format's layout (not from decode).
inline bool is_nan_pattern(const SmallFloat& f, std::uint32_t bits) {
  const std::uint32_t magnitude = bits & (f.sign_bit - 1);
  if (f.name == "e4m3") return magnitude == 0x7F;
  const std::uint32_t inf_bits = f.name == "e5m2" ? 0x7C : (f.name == "f16" ? 0x7C00 : 0x7F80);
  return magnitude > inf_bits;
}

}  // namespace epigemm::ir::testing
