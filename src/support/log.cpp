// EPIGEMM_LOG parsing and the stderr sink. Each message is written with a
// single write(2), so lines from several threads or processes do not mix.
#include "support/log.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include "support/env.hpp"

namespace epigemm {
namespace {

const char* level_name(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::error: return "error";
    case LogLevel::warn: return "warn";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
    case LogLevel::off: break;
  }
  return "off";
}

}  // namespace

LogLevel log_level() noexcept {
  const char* raw = std::getenv(env::kLog);
  if (raw == nullptr || *raw == '\0') return LogLevel::warn;
  std::string v;
  for (const char* p = raw; *p != '\0'; ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p))) v.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*p))));
  }
  if (v == "off" || v == "none" || v == "0") return LogLevel::off;
  if (v == "error" || v == "1") return LogLevel::error;
  if (v == "warn" || v == "warning" || v == "2") return LogLevel::warn;
  if (v == "info" || v == "3") return LogLevel::info;
  if (v == "debug" || v == "4") return LogLevel::debug;
  return LogLevel::warn;
}

bool log_enabled(LogLevel level) noexcept {
  return level != LogLevel::off && static_cast<int>(level) <= static_cast<int>(log_level());
}

void log(LogLevel level, std::string_view message) noexcept {
  if (!log_enabled(level)) return;
  try {
    std::string line = "[epigemm] ";
    line += level_name(level);
    line += ": ";
    line += message;
    line += '\n';
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      const ssize_t n = ::write(STDERR_FILENO, p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  } catch (...) {
    // Out of memory while formatting: drop the message.
  }
}

}  // namespace epigemm
