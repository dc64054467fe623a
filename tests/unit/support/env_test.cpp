// Tests of the EPIGEMM_* environment knobs and the EPIGEMM_LOG level:
// parsing, defaults, the cache-directory fallbacks and error messages.
#include <gtest/gtest.h>

#include "epigemm/error.hpp"
#include "support/env.hpp"
#include "support/log.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm {
namespace {

using test_util::ScopedEnv;

constexpr char kVar[] = "EPIGEMM_TEST_KNOB";

TEST(Env, UnsetAndEmptyAreAbsent) {
  ScopedEnv unset(kVar, std::nullopt);
  EXPECT_FALSE(env::get(kVar));
  ScopedEnv empty(kVar, "");
  EXPECT_FALSE(env::get(kVar));
  ScopedEnv set(kVar, "value x");
  EXPECT_EQ(env::get(kVar), "value x");
}

TEST(Env, FlagsAcceptCommonSpellings) {
  for (const char* yes : {"1", "true", "TRUE", "Yes", "on", " on "}) {
    ScopedEnv e(kVar, yes);
    EXPECT_TRUE(env::get_flag(kVar, false)) << yes;
  }
  for (const char* no : {"0", "false", "No", "OFF"}) {
    ScopedEnv e(kVar, no);
    EXPECT_FALSE(env::get_flag(kVar, true)) << no;
  }
  ScopedEnv unset(kVar, std::nullopt);
  EXPECT_TRUE(env::get_flag(kVar, true));
  EXPECT_FALSE(env::get_flag(kVar, false));
}

TEST(Env, BadFlagThrowsNamingTheVariable) {
  ScopedEnv e(kVar, "maybe");
  try {
    env::get_flag(kVar, false);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::Value);
    EXPECT_NE(err.message().find(kVar), std::string::npos);
    EXPECT_NE(err.message().find("'maybe'"), std::string::npos);
  }
}

TEST(Env, Integers) {
  const long long v = static_cast<long long>(test_util::rng()() % 100000) - 50000;
  {
    ScopedEnv e(kVar, std::to_string(v));
    EXPECT_EQ(env::get_int(kVar, 7), v);
  }
  {
    ScopedEnv e(kVar, std::nullopt);
    EXPECT_EQ(env::get_int(kVar, 7), 7);
  }
  for (const char* bad : {"12x", "x", "1.5", "99999999999999999999999"}) {
    ScopedEnv e(kVar, bad);
    EXPECT_THROW(env::get_int(kVar, 0), Error) << bad;
  }
}

TEST(Env, CacheDirPrefersExplicitThenXdgThenHome) {
  ScopedEnv home("HOME", "/home/someone");
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  {
    ScopedEnv dir(env::kCacheDir, "/explicit/dir");
    EXPECT_EQ(env::cache_dir(), std::filesystem::path("/explicit/dir"));
  }
  ScopedEnv no_dir(env::kCacheDir, std::nullopt);
  EXPECT_EQ(env::cache_dir(), std::filesystem::path("/xdg/cache/epigemm"));
  ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
  EXPECT_EQ(env::cache_dir(), std::filesystem::path("/home/someone/.cache/epigemm"));
  ScopedEnv no_home("HOME", std::nullopt);
  const auto fallback = env::cache_dir();
  EXPECT_NE(fallback.filename().string().find("epigemm-cache-"), std::string::npos) << fallback;
}

TEST(Env, DumpDirAndDiskCacheSwitch) {
  {
    ScopedEnv dump(env::kDumpDir, std::nullopt);
    EXPECT_FALSE(env::dump_dir());
  }
  {
    ScopedEnv dump(env::kDumpDir, "/some/dump");
    EXPECT_EQ(env::dump_dir(), std::filesystem::path("/some/dump"));
  }
  {
    ScopedEnv off(env::kDisableDiskCache, std::nullopt);
    EXPECT_FALSE(env::disk_cache_disabled());
  }
  {
    ScopedEnv off(env::kDisableDiskCache, "1");
    EXPECT_TRUE(env::disk_cache_disabled());
  }
}

TEST(Log, LevelFromEnvironment) {
  {
    ScopedEnv e(env::kLog, std::nullopt);
    EXPECT_EQ(log_level(), LogLevel::warn);
  }
  const std::pair<const char*, LogLevel> cases[] = {
      {"off", LogLevel::off},   {"0", LogLevel::off},     {"error", LogLevel::error}, {"WARN", LogLevel::warn},
      {"info", LogLevel::info}, {"debug", LogLevel::debug}, {"4", LogLevel::debug},   {"bogus", LogLevel::warn}};
  for (const auto& [text, level] : cases) {
    ScopedEnv e(env::kLog, text);
    EXPECT_EQ(log_level(), level) << text;
  }
  ScopedEnv info(env::kLog, "info");
  EXPECT_TRUE(log_enabled(LogLevel::info));
  EXPECT_TRUE(log_enabled(LogLevel::error));
  EXPECT_FALSE(log_enabled(LogLevel::debug));
  EXPECT_FALSE(log_enabled(LogLevel::off));
}

TEST(Log, WritesOneLineToStderrOnlyWhenEnabled) {
  ScopedEnv level(env::kLog, "warn");
  ::testing::internal::CaptureStderr();
  log(LogLevel::warn, "shown message");
  log(LogLevel::debug, "hidden message");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "[epigemm] warn: shown message\n");
}

}  // namespace
}  // namespace epigemm
