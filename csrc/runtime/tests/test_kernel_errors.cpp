// Kernel failures in parts, with their launch's origin (kernel_errors.h),
// and launch blocking.
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/kernel_errors.h"
#include "test_util.h"

using namespace tpu_test;
using rt::Status;

namespace {
struct TaggedOrigin : rt::LaunchOrigin {
  explicit TaggedOrigin(std::string t) : tag(std::move(t)) {}
  std::string tag;
};
}  // namespace

TEST(kernel_error_keeps_its_parts_and_origin) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  auto origin = std::make_shared<const TaggedOrigin>("from the test");
  CHECK_OK(rt::launch(s, "fine", {}, [] {}, nullptr));
  CHECK_OK(rt::launch(s, "thrower", {}, [] { throw std::out_of_range("bad index"); }, origin));
  CHECK_OK(rt::launch(s, "second", {}, [] { throw std::runtime_error("later"); }));
  CHECK_STATUS(rt::stream_synchronize(s), Status::kKernelFailure);
  const rt::KernelError& e = rt::last_kernel_error();
  CHECK_EQ(e.kernel, std::string("thrower"));
  CHECK_EQ(e.what, std::string("bad index"));
  CHECK_EQ(e.device, 0);
  CHECK_EQ(e.later_failures, 1);
  CHECK(!e.at_launch);
  CHECK(e.origin.get() == origin.get());
  CHECK_CONTAINS(rt::last_error_message(), "kernel 'thrower' failed on tpu:0: bad index");
  // Another failure clears the parts.
  CHECK_STATUS(rt::stream_destroy(nullptr), Status::kInvalidValue);
  CHECK(rt::last_kernel_error().kernel.empty());
  CHECK_OK(rt::stream_destroy(s));
}

TEST(launch_blocking_reports_the_failure_at_its_launch) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  const bool saved = rt::launch_blocking();
  rt::set_launch_blocking(true);
  std::atomic<bool> ran{false};
  CHECK_OK(rt::launch(s, "fine", {}, [&] { ran = true; }));
  CHECK(ran.load());  // it ran before launch returned
  CHECK_STATUS(rt::launch(s, "thrower", {}, [] { throw std::runtime_error("now"); }), Status::kKernelFailure);
  CHECK(rt::last_kernel_error().at_launch);
  CHECK_EQ(rt::last_kernel_error().what, std::string("now"));
  CHECK_OK(rt::stream_synchronize(s));  // reported once
  rt::set_launch_blocking(false);
  // An earlier asynchronous failure reported by a blocking launch is not that launch's.
  CHECK_OK(rt::launch(s, "async_thrower", {}, [] { throw std::runtime_error("earlier"); }));
  rt::set_launch_blocking(true);
  CHECK_STATUS(rt::launch(s, "fine", {}, [] {}), Status::kKernelFailure);
  CHECK(!rt::last_kernel_error().at_launch);
  CHECK_EQ(rt::last_kernel_error().kernel, std::string("async_thrower"));
  rt::set_launch_blocking(saved);
  CHECK_OK(rt::stream_destroy(s));
}
