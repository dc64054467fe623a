// EpilogueProgram: what EpilogueArguments holds after parsing: the raw DAG
// (kept so rebinding needs no parse), the bound and optimised DAG, the
// problem extents taken from D, and a canonical text used as a cache key.
#pragma once

#include <cstdint>
#include <string>

#include "ir/dag.hpp"
#include "passes/passes.hpp"

namespace epigemm::detail {

struct EpilogueProgram {
  ir::Dag raw;                     ///< lowered from the source, unbound
  ir::Dag dag;                     ///< bound, typed (f32 accum and compute), optimised
  passes::ProblemExtents extents;  ///< from D's shape
  std::string canonical;           ///< the printed DAG: equal text, equal kernel
  std::uint64_t hash = 0;          ///< hash of `canonical`
};

}  // namespace epigemm::detail
