// Device utilization's arithmetic (utilization.cpp) on a clock the test
// chooses: the share of the last second (six 1/6-second periods and the
// current one so far) in which work ran, with no waiting on real time.
#include "runtime/runtime_internal.h"
#include "test_util.h"

using namespace tpu_test;
using torch_tpu::runtime::detail::add_busy;
using torch_tpu::runtime::detail::BusyClock;
using torch_tpu::runtime::detail::utilization_at;

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kPeriod = kSecond / 6;
// A time well away from 0, at the start of a period.
constexpr int64_t kT0 = 600 * kPeriod;

}  // namespace

TEST(utilization_of_an_idle_device_is_zero) {
  BusyClock clock;
  CHECK_EQ(utilization_at(clock, kT0), 0);
  CHECK_EQ(utilization_at(clock, kT0 + kSecond / 3), 0);
}

TEST(utilization_of_a_device_busy_for_the_whole_window_is_100) {
  BusyClock clock;
  add_busy(clock, kT0 - 2 * kSecond, kT0);
  CHECK_EQ(utilization_at(clock, kT0), 100);
  // An interval still running counts up to now.
  BusyClock running;
  running.running = 1;
  running.since_ns = kT0 - 2 * kSecond;
  CHECK_EQ(utilization_at(running, kT0 + kPeriod / 2), 100);
}

TEST(utilization_is_the_busy_share_of_the_window) {
  BusyClock clock;
  // Busy for the first half of the window that ends at kT0.
  add_busy(clock, kT0 - kSecond, kT0 - kSecond / 2);
  CHECK_EQ(utilization_at(clock, kT0), 50);
  // A period later the window has moved on by one period (whose busy
  // time leaves it), and three quarters of the new period were busy.
  add_busy(clock, kT0, kT0 + 3 * kPeriod / 4);
  CHECK_EQ(utilization_at(clock, kT0 + kPeriod), 46);  // (2 + 3/4) of 6 periods
}

TEST(busy_time_leaves_the_window_after_a_second) {
  BusyClock clock;
  add_busy(clock, kT0, kT0 + kPeriod);
  CHECK(utilization_at(clock, kT0 + kPeriod) > 0);
  CHECK_EQ(utilization_at(clock, kT0 + 8 * kPeriod), 0);  // its period is out of the window
  // A slot reused by a later period forgets the earlier one's time.
  add_busy(clock, kT0 + BusyClock::kSlots * kPeriod, kT0 + BusyClock::kSlots * kPeriod + kPeriod / 2);
  CHECK_EQ(utilization_at(clock, kT0 + (BusyClock::kSlots + 1) * kPeriod), 8);  // 1/2 of 6 periods
}
