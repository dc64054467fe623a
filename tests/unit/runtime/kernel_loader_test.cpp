// KernelLoader tests that need no GPU: compile-only through the disk cache
// (miss, then hit), EPIGEMM_CACHE_DIR / EPIGEMM_DISABLE_DISK_CACHE /
// EPIGEMM_DUMP_DIR / EPIGEMM_LINEINFO honoured, corrupt entries recompiled
// and replaced, two processes filling the same cache entry at once, and get()
// without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "epigemm/error.hpp"
#include "runtime/kernel_cache.hpp"
#include "support/env.hpp"
#include "support/file_io.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm::runtime {
namespace {

using test_util::rng;
using test_util::ScopedEnv;
using test_util::TempDir;

constexpr char kWorkerDirVar[] = "EPIGEMM_TEST_WORKER_DIR";
constexpr char kWorkerTagVar[] = "EPIGEMM_TEST_WORKER_TAG";

// A template kernel whose source differs per `tag`, so each test run
// compiles afresh rather than hitting NVRTC's or our caches from earlier.
KernelSource make_source(const std::string& tag) {
  KernelSource s;
  s.source = "// " + tag + "\nnamespace t {\ntemplate <int N>\n__global__ void fill(int* out) { out[threadIdx.x] = N; }\n}\n";
  s.name_expression = "t::fill<7>";
  s.arch = "sm_80";
  s.options = {"-std=c++17"};
  s.file_name = "loader_test.cu";
  return s;
}

std::string fresh_tag() { return "tag " + std::to_string(rng()()); }

TEST(KernelLoader, CompileMissThenDiskHit) {
  TempDir dir;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  const KernelSource src = make_source(fresh_tag());
  const CompiledKernel first = loader.compile(src);
  EXPECT_FALSE(first.from_disk_cache);
  EXPECT_GT(first.compile_seconds, 0.0);
  EXPECT_EQ(first.lowered_name.rfind("_Z", 0), 0u);
  EXPECT_TRUE(std::filesystem::exists(loader.disk_cache().path_for(first.key)));

  const CompiledKernel second = loader.compile(src);
  EXPECT_TRUE(second.from_disk_cache);
  EXPECT_EQ(second.compile_seconds, 0.0);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.lowered_name, first.lowered_name);

  KernelSource changed = src;
  changed.options.push_back("-DEXTRA=1");
  const CompiledKernel third = loader.compile(changed);
  EXPECT_FALSE(third.from_disk_cache);
  EXPECT_NE(third.key, first.key);
}

TEST(KernelLoader, CacheDirectoryFromEnvironment) {
  TempDir dir;
  ScopedEnv cache_dir(env::kCacheDir, dir.path().string());
  ScopedEnv enabled(env::kDisableDiskCache, std::nullopt);
  KernelLoader loader;
  EXPECT_EQ(loader.disk_cache().directory(), dir.path());
  const CompiledKernel k = loader.compile(make_source(fresh_tag()));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / (k.key.hex() + ".cubin")));
  EXPECT_EQ(DiskCache(dir.path()).list().size(), 1u);
}

TEST(KernelLoader, DiskCacheCanBeDisabled) {
  TempDir dir;
  ScopedEnv cache_dir(env::kCacheDir, dir.path().string());
  ScopedEnv disabled(env::kDisableDiskCache, "1");
  KernelLoader loader;
  EXPECT_FALSE(loader.disk_cache_enabled());
  const KernelSource src = make_source(fresh_tag());
  EXPECT_FALSE(loader.compile(src).from_disk_cache);
  EXPECT_FALSE(loader.compile(src).from_disk_cache);
  EXPECT_TRUE(DiskCache(dir.path()).list().empty());
}

TEST(KernelLoader, CorruptEntryIsRecompiledAndReplaced) {
  TempDir dir;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  const KernelSource src = make_source(fresh_tag());
  const CompiledKernel first = loader.compile(src);
  const auto path = loader.disk_cache().path_for(first.key);
  std::string bytes = read_file(path);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  write_file_atomic(path, bytes);
  ASSERT_EQ(loader.disk_cache().read(first.key).state, CacheLookup::corrupt);

  const CompiledKernel again = loader.compile(src);
  EXPECT_FALSE(again.from_disk_cache) << "a corrupt entry was loaded";
  EXPECT_EQ(again.image, first.image);
  EXPECT_EQ(loader.disk_cache().read(first.key).state, CacheLookup::hit);
  EXPECT_TRUE(loader.compile(src).from_disk_cache);
}

TEST(KernelLoader, DumpDirKeepsSourcePtxAndCubin) {
  TempDir cache, dump;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = cache.path(), .use_disk_cache = true, .dump_dir = {}});
  ScopedEnv dump_env(env::kDumpDir, dump.path().string());
  const KernelSource src = make_source(fresh_tag());
  const CompiledKernel k = loader.compile(src);
  const auto stem = dump.path() / ("loader_test-" + k.key.hex());
  EXPECT_EQ(read_file(stem.string() + ".cu"), src.source);
  EXPECT_EQ(read_file(stem.string() + ".cubin"), k.image);
  const std::string ptx = read_file(stem.string() + ".ptx");
  EXPECT_NE(ptx.find(k.lowered_name), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos);
}

