// The simt provider: a plain tiled CUDA-core GEMM (kernels/simt_gemm.cuh)
// with the generated epilogue, for every dtype, layout and size on any GPU
// of compute capability 7.0 or newer. Correctness first: the GPU oracle.
// And the sm80 provider, the same operator over the mma.sync template.
#pragma once

#include <memory>

#include "api/operator_impl.hpp"

namespace epigemm::detail {

/// The provider named "simt": one operator (metadata provider "simt",
/// tile 64x64x16, min_sm 70) for every target_sm >= 70, none otherwise.
std::shared_ptr<Provider> make_simt_provider();

/// The provider named "sm80": mma.sync tensor cores (kernels/sm80_gemm.cuh)
/// for f16/bf16 A and B of any layout, stride and element alignment, with
/// the generated epilogue; one operator (tile 128x128x32, min_sm 80) for
/// every target_sm >= 80. It shares the simt provider's operator and checks
/// (providers/simt/tiled_operator.hpp); the sm90 operators rank above it and
/// simt below.
std::shared_ptr<Provider> make_sm80_provider();

/// The SM version of the calling thread's current CUDA device (device 0
/// when no context is current), or 0 without a driver or device: a query
/// for ProviderRegistry::set_device_target_sm_query.
int current_device_target_sm() noexcept;

}  // namespace epigemm::detail
