// empty / empty_strided: allocate from the caching allocator on the device
// the call names (or the current one). No device work is enqueued.
#include <ATen/EmptyTensor.h>
#include <c10/core/DeviceGuard.h>

#include "aten/device/caching_allocator.h"
#include "generated/ops/empty_memory_format.h"
#include "generated/ops/empty_strided.h"

namespace torch_tpu::aten {
namespace {

void check_factory_args(std::optional<at::Layout> layout, std::optional<bool> pin_memory) {
  TORCH_CHECK(!pin_memory.value_or(false), "Only dense CPU tensors can be pinned");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided,
              "tpu supports only strided tensors, got layout ", *layout);
}

const c10::DispatchKeySet kTpuKeys{c10::DispatchKey::PrivateUse1};

}  // namespace

at::Tensor empty_memory_format(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout,
                               std::optional<at::Device> device,
                               std::optional<bool> pin_memory,
                               std::optional<at::MemoryFormat> memory_format) {
  check_factory_args(layout, pin_memory);
  c10::OptionalDeviceGuard guard(device);
  return at::detail::empty_generic(size, device_allocator(), kTpuKeys,
                                   dtype.value_or(c10::get_default_dtype_as_scalartype()),
                                   memory_format);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
                         std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                         std::optional<at::Device> device, std::optional<bool> pin_memory) {
  check_factory_args(layout, pin_memory);
  c10::OptionalDeviceGuard guard(device);
  return at::detail::empty_strided_generic(
      size, stride, device_allocator(), kTpuKeys,
      dtype.value_or(c10::get_default_dtype_as_scalartype()));
}

}  // namespace torch_tpu::aten
