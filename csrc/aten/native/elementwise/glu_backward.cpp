// glu_backward (direct route): ATen's CPU implementation is CPU-named
// (glu_backward_cpu_out), so the same steps are written here with tpu
// kernels: the first half of grad_input is sigmoid(b) * grad, the second
// (1 - sigmoid(b)) * sigmoid(b) * a * grad, where a and b are the input's
// halves along dim.
#include <ATen/TensorIterator.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/sigmoid.h>

#include "aten/iterator_desc.h"
#include "generated/ops/glu_backward.h"
#include "generated/ops/glu_backward_grad_input.h"

namespace torch_tpu::aten {

at::Tensor& glu_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim,
                                    at::Tensor& grad_input) {
  TORCH_CHECK(self.dim() > 0, "glu does not support 0-dimensional tensors");
  const int64_t wrap_dim = c10::maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(wrap_dim);
  TORCH_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", wrap_dim, " is size ", n);
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), "\"glu_backward\" not implemented for '",
                              self.scalar_type(), "' on tpu");
  at::native::resize_output(grad_input, self.sizes());
  const int64_t half = n / 2;
  const at::Tensor a = self.narrow(wrap_dim, 0, half);
  const at::Tensor b = self.narrow(wrap_dim, half, half);
  at::Tensor grad_a = grad_input.narrow(wrap_dim, 0, half);
  at::Tensor grad_b = grad_input.narrow(wrap_dim, half, half);
  at::sigmoid_out(grad_a, b);
  at::TensorIterator iter = at::TensorIteratorConfig()
                                .add_output(grad_b)
                                .add_const_input(grad_a)
                                .add_const_input(a)
                                .add_const_input(grad_output)
                                .build();
  run_elementwise(iter, kernels::ElementwiseOp::kGluBackward, iter.common_dtype(), "glu_backward");
  grad_a.mul_(grad_output);
  return grad_input;
}

at::Tensor glu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  at::Tensor grad_input = at::empty({0}, self.options());
  glu_backward_grad_input(grad_output, self, dim, grad_input);
  return grad_input;
}

}  // namespace torch_tpu::aten
