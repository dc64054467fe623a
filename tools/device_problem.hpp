// DeviceProblem: device copies of a HostProblem's tensors, made with the
// runtime's driver wrapper (src/runtime), for `epigemm run` and `list` on a
// CUDA device: upload inputs, poison outputs, download outputs.
#pragma once

#include <vector>

#include "problem_data.hpp"
#include "runtime/cuda_objects.hpp"

namespace epigemm::cli {

class DeviceProblem {
 public:
  /// Allocates every tensor of `host` on `device` and, when `upload`,
  /// copies it there. Throws Error(ErrorKind::Cuda) without a usable device.
  DeviceProblem(const runtime::Driver& driver, int device, const HostProblem& host, bool upload = true);

  /// CUDA views of the device tensors, parallel to the host problem's.
  const ProblemViews& views() const noexcept { return views_; }

  /// Sets every byte of each output to 0xFF (NaN for floats).
  void poison_outputs(const ProblemSpec& spec) const;
  /// Copies each output back into `host` (synchronous).
  void download_outputs(const ProblemSpec& spec, HostProblem& host) const;

 private:
  runtime::DeviceBuffer allocate(const HostTensor& tensor, TensorRef& view, bool upload) const;

  const runtime::Driver* driver_;
  int device_;
  runtime::DeviceBuffer a_, b_;
  std::vector<runtime::DeviceBuffer> operands_;  ///< empty buffers for numbers
  ProblemViews views_;
};

}  // namespace epigemm::cli
