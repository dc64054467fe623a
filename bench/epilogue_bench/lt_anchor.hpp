// LtAnchor: one cuBLASLt matmul on row-major operands, the anchor epigemm is
// compared against (GEMM alone, or cuBLASLt's own fused epilogue: alpha/beta
// with C, BIAS, GELU_BIAS, fp8 with per-tensor scales and amax of D; tf32
// with FAST_TF32 compute; int8 with int32 compute).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "bench_cases.hpp"

namespace epigemm::bench {

/// What the anchor computes. Row-major A (M, K), D and C (M, N); B is
/// row-major (K, N) for 16-bit operands unless b_col_major, and column-major
/// (strides (1, K)) for fp8, tf32 and int8, which cuBLASLt needs K-major.
/// tf32 A/B are f32 data multiplied with CUBLAS_COMPUTE_32F_FAST_TF32; int8 (i8 A/B, i32 C/D)
/// uses CUBLAS_COMPUTE_32I with alpha and beta as int32 (they must be integers).
struct LtAnchorConfig {
  Shape shape;
  DType ab = DType::bf16;
  DType c_dtype = DType::bf16;
  DType d_dtype = DType::bf16;
  const void* A = nullptr;
  const void* B = nullptr;
  bool b_col_major = false;  ///< B column-major (strides (1, K)); always so for fp8, tf32 and int8
  const void* C = nullptr;  ///< may equal D when beta is 0 and the dtypes match
  void* D = nullptr;
  float alpha = 1.0f;
  float beta = 0.0f;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;      ///< (N,) in d_dtype, for BIAS / GELU_BIAS
  const float* a_scale = nullptr;  ///< fp8 only: device scalars
  const float* b_scale = nullptr;
  const float* d_scale = nullptr;  ///< fp8 output only
  float* amax_d = nullptr;         ///< fp8 output only
  bool fast_accumulation = true;   ///< fp8 only
};

class LtAnchor {
 public:
  /// Builds the descriptors and asks cuBLASLt's heuristic for its first
  /// choice. Throws BenchError when cuBLASLt has none.
  LtAnchor(cublasLtHandle_t handle, const LtAnchorConfig& config, void* workspace, std::size_t workspace_bytes);
  LtAnchor(const LtAnchor&) = delete;
  LtAnchor& operator=(const LtAnchor&) = delete;
  ~LtAnchor();

  void run(cudaStream_t stream) const;

 private:
  void build();
  void release() noexcept;

  cublasLtHandle_t handle_;
  LtAnchorConfig config_;
  void* workspace_;
  std::size_t workspace_bytes_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr, d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  bool integer_scales_ = false;  ///< int32 compute: alpha and beta passed as int32
  std::int32_t alpha_i32_ = 0, beta_i32_ = 0;
};

/// cudaDataType for an epigemm dtype (bf16, f16, f32, tf32 (as f32), e4m3,
/// e5m2, i8, u8, i32).
cudaDataType_t cuda_data_type(DType dtype);

}  // namespace epigemm::bench
