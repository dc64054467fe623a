// DType names, parsing of the many spellings users write (short names, NumPy
// and PyTorch names with or without their module prefix), sizes and classes.
#include <array>
#include <cctype>

#include "epigemm/dtype.hpp"

namespace epigemm {
namespace {

struct DTypeSpelling {
  std::string_view name;
  DType dtype;
};

// Every accepted spelling, lower case. The short name of each type comes first.
constexpr std::array kSpellings = {
    DTypeSpelling{"f32", DType::f32},
    DTypeSpelling{"float32", DType::f32},
    DTypeSpelling{"float", DType::f32},
    DTypeSpelling{"fp32", DType::f32},
    DTypeSpelling{"tf32", DType::tf32},
    DTypeSpelling{"tfloat32", DType::tf32},
    DTypeSpelling{"f16", DType::f16},
    DTypeSpelling{"float16", DType::f16},
    DTypeSpelling{"half", DType::f16},
    DTypeSpelling{"fp16", DType::f16},
    DTypeSpelling{"bf16", DType::bf16},
    DTypeSpelling{"bfloat16", DType::bf16},
    DTypeSpelling{"e4m3", DType::e4m3},
    DTypeSpelling{"float8_e4m3fn", DType::e4m3},
    DTypeSpelling{"fp8_e4m3", DType::e4m3},
    DTypeSpelling{"e5m2", DType::e5m2},
    DTypeSpelling{"float8_e5m2", DType::e5m2},
    DTypeSpelling{"fp8_e5m2", DType::e5m2},
    DTypeSpelling{"i8", DType::i8},
    DTypeSpelling{"int8", DType::i8},
    DTypeSpelling{"u8", DType::u8},
    DTypeSpelling{"uint8", DType::u8},
    DTypeSpelling{"i32", DType::i32},
    DTypeSpelling{"int32", DType::i32},
    DTypeSpelling{"f64", DType::f64},
    DTypeSpelling{"float64", DType::f64},
    DTypeSpelling{"double", DType::f64},
};

constexpr std::string_view kPrefixes[] = {"torch.", "numpy.", "np."};

}  // namespace

std::string_view to_string(DType dtype) noexcept {
  switch (dtype) {
    case DType::f32: return "f32";
    case DType::tf32: return "tf32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::e4m3: return "e4m3";
    case DType::e5m2: return "e5m2";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::i32: return "i32";
    case DType::f64: return "f64";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  // Names are short; anything longer than this is not a dtype.
  constexpr std::size_t kMaxLength = 32;
  if (name.empty() || name.size() > kMaxLength) return std::nullopt;
  char buffer[kMaxLength];
  for (std::size_t i = 0; i < name.size(); ++i) {
    buffer[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  std::string_view lower(buffer, name.size());
  for (std::string_view prefix : kPrefixes) {
    if (lower.starts_with(prefix)) {
      lower.remove_prefix(prefix.size());
      break;
    }
  }
  for (const DTypeSpelling& spelling : kSpellings) {
    if (spelling.name == lower) return spelling.dtype;
  }
  return std::nullopt;
}

int size_bytes(DType dtype) noexcept {
  switch (dtype) {
    case DType::f32:
    case DType::tf32:
    case DType::i32: return 4;
    case DType::f16:
    case DType::bf16: return 2;
    case DType::e4m3:
    case DType::e5m2:
    case DType::i8:
    case DType::u8: return 1;
    case DType::f64: return 8;
  }
  return 0;
}

bool is_floating(DType dtype) noexcept { return !is_integer(dtype); }

bool is_integer(DType dtype) noexcept {
  return dtype == DType::i8 || dtype == DType::u8 || dtype == DType::i32;
}

bool is_fp8(DType dtype) noexcept { return dtype == DType::e4m3 || dtype == DType::e5m2; }

}  // namespace epigemm
