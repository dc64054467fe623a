// The tensors of a ProblemSpec: host buffers (random inputs, poisoned
// outputs), views of them or of device copies, and the GemmArguments and
// EpilogueArguments built from those views.
#pragma once

#include <cstdint>
#include <vector>

#include "epigemm/gemm.hpp"
#include "host_tensor.hpp"
#include "problem_spec.hpp"

namespace epigemm::cli {

/// Host buffers: A, B and one per spec operand (unallocated for numbers).
struct HostProblem {
  HostTensor A, B;
  std::vector<HostTensor> operands;  ///< parallel to ProblemSpec::operands
};

/// Allocates every tensor of `spec` (A and B only when `with_matrices`).
HostProblem allocate_host_problem(const ProblemSpec& spec, bool with_matrices = true);

/// Fills A, B and every input tensor from `seed`; each tensor draws from
/// its own stream keyed by its name.
void fill_inputs(HostProblem& host, const ProblemSpec& spec, std::uint64_t seed, InitKind init);

/// Poisons every output tensor (NaN bytes).
void poison_outputs(HostProblem& host, const ProblemSpec& spec);

/// Views of A, B and each operand's tensor (default-constructed for numbers).
struct ProblemViews {
  TensorRef A, B;
  std::vector<TensorRef> operands;
};

ProblemViews host_views(const HostProblem& host);

/// The same views presented as CUDA tensors, for commands that only describe
/// a problem to the operators (shapes, strides, dtypes) and never touch its
/// memory: emit, and list without a GPU.
ProblemViews described_as_cuda(ProblemViews views);

/// The bindings of the epilogue: numbers by value, tensors by view.
std::map<std::string, Binding> make_bindings(const ProblemSpec& spec, const ProblemViews& views);

/// The EpilogueArguments of `spec` (throws epigemm::Error for a malformed
/// epilogue or binding). Requires spec.has_epilogue().
EpilogueArguments make_epilogue(const ProblemSpec& spec, const ProblemViews& views);

/// The whole GemmArguments: A, B, out = D, accumulator, compute and the
/// epilogue when the spec has one.
GemmArguments make_arguments(const ProblemSpec& spec, const ProblemViews& views);

}  // namespace epigemm::cli
