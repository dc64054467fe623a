// `epigemm precompile`: compiles the kernels that a GPU would run for a
// problem into the disk kernel cache (Operator::precompile), with no GPU:
// the tensors only describe shapes, strides and dtypes, as for emit. A
// machine that builds a deployment fills the cache; the GPU machines that
// share it (same CUDA toolkit) then load those kernels without compiling.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "epigemm/error.hpp"
#include "execution_flags.hpp"
#include "flag_values.hpp"
#include "problem_data.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::cli {
namespace {

FlagSet make_flags() {
  FlagSet flags("epigemm precompile", "[flags]",
                "Compiles the kernels of the first GPU operators for a problem (the one epigemm run would pick,\n"
                "or the first N) into the disk kernel cache, without a GPU. Takes the same problem flags as\n"
                "epigemm run. A GPU of the target architecture that uses the same cache directory and CUDA\n"
                "toolkit then loads them instead of compiling.");
  add_problem_flags(flags);
  add_operator_flags(flags);
  flags.add_section("the GPU that will run them");
  flags.add_value("target-sm", "SM", "the device's, else 90", "its architecture (90 is sm_90a, 80 is sm_80)");
  flags.add_value("target-sms", "N", "the device's, else 132", "its SM count (the sm90 ranking and split-K code use it)");
  flags.add_value("target-l2-mib", "N", "the device's, else 60", "its L2 size in MiB (the sm90 ranking uses it)");
  flags.add_value("operators", "N", "1", "how many of the first supporting GPU operators to compile");
  flags.add_epilog("The cache directory: epigemm cache path. Exit codes: 0 ok, 1 error, 2 bad command line.");
  return flags;
}

}  // namespace

int precompile_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  if (parse_or_print_help(flags, words)) return kExitOk;
  reject_positionals(flags.positionals(), flags.command());
  int target_sm = device_target_sm() > 0 ? device_target_sm() : 90;
  if (auto v = flags.value("target-sm")) target_sm = static_cast<int>(parse_integer("target-sm", *v, 10, 1000));
  OperatorQuery query = read_operator_query(flags, target_sm);
  query.ignore_devices = true;
  read_described_gpu(flags, query);
  const auto count = flags.value("operators") ? parse_integer("operators", *flags.value("operators"), 1, 64) : 1;

  const ProblemSpec spec = read_problem_spec(flags);
  const HostProblem host = allocate_host_problem(spec);
  const GemmArguments args = make_arguments(spec, described_as_cuda(host_views(host)));
  std::cout << "problem: " << describe_problem(spec) << "\n";
  std::cout << "cache: " << runtime::KernelLoader::instance().disk_cache().directory().string() << "\n";
  std::cout.flush();

  std::int64_t done = 0;
  std::string reasons;
  for (const OperatorCandidate& c : explain_operators(args, query)) {
    if (done == count) break;
    if (c.op.metadata().min_sm == 0) continue;  // host operators compile nothing
    if (!c.status) {
      reasons += "\n  " + c.op.name() + ": " + c.status.reason();
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    const PrecompileResult result = c.op.precompile(args, query.sm_count);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[300];
    std::snprintf(line, sizeof line, "%s: %d kernel%s, %d compiled now, %d in the cache already (%.2f s)",
                  c.op.name().c_str(), result.kernels, result.kernels == 1 ? "" : "s", result.compiled,
                  result.kernels - result.compiled, seconds);
    std::cout << line << std::endl;
    ++done;
  }
  if (done == 0) {
    throw Error(ErrorKind::Unsupported, "no GPU operator for sm_" + std::to_string(target_sm) +
                                            " supports this problem:" + (reasons.empty() ? " none found" : reasons));
  }
  return kExitOk;
}

}  // namespace epigemm::cli
