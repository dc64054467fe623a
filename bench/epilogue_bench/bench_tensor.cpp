// BenchTensor: host bits plus device copy, random fills from a table of
// pre-rounded values (so 100M-element fills take a fraction of a second on
// host threads), poison, download and element decoding.
#include "bench_tensor.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <utility>

#include "cuda_check.hpp"
#include "ir/convert.hpp"

namespace epigemm::bench {
namespace {

constexpr int kTableBits = 12;  // 4096 distinct pre-rounded values per fill

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Runs fn(begin, end) over [0, count) on up to 32 host threads.
template <typename Fn>
void parallel_for(std::int64_t count, Fn fn) {
  const std::int64_t threads =
      std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, std::min<std::int64_t>(32, count / 65536 + 1));
  if (threads <= 1) {
    fn(0, count, 0);
    return;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = (count + threads - 1) / threads;
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t begin = t * chunk, end = std::min(count, begin + chunk);
    if (begin < end) pool.emplace_back([=, &fn] { fn(begin, end, t); });
  }
  for (std::thread& th : pool) th.join();
}

}  // namespace

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) BENCH_CUDA(cudaMalloc(&data_, bytes));
}
DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}
DeviceMemory::~DeviceMemory() {
  if (data_ != nullptr) cudaFree(data_);
}

BenchTensor::BenchTensor(DType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides)
    : dtype_(dtype), shape_(std::move(shape)), strides_(std::move(strides)) {
  if (strides_.empty()) {
    strides_.assign(shape_.size(), 1);
    for (int d = static_cast<int>(shape_.size()) - 2; d >= 0; --d) strides_[d] = strides_[d + 1] * shape_[d + 1];
  }
  if (strides_.size() != shape_.size()) throw BenchError("BenchTensor: shape and strides differ in rank");
  std::int64_t last = 0;
  for (std::size_t d = 0; d < shape_.size(); ++d) last += (shape_[d] - 1) * strides_[d];
  span_elements_ = last + 1;
  host_.resize(static_cast<std::size_t>(span_elements_) * size_bytes(dtype_));
  device_ = DeviceMemory(host_.size());
  const int size = size_bytes(dtype_);
  if (size <= 2) {
    decode_table_.resize(std::size_t{1} << (8 * size));
    for (std::size_t bits = 0; bits < decode_table_.size(); ++bits) {
      const std::uint16_t word = static_cast<std::uint16_t>(bits);
      unsigned char raw[2];
      std::memcpy(raw, &word, 2);  // little-endian: the low byte first, as the device stores it
      decode_table_[bits] = ir::decode(dtype_, raw);
    }
  }
}

TensorRef BenchTensor::ref() const {
  return TensorRef::cuda(device_.data(), dtype_, Dims(shape_), Dims(strides_));
}

void BenchTensor::fill_uniform(std::uint64_t seed, double lo, double hi) {
  const int size = size_bytes(dtype_);
  constexpr int kTable = 1 << kTableBits;
  std::vector<unsigned char> table(static_cast<std::size_t>(kTable) * size);
  for (int i = 0; i < kTable; ++i) {
    const double v = lo + (hi - lo) * (i + 0.5) / kTable;
    ir::encode(dtype_, v, table.data() + static_cast<std::size_t>(i) * size);
  }
  unsigned char* out = host_.data();
  parallel_for(span_elements_, [&](std::int64_t begin, std::int64_t end, std::int64_t chunk) {
    std::uint64_t state = seed ^ (0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(chunk + 1));
    for (std::int64_t e = begin; e < end; ++e) {
      const std::uint64_t pick = splitmix64(state) >> (64 - kTableBits);
      std::memcpy(out + e * size, table.data() + pick * size, static_cast<std::size_t>(size));
    }
  });
  BENCH_CUDA(cudaMemcpy(device_.data(), host_.data(), host_.size(), cudaMemcpyHostToDevice));
}

void BenchTensor::poison(unsigned char byte, cudaStream_t stream) {
  poison_byte_ = byte;
  BENCH_CUDA(cudaMemsetAsync(device_.data(), byte, host_.size(), stream));
}

void BenchTensor::download() {
  BENCH_CUDA(cudaMemcpy(host_.data(), device_.data(), host_.size(), cudaMemcpyDeviceToHost));
}

double BenchTensor::value_at(std::int64_t offset) const {
  const unsigned char* p = host_.data() + offset * size_bytes(dtype_);
  if (!decode_table_.empty()) {
    std::uint16_t word = 0;
    std::memcpy(&word, p, static_cast<std::size_t>(size_bytes(dtype_)));
    return decode_table_[word];
  }
  return ir::decode(dtype_, p);
}

std::int64_t BenchTensor::count_non_finite() const {
  const bool integer = is_integer(dtype_);
  if (integer && poison_byte_ < 0) return 0;
  const std::size_t size = static_cast<std::size_t>(size_bytes(dtype_));
  std::vector<unsigned char> pattern(size, static_cast<unsigned char>(poison_byte_ < 0 ? 0 : poison_byte_));
  std::atomic<std::int64_t> bad{0};
  parallel_for(span_elements_, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    std::int64_t local = 0;
    for (std::int64_t e = begin; e < end; ++e) {
      if (integer) {
        local += std::memcmp(host_.data() + static_cast<std::size_t>(e) * size, pattern.data(), size) == 0 ? 1 : 0;
      } else {
        local += std::isfinite(value_at(e)) ? 0 : 1;
      }
    }
    bad += local;
  });
  return bad.load();
}

}  // namespace epigemm::bench
