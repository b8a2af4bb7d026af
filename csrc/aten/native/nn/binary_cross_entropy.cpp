// binary_cross_entropy and its backward (direct route): ATen's kernels are
// CPU's and CUDA's own. The same steps with tpu kernels: one elementwise
// kernel for the per-element loss (or gradient), then the weight and the
// reduction as tpu ops, as CPU's binary_cross_entropy_out_cpu does.
//   loss = (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)
//   grad = g * (x - t) / max((1 - x) * x, 1e-12)  (* weight, / numel for mean)
// CPU checks every input element inside its loop ("all elements of input
// should be between 0 and 1"); the device cannot raise from a kernel, so the
// forward checks with one reduction and a synchronizing read (one per call,
// as the loss is read once a step anyway), and raises CPU's RuntimeError.
#include <ATen/TensorIterator.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/any.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/logical_or.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/sum.h>

#include "aten/iterator_desc.h"
#include "generated/ops/binary_cross_entropy.h"
#include "generated/ops/binary_cross_entropy_backward.h"
#include "generated/ops/binary_cross_entropy_backward_grad_input.h"
#include "generated/ops/binary_cross_entropy_out.h"

namespace torch_tpu::aten {
namespace {

bool has(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

void check_bce_args(const at::Tensor& self, const at::Tensor& target, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), "\"", name, "\" not implemented for '",
                              self.scalar_type(), "' on tpu");
  TORCH_CHECK(self.sym_numel() == target.sym_numel(), "Expected input batch_size (", self.numel(),
              ") to match target batch_size (", target.numel(), ").");
}

bool outside_unit_interval(const at::Tensor& t) {
  return at::any(at::logical_or(at::lt(t, 0), at::gt(t, 1))).item<bool>();
}

// One elementwise kernel over (self, target[, grad]) into `out`, reshaped like
// CPU's squeezed iterator (same element count, self's shape).
void run_bce_kernel(at::Tensor& out, std::initializer_list<at::Tensor> inputs, kernels::ElementwiseOp op,
                    const char* name) {
  at::TensorIteratorConfig config;
  config.add_output(out);
  for (const at::Tensor& t : inputs) config.add_const_input(t);
  at::TensorIterator iter = config.build();
  run_elementwise(iter, op, iter.common_dtype(), name);
}

}  // namespace

at::Tensor& binary_cross_entropy_out(const at::Tensor& self, const at::Tensor& target,
                                     const std::optional<at::Tensor>& weight, int64_t reduction, at::Tensor& out) {
  check_bce_args(self, target, "binary_cross_entropy");
  TORCH_CHECK(!outside_unit_interval(self), "all elements of input should be between 0 and 1");
  TORCH_CHECK(!outside_unit_interval(target), "all elements of target should be between 0 and 1");
  at::Tensor loss = at::empty(self.sizes(), self.options());
  run_bce_kernel(loss, {self, target.reshape(self.sizes())}, kernels::ElementwiseOp::kBinaryCrossEntropy,
                 "binary_cross_entropy");
  if (has(weight)) loss.mul_(*weight);
  if (reduction == at::Reduction::Mean) {
    loss = at::mean(loss);
  } else if (reduction == at::Reduction::Sum) {
    loss = at::sum(loss);
  }
  at::native::resize_output(out, loss.sizes());
  out.copy_(loss);
  return out;
}

at::Tensor binary_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                const std::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor out = at::empty({0}, self.options());
  return binary_cross_entropy_out(self, target, weight, reduction, out);
}

at::Tensor& binary_cross_entropy_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                                     const at::Tensor& target,
                                                     const std::optional<at::Tensor>& weight, int64_t reduction,
                                                     at::Tensor& grad_input) {
  check_bce_args(self, target, "binary_cross_entropy_backward");
  at::native::resize_output(grad_input, self.sizes());
  run_bce_kernel(grad_input, {self, target.reshape(self.sizes()), grad_output.expand(self.sizes())},
                 kernels::ElementwiseOp::kBinaryCrossEntropyBackward, "binary_cross_entropy_backward");
  if (has(weight)) grad_input.mul_(*weight);
  if (reduction == at::Reduction::Mean) grad_input.div_(self.numel());
  return grad_input;
}

at::Tensor binary_cross_entropy_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                         const at::Tensor& target, const std::optional<at::Tensor>& weight,
                                         int64_t reduction) {
  at::Tensor grad_input = at::empty({0}, self.options());
  return binary_cross_entropy_backward_grad_input(grad_output, self, target, weight, reduction, grad_input);
}

}  // namespace torch_tpu::aten
