// The DAG of the transposed problem (D^T = B^T A^T): M and N trade places,
// so row vectors become column vectors and row reductions column
// reductions, and the other way round. Nothing else depends on the axes.
#include "passes/passes.hpp"

namespace epigemm::passes {

ir::Dag transpose_dag(const ir::Dag& dag) {
  ir::Dag out = dag;
  for (ir::Node& n : out.nodes) {
    n.load_kind = ir::transposed(n.load_kind);
    n.store_kind = ir::transposed(n.store_kind);
  }
  return out;
}

}  // namespace epigemm::passes
