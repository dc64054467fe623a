// `epigemm list`: every operator the filters admit for a problem, with "ok"
// or the reason the operator gave for rejecting it. Without a GPU, a
// --target-sm lists what a GPU of that architecture would (the tensors only
// described as CUDA memory, as emit does), with --target-sms and
// --target-l2-mib for that GPU's SM count and L2 size.
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "device_problem.hpp"
#include "execution_flags.hpp"
#include "flag_values.hpp"
#include "problem_data.hpp"
#include "runtime/cuda_objects.hpp"

namespace epigemm::cli {
namespace {

FlagSet make_flags() {
  FlagSet flags("epigemm list", "[flags]",
                "Lists the operators for a problem: each one that supports it (\"ok\", best first) and each one that\n"
                "does not, with its reason. Takes the same problem flags as epigemm run. Without a GPU (and not\n"
                "--device cpu), --target-sm lists the operators as a GPU of that architecture would rank them:\n"
                "the tensors are only described as CUDA memory, as epigemm emit does, and nothing runs.");
  add_problem_flags(flags);
  add_device_flags(flags);
  add_operator_flags(flags);
  flags.add_section("the described GPU (with --target-sm where no CUDA device is used), for the sm90 ranking");
  flags.add_value("target-sms", "N", "132, an H100's or H200's", "its SM count");
  flags.add_value("target-l2-mib", "N", "60, an H200's", "its L2 size in MiB (an H100 has 50)");
  flags.add_epilog("Exit codes: 0 ok (even when no operator supports the problem), 1 error, 2 bad command line.");
  return flags;
}

}  // namespace

int list_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  if (parse_or_print_help(flags, words)) return kExitOk;
  reject_positionals(flags.positionals(), flags.command());
  const ProblemSpec spec = read_problem_spec(flags);
  DeviceChoice device = choose_device(flags);
  OperatorQuery query = read_operator_query(flags, device.target_sm);
  const bool described = !device.cuda && device.target_sm > 0 && flags.value("device").value_or("auto") != "cpu";
  if (read_described_gpu(flags, query) && !described) {
    throw Error(ErrorKind::Value,
                "--target-sms and --target-l2-mib describe a GPU only where none is used: with --target-sm on a "
                "machine without a CUDA device (here the operators are ranked for " +
                std::string(device.cuda ? "the CUDA device in use)" : "the cpu)"));
  }
  if (described) {
    query.ignore_devices = true;
    device.note = "no CUDA device found: the operators judge the problem as on an sm_" +
                  std::to_string(device.target_sm) + " GPU (\"ok\": it would run there, not here)";
  }

  // Operators look at shapes, dtypes, strides and where the memory is, not
  // at values: the tensors are allocated, never filled.
  HostProblem host = allocate_host_problem(spec);
  std::optional<runtime::ContextGuard> context;
  std::unique_ptr<DeviceProblem> on_device;
  if (device.cuda) {
    const runtime::Driver& driver = runtime::Driver::require();
    context.emplace(driver, device.device);
    on_device = std::make_unique<DeviceProblem>(driver, device.device, host, /*upload=*/false);
  }
  const ProblemViews views =
      on_device ? on_device->views() : described ? described_as_cuda(host_views(host)) : host_views(host);
  const GemmArguments args = make_arguments(spec, views);
  const std::vector<OperatorCandidate> candidates = explain_operators(args, query);

  std::cout << "problem: " << describe_problem(spec) << "\n";
  std::cout << "bindings:\n" << describe_bindings(spec);
  if (!device.note.empty()) std::cout << device.note << "\n";
  std::cout << "tensors " << (device.cuda ? "on cuda:" + std::to_string(device.device)
                             : described ? std::string("described as cuda")
                                         : std::string("on host"));
  if (device.target_sm > 0) std::cout << ", target sm_" << device.target_sm;
  if (query.sm_count > 0) std::cout << ", " << query.sm_count << " SMs";
  if (query.l2_bytes > 0) std::cout << ", " << (query.l2_bytes >> 20) << " MiB of L2";
  std::cout << "\n";
  std::size_t supported = 0;
  for (const auto& c : candidates) supported += c.status ? 1 : 0;
  std::cout << "operators: " << supported << " of " << candidates.size() << " support this problem\n";
  if (candidates.empty()) {
    std::cout << "  (no operator matches the --provider, --operator, --tile, --cluster and --fp8-accumulation filters)\n";
  } else {
    std::cout << describe_candidates(candidates);
  }
  return kExitOk;
}

}  // namespace epigemm::cli
