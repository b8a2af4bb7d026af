// Devices: runtime start-up, the per-thread current device, properties and
// device-wide synchronization.
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "capture_internal.h"
#include "memory_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

struct Runtime {
  std::vector<Device*> devices;
};

// Leaky singleton: never destroyed, so worker threads that outlive main()
// (or Python finalisation) never see freed state.
Runtime* create_runtime() {
  const Config& cfg = config();
  auto* rt = new Runtime;
  const int n = cfg.device_count;
  auto* ranges = new ArenaRange[std::max(n, 1)];
  g_arena_ranges.store(ranges, std::memory_order_release);
  g_arena_count.store(n, std::memory_order_release);
  for (int d = 0; d < n; ++d) {
    auto* dev = new Device;
    dev->index = d;
    dev->budget = cfg.device_memory;
    dev->cores = cfg.cores;
    dev->arena = new Arena;
    dev->arena->device = d;
    dev->arena->budget = cfg.device_memory;
    dev->pool = new_core_pool(d, cfg.cores);
    dev->default_stream = new_stream(d, 0, /*is_default=*/true);
    dev->streams.push_back(dev->default_stream);
    rt->devices.push_back(dev);
  }
  init_strict_mode(cfg.strict);
  g_slow_device_us.store(cfg.slow_device_us, std::memory_order_relaxed);
  g_launch_blocking.store(cfg.launch_blocking, std::memory_order_relaxed);
  install_fault_handler();
  install_fork_handler();
  return rt;
}

Runtime& runtime() {
  static Runtime* rt = create_runtime();
  return *rt;
}

thread_local int t_current_device = 0;

}  // namespace

int num_devices() { return static_cast<int>(runtime().devices.size()); }

Device* get_device(int index) {
  auto& devs = runtime().devices;
  if (index < 0 || index >= static_cast<int>(devs.size())) return nullptr;
  return devs[static_cast<size_t>(index)];
}

size_t page_size() {
  static const size_t ps = [] {
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? static_cast<size_t>(v) : size_t{4096};
  }();
  return ps;
}

}  // namespace detail

using namespace detail;

int device_count() { return num_devices(); }

Status set_device(int device) {
  if (!get_device(device)) {
    return fail(Status::kInvalidDevice, "set_device: invalid device index " + std::to_string(device) +
                                            " (device_count() = " + std::to_string(num_devices()) + ")");
  }
  t_current_device = device;
  return Status::kSuccess;
}

int current_device() { return t_current_device; }

Status get_device_properties(int device, DeviceProperties* out) {
  Device* dev = get_device(device);
  if (!dev) {
    return fail(Status::kInvalidDevice, "get_device_properties: invalid device index " + std::to_string(device));
  }
  if (!out) return fail(Status::kInvalidValue, "get_device_properties: out is null");
  out->name = "torch_tpu simulated TPU";
  out->index = device;
  out->total_memory = dev->budget;
  out->core_count = dev->cores;
  return Status::kSuccess;
}

Status device_synchronize(int device) {
  Device* dev = get_device(device);
  if (!dev) return fail(Status::kInvalidDevice, "device_synchronize: invalid device index " + std::to_string(device));
  if (bad_fork()) return forked_error();
  if (Status st = check_capture_unsafe(device, "device_synchronize"); st != Status::kSuccess) return st;
  wait_device_idle(device);
  const std::vector<StreamImpl*> streams = streams_of(device);
  // Report the first sticky error; clear the others too (they were covered).
  Status result = Status::kSuccess;
  KernelError first;
  int more = 0;
  for (StreamImpl* s : streams) {
    if (!s->has_error.load(std::memory_order_acquire)) continue;
    if (take_error(s) != Status::kSuccess) {
      if (result == Status::kSuccess) {
        result = Status::kKernelFailure;
        first = last_kernel_error();
      } else {
        ++more;
      }
    }
  }
  if (result != Status::kSuccess) {
    first.later_failures += more;  // the first failures of the device's other streams
    return fail_kernel(std::move(first));
  }
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
