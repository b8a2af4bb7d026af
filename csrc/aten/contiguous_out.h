// Output helper for glue whose kernels write row-major results.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

namespace torch_tpu::aten {

// Runs fill(t) on out or, when out is not contiguous, on a contiguous
// temporary copied into out afterwards.
template <typename F>
void into_contiguous(const at::Tensor& out, F&& fill) {
  if (out.is_contiguous()) {
    fill(out);
    return;
  }
  at::Tensor tmp = at::empty(out.sizes(), out.options());
  fill(tmp);
  const_cast<at::Tensor&>(out).copy_(tmp);
}

}  // namespace torch_tpu::aten
