// KernelLoader: the JIT front door. A warm lookup is one shared-lock map
// probe on a caller-chosen 64-bit key (no hashing of source, no file I/O);
// a miss asks the caller for the source, then tries the disk cache, then
// NVRTC, stores the result, and loads the module on the device.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/cuda_objects.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/nvrtc.hpp"

namespace epigemm::runtime {

/// Everything that determines one kernel's machine code.
struct KernelSource {
  std::string source;
  std::string name_expression;  ///< the kernel to load, e.g. "epigemm::simt_gemm<64, 64>"
  std::string arch = "sm_90a";  ///< see arch_name()
  std::vector<std::string> options;
  /// (include name, contents); must stay alive during the call (the
  /// embedded kernel headers are static data, so they do).
  std::span<const HeaderFile> headers;
  std::string file_name = "epigemm_kernel.cu";
  /// When > 0, the loaded function is allowed this much dynamic shared memory.
  int dynamic_shared_bytes = 0;
};

/// A compiled (not loaded) kernel.
struct CompiledKernel {
  Hash128 key;             ///< disk-cache key (compile_cache_key)
  std::string image;       ///< cubin, or PTX for a compute_XX target
  bool is_ptx = false;
  std::string lowered_name;
  bool from_disk_cache = false;
  double compile_seconds = 0.0;  ///< 0 on a disk-cache hit
};

/// A kernel loaded on a device. The module stays loaded as long as the
/// loader that returned it (the default loader: the whole process).
struct LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

/// Overrides of the environment knobs; unset fields are read from the
/// environment at each compile (EPIGEMM_CACHE_DIR, EPIGEMM_DISABLE_DISK_CACHE,
/// EPIGEMM_DUMP_DIR).
struct KernelLoaderSettings {
  std::optional<std::filesystem::path> cache_dir;
  std::optional<bool> use_disk_cache;
  std::optional<std::filesystem::path> dump_dir;
};

class KernelLoader {
 public:
  /// The process-wide loader (environment-configured; never destroyed).
  static KernelLoader& instance();

  explicit KernelLoader(KernelLoaderSettings settings = {});
  KernelLoader(const KernelLoader&) = delete;
  KernelLoader& operator=(const KernelLoader&) = delete;

  /// Warm path: the kernel stored under (key, device), if loaded already.
  std::optional<LoadedKernel> find(std::uint64_t key, int device) const;

  /// The kernel for (key, device): memory cache, else `make_source()` ->
  /// disk cache -> NVRTC -> disk store -> module load. Concurrent callers
  /// with the same key compile once; different keys compile in parallel.
  /// Throws Error(Compile) or Error(Cuda) (e.g. "no CUDA device").
  LoadedKernel get(std::uint64_t key, int device, const std::function<KernelSource()>& make_source);

  /// Compile only (disk cache -> NVRTC -> store); needs no GPU. Kernels are
  /// dumped to the dump directory when one is set.
  CompiledKernel compile(const KernelSource& source) const;

  /// compile() for a later get() in another process or on another machine
  /// (Operator::precompile): throws Error(Value) where the disk cache is
  /// not in use, since the kernel would then be lost.
  CompiledKernel precompile(const KernelSource& source) const;

  /// The disk cache this loader uses now (directory from settings or env).
  DiskCache disk_cache() const;
  /// Whether the disk cache is in use now (settings or env).
  bool disk_cache_enabled() const;

  /// Kernels loaded in memory.
  std::size_t loaded_count() const;
  /// Unloads every module. Functions returned earlier become invalid: only
  /// for tests and tools that know nothing still uses them.
  void unload_all();

 private:
  struct MemoryKey {
    std::uint64_t key;
    int device;
    bool operator==(const MemoryKey&) const = default;
  };
  struct MemoryKeyHash {
    std::size_t operator()(const MemoryKey& k) const noexcept;
  };
  struct Entry {
    Module module;
    LoadedKernel kernel;
  };

  CompiledKernel compile_impl(const KernelSource& source, bool read_disk) const;
  void dump(const KernelSource& source, const CompiledKernel& kernel, const std::string& ptx) const;
  LoadedKernel load_into_memory(const MemoryKey& key, const KernelSource& source);

  KernelLoaderSettings settings_;
  mutable std::shared_mutex map_mutex_;
  std::unordered_map<MemoryKey, std::unique_ptr<Entry>, MemoryKeyHash> loaded_;
  std::mutex inflight_mutex_;
  std::unordered_map<MemoryKey, std::shared_ptr<std::mutex>, MemoryKeyHash> inflight_;
};

}  // namespace epigemm::runtime
