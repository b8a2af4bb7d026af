// Accounting of what happened on the device: operator calls by route, stub
// kernels reached, host <-> device copies, and host synchronisations. Read and
// reset from Python (torch_tpu.stats()); tests assert on it ("no host
// fallback happened here", "add.out reached add_stub").
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace torch_tpu::aten::telemetry {

enum class Route { kDirect, kStub, kComposite, kFallback };
constexpr int kNumRoutes = 4;
enum class Copy { kHostToDevice, kDeviceToHost, kDeviceToDevice, kPeer };

// Calls of one operator (or one stub kernel) by route. Lives as long as the
// process, so hot paths look it up once and keep the reference:
//   static auto& calls = telemetry::op_counter("aten::add.Tensor");
//   calls.count(telemetry::Route::kStub);
class Counter {
 public:
  void count(Route route) { calls_[static_cast<int>(route)].fetch_add(1, std::memory_order_relaxed); }

 private:
  friend struct Tables;
  std::array<std::atomic<int64_t>, kNumRoutes> calls_{};
};

Counter& op_counter(const std::string& op);      // "aten::add.Tensor"
Counter& stub_counter(const std::string& stub);  // "add_stub"

void count_copy(Copy kind, uint64_t bytes);
// A host thread waited for the device. `why` names the API ("item",
// "copy_d2h", "torch.tpu.synchronize", ...). In sync debug mode an implicit
// sync (anything but an explicit synchronize()) also warns, or raises
// before waiting.
void count_sync(const char* why);
// torch.tpu.set_sync_debug_mode: 0 off, 1 warn, 2 error.
void set_sync_debug_mode(int mode);
int sync_debug_mode();

struct Snapshot {
  // op -> route name -> calls (routes with zero calls are left out)
  std::map<std::string, std::map<std::string, int64_t>> ops;
  std::map<std::string, int64_t> stubs;  // stub kernel -> calls
  // "h2d" / "d2h" / "d2d" / "peer" -> {calls, bytes}
  std::map<std::string, std::pair<int64_t, int64_t>> copies;
  std::map<std::string, int64_t> syncs;
  int64_t launches = 0;  // kernels launched on any tpu stream
};
Snapshot snapshot();
void reset();

const char* route_name(Route route);

}  // namespace torch_tpu::aten::telemetry
