// Helpers of the sm90 GPU tests on top of GpuProblem: the skip rule (no
// device, or not an sm_90 one), sm90 queries with an optional pinned tile
// configuration, the configurations to cover, row-padded strides that TMA accepts for odd extents, catalog
// cases with padded tiles, and a run of the chosen sm90 operator against
// cpu_reference with outputs poisoned twice.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>

#include "gpu/gpu_problem.hpp"
#include "providers/sm90/sm90_tile_config.hpp"

namespace epigemm::testing {

/// Skips the calling test without a CUDA device, or when the device is not
/// sm_90; else makes device 0 current and names the driver `driver_var`.
#define EPIGEMM_REQUIRE_SM90(driver_var)                                                          \
  EPIGEMM_REQUIRE_GPU(driver_var);                                                                \
  if (device_target_sm() != 90) GTEST_SKIP() << "not an sm_90 device (sm_" << device_target_sm() << ")"

/// Only the sm90 provider; `filter` (if any) pins configurations.
inline OperatorQuery sm90_query(std::function<bool(const OperatorMetadata&)> filter = nullptr) {
  OperatorQuery query;
  query.target_sm = 90;
  query.providers = {"sm90"};
  query.metadata_filter = std::move(filter);
  return query;
}

/// A filter keeping the configurations of `c`'s shape, schedule and k-blocks
/// per stage, for either operand class (the problem's dtypes pick the one
/// that supports it).
inline std::function<bool(const OperatorMetadata&)> pin_shape(const detail::Sm90TileConfig& c) {
  const std::string schedule = c.pingpong ? "pingpong" : "cooperative";
  return [=](const OperatorMetadata& md) {
    const auto group = md.extra.find("k_blocks_per_stage");
    const int k_group = group == md.extra.end() ? 1 : std::stoi(group->second);
    const bool d_column_major = md.extra.at("d_store").starts_with("column");
    return md.tile.m == c.bm && md.tile.n == c.bn && md.cluster.m == c.cluster_m &&
           md.extra.at("schedule") == schedule && k_group == c.k_group && d_column_major == c.d_column_major;
  };
}

/// A filter keeping the cooperative configuration of tile bm x bn and cluster cm x 1.
inline std::function<bool(const OperatorMetadata&)> pin_tile(int bm, int bn, int cm) {
  return pin_shape(detail::Sm90TileConfig{.bm = bm, .bn = bn, .cluster_m = cm});
}

/// A filter keeping exactly the operator of tile configuration `c`.
inline std::function<bool(const OperatorMetadata&)> pin_config(const detail::Sm90TileConfig& c) {
  return [name = detail::sm90_metadata(c).name](const OperatorMetadata& md) { return md.name == name; };
}

/// Every tile configuration offered for 16-bit operands (tests run on each),
/// but the grouped-k ones, which take only K-major operands and whole
/// k-blocks (sm90_grouped_k_test.cpp tests those), and those that write D
/// column-major (`d_column_major` true: those alone; sm90_column_major_d_test.cpp).
/// EPIGEMM_TEST_TILES=TEXT keeps only those whose shape name
/// ("192x96x64_c1x1") contains TEXT: a new tile's run through every test
/// that covers each configuration.
inline std::vector<detail::Sm90TileConfig> bits16_tile_configs(bool d_column_major = false) {
  const char* only = std::getenv("EPIGEMM_TEST_TILES");
  std::vector<detail::Sm90TileConfig> out;
  for (const detail::Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.operands != detail::Sm90OperandClass::bits16 || c.k_group != 1 || c.d_column_major != d_column_major)
      continue;
    if (only == nullptr || c.shape_name().find(only) != std::string::npos) out.push_back(c);
  }
  return out;
}

/// Whether fp8 A/B have a configuration of `c`'s shape, schedule and k-blocks
/// per stage (what pin_shape keeps); some 16-bit shapes have none.
inline bool fp8_has_shape_of(const detail::Sm90TileConfig& c) {
  for (const detail::Sm90TileConfig& f : detail::sm90_tile_configs()) {
    if (f.operands == detail::Sm90OperandClass::fp8 && f.bm == c.bm && f.bn == c.bn &&
        f.cluster_m == c.cluster_m && f.pingpong == c.pingpong && f.k_group == c.k_group) {
      return true;
    }
  }
  return false;
}

/// The grouped-k tile configurations of an operand class.
inline std::vector<detail::Sm90TileConfig> grouped_k_tile_configs(
    detail::Sm90OperandClass operands = detail::Sm90OperandClass::bits16) {
  std::vector<detail::Sm90TileConfig> out;
  for (const detail::Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.k_group > 1 && c.operands == operands) out.push_back(c);
  }
  return out;
}

