// Tests of the integer conversions (i8, u8, i32): round half to even,
// saturation at both ends, NaN to 0, and the stored bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "ir/convert.hpp"

namespace epigemm::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
  double in;
  double out;
};

void expect_rounding(DType dtype, std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(round_to(dtype, c.in), c.out) << to_string(dtype) << " " << c.in;
    EXPECT_FALSE(std::signbit(round_to(dtype, c.in)) && c.out == 0.0) << "negative zero from " << c.in;
  }
}

TEST(ConvertInteger, I8) {
  expect_rounding(DType::i8, {{0.5, 0},     {1.5, 2},      {2.5, 2},     {-0.5, 0},     {-1.5, -2},  {-2.5, -2},
                              {0.49, 0},    {0.51, 1},     {-0.51, -1},  {126.5, 126},  {125.5, 126}, {127.0, 127},
                              {127.4, 127}, {127.5, 127},  {128.0, 127}, {300.0, 127},  {-127.5, -128},
                              {-128.0, -128}, {-128.5, -128}, {-129.0, -128}, {-1e9, -128}, {kInf, 127},
                              {-kInf, -128}, {kNaN, 0},     {-0.0, 0},    {-0.3, 0}});
}

TEST(ConvertInteger, U8) {
  expect_rounding(DType::u8, {{0.5, 0},     {1.5, 2},     {2.5, 2},       {-0.5, 0},   {-1.0, 0},    {-200.0, 0},
                              {253.5, 254}, {254.5, 254}, {254.51, 255},  {255.0, 255}, {255.5, 255}, {256.0, 255},
                              {1e20, 255},  {kInf, 255},  {-kInf, 0},     {kNaN, 0},    {127.5, 128}});
}

TEST(ConvertInteger, I32) {
  expect_rounding(DType::i32, {{0.5, 0},
                               {3.5, 4},
                               {4.5, 4},
                               {-4.5, -4},
                               {2147483645.5, 2147483646.0},
                               {2147483646.5, 2147483646.0},
                               {2147483647.0, 2147483647.0},
                               {2147483647.5, 2147483647.0},
                               {2147483648.0, 2147483647.0},
                               {1e10, 2147483647.0},
                               {-2147483647.5, -2147483648.0},
                               {-2147483648.0, -2147483648.0},
                               {-2147483648.5, -2147483648.0},
                               {-1e300, -2147483648.0},
                               {kInf, 2147483647.0},
                               {-kInf, -2147483648.0},
                               {kNaN, 0.0},
                               {1048576.5, 1048576.0},
                               {1048577.5, 1048578.0}});
}

TEST(ConvertInteger, StoredBytes) {
  std::int8_t i8 = 0;
  encode(DType::i8, -128.7, &i8);
  EXPECT_EQ(i8, -128);
  encode(DType::i8, 77.5, &i8);
  EXPECT_EQ(i8, 78);
  std::uint8_t u8 = 7;
  encode(DType::u8, -3.0, &u8);
  EXPECT_EQ(u8, 0);
  encode(DType::u8, 999.0, &u8);
  EXPECT_EQ(u8, 255);
  std::int32_t i32 = 0;
  encode(DType::i32, -3e9, &i32);
  EXPECT_EQ(i32, std::numeric_limits<std::int32_t>::min());
  encode(DType::i32, kNaN, &i32);
  EXPECT_EQ(i32, 0);
  const std::uint8_t raw = 0x80;
  EXPECT_EQ(decode(DType::i8, &raw), -128.0);
  EXPECT_EQ(decode(DType::u8, &raw), 128.0);
}

// Against llrint in its default mode (round half to even), then clamped.
TEST(ConvertInteger, RandomValuesMatchRintThenClamp) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> wide(-3e9, 3e9), narrow(-300.0, 300.0);
  std::uniform_int_distribution<int> half_steps(-700, 700);
  for (int i = 0; i < 100000; ++i) {
    const double values[] = {wide(rng), narrow(rng), half_steps(rng) * 0.5};
    for (double v : values) {
      const double r = static_cast<double>(std::llrint(v));
      ASSERT_EQ(round_to(DType::i8, v), std::clamp(r, -128.0, 127.0)) << v;
      ASSERT_EQ(round_to(DType::u8, v), std::clamp(r, 0.0, 255.0)) << v;
      ASSERT_EQ(round_to(DType::i32, v), std::clamp(r, -2147483648.0, 2147483647.0)) << v;
    }
  }
}

}  // namespace
}  // namespace epigemm::ir
