// unfold's backward (unfold_backward_stub: ATen allocates the zeroed input
// gradient and calls this). Element j of window w came from position
// w * step + j along dim, so the gradient of all windows' element j is one
// strided slice of grad_in: `size` adds of tpu tensors, or one copy when the
// windows do not overlap (step >= size).
#include <ATen/core/Tensor.h>

#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

void unfold_backward_kernel(at::Tensor& grad_in, const at::Tensor& grad, int64_t dim, int64_t size, int64_t step) {
  if (grad.numel() == 0) return;
  if (grad_in.dim() == 0) {  // a 0-dim input unfolds to one window of one element
    grad_in.copy_(grad.reshape({}));
    return;
  }
  const int64_t windows = grad.size(dim);
  if (step >= size) {
    grad_in.unfold(dim, size, step).copy_(grad);
    return;
  }
  const int64_t span = (windows - 1) * step + 1;
  for (int64_t j = 0; j < size; ++j) {
    grad_in.narrow(dim, j, span).slice(dim, 0, span, step).add_(grad.select(-1, j));
  }
}

}  // namespace torch_tpu::aten
