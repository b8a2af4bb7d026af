#include "aten/device/telemetry.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <string>

#include <deque>
#include <mutex>
#include <unordered_map>

#include "runtime/runtime.h"

namespace torch_tpu::aten::telemetry {

// Counters are created once per name and never move (std::deque keeps
// references stable), so callers may cache them. Copies and syncs are rarer
// and go through one mutex.
struct Tables {
  std::mutex mu;
  std::deque<Counter> counters;
  std::unordered_map<std::string, Counter*> ops, stubs;
  std::map<std::string, std::pair<int64_t, int64_t>> copies;
  std::map<std::string, int64_t> syncs;
  uint64_t launches_at_reset = 0;

  Counter& get(std::unordered_map<std::string, Counter*>& table, const std::string& name) {
    std::lock_guard<std::mutex> g(mu);
    auto it = table.find(name);
    if (it != table.end()) return *it->second;
    Counter& c = counters.emplace_back();
    table.emplace(name, &c);
    return c;
  }

  static int64_t calls(const Counter& c, int route) {
    return c.calls_[route].load(std::memory_order_relaxed);
  }
  static void clear(Counter& c) {
    for (auto& n : c.calls_) n.store(0, std::memory_order_relaxed);
  }
};

namespace {

Tables& tables() {
  static Tables* t = new Tables();  // leaked: used until process exit
  return *t;
}

const char* copy_name(Copy kind) {
  switch (kind) {
    case Copy::kHostToDevice: return "h2d";
    case Copy::kDeviceToHost: return "d2h";
    case Copy::kDeviceToDevice: return "d2d";
    case Copy::kPeer: return "peer";
  }
  return "?";
}

}  // namespace

const char* route_name(Route route) {
  switch (route) {
    case Route::kDirect: return "direct";
    case Route::kStub: return "stub";
    case Route::kComposite: return "composite";
    case Route::kFallback: return "fallback";
  }
  return "?";
}

Counter& op_counter(const std::string& op) { return tables().get(tables().ops, op); }

Counter& stub_counter(const std::string& stub) { return tables().get(tables().stubs, stub); }

void count_copy(Copy kind, uint64_t bytes) {
  Tables& t = tables();
  std::lock_guard<std::mutex> g(t.mu);
  auto& c = t.copies[copy_name(kind)];
  c.first += 1;
  c.second += static_cast<int64_t>(bytes);
}

namespace {
std::atomic<int> g_sync_debug_mode{0};

bool explicit_sync(const char* why) {
  const std::string w = why;
  return w == "torch.tpu.synchronize" || w == "stream.synchronize" || w == "device.synchronize";
}
}  // namespace

void set_sync_debug_mode(int mode) {
  TORCH_CHECK(mode >= 0 && mode <= 2, "invalid value of debug_mode, expected one of 0, 1, 2 (or \"default\", "
              "\"warn\", \"error\"), got ", mode);
  g_sync_debug_mode.store(mode, std::memory_order_relaxed);
}

int sync_debug_mode() { return g_sync_debug_mode.load(std::memory_order_relaxed); }

void count_sync(const char* why) {
  if (const int mode = sync_debug_mode(); mode != 0 && !explicit_sync(why)) {
    TORCH_CHECK(mode != 2, "called a synchronizing tpu operation (", why, ") while the sync debug mode is "
                "\"error\" (torch.tpu.set_sync_debug_mode)");
    TORCH_WARN("called a synchronizing tpu operation (", why, ")");
  }
  Tables& t = tables();
  std::lock_guard<std::mutex> g(t.mu);
  t.syncs[why] += 1;
}

Snapshot snapshot() {
  Tables& t = tables();
  std::lock_guard<std::mutex> g(t.mu);
  Snapshot s;
  for (const auto& [name, c] : t.ops) {
    for (int r = 0; r < kNumRoutes; ++r) {
      if (int64_t n = Tables::calls(*c, r)) s.ops[name][route_name(static_cast<Route>(r))] = n;
    }
  }
  for (const auto& [name, c] : t.stubs) {
    int64_t n = 0;
    for (int r = 0; r < kNumRoutes; ++r) n += Tables::calls(*c, r);
    if (n) s.stubs[name] = n;
  }
  s.copies = t.copies;
  s.syncs = t.syncs;
  s.launches = static_cast<int64_t>(runtime::launch_count() - t.launches_at_reset);
  return s;
}

void reset() {
  Tables& t = tables();
  std::lock_guard<std::mutex> g(t.mu);
  for (Counter& c : t.counters) Tables::clear(c);
  t.copies.clear();
  t.syncs.clear();
  t.launches_at_reset = runtime::launch_count();
}

}  // namespace torch_tpu::aten::telemetry
