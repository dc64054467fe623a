// HostTensor storage, seeded random fills and NaN poisoning. Values are
// encoded with the library's exact host conversions (ir/convert.hpp).
#include "host_tensor.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "epigemm/error.hpp"
#include "ir/convert.hpp"

namespace epigemm::cli {
namespace {

// FNV-1a of the name, so each tensor's stream depends on its name only.
std::uint64_t name_hash(std::string_view name) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// The largest tensor the tool allocates on the host: 64 GiB.
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 36;

}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::string_view name) : state_(seed ^ name_hash(name)) {
  next();  // decorrelate nearby seeds
}

std::uint64_t RandomStream::next() noexcept {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double RandomStream::uniform01() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double RandomStream::normal() noexcept {
  // Box-Muller; 1 - u keeps the logarithm finite.
  const double u = 1.0 - uniform01();
  const double v = uniform01();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

std::int64_t RandomStream::integer(std::int64_t lo, std::int64_t hi) noexcept {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(next() % span);
}

HostTensor::HostTensor(DType dtype, Dims shape, Dims strides) : dtype_(dtype), shape_(shape) {
  TensorRef view = TensorRef::host(nullptr, dtype, shape, strides);
  strides_ = view.effective_strides();
  std::int64_t last = 0;
  for (int i = 0; i < shape_.size(); ++i) {
    if (shape_[i] <= 0) throw Error(ErrorKind::Shape, "tensor shape " + shape_.to_string() + " has a zero extent");
    if (strides_[i] > 0 && shape_[i] - 1 > (kMaxBytes - last) / strides_[i]) {
      throw Error(ErrorKind::Value, "a tensor of shape " + shape_.to_string() + " is too large for this tool");
    }
    last += (shape_[i] - 1) * strides_[i];
  }
  storage_elements_ = last + 1;
  const std::int64_t bytes = storage_elements_ * epigemm::size_bytes(dtype_);
  if (bytes > kMaxBytes) {
    throw Error(ErrorKind::Value, "a tensor of shape " + shape_.to_string() + " needs " + std::to_string(bytes) +
                                      " bytes; this tool allocates at most " + std::to_string(kMaxBytes));
  }
  byte_size_ = static_cast<std::size_t>(bytes);
  bytes_.reset(static_cast<std::byte*>(::operator new[](byte_size_, kAlignment)));
}

TensorRef HostTensor::ref() const { return TensorRef::host(bytes_.get(), dtype_, shape_, strides_); }

double HostTensor::at(std::int64_t i) const noexcept {
  const auto step = static_cast<std::size_t>(epigemm::size_bytes(dtype_));
  return ir::decode(dtype_, bytes_.get() + static_cast<std::size_t>(i) * step);
}

void HostTensor::fill_random(RandomStream& random, InitKind init) {
  const bool is_unsigned = dtype_ == DType::u8;
  const std::size_t step = static_cast<std::size_t>(epigemm::size_bytes(dtype_));
  for (std::int64_t i = 0; i < storage_elements_; ++i) {
    double v = 0.0;
    switch (init) {
      case InitKind::integer: v = static_cast<double>(random.integer(is_unsigned ? 0 : -2, 2)); break;
      case InitKind::normal: v = random.normal(); break;
      case InitKind::uniform: v = is_unsigned ? random.uniform01() : 2.0 * random.uniform01() - 1.0; break;
    }
    ir::encode(dtype_, v, bytes_.get() + static_cast<std::size_t>(i) * step);
  }
}

void HostTensor::poison() noexcept {
  if (bytes_) std::memset(bytes_.get(), 0xFF, byte_size_);
}

}  // namespace epigemm::cli
