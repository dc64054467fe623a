// The simt provider: a plain tiled CUDA-core GEMM (kernels/simt_gemm.cuh)
// with the generated epilogue, for every dtype, layout and size on any GPU
// of compute capability 7.0 or newer. Correctness first: the GPU oracle.
#pragma once

#include <memory>

#include "api/operator_impl.hpp"

namespace epigemm::detail {

/// The provider named "simt": one operator (metadata provider "simt",
/// tile 64x64x16, min_sm 70) for every target_sm >= 70, none otherwise.
std::shared_ptr<Provider> make_simt_provider();

/// The SM version of the calling thread's current CUDA device (device 0
/// when no context is current), or 0 without a driver or device: a query
/// for ProviderRegistry::set_device_target_sm_query.
int current_device_target_sm() noexcept;

}  // namespace epigemm::detail
