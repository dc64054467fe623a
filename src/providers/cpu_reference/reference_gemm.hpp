// The reference GEMM: every product and sum in double, the result rounded
// once to the accumulator type.
#pragma once

#include <vector>

#include "api/problem.hpp"

namespace epigemm::detail {

/// accum[(l * M + m) * N + n] for the whole problem, rounded to the
/// accumulator dtype (i32 wraps modulo 2^32 as integer tensor cores do).
std::vector<double> reference_gemm(const Problem& problem);

}  // namespace epigemm::detail
