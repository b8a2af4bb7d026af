// Registration of the tpu backend with PyTorch. register_backend() is the one
// entry point (called from the Python extension's init, never from static
// initialisers), so what is registered, and when, is explicit.
#pragma once

namespace torch_tpu::aten {

// Idempotent. Registers the backend name, guard, hooks, device and host
// allocators, operator kernels (generated from ops.yaml) and the fallback.
void register_backend();

void register_guard_impl();
void register_hooks();
void register_fallback();
// Emitted by `python -m codegen` into csrc/generated/.
void register_generated_ops();
// The custom operators torch.ops.tpu.* (csrc/generated/register_custom_ops.cpp).
void register_generated_custom_ops();
// torch.autocast("tpu"): the fallthrough and the manifest's policies (csrc/generated/).
void register_generated_autocast();

}  // namespace torch_tpu::aten
