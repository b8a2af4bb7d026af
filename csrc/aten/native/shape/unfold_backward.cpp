// unfold's backward. Element j of window w came from position w * step + j
// along dim, so the gradient of all windows' element j is one strided slice
// of the zeroed input gradient: `size` adds of tpu tensors, or one copy when
// the windows do not overlap (step >= size).
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/zeros.h>

#include "generated/ops/unfold_backward.h"

namespace torch_tpu::aten {

at::Tensor unfold_backward(const at::Tensor& grad, at::IntArrayRef input_sizes, int64_t dim, int64_t size,
                           int64_t step) {
  at::Tensor grad_in = at::zeros(input_sizes, grad.options());
  if (grad.numel() == 0) return grad_in;
  if (grad_in.dim() == 0) {  // a 0-dim input unfolds to one window of one element
    grad_in.copy_(grad.reshape({}));
    return grad_in;
  }
  dim = at::maybe_wrap_dim(dim, grad_in.dim());
  const int64_t windows = grad.size(dim);
  if (step >= size) {
    grad_in.unfold(dim, size, step).copy_(grad);
    return grad_in;
  }
  const int64_t span = (windows - 1) * step + 1;
  for (int64_t j = 0; j < size; ++j) {
    grad_in.narrow(dim, j, span).slice(dim, 0, span, step).add_(grad.select(-1, j));
  }
  return grad_in;
}

}  // namespace torch_tpu::aten
