// Non-cryptographic hashing for cache keys: a streaming 64/128-bit hasher
// (two multiply-rotate lanes, murmur-style finaliser), FNV-1a for tiny
// compile-time keys, hash combining, and hexadecimal formatting/parsing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace epigemm {

/// A 128-bit digest, e.g. a disk-cache key. Ordered and hashable.
struct Hash128 {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;

  /// 32 lowercase hexadecimal digits, `hi` first.
  std::string hex() const;
  auto operator<=>(const Hash128&) const = default;
};

/// Streaming hasher. Feeding the same bytes in any split gives the same
/// digest. `field()` prefixes the length, so ("ab", "c") and ("a", "bc")
/// hash differently; use it when hashing several strings into one key.
class Hasher {
 public:
  explicit Hasher(std::uint64_t seed = 0) noexcept;

  /// Raw bytes, no length prefix.
  Hasher& bytes(const void* data, std::size_t size) noexcept;
  /// A length-prefixed string.
  Hasher& field(std::string_view text) noexcept;
  /// An integer or enum value, as 8 little-endian bytes.
  template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>)
  Hasher& value(T v) noexcept {
    return u64(static_cast<std::uint64_t>(v));
  }
  Hasher& u64(std::uint64_t v) noexcept;

  /// Digest of everything fed so far; the hasher can keep going afterwards.
  std::uint64_t digest64() const noexcept;
  Hash128 digest128() const noexcept;

 private:
  static constexpr std::size_t kBlock = 16;
  void consume_block(const unsigned char* block) noexcept;

  std::uint64_t lane_a_;
  std::uint64_t lane_b_;
  std::uint64_t total_ = 0;
  unsigned char buffer_[kBlock] = {};
  std::size_t buffered_ = 0;
};

/// One-shot digests of a byte string.
std::uint64_t hash64(std::string_view data, std::uint64_t seed = 0) noexcept;
Hash128 hash128(std::string_view data, std::uint64_t seed = 0) noexcept;

/// Mixes `value` into `seed` (order matters), for keys built from fields.
std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) noexcept;

/// 64-bit FNV-1a; usable at compile time.
constexpr std::uint64_t fnv1a64(std::string_view data) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

/// 16 lowercase hexadecimal digits, zero-padded.
std::string to_hex(std::uint64_t value);
/// Lowercase hexadecimal of arbitrary bytes, two digits per byte.
std::string to_hex(std::string_view bytes);
/// Parses exactly 16 hexadecimal digits (either case); nullopt otherwise.
std::optional<std::uint64_t> parse_hex64(std::string_view text) noexcept;
/// Parses exactly 32 hexadecimal digits (either case); nullopt otherwise.
std::optional<Hash128> parse_hash128(std::string_view text) noexcept;

}  // namespace epigemm

template <>
struct std::hash<epigemm::Hash128> {
  std::size_t operator()(const epigemm::Hash128& h) const noexcept {
    return static_cast<std::size_t>(h.lo ^ (h.hi * 0x9e3779b97f4a7c15ull));
  }
};
