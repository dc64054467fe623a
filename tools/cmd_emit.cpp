// `epigemm emit`: the CUDA source the chosen GPU operator compiles for a
// problem (the kernel template of kernels/ instantiated with the generated
// epilogue); optionally compiled with NVRTC to check it. Needs no GPU: the
// tensors only describe shapes, strides and dtypes.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "codegen/embedded_kernels.hpp"
#include "codegen/kernel_source.hpp"
#include "commands.hpp"
#include "epigemm/error.hpp"
#include "execution_flags.hpp"
#include "flag_values.hpp"
#include "problem_data.hpp"
#include "runtime/nvrtc.hpp"
#include "support/file_io.hpp"

namespace epigemm::cli {
namespace {

FlagSet make_flags() {
  FlagSet flags("epigemm emit", "[flags]",
                "Prints the complete CUDA C++ translation unit that the GPU operator epigemm run would choose\n"
                "compiles for a problem (or the one --operator names), as NVRTC compiles it. Takes the same\n"
                "problem flags as epigemm run; needs no GPU.");
  add_problem_flags(flags);
  add_operator_flags(flags);
  flags.add_section("code generation");
  flags.add_value("target-sm", "SM", "90", "GPU architecture to build for (90 is sm_90a, 80 is sm_80)");
  flags.add_boolean("compile", "also compile the source with NVRTC and report the result on stderr");
  flags.add_value("cubin", "PATH", "", "compile as --compile does and write the cubin to PATH");
  flags.add_epilog("Set EPIGEMM_DUMP_DIR to keep the .cu, PTX and cubin of every kernel the library compiles.");
  return flags;
}

}  // namespace

int emit_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  if (parse_or_print_help(flags, words)) return kExitOk;
  reject_positionals(flags.positionals(), flags.command());
  const int target_sm =
      flags.value("target-sm") ? static_cast<int>(parse_integer("target-sm", *flags.value("target-sm"), 10, 1000)) : 90;
  const ProblemSpec spec = read_problem_spec(flags);
  const HostProblem host = allocate_host_problem(spec);
  const GemmArguments args = make_arguments(spec, described_as_cuda(host_views(host)));

  // Candidates come best first; the first whose kernel takes the problem
  // is the one a GPU would run (device checks aside).
  std::string source, chosen, reasons;
  std::vector<std::string> notes;
  for (const OperatorCandidate& c : explain_operators(args, read_operator_query(flags, target_sm))) {
    try {
      source = c.op.generated_source(args);
      chosen = c.op.name();
      notes = c.op.plan_notes(args);
      break;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Unsupported) throw;
      reasons += "\n  " + std::string(e.what());
    }
  }
  if (chosen.empty()) {
    throw Error(ErrorKind::Unsupported, "no GPU operator for sm_" + std::to_string(target_sm) +
                                            " generates a kernel for this problem:" + (reasons.empty() ? " none found" : reasons));
  }
  std::cout << "// epigemm emit: operator " << chosen << "\n";
  for (const std::string& note : notes) std::cout << "// note: " << note << "\n";
  std::cout << source;
  if (!source.empty() && source.back() != '\n') std::cout << "\n";
  std::cout.flush();

  const std::optional<std::string> cubin_path = flags.value("cubin");
  if (flags.flag("compile") || cubin_path) {
    runtime::CompileRequest request;
    request.source = source;
    request.arch = runtime::arch_name(target_sm);
    request.headers = codegen::embedded_kernel_files();
    request.options = {"-std=c++17"};
    // A template kernel (sm90) is named in the source's last comment; NVRTC
    // instantiates only what it is asked for.
    const std::string name = codegen::instantiated_kernel(source);
    if (!name.empty()) request.name_expressions = {name};
    const runtime::CompileResult result = runtime::nvrtc_compile(request);
    char line[200];
    std::snprintf(line, sizeof(line), "compiled for %s in %.2f s: %zu bytes of cubin", request.arch.c_str(),
                  result.seconds, result.cubin.size());
    std::cerr << line << (name.empty() ? "" : " (with the template kernel)")
              << (result.log.empty() ? "" : "; compiler log:\n" + result.log) << "\n";
    if (cubin_path) write_file_atomic(*cubin_path, result.cubin);
  }
  return kExitOk;
}

}  // namespace epigemm::cli
