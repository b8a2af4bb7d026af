// out= overloads that reach tpu through ATen's CompositeExplicitAutograd
// kernel (addr.out's math_addr_out, torchgen's autogen out= kernels): that
// kernel computes the result and copies it into `out`, so an out on the CPU
// or on another tpu was accepted, where CUDA's own kernels refuse it. The
// generator lists them (register_aten.cpp); each gets one boxed PrivateUse1
// kernel that checks its tensors share a device, as torchgen's wrappers do,
// with their message, sets the device guard and runs the composite kernel.
#pragma once

#include <torch/library.h>

#include <cstddef>

#include <ATen/core/operator_name.h>

namespace torch_tpu::aten {

void register_composite_out_checks(torch::Library& lib, const char* const* ops, size_t count);
// True for an op registered above (its tpu kernel is still the composite one).
bool is_composite_out_check(const c10::OperatorName& op);

}  // namespace torch_tpu::aten
