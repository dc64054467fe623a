// Dead-code elimination: keeps only the nodes some Store depends on. The
// parameter and output lists stay as they are, so slots keep their meaning.
#include <vector>

#include "passes/dag_rewrite.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {

ir::Dag eliminate_dead_code(const ir::Dag& dag) {
  detail::Rewrite rewrite(dag);
  std::vector<ir::NodeId> work;
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const bool is_store = dag.nodes[i].kind == ir::NodeKind::Store;
    rewrite.keep[i] = is_store;
    if (is_store) work.push_back(static_cast<ir::NodeId>(i));
  }
  while (!work.empty()) {
    const ir::NodeId id = work.back();
    work.pop_back();
    for (ir::NodeId in : dag.node(id).inputs) {
      auto index = static_cast<std::size_t>(in);
      if (rewrite.keep.at(index)) continue;
      rewrite.keep[index] = true;
      work.push_back(in);
    }
  }
  return detail::apply_rewrite(dag, rewrite);
}

}  // namespace epigemm::passes
