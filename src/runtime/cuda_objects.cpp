// RAII wrappers over contexts, modules, device memory and events. Destructors
// ignore driver errors (the driver may already be shutting down at exit).
#include "runtime/cuda_objects.hpp"

#include <utility>

namespace epigemm::runtime {

ContextGuard::ContextGuard(const Driver& driver, int device) : driver_(&driver) {
  CUcontext wanted = driver.primary_context(device);
  if (driver.ctx_get_current(&previous_) != CUDA_SUCCESS) previous_ = nullptr;
  if (previous_ != wanted) {
    driver.check(driver.ctx_set_current(wanted), "making device " + std::to_string(device) + "'s context current");
    restore_ = true;
  }
}

ContextGuard::~ContextGuard() {
  if (restore_) driver_->ctx_set_current(previous_);
}

Module Module::load(const Driver& driver, std::string_view image, std::string_view label) {
  Module m;
  m.driver_ = &driver;
  // cuModuleLoadData reads PTX as a NUL-terminated string; copy when needed.
  std::string terminated;
  const void* data = image.data();
  if (image.empty() || image.back() != '\0') {
    terminated.assign(image);
    data = terminated.c_str();
  }
  driver.check(driver.module_load_data(&m.module_, data), "loading the module of " + std::string(label));
  return m;
}

Module::~Module() { reset(); }

Module::Module(Module&& other) noexcept
    : driver_(std::exchange(other.driver_, nullptr)), module_(std::exchange(other.module_, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    reset();
    driver_ = std::exchange(other.driver_, nullptr);
    module_ = std::exchange(other.module_, nullptr);
  }
  return *this;
}

void Module::reset() noexcept {
  if (module_ != nullptr) driver_->module_unload(module_);
  module_ = nullptr;
}

CUfunction Module::function(const std::string& name) const {
  if (module_ == nullptr) throw Error(ErrorKind::Internal, "kernel '" + name + "' requested from an empty module");
  CUfunction fn = nullptr;
  driver_->check(driver_->module_get_function(&fn, module_, name.c_str()), "looking up kernel '" + name + "'");
  return fn;
}

DeviceBuffer::DeviceBuffer(const Driver& driver, int device, std::size_t bytes)
    : driver_(&driver), bytes_(bytes), device_(device) {
  ContextGuard guard(driver, device);
  driver.check(driver.mem_alloc(&ptr_, bytes == 0 ? 1 : bytes),
               "allocating " + std::to_string(bytes) + " bytes on device " + std::to_string(device));
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : driver_(std::exchange(other.driver_, nullptr)),
      ptr_(std::exchange(other.ptr_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      device_(std::exchange(other.device_, -1)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    driver_ = std::exchange(other.driver_, nullptr);
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = std::exchange(other.device_, -1);
  }
  return *this;
}

void DeviceBuffer::reset() noexcept {
  if (ptr_ != 0) driver_->mem_free(ptr_);
  ptr_ = 0;
  bytes_ = 0;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes, std::size_t offset) const {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    throw Error(ErrorKind::Value, "upload of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                      " overruns a device buffer of " + std::to_string(bytes_) + " bytes");
  }
  if (bytes == 0) return;
  ContextGuard guard(*driver_, device_);
  driver_->check(driver_->memcpy_htod(ptr_ + offset, host, bytes), "copying host memory to the device");
}

void DeviceBuffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    throw Error(ErrorKind::Value, "download of " + std::to_string(bytes) + " bytes at offset " +
                                      std::to_string(offset) + " overruns a device buffer of " +
                                      std::to_string(bytes_) + " bytes");
  }
  if (bytes == 0) return;
  ContextGuard guard(*driver_, device_);
  driver_->check(driver_->memcpy_dtoh(host, ptr_ + offset, bytes), "copying device memory to the host");
}

void DeviceBuffer::fill_bytes(unsigned char value, CUstream stream) const {
  if (bytes_ == 0) return;
  ContextGuard guard(*driver_, device_);
  driver_->check(driver_->memset_d8_async(ptr_, value, bytes_, stream), "filling a device buffer");
}

void DeviceBuffer::fill_words(unsigned value, CUstream stream) const {
  if (bytes_ % 4 != 0) {
    throw Error(ErrorKind::Value,
                "fill_words needs a size that is a multiple of 4 bytes, got " + std::to_string(bytes_));
  }
  if (bytes_ == 0) return;
  ContextGuard guard(*driver_, device_);
  driver_->check(driver_->memset_d32_async(ptr_, value, bytes_ / 4, stream), "filling a device buffer");
}

Event::Event(const Driver& driver, unsigned flags) : driver_(&driver) {
  driver.check(driver.event_create(&event_, flags), "creating an event");
}

Event::~Event() { reset(); }

Event::Event(Event&& other) noexcept
    : driver_(std::exchange(other.driver_, nullptr)), event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    reset();
    driver_ = std::exchange(other.driver_, nullptr);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::reset() noexcept {
  if (event_ != nullptr) driver_->event_destroy(event_);
  event_ = nullptr;
}

void Event::record(CUstream stream) const { driver_->check(driver_->event_record(event_, stream), "recording an event"); }

void Event::synchronize() const {
  driver_->check(driver_->event_synchronize(event_), "waiting for an event");
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0.0f;
  start.driver_->check(start.driver_->event_elapsed_time(&ms, start.event_, end.event_),
                       "measuring the time between two events");
  return ms;
}

bool stream_captures(const Driver& driver, CUstream stream) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  driver.check(driver.stream_is_capturing(stream, &capture), "asking whether the stream captures a graph");
  return capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace epigemm::runtime
