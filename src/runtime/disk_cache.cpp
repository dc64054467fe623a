// Cache file encoding and checking, and the directory operations behind
// `epigemm cache list|clear`. Layout (little-endian):
//   "EPGMKRNL" | u32 version | u32 flags (bit 0: PTX) | u64 key.hi | u64 key.lo
//   | u64 payload size | u64 payload hash | u32 name count
//   | per name: u32 len, expression, u32 len, lowered | payload | u64 checksum
#include "runtime/disk_cache.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "epigemm/error.hpp"
#include "support/file_io.hpp"
#include "support/log.hpp"

namespace epigemm::runtime {
namespace {

constexpr std::string_view kMagic = "EPGMKRNL";
constexpr std::uint32_t kFlagPtx = 1;
// Guards against absurd allocations when a length field is corrupt.
constexpr std::uint32_t kMaxNames = 4096;

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_string(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

// Sequential reader that fails (instead of overrunning) on short input.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool u32(std::uint32_t& v) { return number(v, 4); }
  bool u64(std::uint64_t& v) { return number(v, 8); }
  bool raw(std::size_t n, std::string_view& out) {
    if (bytes_.size() - pos_ < n) return false;
    out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool string(std::string& out) {
    std::uint32_t n = 0;
    std::string_view view;
    if (!u32(n) || !raw(n, view)) return false;
    out.assign(view);
    return true;
  }
  std::size_t position() const { return pos_; }

 private:
  template <class T>
  bool number(T& v, int size) {
    if (bytes_.size() - pos_ < static_cast<std::size_t>(size)) return false;
    v = 0;
    for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes_[pos_ + i]);
    pos_ += static_cast<std::size_t>(size);
    return true;
  }
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

std::optional<Hash128> key_of_file_name(const std::filesystem::path& path) {
  if (path.extension() != DiskCache::kExtension) return std::nullopt;
  return parse_hash128(path.stem().string());
}

}  // namespace

Hash128 compile_cache_key(const CompileRequest& request) {
  Hasher h;
  h.field("epigemm kernel cache").u64(DiskCache::kFormatVersion);
  h.field(request.source).field(request.file_name).field(request.arch);
  h.u64(request.headers.size());
  for (const HeaderFile& header : request.headers) h.field(header.first).field(header.second);
  h.u64(request.options.size());
  for (const auto& option : request.options) h.field(option);
  h.u64(request.name_expressions.size());
  for (const auto& name : request.name_expressions) h.field(name);
  h.value(nvrtc_version());
  for (const auto& option : implicit_options()) h.field(option);
  return h.digest128();
}

std::filesystem::path DiskCache::path_for(const Hash128& key) const {
  return dir_ / (key.hex() + std::string(kExtension));
}

std::string DiskCache::encode(const Hash128& key, const CacheEntry& entry) {
  if (entry.name_expressions.size() != entry.lowered_names.size()) {
    throw Error(ErrorKind::Internal, "cache entry has " + std::to_string(entry.name_expressions.size()) +
                                         " name expressions but " + std::to_string(entry.lowered_names.size()) +
                                         " lowered names");
  }
  std::string out;
  out.reserve(entry.image.size() + 256);
  out.append(kMagic);
  put_u32(out, kFormatVersion);
  put_u32(out, entry.is_ptx ? kFlagPtx : 0);
  put_u64(out, key.hi);
  put_u64(out, key.lo);
  put_u64(out, entry.image.size());
  put_u64(out, hash64(entry.image));
  put_u32(out, static_cast<std::uint32_t>(entry.name_expressions.size()));
  for (std::size_t i = 0; i < entry.name_expressions.size(); ++i) {
    put_string(out, entry.name_expressions[i]);
    put_string(out, entry.lowered_names[i]);
  }
  out.append(entry.image);
  put_u64(out, hash64(out));
  return out;
}

std::optional<CacheEntry> DiskCache::decode(const Hash128& key, std::string_view bytes, std::string* problem) {
  auto reject = [&](const char* why) -> std::optional<CacheEntry> {
    if (problem != nullptr) *problem = why;
    return std::nullopt;
  };
  if (bytes.size() < kMagic.size() + 8) return reject("file too short");
  const std::string_view body = bytes.substr(0, bytes.size() - 8);
  Reader trailer(bytes.substr(bytes.size() - 8));
  std::uint64_t checksum = 0;
  trailer.u64(checksum);

  Reader r(body);
  std::string_view magic;
  std::uint32_t version = 0, flags = 0, names = 0;
  std::uint64_t hi = 0, lo = 0, payload_size = 0, payload_hash = 0;
  if (!r.raw(kMagic.size(), magic) || magic != kMagic) return reject("bad magic number (not a cache file)");
  if (!r.u32(version) || version != kFormatVersion) return reject("different cache format version");
  if (checksum != hash64(body)) return reject("checksum mismatch (file truncated or altered)");
  if (!r.u32(flags) || !r.u64(hi) || !r.u64(lo) || !r.u64(payload_size) || !r.u64(payload_hash) || !r.u32(names)) {
    return reject("truncated header");
  }
  if (Hash128{hi, lo} != key) return reject("file holds a different key");
  if (names > kMaxNames) return reject("implausible kernel name count");
  CacheEntry entry;
  entry.is_ptx = (flags & kFlagPtx) != 0;
  for (std::uint32_t i = 0; i < names; ++i) {
    std::string expression, lowered;
    if (!r.string(expression) || !r.string(lowered)) return reject("truncated kernel names");
    entry.name_expressions.push_back(std::move(expression));
    entry.lowered_names.push_back(std::move(lowered));
  }
  if (body.size() - r.position() != payload_size) return reject("payload size mismatch");
  std::string_view payload;
  r.raw(payload_size, payload);
  if (hash64(payload) != payload_hash) return reject("payload hash mismatch");
  entry.image.assign(payload);
  return entry;
}

CacheRead DiskCache::read(const Hash128& key) const {
  CacheRead result;
  auto bytes = try_read_file(path_for(key));
  if (!bytes) return result;
  auto entry = decode(key, *bytes, &result.problem);
  if (!entry) {
    result.state = CacheLookup::corrupt;
    return result;
  }
  result.state = CacheLookup::hit;
  result.entry = std::move(*entry);
  return result;
}

std::optional<CacheEntry> DiskCache::load(const Hash128& key) const {
  CacheRead r = read(key);
  if (r.state == CacheLookup::corrupt) {
    log(LogLevel::warn, "ignoring corrupt kernel cache file " + path_for(key).string() + ": " + r.problem +
                            "; it will be recompiled and replaced");
  }
  if (r.state != CacheLookup::hit) return std::nullopt;
  return std::move(r.entry);
}

void DiskCache::store(const Hash128& key, const CacheEntry& entry) const {
  ensure_directory(dir_);
  write_file_atomic(path_for(key), encode(key, entry));
}

bool DiskCache::remove(const Hash128& key) const {
  std::error_code ec;
  return std::filesystem::remove(path_for(key), ec);
}

std::vector<CacheEntryInfo> DiskCache::list() const {
  std::vector<CacheEntryInfo> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path path = it->path();
    auto key = key_of_file_name(path);
    if (!key || !it->is_regular_file(ec)) continue;
    CacheEntryInfo info;
    info.key = *key;
    info.path = path;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // removed meanwhile
    info.size = static_cast<std::uintmax_t>(st.st_size);
    info.mtime = static_cast<std::int64_t>(st.st_mtime);
    if (auto bytes = try_read_file(path)) {
      if (auto entry = decode(*key, *bytes, nullptr)) {
        info.valid = true;
        info.name_expressions = std::move(entry->name_expressions);
      }
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

std::size_t DiskCache::clear() const {
  std::vector<std::filesystem::path> doomed;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path path = it->path();
    const std::string name = path.filename().string();
    const bool ours = key_of_file_name(path).has_value() ||
                      (is_atomic_write_temp(name) && name.find(std::string(kExtension) + ".tmp.") != std::string::npos);
    if (ours && it->is_regular_file(ec)) doomed.push_back(path);
  }
  std::size_t removed = 0;
  for (const auto& path : doomed) {
    if (std::filesystem::remove(path, ec)) ++removed;
  }
  return removed;
}

}  // namespace epigemm::runtime
