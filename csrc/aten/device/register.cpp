#include <ATen/core/CachingHostAllocator.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>

#include <torch/library.h>

#include <mutex>

#include "aten/device/backend.h"
#include "aten/device/caching_allocator.h"
#include "aten/device/host_allocator.h"
#include "profiler/tpu_activity_profiler.h"

namespace torch_tpu::aten {
namespace {

// Conjugate and negative views (x.conj(), x.neg() of some views) normally
// resolve their bit before an op runs, by cloning -- and cloning copies, so
// for a tpu _copy_from that would recurse forever. _copy_from resolves the
// bits itself (aten/native/copy/copy.cpp): let those keys fall through to it.
void register_math_bit_fallthroughs() {
  for (c10::DispatchKey key : {c10::DispatchKey::Conjugate, c10::DispatchKey::Negative}) {
    auto* lib = new torch::Library(torch::Library::IMPL, "aten", key, __FILE__, __LINE__);
    lib->impl("_copy_from", torch::CppFunction::makeFallthrough());
    lib->impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
  }
}

}  // namespace

void register_backend() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::register_privateuse1_backend("tpu");
    c10::SetAllocator(c10::DeviceType::PrivateUse1, device_allocator());
    at::setHostAllocator(at::kPrivateUse1, host_allocator());
    register_guard_impl();
    register_hooks();
    register_generated_ops();
    register_generated_custom_ops();
    register_generated_autocast();
    register_fallback();
    register_math_bit_fallthroughs();
    profiler::register_profiler();
  });
}

}  // namespace torch_tpu::aten
