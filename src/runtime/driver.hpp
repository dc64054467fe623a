// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so the
// library loads and runs where no GPU or driver exists. One process-wide
// Driver holds the function pointers, each device's retained primary context
// and cached device properties; failures become epigemm::Error(Cuda).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "epigemm/error.hpp"

namespace epigemm::runtime {

/// Properties of one device that kernel providers care about.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm = 0;                     ///< cc_major * 10 + cc_minor, e.g. 90 for an H100/H200
  int sm_count = 0;               ///< streaming multiprocessors
  int max_threads_per_block = 0;
  int smem_per_block = 0;         ///< bytes without opt-in (48 KB)
  int smem_per_block_optin = 0;   ///< bytes with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  int smem_per_sm = 0;            ///< bytes
  int l2_bytes = 0;
  bool cluster_launch = false;    ///< thread-block clusters (sm_90+)
  /// Programmatic dependent launch (sm_90+) that stream capture also keeps
  /// (driver 12.3+); see LaunchConfig::programmatic_dependency.
  bool programmatic_launch = false;
  std::size_t total_memory = 0;   ///< bytes
};

/// Where a pointer's memory lives, as the driver sees it.
struct PointerInfo {
  bool is_device = false;   ///< device or managed memory a kernel may read
  bool is_managed = false;  ///< unified (managed) memory
  CUmemorytype memory_type = static_cast<CUmemorytype>(0);  ///< 0 for plain host memory
  int device = -1;          ///< ordinal of the owning device; -1 when none
};

/// x, y, z extents of a grid, block or cluster.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// Everything a launch needs besides the function and its parameters.
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  unsigned shared_bytes = 0;  ///< dynamic shared memory; above 48 KB needs set_max_dynamic_shared_memory
  CUstream stream = nullptr;
  Dim3 cluster;               ///< (1, 1, 1): no cluster; otherwise launched with cuLaunchKernelEx
  /// Lets the kernel start before the previous kernel in the stream has
  /// finished, once every block of that one has executed
  /// griddepcontrol.launch_dependents (or exited): launched with
  /// cuLaunchKernelEx and CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
  /// The kernel must execute griddepcontrol.wait before it touches memory
  /// the previous kernel writes. Only where DeviceInfo::programmatic_launch.
  bool programmatic_dependency = false;
};

/// The loaded driver API. Function pointers are public so callers can reach
/// any entry point; the member functions wrap the common cases with check().
class Driver {
 public:
  /// The process-wide driver, loaded on first call (thread-safe). Null when
  /// unusable; then `why_not` (if given) receives the reason: "no CUDA driver
  /// (libcuda.so.1 not found)", "no CUDA device", or a driver error.
  static const Driver* get(Status* why_not = nullptr);
  /// Status::ok() when get() would return a driver, else the reason.
  static Status status();
  /// The driver; throws Error(ErrorKind::Cuda) carrying the reason if none.
  static const Driver& require();
  /// Loads `library` into a new Driver (for tests; get() uses "libcuda.so.1").
  /// Null with `why_not` set when the library, a symbol, or a device is missing.
  static std::unique_ptr<Driver> load(const char* library, Status& why_not);

  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;
  ~Driver();

  /// Throws Error(ErrorKind::Cuda) "CUDA error <NAME> (<description>) while
  /// <what>" unless `result` is CUDA_SUCCESS.
  void check(CUresult result, std::string_view what) const;
  /// "CUDA_ERROR_ILLEGAL_ADDRESS" etc.; "CUDA error <n>" when unknown.
  std::string error_name(CUresult result) const;

  int device_count() const noexcept { return device_count_; }
  /// Driver version as major * 1000 + minor * 10 (e.g. 13000).
  int driver_version() const noexcept { return driver_version_; }
  /// Cached properties of `device`; throws Error(ErrorKind::Value) for a bad ordinal.
  const DeviceInfo& device_info(int device) const;
  /// The device's primary context, retained on first use and kept for the
  /// life of the process (so modules loaded into it stay valid).
  CUcontext primary_context(int device) const;
  /// Makes `device`'s primary context current on this thread.
  void make_current(int device) const;
  /// What the driver knows about `ptr` (plain host memory: is_device false).
  PointerInfo pointer_info(const void* ptr) const;

  /// Launches `function` with cuLaunchKernel, or cuLaunchKernelEx when a
  /// cluster or a programmatic dependency is requested. Allocates nothing;
  /// throws Error(ErrorKind::Cuda).
  void launch(CUfunction function, const LaunchConfig& config, void** params) const;
  /// Lets `function` use up to `bytes` of dynamic shared memory (needed above 48 KB).
  void set_max_dynamic_shared_memory(CUfunction function, int bytes) const;

  // Driver entry points (types from <cuda.h>; versioned ABIs as of CUDA 12.0).
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem_v2) device_total_mem = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease_v2) primary_ctx_release = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuMemAlloc_v2) mem_alloc = nullptr;
  decltype(&::cuMemFree_v2) mem_free = nullptr;
  decltype(&::cuMemAllocAsync) mem_alloc_async = nullptr;
  decltype(&::cuMemFreeAsync) mem_free_async = nullptr;
  decltype(&::cuMemGetInfo_v2) mem_get_info = nullptr;
  decltype(&::cuMemcpyHtoD_v2) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
  decltype(&::cuMemcpyHtoDAsync_v2) memcpy_htod_async = nullptr;
  decltype(&::cuMemcpyDtoHAsync_v2) memcpy_dtoh_async = nullptr;
  decltype(&::cuMemcpyDtoDAsync_v2) memcpy_dtod_async = nullptr;
  decltype(&::cuMemsetD8Async) memset_d8_async = nullptr;
  decltype(&::cuMemsetD32Async) memset_d32_async = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuLaunchKernelEx) launch_kernel_ex = nullptr;
  decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy_max_active_blocks = nullptr;
  decltype(&::cuOccupancyMaxActiveClusters) occupancy_max_active_clusters = nullptr;
  decltype(&::cuTensorMapEncodeTiled) tensor_map_encode_tiled = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy_v2) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamIsCapturing) stream_is_capturing = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy_v2) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) event_elapsed_time = nullptr;
  decltype(&::cuPointerGetAttribute) pointer_get_attribute = nullptr;
  decltype(&::cuPointerGetAttributes) pointer_get_attributes = nullptr;

 private:
  Driver() = default;
  Status bind_symbols();
  Status initialise();

  void* library_ = nullptr;
  int device_count_ = 0;
  int driver_version_ = 0;
  mutable std::mutex mutex_;
  mutable std::vector<CUcontext> contexts_;
  mutable std::vector<std::unique_ptr<DeviceInfo>> infos_;
};

/// Shorthand for Driver::require().device_info(device).
const DeviceInfo& device_info(int device);

}  // namespace epigemm::runtime
