// The on-disk kernel cache: one file <dir>/<32 hex digits>.cubin per key,
// holding a checked header (magic, format version, key, payload size and
// hash, kernel names), the cubin or PTX, and a checksum of the whole file.
// A file that fails any check is reported corrupt and never loaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/nvrtc.hpp"
#include "support/hash.hpp"

namespace epigemm::runtime {

/// What one cache file holds.
struct CacheEntry {
  std::string image;   ///< cubin, or PTX text when is_ptx
  bool is_ptx = false;
  std::vector<std::string> name_expressions;  ///< as requested, e.g. "epigemm::k<1>"
  std::vector<std::string> lowered_names;     ///< the symbols, same order
};

/// One file of the cache, for `epigemm cache list`.
struct CacheEntryInfo {
  Hash128 key;
  std::filesystem::path path;
  std::uintmax_t size = 0;      ///< bytes on disk
  std::int64_t mtime = 0;       ///< seconds since the Unix epoch
  bool valid = false;           ///< passes every check
  std::vector<std::string> name_expressions;  ///< empty when not valid
};

enum class CacheLookup { hit, missing, corrupt };

/// Outcome of reading one key.
struct CacheRead {
  CacheLookup state = CacheLookup::missing;
  CacheEntry entry;     ///< filled on a hit
  std::string problem;  ///< why the file was rejected, when corrupt
};

/// Key of a compile: a hash of the source, every header's name and contents,
/// the options, name expressions, target, NVRTC version and the CUDA include
/// directory, so any change to what NVRTC would see gives a new key.
Hash128 compile_cache_key(const CompileRequest& request);

/// A cache directory. Cheap to construct; the directory is created on the
/// first store. Safe for concurrent use by many threads and processes.
class DiskCache {
 public:
  static constexpr std::uint32_t kFormatVersion = 1;
  static constexpr std::string_view kExtension = ".cubin";

  explicit DiskCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  const std::filesystem::path& directory() const noexcept { return dir_; }
  /// <dir>/<key hex>.cubin
  std::filesystem::path path_for(const Hash128& key) const;

  /// Reads and checks the file of `key`.
  CacheRead read(const Hash128& key) const;
  /// The entry on a hit; nullopt when missing or corrupt (a corrupt file is
  /// logged as a warning and left for the next store() to replace).
  std::optional<CacheEntry> load(const Hash128& key) const;
  /// Writes the entry atomically (temporary file + rename), creating the
  /// directory if needed. Throws Error(ErrorKind::Value) on I/O failure.
  void store(const Hash128& key, const CacheEntry& entry) const;
  /// Removes the file of `key`; whether one was there.
  bool remove(const Hash128& key) const;

  /// Every cache file (valid or not), sorted by key. Other files are ignored.
  std::vector<CacheEntryInfo> list() const;
  /// Removes every cache file and leftover temporary file (nothing else);
  /// returns how many files were removed.
  std::size_t clear() const;

  /// The file format, exposed for tests.
  static std::string encode(const Hash128& key, const CacheEntry& entry);
  /// Decodes and checks `bytes` as the file of `key`; nullopt with `problem`
  /// set when any check fails.
  static std::optional<CacheEntry> decode(const Hash128& key, std::string_view bytes, std::string* problem);

 private:
  std::filesystem::path dir_;
};

}  // namespace epigemm::runtime
