// Accounting of what happened on the device: operator calls by route, host
// <-> device copies, and host synchronisations. Read and reset from Python
// (torch_tpu.stats()); tests assert on it ("no host fallback happened here").
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace torch_tpu::aten::telemetry {

enum class Route { kDirect, kStub, kComposite, kFallback };
enum class Copy { kHostToDevice, kDeviceToHost, kDeviceToDevice, kPeer };

void count_op(const std::string& op, Route route);
void count_copy(Copy kind, uint64_t bytes);
// A host thread waited for the device. `why` names the API ("item",
// "copy_d2h", "torch.tpu.synchronize", ...).
void count_sync(const char* why);

struct Snapshot {
  // op -> route name -> calls
  std::map<std::string, std::map<std::string, int64_t>> ops;
  // "h2d" / "d2h" / "d2d" / "peer" -> {calls, bytes}
  std::map<std::string, std::pair<int64_t, int64_t>> copies;
  std::map<std::string, int64_t> syncs;
};
Snapshot snapshot();
void reset();

const char* route_name(Route route);

}  // namespace torch_tpu::aten::telemetry
