// The sm90 provider: the Hopper (sm_90a) GEMM of kernels/sm90_*.cuh with
// the generated epilogue fused into it: TMA, wgmma, warp-specialised
// producer/consumers, persistent tiles, 1x1 and 2x1 clusters.
#pragma once

#include <memory>

#include "api/operator_impl.hpp"

namespace epigemm::detail {

/// The provider named "sm90": for target_sm 90 one operator per tile
/// configuration and operand class (see sm90_tile_configs()), each with
/// metadata provider "sm90", its tile, cluster and stages, min_sm 90; none
/// for any other target.
std::shared_ptr<Provider> make_sm90_provider();

}  // namespace epigemm::detail
