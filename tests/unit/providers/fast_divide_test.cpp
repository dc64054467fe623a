// The kernels' division by launch-constant divisors (kernels/fast_divide.cuh,
// compiled here for the host): every quotient matches the plain division.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "fast_divide.cuh"

namespace epigemm::testing {
namespace {

using sm90::FastDivisor;
using sm90::fast_divide;
using sm90::make_fast_divisor;

TEST(FastDivide, MatchesDivisionForSmallDivisorsAndDividends) {
  for (unsigned d = 1; d <= 300; ++d) {
    const FastDivisor f = make_fast_divisor(d);
    for (unsigned n = 0; n < 70000; ++n) ASSERT_EQ(fast_divide(n, f.magic, f.shift), n / d) << n << " / " << d;
  }
}

/// Quotients of dividends next to multiples of d, the largest dividend and
/// random ones, all below 2^31.
void expect_divides(unsigned d, std::mt19937_64& rng) {
  const FastDivisor f = make_fast_divisor(d);
  const auto check = [&](std::uint64_t n) {
    if (n >= (1u << 31)) return;
    ASSERT_EQ(fast_divide(static_cast<unsigned>(n), f.magic, f.shift), static_cast<unsigned>(n) / d) << n << " / " << d;
  };
  check((1u << 31) - 1);
  for (std::uint64_t q : {std::uint64_t{1}, std::uint64_t{2}, ((1u << 31) - 1) / std::uint64_t{d}}) {
    check(q * d - 1);
    check(q * d);
    check(q * d + 1);
  }
  std::uniform_int_distribution<unsigned> dividend(0, (1u << 31) - 1);
  for (int j = 0; j < 64; ++j) check(dividend(rng));
}

TEST(FastDivide, MatchesDivisionNearPowersOfTwoAndForRandomDivisors) {
  std::mt19937_64 rng(20261201);
  for (unsigned s = 1; s <= 31; ++s)
    for (unsigned d : {(1u << s) - 1, 1u << s, (1u << s) + 1})
      if (d <= (1u << 31)) expect_divides(d, rng);
  std::uniform_int_distribution<unsigned> divisor(1, 1u << 31);
  for (int i = 0; i < 4000; ++i) expect_divides(divisor(rng), rng);
}

TEST(FastDivide, PowersOfTwoShiftOnly) {
  for (unsigned s = 0; s <= 31; ++s) {
    const FastDivisor f = make_fast_divisor(1u << s);
    EXPECT_EQ(f.shift, s);
    EXPECT_EQ(f.magic, 1u);  // (2^s - d) = 0
  }
}

}  // namespace
}  // namespace epigemm::testing
