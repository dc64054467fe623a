// Tests of the dlopen'd driver that need no GPU: a missing library and a
// library without the driver's symbols are reported as Status reasons, and
// the process-wide driver either works or says why, never crashes.
#include <gtest/gtest.h>

#include "runtime/driver.hpp"

namespace epigemm::runtime {
namespace {

TEST(Driver, MissingLibraryIsAStatusNotACrash) {
  Status why = Status::ok();
  auto driver = Driver::load("libepigemm_no_such_driver.so.1", why);
  EXPECT_EQ(driver, nullptr);
  EXPECT_FALSE(why.is_ok());
  EXPECT_EQ(why.reason(), "no CUDA driver (libepigemm_no_such_driver.so.1 not found)");
}

TEST(Driver, LibraryWithoutDriverSymbolsIsRejected) {
  Status why = Status::ok();
  auto driver = Driver::load("libm.so.6", why);
  ASSERT_EQ(driver, nullptr);
  EXPECT_NE(why.reason().find("CUDA driver too old"), std::string::npos) << why.reason();
  EXPECT_NE(why.reason().find("cuInit"), std::string::npos) << why.reason();
}

TEST(Driver, ProcessDriverWorksOrSaysWhy) {
  Status why = Status::ok();
  const Driver* driver = Driver::get(&why);
  const Status again = Driver::status();
  EXPECT_EQ(again.is_ok(), why.is_ok());
  EXPECT_EQ(again.reason(), why.reason());
  if (driver != nullptr) {
    EXPECT_TRUE(why.is_ok());
    EXPECT_GT(driver->device_count(), 0);
    EXPECT_GE(driver->driver_version(), 12000);
    EXPECT_EQ(&Driver::require(), driver);
    return;
  }
  const std::string& reason = why.reason();
  const bool known = reason == "no CUDA driver (libcuda.so.1 not found)" || reason == "no CUDA device" ||
                     reason.rfind("CUDA driver", 0) == 0;
  EXPECT_TRUE(known) << reason;
  try {
    Driver::require();
    FAIL() << "require() returned without a driver";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Cuda);
    EXPECT_EQ(e.message(), reason);
  }
  EXPECT_THROW(device_info(0), Error);
}

TEST(Driver, GetIsStableAcrossCalls) {
  Status a = Status::ok(), b = Status::ok();
  EXPECT_EQ(Driver::get(&a), Driver::get(&b));
  EXPECT_EQ(a.reason(), b.reason());
}

}  // namespace
}  // namespace epigemm::runtime
