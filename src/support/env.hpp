// Environment knobs: every EPIGEMM_* variable the library reads, with typed
// getters. Values are read at each call (nothing is cached), so tests and
// tools may change them with setenv between calls.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace epigemm::env {

/// Directory of the on-disk kernel cache. Default: $XDG_CACHE_HOME/epigemm,
/// else $HOME/.cache/epigemm.
inline constexpr const char kCacheDir[] = "EPIGEMM_CACHE_DIR";
/// When set, every compiled kernel's .cu, .ptx and .cubin are kept here, and
/// sources that fail to compile are dumped here.
inline constexpr const char kDumpDir[] = "EPIGEMM_DUMP_DIR";
/// A true value (1, true, yes, on) bypasses the on-disk kernel cache.
inline constexpr const char kDisableDiskCache[] = "EPIGEMM_DISABLE_DISK_CACHE";
/// A true value compiles kernels with source line information (NVRTC's
/// -lineinfo), so that compute-sanitizer and ncu name the kernel source's
/// lines (runtime::implicit_options); part of each kernel's cache key.
inline constexpr const char kLineInfo[] = "EPIGEMM_LINEINFO";
/// Log level on stderr: off, error, warn (default), info, debug, or 0-4.
inline constexpr const char kLog[] = "EPIGEMM_LOG";

/// The variable's value; nullopt when unset or empty.
std::optional<std::string> get(const char* name);

/// A boolean knob: 1/true/yes/on or 0/false/no/off (any case); `fallback`
/// when unset. Throws Error(ErrorKind::Value) naming the variable otherwise.
bool get_flag(const char* name, bool fallback);

/// An integer knob; `fallback` when unset. Throws Error(ErrorKind::Value)
/// naming the variable when the value is not a whole decimal number.
long long get_int(const char* name, long long fallback);

/// EPIGEMM_CACHE_DIR, or the default described at kCacheDir. When neither
/// XDG_CACHE_HOME nor HOME is set: <temp dir>/epigemm-cache-<uid>.
std::filesystem::path cache_dir();

/// EPIGEMM_DUMP_DIR, when set.
std::optional<std::filesystem::path> dump_dir();

/// EPIGEMM_DISABLE_DISK_CACHE as a flag (default false).
bool disk_cache_disabled();

/// EPIGEMM_LINEINFO as a flag (default false).
bool line_info();

}  // namespace epigemm::env
