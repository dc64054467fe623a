// Checking an operator's outputs against the cpu_reference provider's:
// the tolerance each output dtype gets (exact where integer-valued data makes
// both sides exact), the element-wise comparison with its error measures,
// and the whole check of `epigemm run`.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "host_tensor.hpp"
#include "ir/dag.hpp"
#include "problem_data.hpp"
#include "problem_spec.hpp"

namespace epigemm::cli {

/// How close an output must be to the reference.
struct Tolerance {
  enum class Mode {
    exact,     ///< equal values (NaN equals NaN)
    relative,  ///< |out - ref| <= rtol * max(|ref|, rms(ref))
    fp8_ulp,   ///< out and ref are equal or adjacent values of the fp8 format
    integer,   ///< within 1
  };
  Mode mode = Mode::relative;
  double rtol = 0.0;
  DType dtype = DType::f32;  ///< the output dtype (for fp8_ulp)

  /// "exact", "rtol 1e-3", "1 ulp of e4m3", "+-1".
  std::string describe() const;
};

/// Whether the operator and the reference must agree exactly: integer-valued
/// data, an f32/i32/f64 accumulator, an f32/f64 compute type, and an
/// epilogue (null: none) whose every value is a dyadic number small enough
/// for f32 to hold exactly (checked by propagating bounds through the DAG).
bool results_are_exact(const ProblemSpec& spec, const ir::Dag* dag, InitKind init);

/// The tolerance for an output of dtype `out`: exact when `exact`; else one
/// fp8 ulp for e4m3/e5m2 outputs, +-1 for integer outputs, and otherwise a
/// relative bound from the loosest of the output, accumulator and compute
/// types (f32 1e-5, f16 1e-3, bf16 1e-2; tf32 operands 2e-3; an f16
/// accumulator 1e-3 * sqrt(K)).
Tolerance tolerance_for(DType out, const ProblemSpec& spec, bool exact);

/// The result of comparing one output with its reference.
struct Comparison {
  std::int64_t elements = 0;
  std::int64_t mismatches = 0;
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;  ///< over elements whose reference is not 0
  double rel_l2_error = 0.0;   ///< ||out - ref|| / ||ref|| over finite elements
  std::int64_t first_mismatch = -1;
  double first_out = 0.0, first_ref = 0.0;

  bool passed() const noexcept { return mismatches == 0; }
};

/// Compares two tensors of the same dtype and shape element by element.
Comparison compare(const HostTensor& out, const HostTensor& ref, const Tolerance& tolerance);

/// Computes the reference for `host`'s inputs, compares each output in
/// `host` with it, and prints one table row per output and a verdict line
/// to `out`. `dag` is the operator's bound DAG (null without an epilogue);
/// it decides whether the comparison is exact. Returns whether all passed.
bool check_against_reference(const ProblemSpec& spec, const HostProblem& host, const ir::Dag* dag, InitKind init,
                             std::ostream& out);

}  // namespace epigemm::cli
