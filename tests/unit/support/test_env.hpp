// Test helpers shared by the support and runtime tests: a scoped environment
// variable, a temporary directory removed afterwards, random bytes, and
// running this test binary again as a child process with a gtest filter.
#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/file_io.hpp"

extern char** environ;

namespace epigemm::test_util {

/// Sets (or unsets, with nullopt) an environment variable; restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() : path_(make_temp_directory("epigemm-test-")) {}
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A random engine seeded afresh each run (the seed is printed on failure
/// through SCOPED_TRACE by callers that want it).
inline std::mt19937_64& rng() {
  static std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

/// `n` random bytes (any value, NULs included).
inline std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(rng()() & 0xff);
  return out;
}

/// Starts this test binary with `--gtest_filter=<filter>` and extra
/// environment variables; returns the child's pid (or -1).
inline pid_t spawn_self(const std::string& filter, const std::vector<std::pair<std::string, std::string>>& vars) {
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) env_storage.emplace_back(*e);
  for (const auto& [k, v] : vars) env_storage.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_storage) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string filter_arg = "--gtest_filter=" + filter;
  char* argv[] = {exe.data(), filter_arg.data(), nullptr};
  pid_t pid = -1;
  if (::posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  return pid;
}

/// Waits for a child; its exit code, or -1 when it died by a signal.
inline int wait_child(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace epigemm::test_util
