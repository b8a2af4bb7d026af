// _efficientzerotensor: autograd's "this gradient is zero" (sgn of a real
// tensor, and other formulas) without memory. As ATen's CPU and CUDA
// versions: no storage (the ZeroTensor allocator hands out nullptr) and the
// ZeroTensor dispatch key, whose fallback materialises zeros (at::zeros on
// tpu) for any op that reads it.
#include <ATen/EmptyTensor.h>
#include <ATen/native/TensorFactories.h>

#include <map>
#include <memory>
#include <mutex>

#include "aten/device/tpu_stream.h"
#include "generated/ops/_efficientzerotensor.h"

namespace torch_tpu::aten {
namespace {

// One allocator per device that lives as long as the process: the storage
// keeps a pointer to its allocator.
at::Allocator* zero_tensor_allocator(at::Device device) {
  static std::mutex mutex;
  static std::map<c10::DeviceIndex, std::unique_ptr<at::native::ZeroTensorAllocator>> allocators;
  std::lock_guard<std::mutex> lock(mutex);
  auto& a = allocators[device.index()];
  if (!a) a = std::make_unique<at::native::ZeroTensorAllocator>(device);
  return a.get();
}

}  // namespace

at::Tensor _efficientzerotensor(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                                std::optional<at::Layout> layout, std::optional<at::Device> device,
                                std::optional<bool> pin_memory) {
  (void)layout, (void)pin_memory;
  at::Device d = device.value_or(at::Device(c10::DeviceType::PrivateUse1));
  if (!d.has_index()) d = at::Device(c10::DeviceType::PrivateUse1, current_device());
  const auto keys = c10::DispatchKeySet(c10::DispatchKey::PrivateUse1) | c10::DispatchKeySet(c10::DispatchKey::ZeroTensor);
  return at::detail::empty_generic(size, zero_tensor_allocator(d), keys, c10::dtype_or_default(dtype), std::nullopt);
}

}  // namespace torch_tpu::aten
