// The tpu caching device allocator: a c10::DeviceAllocator (so
// torch.accelerator.memory_* and torch.tpu.memory_* find it) that pools
// runtime allocations like CUDA's caching allocator:
//   - requests round up to 512 B; <= 1 MiB come from 2 MiB "small" segments,
//     larger ones from 20 MiB (or exact, 2 MiB rounded) "large" segments;
//   - blocks split and merge inside a segment;
//   - a block belongs to the stream it was allocated on and is reused only by
//     that stream (stream order makes reuse safe without a host sync);
//     recordStream() adds streams whose work must finish before reuse
//     (tracked with runtime events at free time);
//   - on out-of-memory it frees the cache and retries, then raises
//     torch.OutOfMemoryError and stays usable.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace torch_tpu::aten {

c10::DeviceAllocator* device_allocator();

// Graph memory pools (graph.cpp). While capture `capture_id` runs on
// `device`, allocations on its streams come from private pool `pool` (created
// on first use; graphs passing the same id share it). release_pool drops one
// use; at zero the pool's memory returns to the device as it becomes free.
void begin_allocate_to_pool(c10::DeviceIndex device, c10::MempoolId_t pool, uint64_t capture_id);
void end_allocate_to_pool(c10::DeviceIndex device, uint64_t capture_id);
void release_pool(c10::DeviceIndex device, c10::MempoolId_t pool);

// torch.tpu.MemPool / use_mem_pool: retain_pool takes one use of a pool
// (release_pool gives it back); while a thread route is open, the calling
// thread's allocations on `device` come from the pool.
void retain_pool(c10::DeviceIndex device, c10::MempoolId_t pool);
void begin_thread_route(c10::DeviceIndex device, c10::MempoolId_t pool);
void end_thread_route(c10::DeviceIndex device, c10::MempoolId_t pool);
int pool_use_count(c10::DeviceIndex device, c10::MempoolId_t pool);

// The share of the device's memory this process may reserve (1 by default).
void set_memory_fraction(c10::DeviceIndex device, double fraction);
double memory_fraction(c10::DeviceIndex device);

// One entry per segment (device allocation), with its blocks; the data
// behind torch.tpu.memory_snapshot().
// Blocks carry the context (stack) of their allocation while history is
// recorded (BlockInfo::context_when_allocated).
std::vector<c10::CachingDeviceAllocator::SegmentInfo> memory_snapshot();

// Memory history, the data behind torch.tpu.memory._snapshot() (shaped like
// torch.cuda's, so torch/cuda/_memory_viz.py reads it). While on, the
// allocator keeps each device's last `max_entries` events (when
// `record_events`) and, when `gather` is set, the context it returns for
// each allocation (its block and its event) and, with `gather_frees`, for
// each free event. Off (the default), an allocation pays one relaxed atomic
// load.
struct HistoryEvent {
  enum Action { kAlloc, kFreeRequested, kFreeCompleted, kSegmentAlloc, kSegmentFree, kOom };
  Action action = kAlloc;
  uintptr_t addr = 0;
  size_t size = 0;
  uintptr_t stream = 0;
  int64_t time_us = 0;
  size_t device_free = 0;  // kOom: what the device had left
  std::shared_ptr<c10::GatheredContext> context;
};
using GatherContext = std::function<std::shared_ptr<c10::GatheredContext>()>;
void record_memory_history(bool enabled, bool record_events, GatherContext gather, bool gather_frees,
                           size_t max_entries);
// Each device's recorded events, oldest first.
std::vector<std::vector<HistoryEvent>> memory_history();
const char* history_action_name(HistoryEvent::Action action);

}  // namespace torch_tpu::aten
