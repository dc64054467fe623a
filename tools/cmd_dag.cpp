// `epigemm dag`: one stage of the epilogue's compilation, as text or
// Graphviz: the AST, the raw DAG as lowered from it, or the DAG bound to the
// problem's shapes, typed and optimised (what providers see).
#include <iostream>

#include "api/epilogue_program.hpp"
#include "commands.hpp"
#include "flag_values.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "problem_data.hpp"

namespace epigemm::cli {
namespace {

FlagSet make_flags() {
  FlagSet flags("epigemm dag", "[flags]",
                "Prints the epilogue at one stage of compilation. The bound DAG depends on the problem: the\n"
                "shapes given by --tensor and --output decide each load and store kind (scalar, row, column,\n"
                "tile, reduction), and the dtype flags the types.");
  add_problem_flags(flags);
  flags.add_section("output");
  flags.add_value("stage", "ast|raw|opt", "opt",
                  "ast: the parsed syntax tree; raw: the DAG lowered from it, before any pass; opt: bound to the "
                  "problem, typed and optimised");
  flags.add_boolean("dot", "print Graphviz (dot) instead of text (raw and opt stages)");
  flags.add_epilog("Without --epilogue or --epilogue-file the epilogue is \"def epi(accum): D = accum; return D\".\n"
                   "Example: epigemm dag --epilogue \"def epi(accum, bias): D = relu(accum + bias); return D\" "
                   "--tensor bias=row --dot | dot -Tsvg > dag.svg");
  return flags;
}

}  // namespace

int dag_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  if (parse_or_print_help(flags, words)) return kExitOk;
  reject_positionals(flags.positionals(), flags.command());
  const std::string stage = flags.value("stage") ? parse_choice("stage", *flags.value("stage"), {"ast", "raw", "opt"})
                                                 : "opt";
  const bool dot = flags.flag("dot");
  if (stage == "ast" && dot) throw UsageError("--dot applies to the raw and opt stages, not to ast");

  if (stage == "ast") {
    // The AST comes before any language rule or binding is checked.
    std::cout << frontend::print_ast(frontend::parse(read_epilogue_source(flags, /*required=*/true).text));
    return kExitOk;
  }
  const ProblemSpec spec = read_problem_spec(flags, /*epilogue_required=*/true);
  if (stage == "raw") {
    const ir::Dag raw = frontend::parse_epilogue(spec.source);
    std::cout << (dot ? ir::print_dot(raw) : ir::print_text(raw));
    return kExitOk;
  }
  // Binding needs shapes, not data: only the epilogue's tensors are made.
  const HostProblem host = allocate_host_problem(spec, /*with_matrices=*/false);
  const EpilogueArguments epilogue = make_epilogue(spec, host_views(host));
  const ir::Dag& dag = epilogue.program().dag_for(spec.acc, spec.compute, epilogue.bindings());
  std::cout << (dot ? ir::print_dot(dag) : ir::print_text(dag));
  return kExitOk;
}

}  // namespace epigemm::cli
