// Allocation and filling of a problem's host tensors, and the GemmArguments
// built over host or device views of them.
#include "problem_data.hpp"

#include <unistd.h>

#include <cstdio>

#include "epigemm/error.hpp"

namespace epigemm::cli {
namespace {

std::int64_t tensor_bytes(DType dtype, std::initializer_list<std::int64_t> extents) {
  double bytes = size_bytes(dtype);
  for (std::int64_t e : extents) bytes *= static_cast<double>(e);
  return bytes > 9e18 ? std::int64_t{9} * 1000000000000000000 : static_cast<std::int64_t>(bytes);
}

std::string gib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buffer;
}

// Refuses problems whose host tensors would not fit in this machine's
// memory, before allocating anything.
void check_host_memory(const ProblemSpec& spec, bool with_matrices) {
  double total = 0;
  if (with_matrices) {
    total += static_cast<double>(tensor_bytes(spec.ab, {spec.L, spec.M, spec.K}));
    total += static_cast<double>(tensor_bytes(spec.ab, {spec.L, spec.K, spec.N}));
  }
  for (const auto& op : spec.operands) {
    if (op.kind == OperandKind::number) continue;
    double bytes = size_bytes(op.dtype);
    for (std::int64_t e : op.shape) bytes *= static_cast<double>(e);
    // Outputs are allocated twice when checked against the reference.
    total += op.output ? 2 * bytes : bytes;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return;
  const double physical = static_cast<double>(pages) * static_cast<double>(page_size);
  if (total > 0.8 * physical) {
    throw Error(ErrorKind::Value, "the problem's host tensors need " + gib(total) + " but this machine has " +
                                      gib(physical) + " of memory; use a smaller --mnkl");
  }
}

}  // namespace

HostProblem allocate_host_problem(const ProblemSpec& spec, bool with_matrices) {
  check_host_memory(spec, with_matrices);
  HostProblem host;
  if (with_matrices) {
    host.A = HostTensor(spec.ab, {spec.L, spec.M, spec.K}, spec.a_strides());
    host.B = HostTensor(spec.ab, {spec.L, spec.K, spec.N}, spec.b_strides());
  }
  host.operands.resize(spec.operands.size());
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec& op = spec.operands[i];
    if (op.kind != OperandKind::number) host.operands[i] = HostTensor(op.dtype, op.shape, spec.strides_of(op));
  }
  return host;
}

void fill_inputs(HostProblem& host, const ProblemSpec& spec, std::uint64_t seed, InitKind init) {
  if (host.A.allocated()) {
    RandomStream a(seed, "A");
    host.A.fill_random(a, init);
  }
  if (host.B.allocated()) {
    RandomStream b(seed, "B");
    host.B.fill_random(b, init);
  }
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec& op = spec.operands[i];
    if (op.output || op.kind == OperandKind::number) continue;
    RandomStream stream(seed, op.name);
    host.operands[i].fill_random(stream, init);
  }
}

void poison_outputs(HostProblem& host, const ProblemSpec& spec) {
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    if (spec.operands[i].output) host.operands[i].poison();
  }
}

ProblemViews host_views(const HostProblem& host) {
  ProblemViews views;
  if (host.A.allocated()) views.A = host.A.ref();
  if (host.B.allocated()) views.B = host.B.ref();
  for (const auto& t : host.operands) views.operands.push_back(t.allocated() ? t.ref() : TensorRef{});
  return views;
}

ProblemViews described_as_cuda(ProblemViews views) {
  views.A.device = views.B.device = Device::cuda;
  for (TensorRef& t : views.operands) t.device = Device::cuda;
  return views;
}

std::map<std::string, Binding> make_bindings(const ProblemSpec& spec, const ProblemViews& views) {
  std::map<std::string, Binding> bindings;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec& op = spec.operands[i];
    if (op.kind == OperandKind::number) {
      bindings.emplace(op.name, Binding(op.number));
    } else {
      bindings.emplace(op.name, Binding(views.operands.at(i)));
    }
  }
  return bindings;
}

EpilogueArguments make_epilogue(const ProblemSpec& spec, const ProblemViews& views) {
  if (!spec.has_epilogue()) throw Error(ErrorKind::Internal, "make_epilogue called without an epilogue");
  return EpilogueArguments(spec.source, make_bindings(spec, views));
}

GemmArguments make_arguments(const ProblemSpec& spec, const ProblemViews& views) {
  GemmArguments args;
  args.A = views.A;
  args.B = views.B;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    if (spec.operands[i].output && spec.operands[i].name == "D") args.out = views.operands.at(i);
  }
  args.accumulator = spec.acc;
  args.compute = spec.compute;
  if (spec.has_epilogue()) args.epilogue = make_epilogue(spec, views);
  return args;
}

}  // namespace epigemm::cli
