// Element types known to epigemm, with their names and sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace epigemm {

/// Storage and compute element types. tf32 is stored as f32 (A/B operands
/// whose mantissa the GEMM rounds to 10 bits). f64 is a compute type and a
/// host-only storage type.
enum class DType : std::uint8_t { f32, tf32, f16, bf16, e4m3, e5m2, i8, u8, i32, f64 };

inline constexpr DType kAllDTypes[] = {DType::f32,  DType::tf32, DType::f16, DType::bf16, DType::e4m3,
                                       DType::e5m2, DType::i8,   DType::u8,  DType::i32,  DType::f64};

/// Short name: "f32", "tf32", "f16", "bf16", "e4m3", "e5m2", "i8", "u8", "i32", "f64".
std::string_view to_string(DType dtype) noexcept;

/// Accepts the short names and the common long ones ("float16", "bfloat16",
/// "float8_e4m3fn", "int8", "torch.float32", ...). nullopt when unknown.
std::optional<DType> parse_dtype(std::string_view name) noexcept;

/// Bytes per element in memory.
int size_bytes(DType dtype) noexcept;

bool is_floating(DType dtype) noexcept;  ///< f32, tf32, f16, bf16, e4m3, e5m2, f64
bool is_integer(DType dtype) noexcept;   ///< i8, u8, i32
bool is_fp8(DType dtype) noexcept;       ///< e4m3, e5m2

}  // namespace epigemm
