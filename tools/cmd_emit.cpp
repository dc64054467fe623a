// `epigemm emit`: the CUDA source the code generator (src/codegen) builds
// for a problem: a kernel template of kernels/ instantiated with the
// generated epilogue; optionally compiled with NVRTC to check it (no GPU
// needed).
#include <cstdio>
#include <iostream>

#include "api/problem.hpp"
#include "codegen/embedded_kernels.hpp"
#include "codegen/kernel_source.hpp"
#include "commands.hpp"
#include "epigemm/error.hpp"
#include "flag_values.hpp"
#include "problem_data.hpp"
#include "runtime/nvrtc.hpp"

namespace epigemm::cli {
namespace {

FlagSet make_flags() {
  FlagSet flags("epigemm emit", "[flags]",
                "Prints the complete CUDA C++ translation unit generated for a problem: the kernel template\n"
                "instantiated with the epilogue's generated code, as NVRTC compiles it. Takes the same problem\n"
                "flags as epigemm run.");
  add_problem_flags(flags);
  flags.add_section("code generation");
  flags.add_value("template", "NAME", "simt", "kernel template of kernels/ to instantiate");
  flags.add_value("target-sm", "SM", "90", "GPU architecture --compile compiles for (90 is sm_90a, 80 is sm_80)");
  flags.add_boolean("compile", "also compile the source with NVRTC and report the result on stderr");
  flags.add_epilog("Set EPIGEMM_DUMP_DIR to keep the .cu, PTX and cubin of every kernel the library compiles.");
  return flags;
}

}  // namespace

int emit_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  flags.parse(words);
  if (flags.help_requested()) {
    std::cout << flags.help();
    return kExitOk;
  }
  reject_positionals(flags.positionals(), flags.command());
  const std::string template_name = flags.value("template").value_or("simt");
  const auto kind = codegen::parse_kernel_template(template_name);
  if (!kind) throw UsageError("--template: unknown kernel template '" + template_name + "' (known: simt)");
  const int target_sm =
      flags.value("target-sm") ? static_cast<int>(parse_integer("target-sm", *flags.value("target-sm"), 10, 1000)) : 90;
  const ProblemSpec spec = read_problem_spec(flags);

  // The generator reads shapes, strides and dtypes only: the tensors are
  // allocated on the host and never filled.
  const HostProblem host = allocate_host_problem(spec);
  const GemmArguments args = make_arguments(spec, host_views(host));
  detail::Problem problem;
  detail::analyze(args, problem);
  const Status status = codegen::can_instantiate(problem, *kind);
  if (!status) {
    throw Error(ErrorKind::Unsupported,
                "the " + template_name + " kernel template cannot be built for this problem: " + status.reason());
  }
  const std::string source = codegen::kernel_source(problem, *kind);
  std::cout << source;
  if (!source.empty() && source.back() != '\n') std::cout << "\n";
  std::cout.flush();

  if (flags.flag("compile")) {
    runtime::CompileRequest request;
    request.source = source;
    request.arch = runtime::arch_name(target_sm);
    request.headers = codegen::embedded_kernel_files();
    const runtime::CompileResult result = runtime::nvrtc_compile(request);
    char line[200];
    std::snprintf(line, sizeof(line), "compiled for %s in %.2f s: %zu bytes of cubin", request.arch.c_str(),
                  result.seconds, result.cubin.size());
    std::cerr << line << (result.log.empty() ? "" : "; compiler log:\n" + result.log) << "\n";
  }
  return kExitOk;
}

}  // namespace epigemm::cli
