// The reference epilogue: the DAG interpreted for every element (l, m, n),
// each operation computed in double and rounded to the compute type, each
// output rounded once when stored; reductions combined in double.
#pragma once

#include <vector>

#include "api/problem.hpp"

namespace epigemm::detail {

/// Writes every output of `problem` from the accumulator values `accum`
/// (laid out [(l * M + m) * N + n], already rounded to the accumulator type).
void run_reference_epilogue(const Problem& problem, const std::vector<double>& accum);

}  // namespace epigemm::detail
