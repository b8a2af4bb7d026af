// count_nonzero and trace (direct route): ATen's kernels are CPU's and CUDA's
// own. Both are one elementwise/view step and the sum reduction here:
// count_nonzero sums (self != 0) as int64 over `dim`; trace sums the main
// diagonal (integer inputs to int64, as CPU). CPU's checks and messages.
#include <ATen/core/Tensor.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/sum.h>

#include "generated/ops/count_nonzero_dim_IntList.h"
#include "generated/ops/trace.h"

namespace torch_tpu::aten {

at::Tensor count_nonzero_dim_IntList(const at::Tensor& self, at::IntArrayRef dim) {
  return at::sum(at::ne(self, 0), dim, /*keepdim=*/false, at::kLong);
}

at::Tensor trace(const at::Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return at::sum(self.diagonal());
}

}  // namespace torch_tpu::aten
