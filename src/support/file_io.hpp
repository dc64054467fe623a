// Whole-file reading and crash-safe writing. write_file_atomic writes to a
// unique temporary name in the target's directory, fsyncs, then renames, so
// a reader sees either the old file, the new file, or nothing, never a part.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace epigemm {

/// The file's bytes, or nullopt when it does not exist or cannot be read.
std::optional<std::string> try_read_file(const std::filesystem::path& path);

/// The file's bytes. Throws Error(ErrorKind::Value) naming the path and the
/// system's reason when it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// Replaces `path` with `data` atomically (temporary file in the same
/// directory, fsync, rename, then fsync of the directory). The directory must
/// exist. Concurrent writers of the same path all succeed; the last rename
/// wins. Throws Error(ErrorKind::Value) naming the path on failure, leaving
/// no temporary file behind.
void write_file_atomic(const std::filesystem::path& path, std::string_view data);

/// Creates `dir` and its parents if missing. Throws Error(ErrorKind::Value)
/// naming the directory when that fails or a non-directory is in the way.
void ensure_directory(const std::filesystem::path& dir);

/// Creates a fresh, private (0700) directory <system temp>/<prefix>XXXXXX.
/// Throws Error(ErrorKind::Value) on failure.
std::filesystem::path make_temp_directory(std::string_view prefix);

/// Whether `name` is a temporary file left by write_file_atomic (for
/// instance by a process killed mid-write), so cleaners may remove it.
bool is_atomic_write_temp(std::string_view name) noexcept;

}  // namespace epigemm
