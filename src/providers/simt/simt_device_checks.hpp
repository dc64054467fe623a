// What a GPU provider checks about the machine before it runs a problem:
// a driver and device, the tensors on the current device, every pointer
// device memory on that device and aligned to its element size. Pointers
// once verified are remembered, so a warm run() asks the driver nothing.
// The simt provider owns it; sm90 uses it too.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string_view>

#include "api/problem.hpp"
#include "epigemm/error.hpp"

namespace epigemm::detail {

class DeviceChecks {
 public:
  /// The lowest SM the simt kernels are built for.
  static constexpr int kSimtMinSm = 70;

  /// `provider` names the provider in reasons; `min_sm` is the lowest SM it runs on.
  DeviceChecks(std::string_view provider, int min_sm) : provider_(provider), min_sm_(min_sm) {}

  /// Status::ok() when `problem` can run on its device; else the reason,
  /// naming the tensor at fault. Allocates only when it fails.
  Status check(const Problem& problem);
  /// The part of check() that needs no driver: the tensors are CUDA ones
  /// and every pointer is aligned to its elements.
  Status check_tensors(const Problem& problem) const;
  /// The rest of check(), for a problem that passed check_tensors(): the
  /// driver, device ordinal, current device, SM, and where each pointer points.
  Status check_machine(const Problem& problem);

 private:
  struct Verified {
    std::uintptr_t address = 0;
    int device = -1;
  };
  static constexpr int kRemembered = 64;

  Status check_pointer(std::string_view name, const TensorRef& tensor, int device);
  bool remembered(std::uintptr_t address, int device);
  void remember(std::uintptr_t address, int device);

  std::string_view provider_;
  int min_sm_;
  std::mutex mutex_;
  std::array<Verified, kRemembered> verified_{};
  int next_ = 0;
};

}  // namespace epigemm::detail
