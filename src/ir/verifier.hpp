// The DAG verifier: checks the structural invariants that every pass must
// keep, so a broken pass is caught at the pass, not at run time.
#pragma once

#include "ir/dag.hpp"

namespace epigemm::ir {

/// Which invariants hold at a point of the pipeline.
enum class Stage { raw, bound, typed };

/// Throws Error(ErrorKind::Internal) describing the first broken invariant:
/// inputs before users, arities from the op table, exactly one Store per
/// output, Load/Store slots in range, one AccFetch at most;
/// (bound) no reduction Compute left, every Load/Store kind set, reduce
/// Stores carry a reduction op; (typed) dtypes consistent.
void verify(const Dag& dag, Stage stage);

}  // namespace epigemm::ir
