// LtAnchor: cuBLASLt descriptors for row-major problems. cuBLASLt is
// column-major, so D (M, N) row-major is computed as D^T = B^T A^T: cuBLASLt's
// "A" is our B and its "B" is our A, with m = N and n = M.
#include "lt_anchor.hpp"

#include <cmath>

#include "cuda_check.hpp"

namespace epigemm::bench {

cudaDataType_t cuda_data_type(DType dtype) {
  switch (dtype) {
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
    case DType::f32: case DType::tf32: return CUDA_R_32F;  // tf32: f32 storage
    case DType::i8: return CUDA_R_8I;
    case DType::u8: return CUDA_R_8U;
    case DType::i32: return CUDA_R_32I;
    case DType::e4m3: return CUDA_R_8F_E4M3;
    case DType::e5m2: return CUDA_R_8F_E5M2;
    default: throw BenchError("no cuBLASLt data type for " + std::string(to_string(dtype)));
  }
}

namespace {

template <typename T>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value));
}

}  // namespace

LtAnchor::LtAnchor(cublasLtHandle_t handle, const LtAnchorConfig& config, void* workspace,
                   std::size_t workspace_bytes)
    : handle_(handle), config_(config), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  try {
    build();
  } catch (...) {
    release();
    throw;
  }
}

void LtAnchor::build() {
  const LtAnchorConfig& config = config_;
  const Shape& s = config.shape;
  const bool fp8 = is_fp8(config.ab);
  const bool k_major = config.b_col_major || k_major_b(config.ab);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale_type = CUDA_R_32F;
  if (config.ab == DType::tf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (is_integer(config.ab)) {
    // int32 compute takes int32 alpha and beta.
    compute = CUBLAS_COMPUTE_32I;
    scale_type = CUDA_R_32I;
    if (std::nearbyint(config.alpha) != config.alpha || std::nearbyint(config.beta) != config.beta) {
      throw BenchError("cuBLASLt's int32 compute needs integer alpha and beta");
    }
    alpha_i32_ = static_cast<std::int32_t>(config.alpha);
    beta_i32_ = static_cast<std::int32_t>(config.beta);
    integer_scales_ = true;
  }
  BENCH_CUBLAS(cublasLtMatmulDescCreate(&desc_, compute, scale_type));
  // NOTE: fp8, tf32 and int8 need both operands K-major ("TN"): cuBLASLt's A
  // is our column-major B viewed as K x N (ld K), transposed. A column-major
  // 16-bit B (an nn.Linear weight (N, K)) takes the same path.
  const cublasOperation_t trans_a = k_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = CUBLAS_OP_N;
  set_desc(desc_, CUBLASLT_MATMUL_DESC_TRANSA, trans_a);
  set_desc(desc_, CUBLASLT_MATMUL_DESC_TRANSB, trans_b);
  if (config.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    set_desc(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, config.epilogue);
    if (config.bias != nullptr) set_desc(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, config.bias);
  }
  if (fp8) {
    if (config.a_scale != nullptr) set_desc(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, config.a_scale);
    if (config.b_scale != nullptr) set_desc(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, config.b_scale);
    if (config.d_scale != nullptr) set_desc(desc_, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, config.d_scale);
    if (config.amax_d != nullptr) set_desc(desc_, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, config.amax_d);
    const std::int8_t fast = config.fast_accumulation ? 1 : 0;
    set_desc(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast);
  }

  const cudaDataType_t ab = cuda_data_type(config.ab);
  if (k_major) {
    BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&a_, ab, s.k, s.n, s.k));
  } else {
    BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&a_, ab, s.n, s.k, s.n));
  }
  BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&b_, ab, s.k, s.m, s.k));
  BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&c_, cuda_data_type(config.c_dtype), s.n, s.m, s.n));
  BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&d_, cuda_data_type(config.d_dtype), s.n, s.m, s.n));

  cublasLtMatmulPreference_t preference = nullptr;
  BENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
  const std::uint64_t max_workspace = workspace_bytes_;
  BENCH_CUBLAS(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &max_workspace, sizeof max_workspace));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, d_, preference, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
    throw BenchError("cuBLASLt heuristic found no algorithm (status " + std::to_string(static_cast<int>(status)) +
                     ") for " + std::string(to_string(config.ab)) + " " + s.label());
  }
  algo_ = result.algo;
}

LtAnchor::~LtAnchor() { release(); }

void LtAnchor::release() noexcept {
  if (d_ != nullptr) cublasLtMatrixLayoutDestroy(d_);
  if (c_ != nullptr) cublasLtMatrixLayoutDestroy(c_);
  if (b_ != nullptr) cublasLtMatrixLayoutDestroy(b_);
  if (a_ != nullptr) cublasLtMatrixLayoutDestroy(a_);
  if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
  a_ = b_ = c_ = d_ = nullptr;
  desc_ = nullptr;
}

void LtAnchor::run(cudaStream_t stream) const {
  const void* alpha = integer_scales_ ? static_cast<const void*>(&alpha_i32_) : &config_.alpha;
  const void* beta = integer_scales_ ? static_cast<const void*>(&beta_i32_) : &config_.beta;
  BENCH_CUBLAS(cublasLtMatmul(handle_, desc_, alpha, config_.B, a_, config_.A, b_, beta, config_.C, c_, config_.D,
                              d_, &algo_, workspace_, workspace_bytes_, stream));
}

}  // namespace epigemm::bench
