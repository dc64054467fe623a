// RowResult: one benchmark row (a case and an epilogue): what ran, the
// timings of epigemm and its anchors, the derived ratios and rates, and the
// spot-check verdicts; written as one JSON line for bench/report.py.
#pragma once

#include <cstdint>
#include <string>

#include "bench_cases.hpp"
#include "interleaved_timer.hpp"

namespace epigemm::bench {

struct RowResult {
  std::string dtype;     ///< operand dtype, with its marker ("bf16 B col-major", "e4m3 fast-acc")
  std::string b_layout;  ///< "row-major" or "col-major": how B (K, N) lies in memory
  Shape shape;
  std::string epilogue;  ///< epilogue_label()
  std::string op_name;   ///< the epigemm operator that ran
  std::string provider;
  std::string note;      ///< e.g. why the sm90 provider was not used
  double compile_s = -1.0;
  TimingStats epigemm;   ///< runs == 0 when not timed
  TimingStats gemm;      ///< cuBLASLt GEMM alone (the anchor)
  std::string fused_name;
  TimingStats fused;     ///< cuBLASLt's own fused epilogue, when it has one
  /// cuBLASLt's GELU_BIAS timed in this row as the reference, where
  /// `fused` is another epilogue or missing (16-bit rows past M = 128)
  TimingStats gelu_reference;
  TimingStats copy;      ///< skinny rows: device-to-device copy of B
  double weight_bytes = 0.0;
  bool check_pass = false;
  std::string check;         ///< SpotCheck summary of epigemm's outputs
  bool anchor_pass = true;
  std::string anchor_check;  ///< the anchors' own spot checks
  double rel_error = -1.0;
  std::string error;         ///< set when the row could not run

  /// epigemm time / cuBLASLt GEMM-alone time (NaN when either is missing).
  double ratio_gemm() const;
  /// epigemm time / cuBLASLt fused-epilogue time (NaN when none).
  double ratio_fused() const;
  double tflops() const;       ///< epigemm
  double tflops_gemm() const;  ///< cuBLASLt GEMM alone
  /// Weights bytes / time over the copy's bandwidth (bytes read + written),
  /// for epigemm and for cuBLASLt; NaN unless a copy was timed.
  double bandwidth_fraction() const;
  double bandwidth_fraction_gemm() const;

  /// One JSON object on one line.
  std::string to_json() const;
  /// One human-readable line for the progress log.
  std::string to_line() const;
};

/// A JSON string literal with escapes.
std::string json_string(const std::string& text);

}  // namespace epigemm::bench
