#include "aten/telemetry.h"

#include <mutex>

namespace torch_tpu::aten::telemetry {
namespace {

std::mutex& mu() {
  static std::mutex* m = new std::mutex();
  return *m;
}

Snapshot& data() {
  static Snapshot* s = new Snapshot();  // leaked: used until process exit
  return *s;
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

void count_op(const std::string& op, Route route) {
  std::lock_guard<std::mutex> g(mu());
  data().ops[op][route_name(route)] += 1;
}

void count_copy(Copy kind, uint64_t bytes) {
  std::lock_guard<std::mutex> g(mu());
  auto& c = data().copies[copy_name(kind)];
  c.first += 1;
  c.second += static_cast<int64_t>(bytes);
}

void count_sync(const char* why) {
  std::lock_guard<std::mutex> g(mu());
  data().syncs[why] += 1;
}

Snapshot snapshot() {
  std::lock_guard<std::mutex> g(mu());
  return data();
}

void reset() {
  std::lock_guard<std::mutex> g(mu());
  data() = Snapshot();
}

}  // namespace torch_tpu::aten::telemetry
