// The one table of epilogue operations: name, arity, reference math and the
// CUDA device function that implements it. The parser, verifier, passes, CPU
// reference and code generators all read this table.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "epigemm/dtype.hpp"

namespace epigemm::ir {

enum class OpCode : std::uint8_t {
  // infix / prefix operators
  add, sub, mul, div, neg, pow, lt, le, gt, ge, eq, ne,
  // elementwise functions
  relu, leaky_relu, sigmoid, tanh, silu, gelu, gelu_tanh, hardswish, elu, softplus,
  exp, log, sqrt, rsqrt, abs, sin, cos, tan, erf, maximum, minimum, clamp, where,
  // casts: round to the type, keep computing in the compute type
  to_f16, to_bf16, to_f32, to_e4m3, to_e5m2, to_i8, to_u8, to_i32,
  // reductions (the output's shape picks row, column or all)
  sum, max, min, amax,
};

enum class OpClass : std::uint8_t { elementwise, cast, reduction };

struct OpInfo {
  OpCode code;
  std::string_view name;    ///< function name in the language ("add" for +)
  std::string_view symbol;  ///< "+", "-", "**", "<", ...; empty for functions
  int min_arity;
  int max_arity;
  /// Values of optional trailing arguments: defaults[i] is argument i's
  /// default (only for i >= min_arity).
  double defaults[3];
  OpClass op_class;
  std::optional<DType> cast_to;  ///< for casts
  /// Exact math in double on up to three operands. For casts, rounds to
  /// cast_to. For reductions, the combine step: (running, x) -> running.
  double (*reference)(double a, double b, double c);
  /// Name of the device function in kernels/epilogue_ops.cuh (float args).
  std::string_view cuda_function;
  /// The neutral start value of a reduction (0 for sum and amax, -inf max, +inf min).
  double reduction_identity;
  /// Calls a transcendental function (exp, log, erf, tanh, sin, ...): long
  /// code per element, which kernels may want to inline fewer times.
  bool transcendental = false;
};

/// Every operation, in OpCode order.
std::span<const OpInfo> all_ops() noexcept;
const OpInfo& op_info(OpCode code) noexcept;
/// A function callable by name in the language (not the infix operators),
/// or null.
const OpInfo* find_function(std::string_view name) noexcept;
/// Known function names closest to `name` (edit distance), best first.
std::vector<std::string> close_function_names(std::string_view name, int max_results = 3);

}  // namespace epigemm::ir
