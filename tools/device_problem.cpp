// Device copies of a problem's tensors through runtime::DeviceBuffer; the
// views keep each host tensor's shape and strides.
#include "device_problem.hpp"

namespace epigemm::cli {

DeviceProblem::DeviceProblem(const runtime::Driver& driver, int device, const HostProblem& host, bool upload)
    : driver_(&driver), device_(device) {
  if (host.A.allocated()) a_ = allocate(host.A, views_.A, upload);
  if (host.B.allocated()) b_ = allocate(host.B, views_.B, upload);
  operands_.reserve(host.operands.size());
  for (const auto& t : host.operands) {
    views_.operands.emplace_back();
    if (t.allocated()) {
      operands_.push_back(allocate(t, views_.operands.back(), upload));
    } else {
      operands_.emplace_back();
    }
  }
}

runtime::DeviceBuffer DeviceProblem::allocate(const HostTensor& tensor, TensorRef& view, bool upload) const {
  runtime::DeviceBuffer buffer(*driver_, device_, tensor.byte_size());
  if (upload) buffer.upload(tensor.data(), tensor.byte_size());
  view = TensorRef::cuda(buffer.data(), tensor.dtype(), tensor.shape(), tensor.strides(), device_);
  return buffer;
}

void DeviceProblem::poison_outputs(const ProblemSpec& spec) const {
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    if (spec.operands[i].output) operands_[i].fill_bytes(0xFF);
  }
  runtime::ContextGuard guard(*driver_, device_);
  driver_->check(driver_->ctx_synchronize(), "poisoning the outputs");
}

void DeviceProblem::download_outputs(const ProblemSpec& spec, HostProblem& host) const {
  {
    runtime::ContextGuard guard(*driver_, device_);
    driver_->check(driver_->ctx_synchronize(), "waiting for the operator");
  }
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    if (spec.operands[i].output) {
      operands_[i].download(host.operands[i].data(), host.operands[i].byte_size());
    }
  }
}

}  // namespace epigemm::cli
