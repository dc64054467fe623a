// GemmArguments: D = epilogue(A @ B). A is (L, M, K) or (M, K), B is
// (L, K, N) or (K, N), out is (L, M, N) or (M, N); any strides, row- or
// column-major per operand, batch stride 0 for an operand shared by the batch.
#pragma once

#include <optional>

#include "epigemm/dtype.hpp"
#include "epigemm/epilogue.hpp"
#include "epigemm/tensor.hpp"

namespace epigemm {

struct GemmArguments {
  TensorRef A{};
  TensorRef B{};
  TensorRef out{};  ///< the output D (the same tensor as the epilogue's D)
  DType accumulator = DType::f32;
  /// No epilogue means D = accum.
  std::optional<EpilogueArguments> epilogue{};
  /// The type the epilogue computes in.
  DType compute = DType::f32;
};

}  // namespace epigemm
