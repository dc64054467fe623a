// SpotCheck: checks a GEMM's outputs against a double-precision reference
// on a random sample of elements (plus the four corners), and scans every
// element of each output for NaN or infinity (outputs are poisoned first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_cases.hpp"
#include "bench_tensor.hpp"

namespace epigemm::bench {

class SpotCheck {
 public:
  /// What an output should hold at (m, n), given the exact accumulator there.
  using Expected = std::function<double(double accum, std::int64_t m, std::int64_t n)>;

  /// Computes sum_k A[m, k] * B[k, n] in double at `samples` random points
  /// (the corners included) from the host copies of A and B, and for tf32
  /// operands or fp8 fast accumulation the bound on the accumulator's error there.
  SpotCheck(const BenchTensor& A, const BenchTensor& B, const Shape& shape, int samples, std::uint64_t seed,
            bool fast_fp8_accumulation = false);

  /// Starts a new verdict (for the next operator's outputs).
  void reset();
  /// Compares the sampled elements of `got` (downloaded already) with
  /// `want`, within the tolerance of got's dtype plus how far `want` moves
  /// when accum moves by the GEMM's own error bound; counts non-finite
  /// (for integer dtypes: still poisoned) values over the whole tensor.
  void expect(const std::string& name, const BenchTensor& got, const Expected& want);
  /// Checks a one-element amax output against max |d| of the whole stored D
  /// (within e4m3's rounding) and against the sampled reference values.
  void expect_amax(const std::string& name, const BenchTensor& amax, const BenchTensor& d, const Expected& want_d);

  bool passed() const noexcept { return failures_.empty(); }
  /// "PASS" or "FAIL", each followed by what was measured.
  std::string summary() const;
  /// Largest ||got - want|| / ||want|| over the outputs checked since reset().
  double worst_relative_error() const noexcept { return worst_rel_; }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> points_;
  std::vector<double> accum_;
  std::vector<double> accum_error_;  ///< allowed |accum - exact| at each point
  std::vector<std::string> notes_;
  std::vector<std::string> failures_;
  double worst_rel_ = 0.0;
};

/// Allowed |got - want| for a value stored as `dtype` (relative part plus an
/// absolute floor sized for values of order one; zero for integers).
double tolerance(DType dtype, double want);

/// The GEMM's own error bound relative to sum_k |A[m, k] * B[k, n]| for
/// these operands and K: nonzero for tf32 products and for fp8 fast
/// accumulation only (other products are exact in the accumulator, whose f32
/// rounding the output tolerance covers).
double accumulation_error(DType ab, std::int64_t k, bool fast_fp8);

}  // namespace epigemm::bench
