// Fills the kernel argument records from a Problem: the epilogue operands
// (inputs then outputs, in DAG slot order) and the GEMM's A/B operands.
#include "codegen/device_params.hpp"

#include <cstring>

#include "epigemm/error.hpp"

namespace epigemm::codegen {
namespace {

DeviceOperand device_operand(const detail::EpilogueOperand& op) noexcept {
  DeviceOperand d;
  d.ptr = op.tensor ? reinterpret_cast<std::uint64_t>(op.tensor->data) : 0;
  d.value = op.value;
  d.stride_l = op.stride_l;
  d.stride_m = op.stride_m;
  d.stride_n = op.stride_n;
  return d;
}

int input_count(const detail::Problem& p) noexcept {
  return p.dag ? static_cast<int>(p.dag->params.size()) : static_cast<int>(p.inputs.size());
}
int output_count(const detail::Problem& p) noexcept {
  return p.dag ? static_cast<int>(p.dag->outputs.size()) : static_cast<int>(p.outputs.size());
}

}  // namespace

std::size_t epilogue_params_size(const detail::Problem& problem) noexcept {
  return epilogue_params_size(input_count(problem), output_count(problem));
}

void fill_epilogue_params(const detail::Problem& problem, std::span<std::byte> out) {
  const int inputs = input_count(problem), outputs = output_count(problem);
  if (out.size() < epilogue_params_size(inputs, outputs) || problem.inputs.size() != static_cast<std::size_t>(inputs) ||
      problem.outputs.size() != static_cast<std::size_t>(outputs)) {
    throw Error(ErrorKind::Internal, "epilogue parameter buffer or operand lists do not match the epilogue");
  }
  std::byte* cursor = out.data();
  const auto put = [&cursor](const DeviceOperand& d) {
    std::memcpy(cursor, &d, sizeof d);
    cursor += sizeof d;
  };
  for (const auto& op : problem.inputs) put(device_operand(op));
  if (inputs == 0) put(DeviceOperand{});
  for (const auto& op : problem.outputs) put(device_operand(op));
  if (outputs == 0) put(DeviceOperand{});
}

DeviceGemmArgs gemm_args(const detail::Problem& p) noexcept {
  DeviceGemmArgs g;
  g.a = p.A.tensor ? reinterpret_cast<std::uint64_t>(p.A.tensor->data) : 0;
  g.b = p.B.tensor ? reinterpret_cast<std::uint64_t>(p.B.tensor->data) : 0;
  g.m = p.M;
  g.n = p.N;
  g.k = p.K;
  g.l = p.L;
  g.a_sl = p.A.batch_stride;
  g.a_sm = p.A.row_stride;
  g.a_sk = p.A.col_stride;
  g.b_sl = p.B.batch_stride;
  g.b_sk = p.B.row_stride;
  g.b_sn = p.B.col_stride;
  return g;
}

}  // namespace epigemm::codegen
