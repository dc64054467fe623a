// Exhaustive tests of the 8- and 16-bit float conversions: every bit pattern
// round-trips, every midpoint between neighbours rounds to the even one and
// its neighbours in double round to the nearer value, overflow, underflow,
// signed zero and NaN behave as each format specifies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "float_formats.hpp"

namespace epigemm::ir::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class SmallFloatTest : public ::testing::TestWithParam<int> {
 protected:
  SmallFloat f = all_small_floats(GetParam());
  std::uint32_t pattern_count() const { return std::uint32_t{1} << f.bits; }
};

TEST_P(SmallFloatTest, KnownPatterns) {
  EXPECT_EQ(f.from_bits(f.one_bits), 1.0);
  EXPECT_EQ(f.from_bits(f.sign_bit | f.one_bits), -1.0);
  EXPECT_EQ(f.from_bits(1), f.min_subnormal);
  EXPECT_EQ(f.from_bits(f.min_normal_bits), f.min_normal);
  EXPECT_EQ(f.from_bits(f.min_normal_bits - 1), f.min_normal - f.min_subnormal);
  EXPECT_EQ(f.from_bits(f.max_finite_bits), f.max_finite);
  EXPECT_EQ(f.from_bits(f.sign_bit | f.max_finite_bits), -f.max_finite);
  const double above_max = f.from_bits(f.max_finite_bits + 1);
  if (f.has_inf) {
    EXPECT_EQ(above_max, kInf);
  } else {
    EXPECT_TRUE(std::isnan(above_max));
  }
  EXPECT_EQ(f.to_bits(1.0), f.one_bits);
  EXPECT_EQ(f.to_bits(f.max_finite), f.max_finite_bits);
  EXPECT_EQ(f.to_bits(f.min_subnormal), 1u);
}

TEST_P(SmallFloatTest, EveryPatternRoundTrips) {
  int nan_count = 0;
  for (std::uint32_t bits = 0; bits < pattern_count(); ++bits) {
    const double value = f.from_bits(bits);
    if (is_nan_pattern(f, bits)) {
      ++nan_count;
      EXPECT_TRUE(std::isnan(value)) << f.name << " pattern " << bits;
      EXPECT_TRUE(is_nan_pattern(f, f.to_bits(value))) << f.name << " pattern " << bits;
      continue;
    }
    ASSERT_FALSE(std::isnan(value)) << f.name << " pattern " << bits;
    if (std::isinf(value) && f.saturates) {
      // e5m2's inf decodes to inf, but conversions saturate: inf -> max finite.
      ASSERT_EQ(f.to_bits(value), (bits & f.sign_bit) | f.max_finite_bits) << f.name << " value " << value;
      continue;
    }
    ASSERT_EQ(f.to_bits(value), bits) << f.name << " value " << value;
    EXPECT_EQ(std::signbit(value), (bits & f.sign_bit) != 0) << f.name << " pattern " << bits;
  }
  EXPECT_GT(nan_count, 0);
}

TEST_P(SmallFloatTest, PositivePatternsIncreaseAndNegativesMirror) {
  for (std::uint32_t bits = 0; bits < f.max_finite_bits; ++bits) {
    const double a = f.from_bits(bits), b = f.from_bits(bits + 1);
    ASSERT_LT(a, b) << f.name << " pattern " << bits;
    ASSERT_EQ(f.from_bits(bits | f.sign_bit), -a) << f.name << " pattern " << bits;
  }
  // Within a binade of normals the spacing is constant: 1.0 to 2.0 holds 2^m values.
  std::uint32_t count = 0;
  for (std::uint32_t bits = f.one_bits; f.from_bits(bits) < 2.0; ++bits) ++count;
  EXPECT_EQ(count & (count - 1), 0u) << "not a power of two: " << count;
  EXPECT_EQ(f.from_bits(f.one_bits + 1) - 1.0, 1.0 / count);
}

