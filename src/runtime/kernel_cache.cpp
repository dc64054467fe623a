// KernelLoader: memory cache (shared lock on hits, one mutex per key on
// misses), disk cache, NVRTC, dumps, and module loading with one retry when
// the driver rejects a cached image.
#include "runtime/kernel_cache.hpp"

#include "epigemm/error.hpp"
#include "support/env.hpp"
#include "support/file_io.hpp"
#include "support/log.hpp"

namespace epigemm::runtime {

std::size_t KernelLoader::MemoryKeyHash::operator()(const MemoryKey& k) const noexcept {
  return static_cast<std::size_t>(hash_combine(k.key, static_cast<std::uint64_t>(k.device)));
}

KernelLoader& KernelLoader::instance() {
  static KernelLoader* const loader = new KernelLoader();  // NOTE: leaked so modules outlive static destructors
  return *loader;
}

KernelLoader::KernelLoader(KernelLoaderSettings settings) : settings_(std::move(settings)) {}

DiskCache KernelLoader::disk_cache() const {
  return DiskCache(settings_.cache_dir ? *settings_.cache_dir : env::cache_dir());
}

bool KernelLoader::disk_cache_enabled() const {
  return settings_.use_disk_cache ? *settings_.use_disk_cache : !env::disk_cache_disabled();
}

std::optional<LoadedKernel> KernelLoader::find(std::uint64_t key, int device) const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  auto it = loaded_.find(MemoryKey{key, device});
  if (it == loaded_.end()) return std::nullopt;
  return it->second->kernel;
}

LoadedKernel KernelLoader::get(std::uint64_t key, int device, const std::function<KernelSource()>& make_source) {
  if (auto hit = find(key, device)) return *hit;
  Driver::require();  // no GPU: say so before asking for (and compiling) the source
  const MemoryKey mkey{key, device};
  std::shared_ptr<std::mutex> slot;
  {
    std::lock_guard<std::mutex> lock(inflight_mutex_);
    auto& s = inflight_[mkey];
    if (!s) s = std::make_shared<std::mutex>();
    slot = s;
  }
  std::lock_guard<std::mutex> compiling(*slot);
  // Another thread may have finished this key while we waited.
  if (auto hit = find(key, device)) return *hit;
  auto forget_slot = [&] {
    std::lock_guard<std::mutex> lock(inflight_mutex_);
    inflight_.erase(mkey);
  };
  try {
    LoadedKernel kernel = load_into_memory(mkey, make_source());
    forget_slot();
    return kernel;
  } catch (...) {
    forget_slot();
    throw;
  }
}

LoadedKernel KernelLoader::load_into_memory(const MemoryKey& key, const KernelSource& source) {
  const Driver& driver = Driver::require();
  ContextGuard guard(driver, key.device);
  CompiledKernel compiled = compile_impl(source, /*read_disk=*/true);
  auto entry = std::make_unique<Entry>();
  try {
    entry->module = Module::load(driver, compiled.image, source.name_expression);
  } catch (const Error& e) {
    if (!compiled.from_disk_cache) throw;
    // A cached image the driver rejects (e.g. written by another toolkit):
    // compile afresh, which also replaces the file.
    log(LogLevel::warn, std::string("cached kernel rejected by the driver (") + e.what() + "); recompiling");
    compiled = compile_impl(source, /*read_disk=*/false);
    entry->module = Module::load(driver, compiled.image, source.name_expression);
  }
  entry->kernel.module = entry->module.get();
  entry->kernel.function = entry->module.function(compiled.lowered_name);
  if (source.dynamic_shared_bytes > 0) {
    driver.set_max_dynamic_shared_memory(entry->kernel.function, source.dynamic_shared_bytes);
  }
  const LoadedKernel kernel = entry->kernel;
  std::unique_lock<std::shared_mutex> lock(map_mutex_);
  loaded_[key] = std::move(entry);
  return kernel;
}

