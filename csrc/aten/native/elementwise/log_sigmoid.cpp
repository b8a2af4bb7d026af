// log_sigmoid_forward / log_sigmoid_backward (direct route): ATen's CPU
// kernels share no stub with CUDA (CPU fills a `buffer` it reads back in the
// backward). As CUDA does, the buffer stays empty and the backward recomputes
// from the input: forward min(x, 0) - log1p(exp(-|x|)), backward
// grad * ((x < 0) - sign * z / (1 + z)), z = exp(-|x|), both as one
// elementwise kernel (kernels/elementwise/nn_pointwise.cpp).
#include <ATen/TensorIterator.h>
#include <ATen/native/Resize.h>

#include "aten/iterator_desc.h"
#include "generated/ops/log_sigmoid_backward.h"
#include "generated/ops/log_sigmoid_backward_grad_input.h"
#include "generated/ops/log_sigmoid_forward.h"
#include "generated/ops/log_sigmoid_forward_output.h"

namespace torch_tpu::aten {
namespace {

void check_floating(const at::Tensor& t, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), "\"", name, "\" not implemented for '",
                              t.scalar_type(), "' on tpu");
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&> log_sigmoid_forward_output(const at::Tensor& self, at::Tensor& output,
                                                                 at::Tensor& buffer) {
  check_floating(self, "log_sigmoid_forward");
  at::native::resize_output(buffer, {0});
  at::native::resize_output(output, self.sizes());  // contiguous, as CPU's, whatever self's layout
  at::TensorIterator iter = at::TensorIterator::unary_op(output, self);
  run_elementwise(iter, kernels::ElementwiseOp::kLogSigmoid, iter.common_dtype(), "log_sigmoid_forward");
  return {output, buffer};
}

std::tuple<at::Tensor, at::Tensor> log_sigmoid_forward(const at::Tensor& self) {
  at::Tensor output = at::empty({0}, self.options());
  at::Tensor buffer = at::empty({0}, self.options());
  log_sigmoid_forward_output(self, output, buffer);
  return {output, buffer};
}

at::Tensor& log_sigmoid_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                            const at::Tensor& /*buffer*/, at::Tensor& grad_input) {
  check_floating(self, "log_sigmoid_backward");
  at::TensorIterator iter = at::TensorIteratorConfig()
                                .add_output(grad_input)
                                .add_const_input(self)
                                .add_const_input(grad_output)
                                .build();
  run_elementwise(iter, kernels::ElementwiseOp::kLogSigmoidBackward, iter.common_dtype(), "log_sigmoid_backward");
  return grad_input;
}

at::Tensor log_sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& buffer) {
  at::Tensor grad_input = at::empty({0}, grad_output.options());
  log_sigmoid_backward_grad_input(grad_output, self, buffer, grad_input);
  return grad_input;
}

}  // namespace torch_tpu::aten
