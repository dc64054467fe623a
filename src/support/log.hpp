// Diagnostic logging to stderr, filtered by EPIGEMM_LOG. Library code never
// writes to stdout; this is the only place it writes to stderr.
#pragma once

#include <string_view>

namespace epigemm {

/// Increasing verbosity.
enum class LogLevel : int { off = 0, error = 1, warn = 2, info = 3, debug = 4 };

/// The level EPIGEMM_LOG asks for (names or 0-4, any case); warn when unset
/// or unrecognised (logging never throws).
LogLevel log_level() noexcept;

/// Whether a message at `level` would be written.
bool log_enabled(LogLevel level) noexcept;

/// Writes "[epigemm] <level>: <message>" and a newline to stderr, as one
/// write, when `level` is enabled.
void log(LogLevel level, std::string_view message) noexcept;

}  // namespace epigemm