CompiledKernel KernelLoader::compile(const KernelSource& source) const {
  return compile_impl(source, /*read_disk=*/true);
}

CompiledKernel KernelLoader::precompile(const KernelSource& source) const {
  if (!disk_cache_enabled()) {
    throw Error(ErrorKind::Value,
                "precompiling needs the disk kernel cache, which is disabled (EPIGEMM_DISABLE_DISK_CACHE): the "
                "kernels would be compiled and lost");
  }
  CompiledKernel kernel = compile(source);
  if (kernel.from_disk_cache) return kernel;
  const std::filesystem::path file = disk_cache().path_for(kernel.key);
  if (!std::filesystem::exists(file)) throw Error(ErrorKind::Value, "could not write the kernel cache file " + file.string());
  return kernel;
}

CompiledKernel KernelLoader::compile_impl(const KernelSource& source, bool read_disk) const {
  if (source.name_expression.empty()) {
    throw Error(ErrorKind::Internal, "kernel source " + source.file_name + " names no kernel to load");
  }
  const std::optional<std::filesystem::path> dump_dir = settings_.dump_dir ? settings_.dump_dir : env::dump_dir();
  CompileRequest request;
  request.source = source.source;
  request.file_name = source.file_name;
  request.arch = source.arch;
  request.options = source.options;
  request.name_expressions = {source.name_expression};
  request.headers = source.headers;
  request.want_ptx = dump_dir.has_value();

  CompiledKernel out;
  out.key = compile_cache_key(request);
  const bool use_disk = disk_cache_enabled();
  const DiskCache cache = disk_cache();
  if (use_disk && read_disk) {
    if (auto entry = cache.load(out.key)) {
      if (entry->lowered_names.size() == 1 && entry->name_expressions.front() == source.name_expression) {
        out.image = std::move(entry->image);
        out.is_ptx = entry->is_ptx;
        out.lowered_name = std::move(entry->lowered_names.front());
        out.from_disk_cache = true;
        log(LogLevel::debug, "kernel cache hit " + cache.path_for(out.key).string());
        dump(source, out, {});
        return out;
      }
    }
  }
  CompileResult result = nvrtc_compile(request);
  out.is_ptx = result.cubin.empty();
  out.image = out.is_ptx ? result.ptx : std::move(result.cubin);
  out.lowered_name = result.lowered_names.front();
  out.compile_seconds = result.seconds;
  if (use_disk) {
    CacheEntry entry;
    entry.image = out.image;
    entry.is_ptx = out.is_ptx;
    entry.name_expressions = {source.name_expression};
    entry.lowered_names = {out.lowered_name};
    try {
      cache.store(out.key, entry);
    } catch (const Error& e) {
      // A read-only or full cache directory costs speed, not correctness.
      log(LogLevel::warn, std::string("could not write the kernel cache: ") + e.what());
    }
  }
  dump(source, out, result.ptx);
  return out;
}

void KernelLoader::dump(const KernelSource& source, const CompiledKernel& kernel, const std::string& ptx) const {
  const std::optional<std::filesystem::path> dir = settings_.dump_dir ? settings_.dump_dir : env::dump_dir();
  if (!dir) return;
  try {
    ensure_directory(*dir);
    const std::string stem = std::filesystem::path(source.file_name).stem().string() + "-" + kernel.key.hex();
    write_file_atomic(*dir / (stem + ".cu"), source.source);
    if (!ptx.empty()) write_file_atomic(*dir / (stem + ".ptx"), ptx);
    if (!kernel.is_ptx) write_file_atomic(*dir / (stem + ".cubin"), kernel.image);
  } catch (const Error& e) {
    log(LogLevel::warn, std::string("could not dump kernel ") + source.file_name + ": " + e.what());
  }
}

std::size_t KernelLoader::loaded_count() const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  return loaded_.size();
}

void KernelLoader::unload_all() {
  std::unique_lock<std::shared_mutex> lock(map_mutex_);
  loaded_.clear();
}

}  // namespace epigemm::runtime
