// The DAG of the transposed problem (D^T = B^T A^T): M and N trade places,
// so row vectors become column vectors and row reductions column
// reductions, and the other way round. Nothing else depends on the axes.
#include "passes/passes.hpp"

namespace epigemm::passes {

ir::Dag transpose_dag(const ir::Dag& dag) {
  ir::Dag out = dag;
  for (ir::Node& n : out.nodes) {
    if (n.load_kind == ir::LoadKind::Row) {
      n.load_kind = ir::LoadKind::Column;
    } else if (n.load_kind == ir::LoadKind::Column) {
      n.load_kind = ir::LoadKind::Row;
    }
    if (n.store_kind == ir::StoreKind::RowReduce) {
      n.store_kind = ir::StoreKind::ColumnReduce;
    } else if (n.store_kind == ir::StoreKind::ColumnReduce) {
      n.store_kind = ir::StoreKind::RowReduce;
    }
  }
  return out;
}

}  // namespace epigemm::passes
