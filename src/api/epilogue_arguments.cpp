// EpilogueArguments: parse the epilogue, check its bindings against its
// parameters and outputs, and build the bound, optimised DAG.
#include <algorithm>

#include "api/epilogue_program.hpp"
#include "epigemm/epilogue.hpp"
#include "epigemm/error.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "support/hash.hpp"

namespace epigemm {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

// The seed's messages for a missing binding, then any binding the function
// does not name.
void check_bindings(const ir::Dag& raw, const std::map<std::string, Binding>& bindings) {
  for (const auto& names : {raw.params, raw.outputs}) {
    for (const auto& name : names) {
      if (!bindings.count(name)) {
        throw Error(ErrorKind::Binding,
                    "Argument " + name + " is not provided in the kwargs of the EpilogueArguments constructor");
      }
    }
  }
  for (const auto& [name, value] : bindings) {
    (void)value;
    const bool known = std::count(raw.params.begin(), raw.params.end(), name) ||
                       std::count(raw.outputs.begin(), raw.outputs.end(), name);
    if (known) continue;
    if (name == "accum") {
      throw Error(ErrorKind::Binding,
                  "Unexpected argument 'accum': accum is the GEMM result; bind a tensor to it only when the "
                  "epilogue returns accum");
    }
    throw Error(ErrorKind::Binding, "Unexpected argument '" + name + "': the epilogue function '" +
                                        raw.function_name + "' has no parameter or output of that name (parameters: " +
                                        join(raw.params) + "; outputs: " + join(raw.outputs) + ")");
  }
}

// The problem extents (L, M, N) come from D, which every epilogue returns.
passes::ProblemExtents extents_from_d(const std::map<std::string, Binding>& bindings) {
  const Binding& d = bindings.at("D");
  if (d.is_scalar()) throw Error(ErrorKind::Binding, "Output 'D' must be bound to a tensor, not a number");
  const TensorRef& t = d.tensor();
  if (t.rank() != 2 && t.rank() != 3) {
    throw Error(ErrorKind::Shape, "Output 'D' has shape " + t.shape.to_string() +
                                      "; D must have shape (M, N) or (L, M, N)");
  }
  for (std::int64_t e : t.shape) {
    if (e <= 0) throw Error(ErrorKind::Shape, "Output 'D' has shape " + t.shape.to_string() + "; extents must be positive");
  }
  passes::ProblemExtents x;
  x.L = t.rank() == 3 ? t.shape[0] : 1;
  x.M = t.shape[t.rank() - 2];
  x.N = t.shape[t.rank() - 1];
  return x;
}

std::shared_ptr<detail::EpilogueProgram> build_program(ir::Dag raw, const std::map<std::string, Binding>& bindings) {
  check_bindings(raw, bindings);
  auto program = std::make_shared<detail::EpilogueProgram>();
  program->extents = extents_from_d(bindings);
  program->dag = passes::run_pipeline(raw, bindings, program->extents, DType::f32, DType::f32, /*verify_each=*/true);
  program->raw = std::move(raw);
  program->canonical = ir::print_text(program->dag);
  program->hash = hash64(program->canonical);
  return program;
}

}  // namespace

EpilogueArguments::EpilogueArguments(std::string source, std::map<std::string, Binding> bindings)
    : source_(std::move(source)), bindings_(std::move(bindings)) {
  program_ = build_program(frontend::parse_epilogue(source_), bindings_);
}

const Binding& EpilogueArguments::binding(const std::string& name) const {
  auto it = bindings_.find(name);
  if (it == bindings_.end()) throw Error(ErrorKind::Binding, "'" + name + "' is not bound in this epilogue");
  return it->second;
}

void EpilogueArguments::set(const std::string& name, Binding value) {
  auto it = bindings_.find(name);
  if (it == bindings_.end()) {
    throw Error(ErrorKind::Binding, "Cannot rebind '" + name + "': the epilogue has no parameter or output of that name");
  }
  auto bindings = bindings_;
  bindings.at(name) = std::move(value);
  program_ = build_program(program_->raw, bindings);
  bindings_ = std::move(bindings);
}

namespace detail {

const ir::Dag& EpilogueProgram::dag_for(DType accumulator, DType compute,
                                        const std::map<std::string, Binding>& bindings) const {
  if (accumulator == DType::f32 && compute == DType::f32) return dag;
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto& slot = retyped_[{accumulator, compute}];
  if (!slot) slot = std::make_unique<const ir::Dag>(passes::run_pipeline(raw, bindings, extents, accumulator, compute));
  return *slot;
}

const ir::Dag& EpilogueProgram::transposed(const ir::Dag& typed) const {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto& slot = transposed_[&typed];
  if (!slot) slot = std::make_unique<const ir::Dag>(passes::transpose_dag(typed));
  return *slot;
}

}  // namespace detail
}  // namespace epigemm
