// The L2 flush's size rule (no GPU): four times the device's L2, at least
// 64 MiB. Its kernel runs in gpu_runtime_test.cpp.
#include <gtest/gtest.h>

#include "runtime/l2_flush.hpp"

namespace epigemm::runtime {
namespace {

TEST(L2Flush, DefaultBytesAreFourTimesL2AndAtLeast64MiB) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  DeviceInfo device;
  device.l2_bytes = 50 * kMiB;  // an H100's
  EXPECT_EQ(L2Flush::default_bytes(device), 200 * kMiB);
  device.l2_bytes = 60 * kMiB;  // an H200's
  EXPECT_EQ(L2Flush::default_bytes(device), 240 * kMiB);
  device.l2_bytes = 4 * kMiB;
  EXPECT_EQ(L2Flush::default_bytes(device), 64 * kMiB);
  device.l2_bytes = 0;
  EXPECT_EQ(L2Flush::default_bytes(device), 64 * kMiB);
}

}  // namespace
}  // namespace epigemm::runtime
