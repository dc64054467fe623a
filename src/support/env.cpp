// Typed readers for the EPIGEMM_* environment variables and the default
// cache location.
#include "support/env.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "epigemm/error.hpp"

namespace epigemm::env {
namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

}  // namespace

std::optional<std::string> get(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

bool get_flag(const char* name, bool fallback) {
  auto value = get(name);
  if (!value) return fallback;
  const std::string v = lowercase(trimmed(*value));
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw Error(ErrorKind::Value, std::string("environment variable ") + name + " must be 1/true/yes/on or " +
                                    "0/false/no/off, got '" + *value + "'");
}

long long get_int(const char* name, long long fallback) {
  auto value = get(name);
  if (!value) return fallback;
  const std::string v = trimmed(*value);
  std::size_t used = 0;
  long long parsed = 0;
  bool ok = !v.empty();
  if (ok) {
    try {
      parsed = std::stoll(v, &used, 10);
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || used != v.size()) {
    throw Error(ErrorKind::Value,
                std::string("environment variable ") + name + " must be a whole number, got '" + *value + "'");
  }
  return parsed;
}

std::filesystem::path cache_dir() {
  if (auto dir = get(kCacheDir)) return std::filesystem::path(*dir);
  if (auto xdg = get("XDG_CACHE_HOME")) return std::filesystem::path(*xdg) / "epigemm";
  if (auto home = get("HOME")) return std::filesystem::path(*home) / ".cache" / "epigemm";
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / ("epigemm-cache-" + std::to_string(static_cast<unsigned long>(::getuid())));
}

std::optional<std::filesystem::path> dump_dir() {
  if (auto dir = get(kDumpDir)) return std::filesystem::path(*dir);
  return std::nullopt;
}

bool disk_cache_disabled() { return get_flag(kDisableDiskCache, false); }

bool line_info() { return get_flag(kLineInfo, false); }

}  // namespace epigemm::env
