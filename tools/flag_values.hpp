// Strict readers for flag values: integers, numbers, dtypes, problem
// extents, tile and cluster shapes, `NAME=VALUE` assignments. Each names
// the flag and the text at fault in the UsageError it throws.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "epigemm/dtype.hpp"
#include "epigemm/operator.hpp"

namespace epigemm::cli {

/// A whole decimal number in [lo, hi].
std::int64_t parse_integer(std::string_view flag, std::string_view text, std::int64_t lo, std::int64_t hi);

/// A finite or infinite decimal number ("2", "-0.5", "1e-3", "inf").
double parse_number(std::string_view flag, std::string_view text);

/// One of the names parse_dtype() accepts.
DType parse_dtype_value(std::string_view flag, std::string_view text);

/// The extents of --mnkl.
struct Mnkl {
  std::int64_t M = 0, N = 0, K = 0, L = 0;
};
/// "M,N,K,L": four positive integers whose products fit in int64.
Mnkl parse_mnkl(std::string_view flag, std::string_view text);

/// "MxNxK", e.g. "128x256x64".
TileShape parse_tile(std::string_view flag, std::string_view text);
/// "MxN", e.g. "2x1".
ClusterShape parse_cluster(std::string_view flag, std::string_view text);

/// `text` must be one of `choices`; returns it.
std::string parse_choice(std::string_view flag, std::string_view text, std::initializer_list<std::string_view> choices);

/// A name as the epilogue language spells one: [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(std::string_view text) noexcept;

/// "NAME=VALUE" split at the first '='; NAME must be an identifier and VALUE
/// non-empty. `shape` describes the expected form in messages.
std::array<std::string, 2> parse_assignment(std::string_view flag, std::string_view text, std::string_view shape);

/// The dtype names shown in messages: "f32, tf32, f16, ...".
std::string dtype_names();

}  // namespace epigemm::cli
