// RAII owners of driver objects: a context guard (primary context made
// current, previous one restored), a loaded module, a device allocation (for
// tests and tools) and an event. All are movable, none copyable. Also
// whether a stream is capturing a graph.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/driver.hpp"

namespace epigemm::runtime {

/// Makes a device's primary context current for the guard's lifetime and
/// restores the context that was current before.
class ContextGuard {
 public:
  ContextGuard(const Driver& driver, int device);
  ~ContextGuard();
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

 private:
  const Driver* driver_;
  CUcontext previous_ = nullptr;
  bool restore_ = false;
};

/// A module loaded from a cubin or PTX image into the current context.
class Module {
 public:
  Module() = default;
  /// Loads `image` (cubin or NUL-free PTX text) into the current context.
  /// Throws Error(ErrorKind::Cuda) naming `label` when the driver refuses it.
  static Module load(const Driver& driver, std::string_view image, std::string_view label);
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// The kernel with this (lowered) name; throws Error(ErrorKind::Cuda) naming it.
  CUfunction function(const std::string& name) const;
  CUmodule get() const noexcept { return module_; }
  explicit operator bool() const noexcept { return module_ != nullptr; }

 private:
  void reset() noexcept;
  const Driver* driver_ = nullptr;
  CUmodule module_ = nullptr;
};

/// Device memory on one device, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (at least 1) on `device`.
  DeviceBuffer(const Driver& driver, int device, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr address() const noexcept { return ptr_; }
  void* data() const noexcept { return reinterpret_cast<void*>(ptr_); }
  std::size_t size() const noexcept { return bytes_; }
  int device() const noexcept { return device_; }

  /// Synchronous copies; throw Error(ErrorKind::Value) past the end.
  void upload(const void* host, std::size_t bytes, std::size_t offset = 0) const;
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;
  /// Fills every byte with `value` on `stream` (asynchronous).
  void fill_bytes(unsigned char value, CUstream stream = nullptr) const;
  /// Fills every 32-bit word with `value` on `stream` (size must be a multiple of 4).
  void fill_words(unsigned value, CUstream stream = nullptr) const;

 private:
  void reset() noexcept;
  const Driver* driver_ = nullptr;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

/// A CUDA event in the current context.
class Event {
 public:
  Event() = default;
  /// Creates an event with CU_EVENT_* flags (default: timing enabled).
  explicit Event(const Driver& driver, unsigned flags = CU_EVENT_DEFAULT);
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(CUstream stream = nullptr) const;
  void synchronize() const;
  /// Milliseconds between two recorded, completed events.
  static float elapsed_ms(const Event& start, const Event& end);
  CUevent get() const noexcept { return event_; }

 private:
  void reset() noexcept;
  const Driver* driver_ = nullptr;
  CUevent event_ = nullptr;
};

/// Whether `stream` is capturing a graph (launches on it are recorded, not run).
bool stream_captures(const Driver& driver, CUstream stream);

}  // namespace epigemm::runtime
