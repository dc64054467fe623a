// Host mirrors of the kernel argument records in kernels/epilogue_params.cuh
// (EpgOperand, EpgGemmArgs) and the functions that fill them from a Problem
// into a caller-owned byte buffer, allocating nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "api/problem.hpp"

namespace epigemm::codegen {

/// Same layout as EpgOperand: element (l, m, n) is at
/// ptr + l*stride_l + m*stride_m + n*stride_n; ScalarValue inputs use `value`.
struct DeviceOperand {
  std::uint64_t ptr = 0;
  double value = 0.0;
  std::int64_t stride_l = 0, stride_m = 0, stride_n = 0;
};
static_assert(sizeof(DeviceOperand) == 40, "EpgOperand is five 8-byte fields");

/// Same layout as EpgGemmArgs.
struct DeviceGemmArgs {
  std::uint64_t a = 0, b = 0;
  std::int64_t m = 0, n = 0, k = 0, l = 0;
  std::int64_t a_sl = 0, a_sm = 0, a_sk = 0;
  std::int64_t b_sl = 0, b_sk = 0, b_sn = 0;
};
static_assert(sizeof(DeviceGemmArgs) == 96, "EpgGemmArgs is twelve 8-byte fields");

/// Bytes of EpgParams<inputs, outputs> (each array holds at least one record).
constexpr std::size_t epilogue_params_size(int num_inputs, int num_outputs) noexcept {
  return sizeof(DeviceOperand) * static_cast<std::size_t>((num_inputs > 0 ? num_inputs : 1) +
                                                          (num_outputs > 0 ? num_outputs : 1));
}

/// Bytes of EpgParams for the problem's DAG.
std::size_t epilogue_params_size(const detail::Problem& problem) noexcept;

/// Writes EpgParams for `problem` (pointers, strides, scalar values, inputs
/// then outputs) at the start of `out`, which must hold
/// epilogue_params_size(problem) bytes. Allocates nothing.
void fill_epilogue_params(const detail::Problem& problem, std::span<std::byte> out);

/// EpgGemmArgs for `problem`'s A, B and extents.
DeviceGemmArgs gemm_args(const detail::Problem& problem) noexcept;

}  // namespace epigemm::codegen
