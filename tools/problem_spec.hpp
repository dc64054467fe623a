// ProblemSpec: the GEMM and epilogue a command line describes (extents,
// dtypes, layouts, the epilogue source and every binding with its kind,
// shape and dtype), read from the problem flags shared by run, list, dag and
// emit. It owns no memory; problem_data allocates the tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "epigemm/dtype.hpp"
#include "epigemm/tensor.hpp"
#include "flag_set.hpp"

namespace epigemm::cli {

/// What an epilogue name is bound to, by the shape of the tensor:
/// tile (L, M, N), row (N,), col (M, 1), scalar (1,), or a number.
enum class OperandKind { number, tile, row, col, scalar };

/// "number", "tile", "row", "col", "scalar".
std::string_view to_string(OperandKind kind) noexcept;

/// One epilogue parameter or output.
struct OperandSpec {
  std::string name;
  bool output = false;
  OperandKind kind = OperandKind::tile;
  DType dtype = DType::f16;  ///< tensors only
  double number = 0.0;       ///< numbers only
  Dims shape;                ///< tensors only; contiguous row-major
  /// How the binding was chosen: "--scalar", "--tensor", "--output" or
  /// "default".
  std::string origin = "default";
};

struct ProblemSpec {
  std::int64_t M = 512, N = 512, K = 512, L = 1;
  DType ab = DType::f16;
  DType c = DType::f16;
  DType d = DType::f16;
  DType acc = DType::f32;
  DType compute = DType::f32;
  bool a_col_major = false;
  bool b_col_major = false;
  /// D and the epilogue's other tiles column-major (--d-layout col).
  bool d_col_major = false;
  /// The epilogue source; empty when none was given (D = accum).
  std::string source;
  /// Where the source came from, for messages ("--epilogue", a file path).
  std::string source_origin;
  /// Every epilogue binding: parameters in order, then the outputs that are
  /// not parameters, in order. Without an epilogue: just D.
  std::vector<OperandSpec> operands;

  bool has_epilogue() const noexcept { return !source.empty(); }
  /// The operand named D (every problem has one).
  const OperandSpec& d_operand() const;
  /// A's (L, M, K) and B's (L, K, N) strides for the chosen layouts.
  Dims a_strides() const;
  Dims b_strides() const;
  /// An epilogue operand's strides: column-major for tiles with
  /// d_col_major, else empty (row-major).
  Dims strides_of(const OperandSpec& op) const;
  /// 2 * L * M * N * K.
  double flops() const noexcept;
};

/// Declares the problem flags (--mnkl, dtypes, layouts, --epilogue,
/// --epilogue-file, --scalar, --tensor, --output) on `flags`.
void add_problem_flags(FlagSet& flags);

/// The epilogue source from --epilogue or --epilogue-file, and where it came
/// from. Empty when neither is given, unless `required`: then the identity
/// epilogue "D = accum" written as a function.
struct EpilogueSource {
  std::string text;
  std::string origin;
};
EpilogueSource read_epilogue_source(const FlagSet& flags, bool required);

/// Reads the problem flags. Parses the epilogue (an epigemm::Error for a
/// malformed one) to learn its parameters and outputs; throws UsageError for
/// malformed flag values. `epilogue_required` makes a missing epilogue
/// default to "D = accum" written as a function (for `dag`).
ProblemSpec read_problem_spec(const FlagSet& flags, bool epilogue_required = false);

/// "L=1 M=512 N=512 K=512, A f16 row-major, B f16 row-major, accumulator
/// f32, compute f32".
std::string describe_problem(const ProblemSpec& spec);

/// A table of every binding (A, B and the epilogue's), one per line:
/// name, role, kind, shape, dtype, origin.
std::string describe_bindings(const ProblemSpec& spec);

}  // namespace epigemm::cli