TEST(KernelLoader, LineInfoIsAnOptionOfItsOwnCacheEntry) {
  TempDir cache, dump;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = cache.path(), .use_disk_cache = true, .dump_dir = {}});
  ScopedEnv dump_env(env::kDumpDir, dump.path().string());
  const KernelSource src = make_source(fresh_tag());
  const auto ptx_of = [&](const CompiledKernel& k) {
    return read_file((dump.path() / ("loader_test-" + k.key.hex() + ".ptx")).string());
  };
  ScopedEnv off(env::kLineInfo, std::nullopt);
  const CompiledKernel plain = loader.compile(src);
  EXPECT_EQ(ptx_of(plain).find(".loc"), std::string::npos);
  ScopedEnv on(env::kLineInfo, "1");
  const CompiledKernel lined = loader.compile(src);
  EXPECT_FALSE(lined.from_disk_cache);
  EXPECT_NE(lined.key, plain.key);
  EXPECT_NE(ptx_of(lined).find(".loc"), std::string::npos);
}

TEST(KernelLoader, CompileErrorsPropagate) {
  TempDir dir, dump;
  ScopedEnv dump_env(env::kDumpDir, dump.path().string());
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  KernelSource src = make_source(fresh_tag());
  src.source += "this is not C++\n";
  EXPECT_THROW(loader.compile(src), Error);
  EXPECT_TRUE(DiskCache(dir.path()).list().empty());
}

TEST(KernelLoader, GetWithoutGpuReportsWhy) {
  if (Driver::get() != nullptr) GTEST_SKIP() << "a GPU is present; the GPU tests cover get()";
  TempDir dir;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  EXPECT_FALSE(loader.find(42, 0));
  bool called = false;
  try {
    loader.get(42, 0, [&] {
      called = true;
      return make_source(fresh_tag());
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Cuda);
    EXPECT_EQ(e.message(), Driver::status().reason());
  }
  EXPECT_FALSE(called) << "compiled although no GPU could load the result";
  EXPECT_EQ(loader.loaded_count(), 0u);
}

// Runs only when spawned by the test below: compiles the shared kernel,
// then stores and reads the same cache key many times while the other
// worker does the same, asserting that no read ever sees a damaged file.
TEST(CacheWorker, RunsWhenSpawned) {
  const auto dir = env::get(kWorkerDirVar);
  const auto tag = env::get(kWorkerTagVar);
  if (!dir || !tag) GTEST_SKIP() << "helper for KernelLoader.TwoProcessesFillTheSameEntry";
  const std::filesystem::path root(*dir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(root / "go") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  KernelLoader loader(KernelLoaderSettings{.cache_dir = root / "cache", .use_disk_cache = true, .dump_dir = {}});
  const CompiledKernel k = loader.compile(make_source(*tag));
  ASSERT_FALSE(k.image.empty());
  const DiskCache cache(root / "cache");
  CacheEntry big;
  big.image = test_util::random_bytes(1 << 20);
  big.name_expressions = {"big"};
  big.lowered_names = {"big"};
  const Hash128 key{1, 2};
  for (int i = 0; i < 60; ++i) {
    cache.store(key, big);
    const CacheRead r = cache.read(key);
    ASSERT_EQ(r.state, CacheLookup::hit) << r.problem;
    ASSERT_EQ(r.entry.image.size(), big.image.size());
    ASSERT_EQ(cache.read(k.key).state, CacheLookup::hit);
  }
}

TEST(KernelLoader, TwoProcessesFillTheSameEntry) {
  TempDir dir;
  const std::string tag = fresh_tag();
  const std::vector<std::pair<std::string, std::string>> vars = {{kWorkerDirVar, dir.path().string()},
                                                                 {kWorkerTagVar, tag}};
  const pid_t a = test_util::spawn_self("CacheWorker.RunsWhenSpawned", vars);
  const pid_t b = test_util::spawn_self("CacheWorker.RunsWhenSpawned", vars);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  write_file_atomic(dir.path() / "go", "");
  EXPECT_EQ(test_util::wait_child(a), 0);
  EXPECT_EQ(test_util::wait_child(b), 0);

  // Exactly the two entries, both valid, no temporary files left.
  const DiskCache cache(dir.path() / "cache");
  const auto entries = cache.list();
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) EXPECT_TRUE(e.valid) << e.path;
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(dir.path() / "cache")) ++files;
  EXPECT_EQ(files, 2u);
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path() / "cache", .use_disk_cache = true, .dump_dir = {}});
  EXPECT_TRUE(loader.compile(make_source(tag)).from_disk_cache);
}

}  // namespace
}  // namespace epigemm::runtime
