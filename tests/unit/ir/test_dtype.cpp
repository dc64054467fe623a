// Tests of DType names, parsing of short, long and prefixed spellings, sizes
// and type classes.
#include <gtest/gtest.h>

#include <string>

#include "epigemm/dtype.hpp"

namespace epigemm {
namespace {

TEST(DType, ShortNamesAreExact) {
  EXPECT_EQ(to_string(DType::f32), "f32");
  EXPECT_EQ(to_string(DType::tf32), "tf32");
  EXPECT_EQ(to_string(DType::f16), "f16");
  EXPECT_EQ(to_string(DType::bf16), "bf16");
  EXPECT_EQ(to_string(DType::e4m3), "e4m3");
  EXPECT_EQ(to_string(DType::e5m2), "e5m2");
  EXPECT_EQ(to_string(DType::i8), "i8");
  EXPECT_EQ(to_string(DType::u8), "u8");
  EXPECT_EQ(to_string(DType::i32), "i32");
  EXPECT_EQ(to_string(DType::f64), "f64");
}

TEST(DType, ShortNamesParseBack) {
  for (DType dtype : kAllDTypes) {
    const std::optional<DType> parsed = parse_dtype(to_string(dtype));
    ASSERT_TRUE(parsed.has_value()) << to_string(dtype);
    EXPECT_EQ(*parsed, dtype);
  }
}

TEST(DType, LongNames) {
  struct Case {
    const char* name;
    DType dtype;
  };
  const Case cases[] = {
      {"float32", DType::f32},        {"float", DType::f32},          {"fp32", DType::f32},
      {"tfloat32", DType::tf32},      {"float16", DType::f16},        {"half", DType::f16},
      {"fp16", DType::f16},           {"bfloat16", DType::bf16},      {"float8_e4m3fn", DType::e4m3},
      {"fp8_e4m3", DType::e4m3},      {"float8_e5m2", DType::e5m2},   {"int8", DType::i8},
      {"uint8", DType::u8},           {"int32", DType::i32},          {"float64", DType::f64},
      {"double", DType::f64},
  };
  for (const Case& c : cases) {
    const std::optional<DType> parsed = parse_dtype(c.name);
    ASSERT_TRUE(parsed.has_value()) << c.name;
    EXPECT_EQ(*parsed, c.dtype) << c.name;
  }
}

TEST(DType, ModulePrefixes) {
  EXPECT_EQ(parse_dtype("torch.float16"), DType::f16);
  EXPECT_EQ(parse_dtype("torch.bfloat16"), DType::bf16);
  EXPECT_EQ(parse_dtype("torch.float8_e4m3fn"), DType::e4m3);
  EXPECT_EQ(parse_dtype("torch.float8_e5m2"), DType::e5m2);
  EXPECT_EQ(parse_dtype("torch.int8"), DType::i8);
  EXPECT_EQ(parse_dtype("numpy.float32"), DType::f32);
  EXPECT_EQ(parse_dtype("numpy.uint8"), DType::u8);
  EXPECT_EQ(parse_dtype("numpy.float64"), DType::f64);
  EXPECT_EQ(parse_dtype("torch.f16"), DType::f16);
}

TEST(DType, UnknownNamesAreRejected) {
  const char* bad[] = {"",         "f8",          "float8",       "int16",        "torch.",  "torch.float17",
                       "float16 ", " float16",    "torch.torch.float16",           "e4m3fnuz", "int4",
                       "complex64", "numpy.half.", "xfloat32",     "torchfloat32"};
  for (const char* name : bad) EXPECT_FALSE(parse_dtype(name).has_value()) << "'" << name << "'";
  // Very long input must not overrun anything.
  EXPECT_FALSE(parse_dtype(std::string(1000, 'f')).has_value());
}

TEST(DType, Sizes) {
  EXPECT_EQ(size_bytes(DType::f32), 4);
  EXPECT_EQ(size_bytes(DType::tf32), 4);
  EXPECT_EQ(size_bytes(DType::f16), 2);
  EXPECT_EQ(size_bytes(DType::bf16), 2);
  EXPECT_EQ(size_bytes(DType::e4m3), 1);
  EXPECT_EQ(size_bytes(DType::e5m2), 1);
  EXPECT_EQ(size_bytes(DType::i8), 1);
  EXPECT_EQ(size_bytes(DType::u8), 1);
  EXPECT_EQ(size_bytes(DType::i32), 4);
  EXPECT_EQ(size_bytes(DType::f64), 8);
}

TEST(DType, Classes) {
  int floating = 0, integer = 0, fp8 = 0;
  for (DType dtype : kAllDTypes) {
    EXPECT_NE(is_floating(dtype), is_integer(dtype)) << to_string(dtype);
    floating += is_floating(dtype);
    integer += is_integer(dtype);
    fp8 += is_fp8(dtype);
    if (is_fp8(dtype)) {
      EXPECT_TRUE(is_floating(dtype));
    }
  }
  EXPECT_EQ(floating, 7);
  EXPECT_EQ(integer, 3);
  EXPECT_EQ(fp8, 2);
  EXPECT_TRUE(is_integer(DType::i8));
  EXPECT_TRUE(is_integer(DType::u8));
  EXPECT_TRUE(is_integer(DType::i32));
  EXPECT_TRUE(is_fp8(DType::e4m3));
  EXPECT_TRUE(is_fp8(DType::e5m2));
  EXPECT_TRUE(is_floating(DType::tf32));
  EXPECT_TRUE(is_floating(DType::f64));
  EXPECT_FALSE(is_fp8(DType::f16));
}

}  // namespace
}  // namespace epigemm
