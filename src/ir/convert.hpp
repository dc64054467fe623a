// Exact host conversions between double and every DType: round to nearest
// even, saturating for fp8 and the 8-bit and 32-bit integers, NaN preserved
// (NaN becomes 0 for integers).
#pragma once

#include <cstdint>

#include "epigemm/dtype.hpp"

namespace epigemm::ir {

/// The value of one element stored at `p`.
double decode(DType dtype, const void* p) noexcept;
/// Stores `value` rounded to `dtype` at `p` (rounding once, from double).
void encode(DType dtype, double value, void* p) noexcept;
/// `value` rounded to `dtype` and back: decode(encode(value)). tf32 rounds
/// to 10 mantissa bits (nearest, ties away, as cvt.rna.tf32.f32).
double round_to(DType dtype, double value) noexcept;

// Bit-level helpers for the 16- and 8-bit float formats.
std::uint16_t f16_bits(double value) noexcept;
double f16_value(std::uint16_t bits) noexcept;
std::uint16_t bf16_bits(double value) noexcept;
double bf16_value(std::uint16_t bits) noexcept;
std::uint8_t e4m3_bits(double value) noexcept;  ///< saturates to +-448
double e4m3_value(std::uint8_t bits) noexcept;
std::uint8_t e5m2_bits(double value) noexcept;  ///< saturates to +-57344
double e5m2_value(std::uint8_t bits) noexcept;

}  // namespace epigemm::ir
