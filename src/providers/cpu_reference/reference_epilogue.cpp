// Interprets the epilogue DAG on the host, element by element.
#include "providers/cpu_reference/reference_epilogue.hpp"

#include <cstdint>

#include "ir/convert.hpp"

namespace epigemm::detail {
namespace {

char* element(const EpilogueOperand& op, std::int64_t l, std::int64_t m, std::int64_t n) {
  const std::int64_t offset = l * op.stride_l + m * op.stride_m + n * op.stride_n;
  return static_cast<char*>(op.tensor->data) + offset * size_bytes(op.dtype);
}

// A reduce output's running values, one per output element, indexed by the
// kept coordinates.
struct Reduction {
  const EpilogueOperand* output;
  bool keep_l, keep_m, keep_n;
  std::vector<double> values;

  std::size_t index(const Problem& p, std::int64_t l, std::int64_t m, std::int64_t n) const {
    const std::int64_t ml = keep_m ? p.M : 1, nl = keep_n ? p.N : 1;
    return static_cast<std::size_t>(((keep_l ? l : 0) * ml + (keep_m ? m : 0)) * nl + (keep_n ? n : 0));
  }
};

Reduction make_reduction(const Problem& p, const EpilogueOperand& out) {
  Reduction r{&out, out.stride_l != 0, out.stride_m != 0, out.stride_n != 0, {}};
  const std::int64_t count = (r.keep_l ? p.L : 1) * (r.keep_m ? p.M : 1) * (r.keep_n ? p.N : 1);
  r.values.assign(static_cast<std::size_t>(count), ir::op_info(out.reduce_op).reduction_identity);
  return r;
}

void write_reduction(const Problem& p, const Reduction& r) {
  for (std::int64_t l = 0; l < (r.keep_l ? p.L : 1); ++l) {
    for (std::int64_t m = 0; m < (r.keep_m ? p.M : 1); ++m) {
      for (std::int64_t n = 0; n < (r.keep_n ? p.N : 1); ++n) {
        ir::encode(r.output->dtype, r.values[r.index(p, l, m, n)], element(*r.output, l, m, n));
      }
    }
  }
}

}  // namespace

void run_reference_epilogue(const Problem& p, const std::vector<double>& accum) {
  const ir::Dag& dag = *p.dag;
  const DType compute = p.compute;
  std::vector<double> value(dag.nodes.size());
  std::vector<Reduction> reductions;
  std::vector<int> reduction_of_slot(p.outputs.size(), -1);
  for (std::size_t j = 0; j < p.outputs.size(); ++j) {
    if (p.outputs[j].store_kind != ir::StoreKind::Tile) {
      reduction_of_slot[j] = static_cast<int>(reductions.size());
      reductions.push_back(make_reduction(p, p.outputs[j]));
    }
  }

  for (std::int64_t l = 0; l < p.L; ++l) {
    for (std::int64_t m = 0; m < p.M; ++m) {
      for (std::int64_t n = 0; n < p.N; ++n) {
        for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
          const ir::Node& node = dag.nodes[i];
          switch (node.kind) {
            case ir::NodeKind::AccFetch:
              value[i] = accum[static_cast<std::size_t>((l * p.M + m) * p.N + n)];
              break;
            case ir::NodeKind::Constant:
              value[i] = ir::round_to(compute, node.value);
              break;
            case ir::NodeKind::Load: {
              const EpilogueOperand& in = p.inputs[node.slot];
              const double raw = in.tensor ? ir::decode(in.dtype, element(in, l, m, n)) : in.value;
              value[i] = ir::round_to(compute, raw);
              break;
            }
            case ir::NodeKind::Compute: {
              double args[3] = {0.0, 0.0, 0.0};
              for (std::size_t a = 0; a < node.inputs.size() && a < 3; ++a) {
                args[a] = ir::round_to(compute, value[node.inputs[a]]);  // accum enters the compute type here
              }
              value[i] = ir::round_to(compute, ir::op_info(node.op).reference(args[0], args[1], args[2]));
              break;
            }
            case ir::NodeKind::Store: {
              const EpilogueOperand& out = p.outputs[node.slot];
              const int r = reduction_of_slot[node.slot];
              if (r < 0) {
                // A Store fed by AccFetch stores the accumulator value as it is.
                ir::encode(out.dtype, value[node.inputs[0]], element(out, l, m, n));
              } else {
                Reduction& red = reductions[r];
                double& running = red.values[red.index(p, l, m, n)];
                running = ir::op_info(out.reduce_op).reference(running, ir::round_to(compute, value[node.inputs[0]]), 0.0);
              }
              break;
            }
          }
        }
      }
    }
  }
  for (const Reduction& r : reductions) write_reduction(p, r);
}

}  // namespace epigemm::detail
