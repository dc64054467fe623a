// Strict readers for flag values. Every reader consumes the whole text (no
// trailing junk), checks ranges and overflow, and throws UsageError naming
// the flag, the text and the expected form.
#include "flag_values.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "flag_set.hpp"

namespace epigemm::cli {
namespace {

std::string quote(std::string_view text) { return "'" + std::string(text) + "'"; }

[[noreturn]] void fail(std::string_view flag, std::string_view text, std::string_view expected) {
  throw UsageError("--" + std::string(flag) + ": expected " + std::string(expected) + ", got " + quote(text));
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// A positive extent; "expected" describes the whole value for messages.
std::int64_t positive_part(std::string_view flag, std::string_view whole, std::string_view part,
                           std::string_view expected) {
  std::int64_t v = 0;
  const char* end = part.data() + part.size();
  auto [ptr, ec] = std::from_chars(part.data(), end, v);
  if (part.empty() || ec != std::errc() || ptr != end || v <= 0) fail(flag, whole, expected);
  return v;
}

}  // namespace

std::int64_t parse_integer(std::string_view flag, std::string_view text, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const std::string range = "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi) fail(flag, text, range);
  return v;
}

double parse_number(std::string_view flag, std::string_view text) {
  std::string_view body = text;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  double v = 0.0;
  const char* end = body.data() + body.size();
  auto [ptr, ec] = std::from_chars(body.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    throw UsageError("--" + std::string(flag) + ": " + quote(text) + " is out of the range of a double");
  }
  if (body.empty() || ptr != end || ec != std::errc() || std::isnan(v)) {
    fail(flag, text, "a number (e.g. 2, -0.5, 1e-3)");
  }
  return v;
}

std::string dtype_names() {
  std::string names;
  for (DType d : kAllDTypes) names += (names.empty() ? "" : ", ") + std::string(to_string(d));
  return names;
}

DType parse_dtype_value(std::string_view flag, std::string_view text) {
  if (auto d = parse_dtype(text)) return *d;
  fail(flag, text, "a dtype (" + dtype_names() + ")");
}

Mnkl parse_mnkl(std::string_view flag, std::string_view text) {
  constexpr std::string_view kExpected = "M,N,K,L (four positive integers, e.g. 512,512,512,1)";
  const auto parts = split(text, ',');
  if (parts.size() != 4) fail(flag, text, kExpected);
  Mnkl x;
  x.M = positive_part(flag, text, parts[0], kExpected);
  x.N = positive_part(flag, text, parts[1], kExpected);
  x.K = positive_part(flag, text, parts[2], kExpected);
  x.L = positive_part(flag, text, parts[3], kExpected);
  // Every operand's element count must fit in int64 (and in memory, which
  // allocation checks later).
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto fits = [&](std::int64_t a, std::int64_t b, std::int64_t c) { return a <= kMax / b && a * b <= kMax / c; };
  if (!fits(x.L, x.M, x.K) || !fits(x.L, x.K, x.N) || !fits(x.L, x.M, x.N)) {
    throw UsageError("--" + std::string(flag) + ": " + quote(text) + " is too large (an operand's size overflows)");
  }
  return x;
}

TileShape parse_tile(std::string_view flag, std::string_view text) {
  constexpr std::string_view kExpected = "MxNxK (three positive integers, e.g. 128x128x64)";
  const auto parts = split(text, 'x');
  if (parts.size() != 3) fail(flag, text, kExpected);
  TileShape t;
  t.m = static_cast<int>(std::min<std::int64_t>(positive_part(flag, text, parts[0], kExpected), 1 << 20));
  t.n = static_cast<int>(std::min<std::int64_t>(positive_part(flag, text, parts[1], kExpected), 1 << 20));
  t.k = static_cast<int>(std::min<std::int64_t>(positive_part(flag, text, parts[2], kExpected), 1 << 20));
  return t;
}

ClusterShape parse_cluster(std::string_view flag, std::string_view text) {
  constexpr std::string_view kExpected = "MxN (two positive integers, e.g. 2x1)";
  const auto parts = split(text, 'x');
  if (parts.size() != 2) fail(flag, text, kExpected);
  ClusterShape c;
  c.m = static_cast<int>(std::min<std::int64_t>(positive_part(flag, text, parts[0], kExpected), 1 << 20));
  c.n = static_cast<int>(std::min<std::int64_t>(positive_part(flag, text, parts[1], kExpected), 1 << 20));
  return c;
}

std::string parse_choice(std::string_view flag, std::string_view text,
                         std::initializer_list<std::string_view> choices) {
  std::string listed;
  for (std::string_view c : choices) {
    if (c == text) return std::string(text);
    listed += (listed.empty() ? "" : "|") + std::string(c);
  }
  fail(flag, text, "one of " + listed);
}

bool is_identifier(std::string_view text) noexcept {
  if (text.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(text.front())) return false;
  for (char c : text) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::array<std::string, 2> parse_assignment(std::string_view flag, std::string_view text, std::string_view shape) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) fail(flag, text, shape);
  const std::string_view name = text.substr(0, eq);
  const std::string_view value = text.substr(eq + 1);
  if (!is_identifier(name)) {
    throw UsageError("--" + std::string(flag) + ": " + quote(name) + " in " + quote(text) + " is not a valid name");
  }
  if (value.empty()) fail(flag, text, shape);
  return {std::string(name), std::string(value)};
}

}  // namespace epigemm::cli
