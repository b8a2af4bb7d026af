// Test modes: the slow device (every stream task sleeps first), which turns
// missing synchronisation into visible wrong results.
#include <atomic>
#include <cstdint>

#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {
std::atomic<int64_t> g_slow_device_us{0};
}  // namespace detail

void set_slow_device_us(int64_t us) {
  detail::num_devices();  // apply the env default first, so it cannot override this later
  detail::g_slow_device_us.store(us < 0 ? 0 : us, std::memory_order_relaxed);
}

int64_t slow_device_us() {
  detail::num_devices();
  return detail::g_slow_device_us.load(std::memory_order_relaxed);
}

}  // namespace torch_tpu::runtime
