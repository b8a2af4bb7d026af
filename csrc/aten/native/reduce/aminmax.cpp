// aminmax (stub route): ATen's structured aminmax.out checks and sizes both
// outputs, then calls aminmax_stub (a dim) or aminmax_allreduce_stub (none).
// Both results are the amin and amax reductions (kernels/reduce, minmax
// family), which propagate NaN as CPU's aminmax does; two passes over the
// input instead of CPU's one.
#include <ATen/core/Tensor.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/amin.h>

#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

void aminmax_kernel(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& min, at::Tensor& max) {
  at::amin_out(min, self, dim, keepdim);
  at::amax_out(max, self, dim, keepdim);
}

void aminmax_allreduce_kernel(const at::Tensor& self, at::Tensor& min, at::Tensor& max) {
  at::amin_out(min, self, {}, /*keepdim=*/false);
  at::amax_out(max, self, {}, /*keepdim=*/false);
}

}  // namespace torch_tpu::aten
