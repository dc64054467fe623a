// Tests of the hashing helpers: published FNV-1a vectors, streaming versus
// one-shot digests, field separation, spread and avalanche on random data,
// and hexadecimal formatting and parsing.
#include <gtest/gtest.h>

#include <bit>
#include <unordered_set>

#include "support/hash.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm {
namespace {

using test_util::random_bytes;
using test_util::rng;

TEST(Fnv1a, MatchesPublishedVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
}

TEST(Hasher, StreamingInAnySplitEqualsOneShot) {
  for (int trial = 0; trial < 200; ++trial) {
    const std::string data = random_bytes(rng()() % 200);
    const Hash128 whole = hash128(data);
    Hasher h;
    std::size_t pos = 0;
    while (pos < data.size()) {
      const std::size_t n = std::min<std::size_t>(rng()() % 23, data.size() - pos);
      h.bytes(data.data() + pos, n);
      pos += n;
    }
    ASSERT_EQ(h.digest128(), whole) << "length " << data.size();
    ASSERT_EQ(h.digest64(), hash64(data));
  }
}

TEST(Hasher, DigestDoesNotEndTheStream) {
  const std::string a = random_bytes(37), b = random_bytes(50);
  Hasher h;
  h.bytes(a.data(), a.size());
  const Hash128 first = h.digest128();
  EXPECT_EQ(first, hash128(a));
  h.bytes(b.data(), b.size());
  EXPECT_EQ(h.digest128(), hash128(a + b));
}

TEST(Hasher, FieldsAreLengthPrefixed) {
  EXPECT_NE(Hasher().field("ab").field("c").digest128(), Hasher().field("a").field("bc").digest128());
  EXPECT_NE(Hasher().field("").field("x").digest128(), Hasher().field("x").field("").digest128());
  // Raw bytes do concatenate.
  EXPECT_EQ(Hasher().bytes("ab", 2).bytes("c", 1).digest128(), Hasher().bytes("a", 1).bytes("bc", 2).digest128());
}

TEST(Hasher, LengthSeedAndValueMatter) {
  EXPECT_NE(hash128(std::string_view("a", 1)), hash128(std::string_view("a\0", 2)));
  EXPECT_NE(hash128(""), hash128(std::string_view("\0", 1)));
  const std::string data = random_bytes(64);
  EXPECT_NE(hash64(data, 1), hash64(data, 2));
  EXPECT_NE(Hasher().value(1).digest64(), Hasher().value(2).digest64());
}

TEST(Hasher, RandomInputsDoNotCollide) {
  std::unordered_set<std::uint64_t> seen64;
  std::unordered_set<Hash128> seen128;
  std::unordered_set<std::string> inputs;
  while (inputs.size() < 20000) inputs.insert(random_bytes(1 + rng()() % 24));
  for (const auto& s : inputs) {
    seen64.insert(hash64(s));
    seen128.insert(hash128(s));
  }
  EXPECT_EQ(seen64.size(), inputs.size());
  EXPECT_EQ(seen128.size(), inputs.size());
}

TEST(Hasher, OneBitFlipChangesAboutHalfTheBits) {
  double total_lo = 0, total_hi = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::string data = random_bytes(1 + rng()() % 80);
    const Hash128 before = hash128(data);
    const std::size_t bit = rng()() % (data.size() * 8);
    data[bit / 8] = static_cast<char>(data[bit / 8] ^ (1 << (bit % 8)));
    const Hash128 after = hash128(data);
    ASSERT_NE(before, after);
    total_lo += std::popcount(before.lo ^ after.lo);
    total_hi += std::popcount(before.hi ^ after.hi);
  }
  EXPECT_NEAR(total_lo / trials, 32.0, 1.5);
  EXPECT_NEAR(total_hi / trials, 32.0, 1.5);
}

TEST(HashCombine, OrderMatters) {
  const std::uint64_t a = rng()(), b = a ^ (rng()() | 1);
  EXPECT_NE(hash_combine(hash_combine(0, a), b), hash_combine(hash_combine(0, b), a));
  EXPECT_NE(hash_combine(7, a), hash_combine(7, b));
}

TEST(Hex, FormatsFixedWidthLowercase) {
  EXPECT_EQ(to_hex(std::uint64_t{0}), "0000000000000000");
  EXPECT_EQ(to_hex(std::uint64_t{0x0123456789ABCDEFull}), "0123456789abcdef");
  EXPECT_EQ(to_hex(std::string_view("\x00\xff\x10", 3)), "00ff10");
  EXPECT_EQ((Hash128{0xfedcba9876543210ull, 0x1ull}.hex()), "fedcba98765432100000000000000001");
}

TEST(Hex, ParsesWhatItFormats) {
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t v = rng()();
    ASSERT_EQ(parse_hex64(to_hex(v)), v);
    const Hash128 h{rng()(), rng()()};
    ASSERT_EQ(parse_hash128(h.hex()), h);
  }
  EXPECT_EQ(parse_hex64("0123456789ABCDEF"), 0x0123456789abcdefull);
}

TEST(Hex, RejectsMalformedText) {
  EXPECT_FALSE(parse_hex64(""));
  EXPECT_FALSE(parse_hex64("123"));
  EXPECT_FALSE(parse_hex64("0123456789abcdeg"));
  EXPECT_FALSE(parse_hex64("0123456789abcdef0"));
  EXPECT_FALSE(parse_hash128("0123456789abcdef"));
  EXPECT_FALSE(parse_hash128("0123456789abcdef0123456789abcde-"));
}

}  // namespace
}  // namespace epigemm
