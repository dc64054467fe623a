// Disk cache tests: encode/decode round trips, hits after stores, every
// kind of damage (flipped bytes anywhere, truncation, a file of another key)
// detected and then replaced, key sensitivity, and list/clear.
#include <gtest/gtest.h>

#include "epigemm/error.hpp"
#include "runtime/disk_cache.hpp"
#include "support/env.hpp"
#include "support/file_io.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm::runtime {
namespace {

using test_util::random_bytes;
using test_util::rng;
using test_util::TempDir;

CacheEntry random_entry(std::size_t image_size = 5000) {
  CacheEntry e;
  e.image = random_bytes(image_size);
  e.is_ptx = (rng()() & 1) != 0;
  const int names = 1 + static_cast<int>(rng()() % 3);
  for (int i = 0; i < names; ++i) {
    e.name_expressions.push_back("ns::kernel<" + std::to_string(rng()() % 1000) + ">");
    e.lowered_names.push_back("_Z" + random_bytes(8 + rng()() % 8));
  }
  return e;
}

Hash128 random_key() { return Hash128{rng()(), rng()()}; }

void expect_same(const CacheEntry& a, const CacheEntry& b) {
  EXPECT_EQ(a.image, b.image);
  EXPECT_EQ(a.is_ptx, b.is_ptx);
  EXPECT_EQ(a.name_expressions, b.name_expressions);
  EXPECT_EQ(a.lowered_names, b.lowered_names);
}

TEST(DiskCache, EncodeDecodeRoundTrip) {
  for (int i = 0; i < 20; ++i) {
    const Hash128 key = random_key();
    const CacheEntry entry = random_entry(rng()() % 20000);
    std::string problem;
    auto back = DiskCache::decode(key, DiskCache::encode(key, entry), &problem);
    ASSERT_TRUE(back) << problem;
    expect_same(*back, entry);
  }
}

TEST(DiskCache, HitAfterStoreAndMissBefore) {
  TempDir dir;
  const DiskCache cache(dir.path() / "nested" / "cache");
  const Hash128 key = random_key();
  EXPECT_EQ(cache.read(key).state, CacheLookup::missing);
  EXPECT_FALSE(cache.load(key));
  const CacheEntry entry = random_entry();
  cache.store(key, entry);
  EXPECT_TRUE(std::filesystem::exists(cache.path_for(key)));
  EXPECT_EQ(cache.path_for(key).filename().string(), key.hex() + ".cubin");
  const CacheRead r = cache.read(key);
  ASSERT_EQ(r.state, CacheLookup::hit) << r.problem;
  expect_same(r.entry, entry);
  EXPECT_EQ(cache.read(random_key()).state, CacheLookup::missing);
}

TEST(DiskCache, AnyFlippedByteIsDetectedAndReplaced) {
  TempDir dir;
  const DiskCache cache(dir.path());
  const Hash128 key = random_key();
  const CacheEntry entry = random_entry(3000);
  cache.store(key, entry);
  const std::string good = read_file(cache.path_for(key));
  test_util::ScopedEnv quiet(env::kLog, "error");  // load() warns about each damaged file
  // Every header byte, then random positions in names, payload and trailer.
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < 64; ++i) positions.push_back(i);
  for (int i = 0; i < 200; ++i) positions.push_back(rng()() % good.size());
  positions.push_back(good.size() - 1);
  for (std::size_t pos : positions) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ (1 + rng()() % 255));
    write_file_atomic(cache.path_for(key), bad);
    const CacheRead r = cache.read(key);
    ASSERT_EQ(r.state, CacheLookup::corrupt) << "flip at byte " << pos << " of " << good.size();
    EXPECT_FALSE(r.problem.empty());
    ASSERT_FALSE(cache.load(key));
  }
  cache.store(key, entry);
  const CacheRead fixed = cache.read(key);
  ASSERT_EQ(fixed.state, CacheLookup::hit);
  expect_same(fixed.entry, entry);
}

TEST(DiskCache, TruncatedFilesAreDetected) {
  TempDir dir;
  const DiskCache cache(dir.path());
  const Hash128 key = random_key();
  cache.store(key, random_entry(4000));
  const std::string good = read_file(cache.path_for(key));
  std::vector<std::size_t> lengths = {0, 1, 7, 8, 12, 40, good.size() / 2, good.size() - 8, good.size() - 1};
  for (int i = 0; i < 20; ++i) lengths.push_back(rng()() % good.size());
  for (std::size_t len : lengths) {
    write_file_atomic(cache.path_for(key), good.substr(0, len));
    ASSERT_EQ(cache.read(key).state, CacheLookup::corrupt) << "truncated to " << len;
  }
  // Appended garbage is damage too.
  write_file_atomic(cache.path_for(key), good + "x");
  EXPECT_EQ(cache.read(key).state, CacheLookup::corrupt);
}

