// The CUDA C++ translation unit of one sm90 kernel: the generated epilogue,
// the fused-epilogue hook and the GEMM template of kernels/, instantiated for
// one tile configuration, operand dtypes and majors, and D's type and slot.
#pragma once

#include <cstdint>
#include <string>

#include "api/problem.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "providers/sm90/sm90_tile_config.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::detail {

/// The entry point that fills reduce outputs with their identity before the
/// GEMM (extern "C"; present only when the epilogue reduces). It takes the
/// simt kernels' argument record (EpgSimtArgs) and 256-thread blocks.
inline constexpr const char kSm90FillKernel[] = "epg_sm90_fill_kernel";
inline constexpr int kSm90FillThreads = 256;

/// The GEMM's name expression, e.g. "epigemm::sm90::gemm_kernel<
/// epigemm::sm90::GemmConfig<__half, __half, __half, epigemm::sm90::Major::K,
/// epigemm::sm90::Major::MN, 128, 256, 3, 2, 4>, EpgSm90Hook<EpgEpilogue, 0, 64, 5ull, 1ull, 0ull, 0ull,
/// false, -1, -1, 0, 0>>".
std::string sm90_kernel_name(const Problem& problem, const Sm90Plan& plan, const Sm90TileConfig& config);

/// The kernel's in-process key: the epilogue's class (codegen's
/// kernel_class_key) and every plan and tile fact that sm90_kernel_name
/// writes, so problems whose kernel names differ never share a key. A new
/// template argument of the kernel must join it.
std::uint64_t sm90_kernel_key(const Problem& problem, const Sm90Plan& plan, const Sm90TileConfig& config) noexcept;

/// The whole source: a header comment with the printed DAG, the generated
/// epilogue, the sm90 headers and (with reductions) the identity fill.
std::string sm90_kernel_source(const Problem& problem, const Sm90Plan& plan, const Sm90TileConfig& config);

/// What KernelLoader needs to build the kernel for sm_90a (source, name
/// expression, options, embedded headers, dynamic shared memory).
runtime::KernelSource sm90_kernel_build(const Problem& problem, const Sm90Plan& plan, const Sm90TileConfig& config);

}  // namespace epigemm::detail
