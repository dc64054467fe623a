// The benchmark's cases: problem shapes, operand dtypes and the six
// epilogues (source text, label, which outputs they write, and their math in
// double precision for spot checks).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "epigemm/dtype.hpp"

namespace epigemm::bench {

/// A GEMM problem M x N x K (D is M x N).
struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  std::string label() const;  ///< "8192^3" or "4096x14336x4096"
  /// Memory-bound decode-like problems (M <= 128): the weight matrix B dominates.
  bool skinny() const noexcept { return m <= 128; }
  double flops() const noexcept { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

enum class EpilogueKind {
  none,          ///< D = accum (no epilogue arguments)
  alpha_beta,    ///< D = alpha*accum + beta*C
  relu_aux,      ///< F = accum*alpha + C*2.0; D = relu(F); return D, F
  gelu_bias,     ///< D = gelu(accum + bias), bias a row vector (N,)
  row_col_bias,  ///< D = accum*alpha + row_bias + col_bias, (N,) and (M, 1)
  scale_amax,    ///< D = accum*scale into e4m3; amax = amax(D); scale a one-element tensor
  /// D = gelu_tanh(accum + bias): not one of the six, but the GELU
  /// that cuBLASLt's GELU_BIAS computes (tanh form), timed beside it.
  gelu_tanh_bias,
};

inline constexpr EpilogueKind kAllEpilogues[] = {EpilogueKind::none,      EpilogueKind::alpha_beta,
                                                 EpilogueKind::relu_aux,  EpilogueKind::gelu_bias,
                                                 EpilogueKind::row_col_bias, EpilogueKind::scale_amax};

/// Short label for tables: "none", "alpha*acc+beta*C", ...
std::string_view epilogue_label(EpilogueKind kind);
/// The epilogue function handed to epigemm (empty for none).
std::string_view epilogue_source(EpilogueKind kind);
/// The dtype D is stored in: e4m3 for scale_amax, else `out`.
DType d_dtype(EpilogueKind kind, DType out);

/// Values the epilogues read, as the host sees them.
struct EpilogueInputs {
  double alpha = 1.0;
  double beta = 0.0;
  double scale = 1.0;
  double c = 0.0;         ///< C[m, n]
  double row_bias = 0.0;  ///< bias[n]
  double col_bias = 0.0;  ///< col_bias[m]
};

/// What an epilogue stores for one element, in double precision: D, and F
/// for relu_aux (else NaN). D before rounding to its dtype.
struct EpilogueValues {
  double d = 0.0;
  double f = 0.0;
};
EpilogueValues reference_epilogue(EpilogueKind kind, double accum, const EpilogueInputs& in);

/// How an fp8 GEMM accumulates, on both sides of a row: epigemm's operator
/// (its metadata's "fp8_accumulation") and cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM.
enum class Fp8Accumulation { fast, precise };

/// How a 16-bit B (K, N) is laid out. row_major: N contiguous, strides
/// (N, 1). col_major: K contiguous, strides (1, K), i.e. B = W^T for an
/// nn.Linear weight W (N, K) stored row-major, as LLM inference multiplies.
enum class BLayout { row_major, col_major };

/// The marker a col_major row carries in its dtype label (and so in its
/// row label, which --only matches).
inline constexpr std::string_view kColMajorBMarker = "B col-major";

/// One problem: operand dtype, shape and the epilogues to run on it.
struct BenchCase {
  DType ab = DType::bf16;
  Shape shape;
  std::vector<EpilogueKind> epilogues;
  Fp8Accumulation fp8_accumulation = Fp8Accumulation::precise;  ///< fp8 operands only
  /// 16-bit operands only: fp8, tf32 and int8 B is K-major whatever this says.
  BLayout b_layout = BLayout::row_major;
  /// Whether B is column-major (K-major): asked for, or forced by the dtype.
  bool b_col_major() const noexcept;
  /// "bf16", "bf16 B col-major", "e4m3 fast-acc", "e4m3 precise-acc" (the
  /// marker only where the layout was asked for, not where the dtype forces it)
  std::string dtype_label() const;
  /// "bf16 8192^3", "bf16 B col-major 16x8192x8192", "e4m3 fast-acc 8192^3"
  std::string label() const;
  /// For fp8 operands the accumulation's metadata value ("fast" or
  /// "precise"), else empty (any operator).
  std::string fp8_accumulation_name() const;
  /// The dtype of D for the 16-bit epilogues and of the anchors' output:
  /// the operand dtype; bf16 for fp8 operands, f32 for tf32, i32 for int8.
  DType out_dtype() const noexcept {
    if (is_fp8(ab)) return DType::bf16;
    if (ab == DType::tf32) return DType::f32;
    return is_integer(ab) ? DType::i32 : ab;
  }
  /// i32 for int8 operands, else f32.
  DType accumulator() const noexcept { return is_integer(ab) ? DType::i32 : DType::f32; }
};

/// Whether B must be K-major (column-major (K, N), strides (1, K)): wgmma
/// and cuBLASLt take fp8, tf32 and int8 operands K-major only.
inline bool k_major_b(DType ab) noexcept { return is_fp8(ab) || ab == DType::tf32 || is_integer(ab); }

/// Every case of the issue: bf16 and f16 at six shapes with all six
/// epilogues (B row-major; bf16 also with gelu_tanh_bias, informational),
/// plus bf16 M = 16 and 128, N = K = 8192 with a
/// column-major B (all six epilogues); fp8 e4m3 8192^3 with none and
/// scale_amax twice: epigemm's and cuBLASLt's fast accumulation, then both precise (each library's default);
/// then fp8 fast at M = 16, N = K = 8192, and tf32 (f32 D) and int8 (i32 D)
/// at 8192^3, 4096^3 and M = 16 with none and alpha_beta (informational
/// rows: the issue sets no target for them).
std::vector<BenchCase> full_suite();
/// Three cases to check the harness end to end: bf16 4096^3, bf16
/// M=16 N=K=8192 (all epilogues), fp8 e4m3 4096^3 (none, scale_amax) with
/// fast accumulation and (none) with precise.
std::vector<BenchCase> quick_suite();
/// bf16 and f16 with B row-major, and bf16 with B column-major, at each
/// of `shapes` with all six epilogues; e4m3 (fast and precise
/// accumulation; none, scale_amax), tf32 and i8 (none, alpha_beta) too
/// (full_suite() at other shapes).
std::vector<BenchCase> custom_suite(const std::vector<Shape>& shapes);
/// Shapes beyond the suite, bf16 with B row-major, all six
/// epilogues: square sizes between the suite's (with rows that are not
/// multiples of 128 or 16 bytes), LLM projections, short K, and skinny M and
/// N. Where the tile heuristic or the kernel trails cuBLASLt shows here.
std::vector<BenchCase> sweep_suite();
/// Parses "MxNxK" (or "S^3"); throws BenchError when it is not one.
Shape parse_shape(const std::string& text);

}  // namespace epigemm::bench
