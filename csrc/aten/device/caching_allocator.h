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
std::vector<c10::CachingDeviceAllocator::SegmentInfo> memory_snapshot();

}  // namespace torch_tpu::aten
