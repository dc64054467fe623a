// The streaming hasher: 16-byte blocks feed two independent multiply-rotate
// lanes; the tail is zero-padded and the total length mixed in, then both
// lanes pass through a murmur-style avalanche.
#include "support/hash.hpp"

#include <bit>
#include <cstring>

namespace epigemm {
namespace {

constexpr std::uint64_t kPrime1 = 0x9e3779b185ebca87ull;
constexpr std::uint64_t kPrime2 = 0xc2b2ae3d27d4eb4full;
constexpr std::uint64_t kPrime3 = 0x165667b19e3779f9ull;
constexpr std::uint64_t kPrime4 = 0x85ebca77c2b2ae63ull;

constexpr char kHexDigits[] = "0123456789abcdef";

std::uint64_t load_le64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint64_t lane_round(std::uint64_t lane, std::uint64_t word) noexcept {
  lane += word * kPrime2;
  lane = std::rotl(lane, 31);
  return lane * kPrime1;
}

// Every input bit affects every output bit with probability about 1/2.
std::uint64_t avalanche(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string Hash128::hex() const { return to_hex(hi) + to_hex(lo); }

Hasher::Hasher(std::uint64_t seed) noexcept
    : lane_a_(seed + kPrime1 + kPrime2), lane_b_(seed ^ kPrime3) {}

void Hasher::consume_block(const unsigned char* block) noexcept {
  lane_a_ = lane_round(lane_a_, load_le64(block));
  lane_b_ = lane_round(lane_b_, load_le64(block + 8));
}

Hasher& Hasher::bytes(const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += size;
  if (buffered_ > 0) {
    std::size_t take = kBlock - buffered_;
    if (take > size) take = size;
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < kBlock) return *this;
    consume_block(buffer_);
    buffered_ = 0;
  }
  while (size >= kBlock) {
    consume_block(p);
    p += kBlock;
    size -= kBlock;
  }
  if (size > 0) {
    std::memcpy(buffer_, p, size);
    buffered_ = size;
  }
  return *this;
}

Hasher& Hasher::u64(std::uint64_t v) noexcept {
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
  return bytes(le, sizeof(le));
}

Hasher& Hasher::field(std::string_view text) noexcept {
  u64(text.size());
  return bytes(text.data(), text.size());
}

Hash128 Hasher::digest128() const noexcept {
  std::uint64_t a = lane_a_;
  std::uint64_t b = lane_b_;
  if (buffered_ > 0) {
    unsigned char tail[kBlock] = {};
    std::memcpy(tail, buffer_, buffered_);
    a = lane_round(a, load_le64(tail));
    b = lane_round(b, load_le64(tail + 8));
  }
  const std::uint64_t length_mix = total_ * kPrime4;
  Hash128 out;
  out.lo = avalanche(a ^ std::rotl(b, 29) ^ length_mix);
  out.hi = avalanche(b + std::rotl(a, 17) + (out.lo ^ kPrime3) * kPrime1);
  return out;
}

std::uint64_t Hasher::digest64() const noexcept { return digest128().lo; }

std::uint64_t hash64(std::string_view data, std::uint64_t seed) noexcept {
  return Hasher(seed).bytes(data.data(), data.size()).digest64();
}

Hash128 hash128(std::string_view data, std::uint64_t seed) noexcept {
  return Hasher(seed).bytes(data.data(), data.size()).digest128();
}

std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) noexcept {
  return avalanche(seed ^ (value * kPrime2 + kPrime1 + std::rotl(seed, 23)));
}

std::string to_hex(std::uint64_t value) {
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHexDigits[value & 0xf];
    value >>= 4;
  }
  return out;
}

std::string to_hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 0xf]);
  }
  return out;
}

std::optional<std::uint64_t> parse_hex64(std::string_view text) noexcept {
  if (text.size() != 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    const int d = hex_value(c);
    if (d < 0) return std::nullopt;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return v;
}

std::optional<Hash128> parse_hash128(std::string_view text) noexcept {
  if (text.size() != 32) return std::nullopt;
  auto hi = parse_hex64(text.substr(0, 16));
  auto lo = parse_hex64(text.substr(16));
  if (!hi || !lo) return std::nullopt;
  return Hash128{*hi, *lo};
}

}  // namespace epigemm
