// Pinned host memory for fast, truly asynchronous copies (tensor.pin_memory(),
// torch.empty(..., pin_memory=True)). Built on ATen's CachingHostAllocatorImpl,
// as CUDA and XPU are: blocks are cached by power-of-two size, and a block
// used by an async copy is reused only after that copy's stream reached it.
#pragma once

#include <ATen/core/CachingHostAllocator.h>

namespace torch_tpu::aten {

at::HostAllocator* host_allocator();

// Marks the pinned block holding `ptr` as used by `stream` (no-op for memory
// that is not from this allocator). Call after enqueueing an async copy.
void record_host_use(void* ptr, void* ctx, const c10::Stream& stream);

}  // namespace torch_tpu::aten
