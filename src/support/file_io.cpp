// POSIX implementation of whole-file reads and atomic writes. Temporary
// names are ".<name>.tmp.<pid>.<counter>.<random>" so they are unique across
// threads and processes and hidden from directory listings of the cache.
#include "support/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "epigemm/error.hpp"
#include "support/hash.hpp"

namespace epigemm {
namespace {

constexpr std::string_view kTempMarker = ".tmp.";

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int err) {
  throw Error(ErrorKind::Value, what + " '" + path.string() + "': " + std::strerror(err));
}

// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::filesystem::path temp_name_for(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  const std::uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  Hasher h(static_cast<std::uint64_t>(now));
  h.u64(static_cast<std::uint64_t>(::getpid())).u64(n).field(path.string());
  std::string name = "." + path.filename().string() + std::string(kTempMarker) +
                     std::to_string(static_cast<long>(::getpid())) + "." + std::to_string(n) + "." +
                     to_hex(h.digest64()).substr(0, 8);
  return path.parent_path() / name;
}

bool write_all(int fd, std::string_view data) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::optional<std::string> try_read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  FdCloser closer(fd);
  std::string out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  errno = 0;
  auto data = try_read_file(path);
  if (!data) fail("cannot read file", path, errno != 0 ? errno : EIO);
  return std::move(*data);
}

void write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const std::filesystem::path temp = temp_name_for(path.has_parent_path() ? path : dir / path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create temporary file for", path, errno);
  FdCloser closer(fd);
  if (!write_all(fd, data) || ::fsync(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail("cannot write file", path, err);
  }
  if (::close(closer.release()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail("cannot write file", path, err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail("cannot rename temporary file onto", path, err);
  }
  // Make the rename itself durable; failure here loses nothing already visible.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void ensure_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorKind::Value, "cannot create directory '" + dir.string() + "': " + ec.message());
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error(ErrorKind::Value, "'" + dir.string() + "' exists but is not a directory");
  }
}

std::filesystem::path make_temp_directory(std::string_view prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (std::string(prefix) + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) fail("cannot create temporary directory", pattern, errno);
  return std::filesystem::path(buffer.data());
}

bool is_atomic_write_temp(std::string_view name) noexcept {
  return name.size() > 1 && name.front() == '.' && name.find(kTempMarker) != std::string_view::npos;
}

}  // namespace epigemm
