// The cpu_reference provider: host tensors, naive GEMM in double, the DAG
// evaluated op by op (each result rounded to the compute type). It is the
// oracle every other provider is tested against.
#pragma once

#include <memory>

#include "api/operator_impl.hpp"

namespace epigemm::detail {

std::shared_ptr<Provider> make_cpu_reference_provider();

}  // namespace epigemm::detail
