// torch.profiler support for tpu (tpu_activity_profiler.cpp): the device's
// kernels and copies as Kineto activities.
#pragma once

namespace torch_tpu::profiler {

// Registers the tpu's Kineto child profiler with PyTorch (called once from
// aten::register_backend; explicit, not a static initializer).
void register_profiler();

}  // namespace torch_tpu::profiler
