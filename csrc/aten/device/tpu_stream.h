// Devices and streams as PyTorch sees them: c10::Device / c10::Stream on
// PrivateUse1, mapped onto runtime devices and runtime streams. Shared by the
// guard, the hooks, the allocator, the ops and the Python bindings.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include "runtime/runtime.h"

namespace torch_tpu::aten {

c10::DeviceIndex device_count() noexcept;
c10::DeviceIndex current_device();
void set_device(c10::DeviceIndex index);
// Sets the current device and returns the previous one.
c10::DeviceIndex exchange_device(c10::DeviceIndex index);
// Raises the PyTorch error for an index outside [0, device_count()).
void check_device_index(c10::DeviceIndex index);
c10::Device tpu_device(c10::DeviceIndex index);

// StreamId layout (an implementation detail, like CUDA's):
//   0                      the device's default stream
//   kPoolStride * p + i    stream i of pool p: p = 1 normal, p = 2 high priority
//   the handle itself      a stream made outside torch (ExternalStream): a
//                          runtime::Stream pointer, above every pool id
// Pool streams are created lazily and handed out round robin.
constexpr int kStreamsPerPool = 32;

c10::Stream default_stream(c10::DeviceIndex index);
c10::Stream stream_from_pool(c10::DeviceIndex index, bool high_priority);
// A stream created outside torch (runtime::stream_create, by another
// library), as CUDA's ExternalStream: torch never creates or destroys it, and
// its creator keeps it alive while torch uses it. Raises if it belongs to
// another device than `index`.
c10::Stream external_stream(c10::DeviceIndex index, uintptr_t handle);
// The calling thread's current stream on `index` (-1: current device).
c10::Stream current_stream(c10::DeviceIndex index = -1);
// Makes `stream` current on its device for this thread; returns the old one.
c10::Stream exchange_current_stream(c10::Stream stream);
runtime::Stream native_stream(const c10::Stream& stream);
int stream_priority(const c10::Stream& stream);

// Host waits, counted in telemetry under `why`. Device-side failures of
// earlier work surface here as errors.
void synchronize_stream(const c10::Stream& stream, const char* why);
void synchronize_device(c10::DeviceIndex index, const char* why);

}  // namespace torch_tpu::aten