// For every pair of neighbours a < b: (a+b)/2 rounds to the one with the even
// pattern, the doubles just below and above it round to a and b, for both signs.
TEST_P(SmallFloatTest, MidpointsRoundToEvenAndNeighboursToNearest) {
  for (std::uint32_t bits = 0; bits < f.max_finite_bits; ++bits) {
    const double a = f.from_bits(bits), b = f.from_bits(bits + 1);
    const double mid = (a + b) / 2;  // exact: a and b have few significant bits
    ASSERT_EQ(mid - a, b - mid);
    const std::uint32_t even = (bits % 2 == 0) ? bits : bits + 1;
    const double below = std::nextafter(mid, 0.0), above = std::nextafter(mid, kInf);
    ASSERT_EQ(f.to_bits(mid), even) << f.name << " midpoint " << mid;
    ASSERT_EQ(f.to_bits(below), bits) << f.name << " below " << mid;
    ASSERT_EQ(f.to_bits(above), bits + 1) << f.name << " above " << mid;
    ASSERT_EQ(f.to_bits(-mid), even | f.sign_bit) << f.name << " midpoint " << -mid;
    ASSERT_EQ(f.to_bits(-below), bits | f.sign_bit) << f.name << " below " << -mid;
    ASSERT_EQ(f.to_bits(-above), (bits + 1) | f.sign_bit) << f.name << " above " << -mid;
    // A quarter of the way from a to b is nearer a; three quarters is nearer b.
    ASSERT_EQ(f.to_bits(a + (b - a) / 4), bits);
    ASSERT_EQ(f.to_bits(b - (b - a) / 4), bits + 1);
  }
}

TEST_P(SmallFloatTest, BeyondMax) {
  const double ulp = f.max_finite - f.from_bits(f.max_finite_bits - 1);
  const double half_past = f.max_finite + ulp / 2;  // the midpoint to the next binade
  const std::uint32_t inf_bits = f.max_finite_bits + 1;
  const double cases[] = {half_past, std::nextafter(half_past, kInf), f.max_finite * 4, 1e300, kInf};
  for (double v : cases) {
    if (f.saturates) {
      EXPECT_EQ(f.to_bits(v), f.max_finite_bits) << f.name << " " << v;
      EXPECT_EQ(f.to_bits(-v), f.max_finite_bits | f.sign_bit) << f.name << " " << -v;
    } else {
      EXPECT_EQ(f.to_bits(v), inf_bits) << f.name << " " << v;
      EXPECT_EQ(f.to_bits(-v), inf_bits | f.sign_bit) << f.name << " " << -v;
    }
  }
  // Just below the midpoint still rounds to max.
  EXPECT_EQ(f.to_bits(std::nextafter(half_past, 0.0)), f.max_finite_bits);
  EXPECT_EQ(f.to_bits(-std::nextafter(half_past, 0.0)), f.max_finite_bits | f.sign_bit);
  // Between max and the midpoint rounds down for every format.
  EXPECT_EQ(f.to_bits(f.max_finite + ulp / 4), f.max_finite_bits);
}

TEST_P(SmallFloatTest, SignedZeroAndUnderflow) {
  EXPECT_EQ(f.to_bits(0.0), 0u);
  EXPECT_EQ(f.to_bits(-0.0), f.sign_bit);
  EXPECT_TRUE(std::signbit(f.from_bits(f.sign_bit)));
  EXPECT_EQ(f.from_bits(f.sign_bit), 0.0);
  EXPECT_FALSE(std::signbit(f.from_bits(0)));
  const double tiny[] = {f.min_subnormal / 2, f.min_subnormal / 4, 1e-300, std::numeric_limits<double>::denorm_min()};
  for (double v : tiny) {
    EXPECT_EQ(f.to_bits(v), 0u) << f.name << " " << v;
    EXPECT_EQ(f.to_bits(-v), f.sign_bit) << f.name << " " << -v;
  }
  EXPECT_EQ(f.to_bits(std::nextafter(f.min_subnormal / 2, 1.0)), 1u);
  EXPECT_EQ(f.to_bits(f.min_subnormal * 1.5), 2u);  // tie between 1 and 2: even
  EXPECT_EQ(f.to_bits(f.min_subnormal * 2.5), 2u);  // tie between 2 and 3: even
  // The largest subnormal rounds up into the smallest normal at its midpoint.
  const double largest_subnormal = f.min_normal - f.min_subnormal;
  EXPECT_EQ(f.to_bits(largest_subnormal + f.min_subnormal / 2), f.min_normal_bits);
}

TEST_P(SmallFloatTest, NaNStaysNaN) {
  EXPECT_TRUE(is_nan_pattern(f, f.to_bits(kNaN)));
  EXPECT_TRUE(is_nan_pattern(f, f.to_bits(-kNaN)));
  EXPECT_TRUE(std::isnan(f.from_bits(f.to_bits(kNaN))));
}

std::string format_name(const ::testing::TestParamInfo<int>& info) { return all_small_floats(info.param).name; }

INSTANTIATE_TEST_SUITE_P(Formats, SmallFloatTest, ::testing::Range(0, 4), format_name);

}  // namespace
}  // namespace epigemm::ir::testing
