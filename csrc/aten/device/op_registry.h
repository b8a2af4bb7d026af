// What generated registration code (csrc/generated) calls: registering a
// kernel or the host fallback for an op, and the checks wrappers make before
// they launch anything.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/library.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "aten/device/telemetry.h"

namespace torch_tpu::aten {

// Registers `fn` for `op` on PrivateUse1; if TORCH_TPU_FORCE_FALLBACK names
// the op ("add.Tensor,mul.out" or "all"), registers the host fallback instead
// (for debugging a kernel: does the result change when the op runs on CPU?).
void register_kernel(torch::Library& lib, const char* op, torch::CppFunction&& fn);
// The same for AutogradPrivateUse1: an entry with replaces_decomposition.
void register_autograd_kernel(torch::Library& autograd_lib, const char* op, torch::CppFunction&& fn);
// route: fallback in ops.yaml: the op runs on the host, always, and is counted.
void register_host_fallback(torch::Library& lib, const char* op);
// The ops TORCH_TPU_FORCE_FALLBACK names (read once).
bool forced_to_host(const std::string& op);

// A set of dtypes as a bit mask over at::ScalarType values.
constexpr uint64_t dtype_bit(at::ScalarType t) { return uint64_t{1} << static_cast<int>(t); }

// NotImplementedError unless `t` (when defined and on tpu) has one of the
// dtypes ops.yaml declares for `op`; `declared` lists them for the message.
void check_dtype(const char* op, uint64_t allowed, const char* declared, const at::Tensor& t);
inline void check_dtype(const char* op, uint64_t allowed, const char* declared,
                        const std::optional<at::Tensor>& t) {
  if (t.has_value()) check_dtype(op, allowed, declared, *t);
}

}  // namespace torch_tpu::aten

namespace torch_tpu::aten {

// A stub kernel wrapped so that every call is counted under the stub's name
// (torch_tpu.stats()["stubs"]): the proof that an op really reached it.
template <class Stub, auto* Kernel, class Signature = std::remove_pointer_t<decltype(Kernel)>>
struct CountedStubKernel;

// (Most stubs return void; segment_reduce's return the result.)
template <class Stub, auto* Kernel, class R, class... Args>
struct CountedStubKernel<Stub, Kernel, R(Args...)> {
  static inline telemetry::Counter* calls = nullptr;
  static R run(Args... args) {
    calls->count(telemetry::Route::kStub);
    return (*Kernel)(std::forward<Args>(args)...);
  }
};

// Attaches Kernel to an ATen DispatchStub for PrivateUse1, at run time (no
// static initialiser). Kernel must have exactly the stub's signature.
template <auto* Kernel, class Stub>
void set_stub_kernel(Stub& stub, const char* name) {
  using Counted = CountedStubKernel<Stub, Kernel>;
  Counted::calls = &telemetry::stub_counter(name);
  stub.set_privateuse1_dispatch_ptr(&Counted::run);
}

}  // namespace torch_tpu::aten
