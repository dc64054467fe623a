// EpilogueProgram: what EpilogueArguments holds after parsing: the raw DAG
// (kept so rebinding needs no parse), the bound and optimised DAG, the
// problem extents taken from D, and a canonical text used as a cache key.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "ir/dag.hpp"
#include "passes/passes.hpp"

namespace epigemm::detail {

struct EpilogueProgram {
  ir::Dag raw;                     ///< lowered from the source, unbound
  ir::Dag dag;                     ///< bound, typed (f32 accum and compute), optimised
  passes::ProblemExtents extents;  ///< from D's shape
  std::string canonical;           ///< the printed DAG: equal text, equal kernel
  std::uint64_t hash = 0;          ///< hash of `canonical`

  /// The DAG typed for another (accumulator, compute) pair than f32/f32,
  /// built once per pair from `raw` and kept. Thread-safe.
  const ir::Dag& dag_for(DType accumulator, DType compute,
                         const std::map<std::string, Binding>& bindings) const;
  /// `typed` (`dag` or one of dag_for's) for the transposed problem, M and
  /// N swapped (passes::transpose_dag), built once per DAG and kept.
  /// Thread-safe.
  const ir::Dag& transposed(const ir::Dag& typed) const;

 private:
  mutable std::mutex cache_mutex_;
  mutable std::map<std::pair<DType, DType>, std::unique_ptr<const ir::Dag>> retyped_;
  mutable std::map<const ir::Dag*, std::unique_ptr<const ir::Dag>> transposed_;
};

}  // namespace epigemm::detail
