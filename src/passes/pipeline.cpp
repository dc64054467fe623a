// The pass pipeline: bind shapes, infer types, fold constants, CSE, DCE, with
// the verifier run between passes on request so a broken pass is caught at
// the pass that broke the DAG.
#include "ir/verifier.hpp"
#include "passes/passes.hpp"

namespace epigemm::passes {

ir::Dag run_pipeline(const ir::Dag& raw, const std::map<std::string, Binding>& bindings, ProblemExtents extents,
                     DType accumulator, DType compute, bool verify_each) {
  auto check = [verify_each](const ir::Dag& dag, ir::Stage stage) {
    if (verify_each) ir::verify(dag, stage);
  };
  check(raw, ir::Stage::raw);
  ir::Dag dag = bind_shapes(raw, bindings, extents);
  check(dag, ir::Stage::bound);
  dag = infer_types(dag, accumulator, compute);
  check(dag, ir::Stage::typed);
  dag = fold_constants(dag);
  check(dag, ir::Stage::typed);
  dag = eliminate_common_subexpressions(dag);
  check(dag, ir::Stage::typed);
  dag = eliminate_dead_code(dag);
  check(dag, ir::Stage::typed);
  return dag;
}

}  // namespace epigemm::passes