/// A test case's extents, and how SCOPED_TRACE names them.
struct Extents {
  std::int64_t L, M, N, K;
};

inline std::string describe(const Extents& e) {
  return "L M N K = " + std::to_string(e.L) + " " + std::to_string(e.M) + " " + std::to_string(e.N) + " " +
         std::to_string(e.K);
}

/// Strides of a row-major (..., R, C) tensor whose rows start 16 bytes apart.
inline Dims padded_rows(DType dtype, const Dims& shape) {
  const std::int64_t per16 = 16 / size_bytes(dtype);
  const int r = shape.size();
  const std::int64_t pitch = (shape[r - 1] + per16 - 1) / per16 * per16;
  if (r == 2) return {pitch, 1};
  return {shape[r - 2] * pitch, pitch, 1};
}

/// Strides of a column-major (..., R, C) tensor whose columns start 16 bytes apart.
inline Dims padded_columns(DType dtype, const Dims& shape) {
  const std::int64_t per16 = 16 / size_bytes(dtype);
  const int r = shape.size();
  const std::int64_t pitch = (shape[r - 2] + per16 - 1) / per16 * per16;
  if (r == 2) return {1, pitch};
  return {shape[r - 1] * pitch, 1, pitch};
}

/// A (L, M, K) and B (L, K, N), padded for TMA: A row-major (K-major) or
/// column-major, B row-major or column-major (K-major).
inline void add_padded_ab(GpuProblem& p, DType a, DType b, std::int64_t L, std::int64_t M, std::int64_t N,
                          std::int64_t K, bool a_k_major = true, bool b_k_major = false) {
  const Dims sa{L, M, K}, sb{L, K, N};
  p.add("A", a, sa, a_k_major ? padded_rows(a, sa) : padded_columns(a, sa));
  p.add("B", b, sb, b_k_major ? padded_columns(b, sb) : padded_rows(b, sb));
}

/// Whether `name` appears in the source's return statement.
inline bool returned_by(const std::string& source, const std::string& name) {
  const auto at = source.rfind("return");
  if (at == std::string::npos) return false;
  std::string tail = source.substr(at + 6);
  for (char& c : tail) {
    if (c == ',' || c == '\n' || c == ';') c = ' ';
  }
  return (" " + tail + " ").find(" " + name + " ") != std::string::npos;
}

/// Every operand of a catalog case for (L, M, N); full tiles get padded
/// rows (D must have them for TMA; the others exercise strided loads).
inline void add_padded_case(GpuProblem& p, const EpilogueCase& c, std::int64_t L, std::int64_t M, std::int64_t N) {
  p.set_source(c.source);
  for (const CatalogOperand& op : c.operands) {
    if (op.shape == OperandShape::scalar) {
      p.scalar(op.name, op.value);
      continue;
    }
    const Dims dims = operand_dims(op.shape, L, M, N);
    const bool output = op.name == "D" || is_output_shape(op.shape) || returned_by(c.source, op.name);
    const bool tile = op.shape == OperandShape::tile || op.shape == OperandShape::tile_shared;
    p.add(op.name, op.dtype, dims, tile ? padded_rows(op.dtype, dims) : Dims{}, output);
  }
}

/// The value of f32 output `name` at element `index` as the GPU last wrote it.
inline double got_value(GpuProblem& p, const std::string& name, std::int64_t index = 0) {
  const TensorRef& got = p.operand(name).got->ref();
  return ir::decode(DType::f32, static_cast<const char*>(got.data) + index * 4);
}

/// The candidates of the sm90 provider for the device problem, best first.
inline std::vector<OperatorCandidate> sm90_candidates(const GpuProblem& p, DType accumulator, DType compute,
                                                      std::function<bool(const OperatorMetadata&)> filter = nullptr) {
  return explain_operators(p.args(true, accumulator, compute), sm90_query(std::move(filter)));
}

/// Runs the first sm90 operator the query admits (it must support the
/// problem) twice with two poison patterns and compares every output with
/// cpu_reference. Returns the operator's name.
inline std::string run_sm90_and_compare(GpuProblem& p, DType accumulator = DType::f32, DType compute = DType::f32,
                                        std::function<bool(const OperatorMetadata&)> filter = nullptr) {
  const GemmArguments args = p.args(true, accumulator, compute);
  const auto candidates = explain_operators(args, sm90_query(std::move(filter)));
  if (candidates.empty()) {
    ADD_FAILURE() << "no sm90 operator admitted by the query";
    return "";
  }
  if (!candidates.front().status) {
    ADD_FAILURE() << "sm90 refused: " << candidates.front().status.reason();
    return "";
  }
  Operator op = candidates.front().op;
  p.run_and_compare(op, accumulator, compute);
  return op.name();
}

}  // namespace epigemm::testing
