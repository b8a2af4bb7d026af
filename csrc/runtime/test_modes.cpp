// Test and debug modes: the slow device (every stream task sleeps first),
// which turns missing synchronisation into visible wrong results, and launch
// blocking (kernel_errors.h), which makes every launch wait for its task.
#include <atomic>
#include <cstdint>

#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {
std::atomic<int64_t> g_slow_device_us{0};
std::atomic<bool> g_launch_blocking{false};
}  // namespace detail

void set_slow_device_us(int64_t us) {
  detail::num_devices();  // apply the env default first, so it cannot override this later
  detail::g_slow_device_us.store(us < 0 ? 0 : us, std::memory_order_relaxed);
}

int64_t slow_device_us() {
  detail::num_devices();
  return detail::g_slow_device_us.load(std::memory_order_relaxed);
}

void set_launch_blocking(bool on) {
  detail::num_devices();  // as set_slow_device_us: the env default first
  detail::g_launch_blocking.store(on, std::memory_order_relaxed);
}

bool launch_blocking() {
  detail::num_devices();
  return detail::g_launch_blocking.load(std::memory_order_relaxed);
}

}  // namespace torch_tpu::runtime
