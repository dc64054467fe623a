// CaseData: every operand of one benchmark case (one dtype and shape), on the
// host and the device, filled with fresh random values: A, B, the epilogue
// inputs (C, biases, scale), epigemm's outputs and the anchors' outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "bench_cases.hpp"
#include "bench_tensor.hpp"

namespace epigemm::bench {

struct CaseData {
  /// Allocates and fills what the case's epilogues need. A and B hold
  /// values in +-a with a chosen so that accum has a standard deviation
  /// near 1 (var = K * (a^2 / 3)^2); everything else is of order one.
  /// int8 cases hold integers instead: A and B in -8..8, C in -1000..1000,
  /// alpha and beta small integers, so every result is exact.
  CaseData(const BenchCase& c, std::uint64_t seed);

  BenchCase spec;
  double alpha = 1.0;
  double beta = 1.0;

  BenchTensor A;  ///< (M, K) row-major
  /// (K, N): row-major, or column-major (strides (1, K)) where
  /// spec.b_col_major() (fp8, tf32, int8, and rows marked "B col-major")
  BenchTensor B;
  BenchTensor C;  ///< (M, N) in the output dtype
  BenchTensor row_bias;  ///< (N,)
  BenchTensor col_bias;  ///< (M, 1)
  BenchTensor scale;     ///< (1,) f32, read from device memory
  BenchTensor ones;      ///< (1,) f32 1.0: cuBLASLt's fp8 A and B scales

  BenchTensor D;  ///< epigemm's D in the output dtype
  BenchTensor F;  ///< epigemm's second output of relu_aux
  std::optional<BenchTensor> D8;    ///< epigemm's e4m3 D of scale_amax
  std::optional<BenchTensor> amax;  ///< (1,) f32
  BenchTensor anchor_D;             ///< the anchors' D in the output dtype
  std::optional<BenchTensor> anchor_D8;
  std::optional<BenchTensor> anchor_amax;
  std::optional<DeviceMemory> copy_target;  ///< skinny cases: where B is copied to

  /// Host-side values the epilogue references read at (m, n).
  EpilogueInputs inputs_at(std::int64_t m, std::int64_t n) const;
};

}  // namespace epigemm::bench