TEST(DiskCache, FileOfAnotherKeyIsRejected) {
  TempDir dir;
  const DiskCache cache(dir.path());
  const Hash128 a = random_key(), b = random_key();
  cache.store(a, random_entry());
  std::filesystem::copy_file(cache.path_for(a), cache.path_for(b));
  const CacheRead r = cache.read(b);
  EXPECT_EQ(r.state, CacheLookup::corrupt);
  EXPECT_NE(r.problem.find("different key"), std::string::npos) << r.problem;
  EXPECT_EQ(cache.read(a).state, CacheLookup::hit);
}

TEST(DiskCache, KeyCoversEverythingNvrtcSees) {
  const std::string header_text = random_bytes(100);
  const HeaderFile headers[] = {{"a.cuh", header_text}};
  const std::string altered = header_text + " ";
  const HeaderFile altered_headers[] = {{"a.cuh", altered}};
  const HeaderFile renamed_headers[] = {{"b.cuh", header_text}};
  CompileRequest base;
  const std::string source = random_bytes(200);
  base.source = source;
  base.arch = "sm_90a";
  base.options = {"-std=c++17"};
  base.name_expressions = {"k<1>"};
  base.headers = headers;
  const Hash128 key = compile_cache_key(base);
  EXPECT_EQ(compile_cache_key(base), key);
  std::vector<CompileRequest> variants(7, base);
  const std::string other_source = source + "\n";
  variants[0].source = other_source;
  variants[1].headers = altered_headers;
  variants[2].headers = renamed_headers;
  variants[3].options = {"-std=c++20"};
  variants[4].arch = "sm_80";
  variants[5].name_expressions = {"k<2>"};
  variants[6].options = {"-std=c++17", "--no-cache"};
  for (std::size_t i = 0; i < variants.size(); ++i) EXPECT_NE(compile_cache_key(variants[i]), key) << i;
}

TEST(DiskCache, ListShowsEntriesAndClearRemovesOnlyCacheFiles) {
  TempDir dir;
  const DiskCache cache(dir.path());
  std::vector<Hash128> keys;
  std::vector<CacheEntry> entries;
  for (int i = 0; i < 3; ++i) {
    keys.push_back(random_key());
    entries.push_back(random_entry(1000 + 100 * i));
    cache.store(keys.back(), entries.back());
  }
  write_file_atomic(cache.path_for(keys[2]), "garbage");  // corrupt one
  write_file_atomic(dir.path() / "notes.txt", "keep me");
  write_file_atomic(dir.path() / "not-a-key.cubin", "keep me too");
  const std::string stale = "." + keys[0].hex() + ".cubin.tmp.999.0.abcdef01";
  write_file_atomic(dir.path() / stale, "half a file");

  const auto listed = cache.list();
  ASSERT_EQ(listed.size(), 3u);
  for (std::size_t i = 0; i + 1 < listed.size(); ++i) EXPECT_LT(listed[i].key, listed[i + 1].key);
  for (const auto& info : listed) {
    const auto at = std::find(keys.begin(), keys.end(), info.key) - keys.begin();
    ASSERT_LT(at, 3);
    EXPECT_EQ(info.size, std::filesystem::file_size(cache.path_for(info.key)));
    EXPECT_GT(info.mtime, 0);
    if (at == 2) {
      EXPECT_FALSE(info.valid);
    } else {
      EXPECT_TRUE(info.valid);
      EXPECT_EQ(info.name_expressions, entries[static_cast<std::size_t>(at)].name_expressions);
    }
  }
  EXPECT_EQ(cache.clear(), 4u);  // three entries and the stale temporary
  EXPECT_TRUE(cache.list().empty());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "notes.txt"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "not-a-key.cubin"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / stale));
}

TEST(DiskCache, MissingDirectoryListsNothing) {
  TempDir dir;
  const DiskCache cache(dir.path() / "never_created");
  EXPECT_TRUE(cache.list().empty());
  EXPECT_EQ(cache.clear(), 0u);
}

TEST(DiskCache, MismatchedNameListsAreABug) {
  CacheEntry e = random_entry();
  e.lowered_names.push_back("extra");
  EXPECT_THROW(DiskCache::encode(random_key(), e), Error);
}

}  // namespace
}  // namespace epigemm::runtime
