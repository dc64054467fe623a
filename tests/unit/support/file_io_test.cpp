// Tests of whole-file reading and atomic writing: round trips of random
// binary data, errors naming the path, no temporary files left behind, and
// readers racing writers never seeing a partial file.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <thread>

#include "epigemm/error.hpp"
#include "support/file_io.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm {
namespace {

using test_util::random_bytes;
using test_util::rng;
using test_util::TempDir;

std::size_t count_entries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(FileIo, RoundTripsBinaryDataAndOverwrites) {
  TempDir dir;
  const auto path = dir.path() / "blob.bin";
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{200003}}) {
    const std::string data = random_bytes(size);
    write_file_atomic(path, data);
    ASSERT_EQ(read_file(path), data) << size;
    ASSERT_EQ(try_read_file(path), data);
  }
  EXPECT_EQ(count_entries(dir.path()), 1u) << "a temporary file was left behind";
}

TEST(FileIo, MissingFile) {
  TempDir dir;
  const auto path = dir.path() / "absent.txt";
  EXPECT_FALSE(try_read_file(path));
  try {
    read_file(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(e.message().find(path.string()), std::string::npos);
  }
}

TEST(FileIo, WriteIntoMissingDirectoryFailsCleanly) {
  TempDir dir;
  const auto path = dir.path() / "no_such_dir" / "f.bin";
  try {
    write_file_atomic(path, "abc");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find(path.string()), std::string::npos);
  }
  EXPECT_EQ(count_entries(dir.path()), 0u);
}

TEST(FileIo, EnsureDirectory) {
  TempDir dir;
  const auto nested = dir.path() / "a" / "b" / "c";
  ensure_directory(nested);
  EXPECT_TRUE(std::filesystem::is_directory(nested));
  ensure_directory(nested);  // again: fine
  write_file_atomic(dir.path() / "file", "x");
  EXPECT_THROW(ensure_directory(dir.path() / "file"), Error);
  EXPECT_THROW(ensure_directory(dir.path() / "file" / "sub"), Error);
}

TEST(FileIo, TempDirectoriesAreFreshAndPrivate) {
  const auto a = make_temp_directory("epigemm-io-test-");
  const auto b = make_temp_directory("epigemm-io-test-");
  EXPECT_NE(a, b);
  struct stat st {};
  ASSERT_EQ(::stat(a.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

TEST(FileIo, RecognisesItsTemporaryNames) {
  EXPECT_TRUE(is_atomic_write_temp(".abc.cubin.tmp.123.0.deadbeef"));
  EXPECT_FALSE(is_atomic_write_temp("abc.cubin"));
  EXPECT_FALSE(is_atomic_write_temp("abc.tmp.1"));
  EXPECT_FALSE(is_atomic_write_temp(".hidden"));
}

// Writers replace the file with one of several full contents while readers
// read it: every read must equal one of the contents, never a mixture.
TEST(FileIo, ConcurrentWritersAndReadersSeeWholeFiles) {
  TempDir dir;
  const auto path = dir.path() / "shared.bin";
  std::vector<std::string> versions;
  for (int i = 0; i < 4; ++i) versions.push_back(random_bytes(300000 + rng()() % 1000));
  write_file_atomic(path, versions[0]);
  std::atomic<bool> stop{false};
  std::atomic<int> bad_reads{0}, reads{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 60; ++i) write_file_atomic(path, versions[static_cast<std::size_t>((i + w) % 4)]);
    });
  }
  std::thread reader([&] {
    while (!stop.load()) {
      auto data = try_read_file(path);
      ++reads;
      bool ok = data.has_value();
      if (ok) {
        ok = false;
        for (const auto& v : versions) ok = ok || *data == v;
      }
      if (!ok) ++bad_reads;
    }
  });
  for (auto& t : threads) t.join();
  stop = true;
  reader.join();
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_EQ(count_entries(dir.path()), 1u);
}

}  // namespace
}  // namespace epigemm
