#include <ATen/core/CachingHostAllocator.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>

#include <mutex>

#include "aten/backend.h"
#include "aten/caching_allocator.h"
#include "aten/host_allocator.h"

namespace torch_tpu::aten {

void register_backend() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::register_privateuse1_backend("tpu");
    c10::SetAllocator(c10::DeviceType::PrivateUse1, device_allocator());
    at::setHostAllocator(at::kPrivateUse1, host_allocator());
    register_guard_impl();
    register_hooks();
    register_generated_ops();
    register_fallback();
  });
}

}  // namespace torch_tpu::aten
