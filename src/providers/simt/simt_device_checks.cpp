// A GPU provider's machine checks: driver, device, current device,
// pointer kinds and alignment, with a small memory of verified pointers.
#include "providers/simt/simt_device_checks.hpp"

#include <cstdio>
#include <string>

#include "providers/simt/simt_provider.hpp"
#include "runtime/driver.hpp"

namespace epigemm::detail {
namespace {

std::string hex_address(std::uintptr_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string cuda_name(int device) { return "cuda:" + std::to_string(device); }

/// The device of the calling thread's current context; 0 (the default
/// device) when no context is current.
int current_device(const runtime::Driver& driver) {
  CUcontext context = nullptr;
  if (driver.ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr) return 0;
  CUdevice device = 0;
  if (driver.ctx_get_device(&device) != CUDA_SUCCESS) return 0;
  return static_cast<int>(device);
}

}  // namespace

int current_device_target_sm() noexcept {
  try {
    const runtime::Driver* driver = runtime::Driver::get();
    if (driver == nullptr) return 0;
    return driver->device_info(current_device(*driver)).sm;
  } catch (const std::exception&) {
    return 0;
  }
}

Status DeviceChecks::check_tensors(const Problem& p) const {
  if (p.device != Device::cuda) return Status::unsupported("A is a host tensor; the " + std::string(provider_) + " provider needs CUDA tensors");
  const auto aligned = [](std::string_view name, const TensorRef& t) {
    const auto address = reinterpret_cast<std::uintptr_t>(t.data);
    const auto element = static_cast<std::uintptr_t>(size_bytes(t.dtype));
    if (address % element == 0) return Status::ok();
    return Status::unsupported(std::string(name) + "'s pointer " + hex_address(address) + " is not aligned to its " +
                               std::to_string(element) + "-byte " + std::string(to_string(t.dtype)) + " elements");
  };
  if (Status s = aligned("A", *p.A.tensor); !s) return s;
  if (Status s = aligned("B", *p.B.tensor); !s) return s;
  for (const auto* list : {&p.inputs, &p.outputs}) {
    for (const EpilogueOperand& op : *list) {
      if (op.tensor == nullptr) continue;
      if (Status s = aligned(op.name, *op.tensor); !s) return s;
    }
  }
  return Status::ok();
}

Status DeviceChecks::check(const Problem& p) {
  if (Status s = check_tensors(p); !s) return s;
  return check_machine(p);
}

Status DeviceChecks::check_machine(const Problem& p) {
  Status why = Status::ok();
  const runtime::Driver* driver = runtime::Driver::get(&why);
  if (driver == nullptr) return Status::unsupported("the " + std::string(provider_) + " provider cannot run here: " + why.reason());
  const int device = p.device_index;
  if (device < 0 || device >= driver->device_count()) {
    return Status::unsupported("the tensors are on " + cuda_name(device) + " but this machine has " +
                               std::to_string(driver->device_count()) + " CUDA device(s)");
  }
  const int current = current_device(*driver);
  if (current != device) {
    return Status::unsupported("the tensors are on " + cuda_name(device) + " but the current device is " +
                               cuda_name(current) + "; make " + cuda_name(device) + " current first");
  }
  const int sm = driver->device_info(device).sm;
  if (sm < min_sm_) {
    return Status::unsupported(cuda_name(device) + " is sm_" + std::to_string(sm) + "; the " + std::string(provider_) +
                               " provider needs sm_" + std::to_string(min_sm_) + " or newer");
  }
  if (Status s = check_pointer("A", *p.A.tensor, device); !s) return s;
  if (Status s = check_pointer("B", *p.B.tensor, device); !s) return s;
  for (const auto* list : {&p.inputs, &p.outputs}) {
    for (const EpilogueOperand& op : *list) {
      if (op.tensor == nullptr) continue;
      if (Status s = check_pointer(op.name, *op.tensor, device); !s) return s;
    }
  }
  return Status::ok();
}

Status DeviceChecks::check_pointer(std::string_view name, const TensorRef& t, int device) {
  const auto address = reinterpret_cast<std::uintptr_t>(t.data);
  if (remembered(address, device)) return Status::ok();
  const runtime::PointerInfo info = runtime::Driver::require().pointer_info(t.data);
  if (!info.is_device) {
    return Status::unsupported(std::string(name) + " is a host pointer (" + hex_address(address) +
                               ") in a tensor marked cuda; the " + std::string(provider_) + " provider needs device memory on " +
                               cuda_name(device));
  }
  if (!info.is_managed && info.device != device) {
    return Status::unsupported(std::string(name) + "'s memory is on " + cuda_name(info.device) + ", not on " +
                               cuda_name(device) + " where the GEMM runs");
  }
  remember(address, device);
  return Status::ok();
}

bool DeviceChecks::remembered(std::uintptr_t address, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Verified& v : verified_) {
    if (v.address == address && v.device == device) return true;
  }
  return false;
}

void DeviceChecks::remember(std::uintptr_t address, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  verified_[static_cast<std::size_t>(next_)] = {address, device};
  next_ = (next_ + 1) % kRemembered;
}

}  // namespace epigemm::detail
