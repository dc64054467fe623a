// Loading libcuda.so.1 with dlopen, resolving entry points through
// cuGetProcAddress (dlsym of the versioned names as a fallback), and the
// checked helpers: errors, device properties, contexts, pointers, launches.
#include "runtime/driver.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace epigemm::runtime {
namespace {

// Entry points are requested with the ABI of CUDA 12.0, the oldest driver
// that has everything below (cuLaunchKernelEx, cuTensorMapEncodeTiled).
constexpr int kAbiVersion = 12000;
constexpr char kLibraryName[] = "libcuda.so.1";
// The first driver whose stream capture turns a programmatic dependent
// launch into a programmatic graph edge (CUgraphEdgeData).
constexpr int kProgrammaticLaunchVersion = 12030;

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

// Resolves one entry point by its base name, or by its exported versioned
// symbol when the driver predates cuGetProcAddress_v2.
class SymbolResolver {
 public:
  explicit SymbolResolver(void* library) : library_(library) {
    proc_address_ = reinterpret_cast<GetProcAddress>(::dlsym(library, "cuGetProcAddress_v2"));
  }

  void* find(const char* name, const char* exported) const {
    if (proc_address_ != nullptr) {
      void* fn = nullptr;
      CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      if (proc_address_(name, &fn, kAbiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
          found == CU_GET_PROC_ADDRESS_SUCCESS && fn != nullptr) {
        return fn;
      }
    }
    return ::dlsym(library_, exported);
  }

 private:
  void* library_;
  GetProcAddress proc_address_ = nullptr;
};

}  // namespace

Driver::~Driver() {
  // NOTE: the library stays loaded: modules and contexts may outlive us
  // during static destruction, and unloading libcuda is never safe.
}

std::unique_ptr<Driver> Driver::load(const char* library, Status& why_not) {
  std::unique_ptr<Driver> driver(new Driver());
  driver->library_ = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (driver->library_ == nullptr) {
    why_not = Status::unsupported(std::string("no CUDA driver (") + library + " not found)");
    return nullptr;
  }
  Status bound = driver->bind_symbols();
  if (!bound) {
    why_not = bound;
    return nullptr;
  }
  Status ready = driver->initialise();
  if (!ready) {
    why_not = ready;
    return nullptr;
  }
  why_not = Status::ok();
  return driver;
}

Status Driver::bind_symbols() {
  const SymbolResolver resolver(library_);
  std::string missing;
  auto bind = [&](auto& slot, const char* name, const char* exported) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(resolver.find(name, exported));
    if (slot == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  bind(init, "cuInit", "cuInit");
  bind(driver_get_version, "cuDriverGetVersion", "cuDriverGetVersion");
  bind(get_error_name, "cuGetErrorName", "cuGetErrorName");
  bind(get_error_string, "cuGetErrorString", "cuGetErrorString");
  bind(device_get, "cuDeviceGet", "cuDeviceGet");
  bind(device_get_count, "cuDeviceGetCount", "cuDeviceGetCount");
  bind(device_get_name, "cuDeviceGetName", "cuDeviceGetName");
  bind(device_get_attribute, "cuDeviceGetAttribute", "cuDeviceGetAttribute");
  bind(device_total_mem, "cuDeviceTotalMem", "cuDeviceTotalMem_v2");
  bind(primary_ctx_retain, "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain");
  bind(primary_ctx_release, "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2");
  bind(ctx_get_current, "cuCtxGetCurrent", "cuCtxGetCurrent");
  bind(ctx_set_current, "cuCtxSetCurrent", "cuCtxSetCurrent");
  bind(ctx_get_device, "cuCtxGetDevice", "cuCtxGetDevice");
  bind(ctx_synchronize, "cuCtxSynchronize", "cuCtxSynchronize");
  bind(mem_alloc, "cuMemAlloc", "cuMemAlloc_v2");
  bind(mem_free, "cuMemFree", "cuMemFree_v2");
  bind(mem_alloc_async, "cuMemAllocAsync", "cuMemAllocAsync");
  bind(mem_free_async, "cuMemFreeAsync", "cuMemFreeAsync");
  bind(mem_get_info, "cuMemGetInfo", "cuMemGetInfo_v2");
  bind(memcpy_htod, "cuMemcpyHtoD", "cuMemcpyHtoD_v2");
  bind(memcpy_dtoh, "cuMemcpyDtoH", "cuMemcpyDtoH_v2");
  bind(memcpy_htod_async, "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2");
  bind(memcpy_dtoh_async, "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2");
  bind(memcpy_dtod_async, "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2");
  bind(memset_d8_async, "cuMemsetD8Async", "cuMemsetD8Async");
  bind(memset_d32_async, "cuMemsetD32Async", "cuMemsetD32Async");
  bind(module_load_data, "cuModuleLoadData", "cuModuleLoadData");
  bind(module_unload, "cuModuleUnload", "cuModuleUnload");
  bind(module_get_function, "cuModuleGetFunction", "cuModuleGetFunction");
  bind(func_set_attribute, "cuFuncSetAttribute", "cuFuncSetAttribute");
  bind(func_get_attribute, "cuFuncGetAttribute", "cuFuncGetAttribute");
  bind(launch_kernel, "cuLaunchKernel", "cuLaunchKernel");
  bind(launch_kernel_ex, "cuLaunchKernelEx", "cuLaunchKernelEx");
  bind(occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
       "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  bind(occupancy_max_active_clusters, "cuOccupancyMaxActiveClusters", "cuOccupancyMaxActiveClusters");
  bind(tensor_map_encode_tiled, "cuTensorMapEncodeTiled", "cuTensorMapEncodeTiled");
  bind(stream_create, "cuStreamCreate", "cuStreamCreate");
  bind(stream_destroy, "cuStreamDestroy", "cuStreamDestroy_v2");
  bind(stream_synchronize, "cuStreamSynchronize", "cuStreamSynchronize");
  bind(stream_is_capturing, "cuStreamIsCapturing", "cuStreamIsCapturing");
  bind(event_create, "cuEventCreate", "cuEventCreate");
  bind(event_destroy, "cuEventDestroy", "cuEventDestroy_v2");
  bind(event_record, "cuEventRecord", "cuEventRecord");
  bind(event_synchronize, "cuEventSynchronize", "cuEventSynchronize");
  bind(event_elapsed_time, "cuEventElapsedTime", "cuEventElapsedTime");
  bind(pointer_get_attribute, "cuPointerGetAttribute", "cuPointerGetAttribute");
  bind(pointer_get_attributes, "cuPointerGetAttributes", "cuPointerGetAttributes");
  if (!missing.empty()) {
    return Status::unsupported("CUDA driver too old (version 12.0 or newer needed): " + std::string(kLibraryName) +
                               " lacks " + missing);
  }
  return Status::ok();
}

Status Driver::initialise() {
  const CUresult init_result = init(0);
  if (init_result == CUDA_ERROR_NO_DEVICE) return Status::unsupported("no CUDA device");
  if (init_result != CUDA_SUCCESS) {
    return Status::unsupported("CUDA driver failed to initialise: " + error_name(init_result));
  }
  if (driver_get_version(&driver_version_) != CUDA_SUCCESS) driver_version_ = 0;
  if (device_get_count(&device_count_) != CUDA_SUCCESS || device_count_ <= 0) {
    return Status::unsupported("no CUDA device");
  }
  contexts_.assign(static_cast<std::size_t>(device_count_), nullptr);
  infos_.resize(static_cast<std::size_t>(device_count_));
  return Status::ok();
}

const Driver* Driver::get(Status* why_not) {
  static Status load_status = Status::ok();
  static const Driver* const driver = load(kLibraryName, load_status).release();  // NOTE: never freed
  if (why_not != nullptr) *why_not = load_status;
  return driver;
}

Status Driver::status() {
  Status why_not = Status::ok();
  get(&why_not);
  return why_not;
}

const Driver& Driver::require() {
  Status why_not = Status::ok();
  const Driver* driver = get(&why_not);
  if (driver == nullptr) throw Error(ErrorKind::Cuda, why_not.reason());
  return *driver;
}

std::string Driver::error_name(CUresult result) const {
  const char* name = nullptr;
  if (get_error_name == nullptr || get_error_name(result, &name) != CUDA_SUCCESS || name == nullptr) {
    return "CUDA error " + std::to_string(static_cast<int>(result));
  }
  return name;
}

void Driver::check(CUresult result, std::string_view what) const {
  if (result == CUDA_SUCCESS) return;
  std::string message = "CUDA error " + error_name(result);
  const char* description = nullptr;
  if (get_error_string != nullptr && get_error_string(result, &description) == CUDA_SUCCESS && description) {
    message += " (" + std::string(description) + ")";
  }
  message += " while ";
  message += what;
  throw Error(ErrorKind::Cuda, message);
}

const DeviceInfo& Driver::device_info(int device) const {
  if (device < 0 || device >= device_count_) {
    throw Error(ErrorKind::Value, "CUDA device " + std::to_string(device) + " does not exist (" +
                                      std::to_string(device_count_) + " device(s) present)");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = infos_[static_cast<std::size_t>(device)];
  if (slot) return *slot;
  CUdevice dev = 0;
  check(device_get(&dev, device), "getting CUDA device " + std::to_string(device));
  auto info = std::make_unique<DeviceInfo>();
  info->ordinal = device;
  char name[256] = {};
  check(device_get_name(name, sizeof(name) - 1, dev), "reading the device name");
  info->name = name;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(device_get_attribute(&value, which, dev), "reading a device attribute");
    return value;
  };
  info->cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info->cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info->sm = info->cc_major * 10 + info->cc_minor;
  info->sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info->max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info->smem_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info->smem_per_block_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info->smem_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info->l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info->cluster_launch = attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  info->programmatic_launch = info->cc_major >= 9 && driver_version_ >= kProgrammaticLaunchVersion;
  std::size_t total = 0;
  check(device_total_mem(&total, dev), "reading the device memory size");
  info->total_memory = total;
  slot = std::move(info);
  return *slot;
}

CUcontext Driver::primary_context(int device) const {
  if (device < 0 || device >= device_count_) {
    throw Error(ErrorKind::Value, "CUDA device " + std::to_string(device) + " does not exist (" +
                                      std::to_string(device_count_) + " device(s) present)");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  CUcontext& ctx = contexts_[static_cast<std::size_t>(device)];
  if (ctx == nullptr) {
    CUdevice dev = 0;
    check(device_get(&dev, device), "getting CUDA device " + std::to_string(device));
    check(primary_ctx_retain(&ctx, dev), "retaining the primary context of device " + std::to_string(device));
  }
  return ctx;
}

void Driver::make_current(int device) const {
  CUcontext wanted = primary_context(device);
  CUcontext current = nullptr;
  if (ctx_get_current(&current) == CUDA_SUCCESS && current == wanted) return;
  check(ctx_set_current(wanted), "making device " + std::to_string(device) + "'s context current");
}

PointerInfo Driver::pointer_info(const void* ptr) const {
  PointerInfo info;
  if (ptr == nullptr) return info;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned int memory_type = 0;
  int ordinal = -1;
  unsigned int managed = 0;
  void* values[] = {&memory_type, &ordinal, &managed};
  const CUresult result =
      pointer_get_attributes(3, attributes, values, static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(ptr)));
  // Memory the driver has never seen is reported as success with zeroes,
  // or (older drivers, no context yet) as an error: both mean "not CUDA".
  if (result != CUDA_SUCCESS) return info;
  info.memory_type = static_cast<CUmemorytype>(memory_type);
  info.is_managed = managed != 0;
  info.is_device = memory_type == CU_MEMORYTYPE_DEVICE || info.is_managed;
  info.device = memory_type == 0 ? -1 : ordinal;
  return info;
}

void Driver::launch(CUfunction function, const LaunchConfig& c, void** params) const {
  const bool clustered = c.cluster.x * c.cluster.y * c.cluster.z > 1;
  if (!clustered && !c.programmatic_dependency) {
    check(launch_kernel(function, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.shared_bytes,
                        c.stream, params, nullptr),
          "launching a kernel");
    return;
  }
  CUlaunchAttribute attributes[2]{};
  unsigned count = 0;
  if (clustered) {
    CUlaunchAttribute& cluster = attributes[count++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = c.cluster.x;
    cluster.value.clusterDim.y = c.cluster.y;
    cluster.value.clusterDim.z = c.cluster.z;
  }
  if (c.programmatic_dependency) {
    CUlaunchAttribute& serialization = attributes[count++];
    serialization.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    serialization.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig config{};
  config.gridDimX = c.grid.x;
  config.gridDimY = c.grid.y;
  config.gridDimZ = c.grid.z;
  config.blockDimX = c.block.x;
  config.blockDimY = c.block.y;
  config.blockDimZ = c.block.z;
  config.sharedMemBytes = c.shared_bytes;
  config.hStream = c.stream;
  config.attrs = attributes;
  config.numAttrs = count;
  check(launch_kernel_ex(&config, function, params, nullptr),
        clustered ? "launching a kernel with a thread-block cluster" : "launching a kernel with a programmatic dependency");
}

void Driver::set_max_dynamic_shared_memory(CUfunction function, int bytes) const {
  check(func_set_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
        "allowing " + std::to_string(bytes) + " bytes of dynamic shared memory");
}

const DeviceInfo& device_info(int device) { return Driver::require().device_info(device); }

}  // namespace epigemm::runtime
