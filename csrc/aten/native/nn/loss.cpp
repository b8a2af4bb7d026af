// nll_loss_forward / nll_loss_backward (direct route: ATen's CPU kernels are
// CPU-only). The generated wrappers run ATen's structured meta(), which
// checks shapes and allocates outputs as on CPU; the kernels read the target on the device, so an out-of-range
// class is reported by the stream (at the next sync), as on CUDA.
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>

#include "aten/optional_tensor.h"
#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/nll_loss2d_backward.h"
#include "generated/ops/nll_loss2d_backward_grad_input.h"
#include "generated/ops/nll_loss2d_forward.h"
#include "generated/ops/nll_loss2d_forward_output.h"
#include "generated/ops/nll_loss_backward.h"
#include "generated/ops/nll_loss_forward.h"
#include "kernels/nn/nn.h"

namespace torch_tpu::aten {
namespace {

struct Common {
  at::Tensor input, target, weight;
  int64_t batch = 1, classes = 1, inner = 1;
  kernels::DType dtype{}, target_dtype{};
};

Common prepare(const at::Tensor& self, const at::Tensor& target, const at::Tensor& weight,
               const char* name) {
  TORCH_CHECK(target.scalar_type() == at::kLong || target.scalar_type() == at::kByte,
              "expected scalar type Long but found ", target.scalar_type());
  TORCH_CHECK(!weight.defined() || weight.scalar_type() == self.scalar_type(),
              "expected scalar type ", self.scalar_type(), " but found ", weight.scalar_type());
  Common c;
  c.input = self.contiguous();
  c.target = target.contiguous();
  c.weight = weight.defined() ? weight.contiguous() : weight;
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "\"", name, "\" not implemented for '",
              self.scalar_type(), "' on tpu");
  if (self.dim() == 4) {  // nll_loss2d: [N, C, H, W]
    c.batch = self.size(0);
    c.classes = self.size(1);
    c.inner = self.size(2) * self.size(3);
  } else {
    c.classes = self.dim() == 0 ? 1 : self.size(-1);
    c.batch = self.dim() == 2 ? self.size(0) : 1;
  }
  c.dtype = device_dtype(self.scalar_type(), name);
  c.target_dtype = device_dtype(target.scalar_type(), name);
  return c;
}

// The fields the forward and backward descriptors share.
template <typename Desc>
void describe_nll(Desc& d, const Common& c, int64_t reduction, int64_t ignore_index) {
  d.target = c.target.const_data_ptr();
  d.weight = c.weight.defined() ? c.weight.const_data_ptr() : nullptr;
  d.dtype = c.dtype;
  d.target_dtype = c.target_dtype;
  d.batch = c.batch;
  d.classes = c.classes;
  d.inner = c.inner;
  d.reduction = reduction;
  d.ignore_index = ignore_index;
}

void forward_impl(const at::Tensor& self, const at::Tensor& target, const at::Tensor& weight,
                  int64_t reduction, int64_t ignore_index, const at::Tensor& output,
                  const at::Tensor& total_weight) {
  const char* name = "nll_loss_forward";
  Common c = prepare(self, target, weight, name);
  if (reduction == 0 && output.numel() == 0 && self.dim() >= 2) {
    // Nothing to compute; total_weight is left as is (CPU does the same).
    return;
  }
  into_contiguous(output, [&](const at::Tensor& out) {
    into_contiguous(total_weight, [&](const at::Tensor& tw) {
      kernels::NllLossDesc d;
      describe_nll(d, c, reduction, ignore_index);
      d.input = c.input.const_data_ptr();
      d.output = out.data_ptr();
      d.total_weight = tw.data_ptr();
      launch_validating(self.device().index(), name, d.buffers(),
             [d] { kernels::nll_loss_forward(d); });
    });
  });
}

void backward_impl(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                   const at::Tensor& weight, int64_t reduction, int64_t ignore_index,
                   const at::Tensor& total_weight, const at::Tensor& grad_input) {
  const char* name = "nll_loss_backward";
  Common c = prepare(self, target, weight, name);
  TORCH_CHECK(grad_output.scalar_type() == self.scalar_type() &&
                  total_weight.scalar_type() == self.scalar_type(),
              "expected scalar type ", self.scalar_type(), " but found ",
              grad_output.scalar_type() != self.scalar_type() ? grad_output.scalar_type()
                                                              : total_weight.scalar_type());
  TORCH_CHECK(grad_output.device() == self.device() && total_weight.device() == self.device(),
              name, ": expected all tensors on ", self.device());
  const at::Tensor go = grad_output.contiguous();
  const at::Tensor tw = total_weight.contiguous();
  into_contiguous(grad_input, [&](const at::Tensor& gi) {
    const_cast<at::Tensor&>(gi).zero_();
    if (gi.numel() == 0) return;
    kernels::NllLossBackwardDesc d;
    describe_nll(d, c, reduction, ignore_index);
    d.grad_output = go.const_data_ptr();
    d.total_weight = tw.const_data_ptr();
    d.grad_input = gi.data_ptr();
    launch_validating(self.device().index(), name, d.buffers(), [d] { kernels::nll_loss_backward(d); });
  });
}

}  // namespace

void nll_loss_forward_out(const at::Tensor& self, const at::Tensor& target, at::OptionalTensorRef weight,
                          int64_t reduction, int64_t ignore_index, const at::Tensor& output,
                          const at::Tensor& total_weight) {
  forward_impl(self, target, weight.getTensorRef(), reduction, ignore_index, output, total_weight);
}

void nll_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                           at::OptionalTensorRef weight, int64_t reduction, int64_t ignore_index,
                           const at::Tensor& total_weight, const at::Tensor& grad_input) {
  backward_impl(grad_output, self, target, weight.getTensorRef(), reduction, ignore_index, total_weight,
                grad_input);
}

// ---- nll_loss2d: [N, C, H, W] input, [N, H, W] target (no structured meta
// upstream: the checks are CPU's check_inputs_nll_loss2d) ----------------------
namespace {

void check_inputs_2d(const at::Tensor& input, const at::Tensor& target, const at::Tensor& weight) {
  TORCH_CHECK(target.dim() == 3,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
              target.dim());
  TORCH_CHECK(input.dim() == 4,
              "only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
              input.dim());
  TORCH_CHECK(!weight.defined() || weight.numel() == input.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(input.size(0) == target.size(0) && input.size(2) == target.size(1) &&
                  input.size(3) == target.size(2),
              "size mismatch (got input: ", input.sizes(), " , target: ", target.sizes());
}

std::vector<int64_t> output_shape_2d(const at::Tensor& self, int64_t reduction) {
  if (reduction != 0) return {};
  return {self.size(0), self.size(2), self.size(3)};
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&> nll_loss2d_forward_output(
    const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
    int64_t reduction, int64_t ignore_index, at::Tensor& output, at::Tensor& total_weight) {
  const at::Tensor& w = value_or_undefined(weight);
  check_inputs_2d(self, target, w);
  at::native::resize_output(output, output_shape_2d(self, reduction));
  at::native::resize_output(total_weight, {});
  forward_impl(self, target, w, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

std::tuple<at::Tensor, at::Tensor> nll_loss2d_forward(const at::Tensor& self, const at::Tensor& target,
                                                      const std::optional<at::Tensor>& weight,
                                                      int64_t reduction, int64_t ignore_index) {
  const at::Tensor& w = value_or_undefined(weight);
  check_inputs_2d(self, target, w);
  at::Tensor output = at::empty(output_shape_2d(self, reduction), self.options());
  at::Tensor total_weight = at::empty({}, self.options());
  forward_impl(self, target, w, reduction, ignore_index, output, total_weight);
  return {std::move(output), std::move(total_weight)};
}

at::Tensor& nll_loss2d_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                           const at::Tensor& target,
                                           const std::optional<at::Tensor>& weight,
                                           int64_t reduction, int64_t ignore_index,
                                           const at::Tensor& total_weight, at::Tensor& grad_input) {
  const at::Tensor& w = value_or_undefined(weight);
  check_inputs_2d(self, target, w);
  TORCH_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
              total_weight.sizes(), " (", total_weight.numel(), " elements)");
  if (reduction == 0) {
    TORCH_CHECK(grad_output.dim() == 3 && grad_output.sizes() == target.sizes(),
                "grad_output must have same dimension as target (3) but got dimension: ",
                grad_output.sizes());
  } else {
    TORCH_CHECK(grad_output.dim() <= 1 && grad_output.numel() == 1,
                "Expected a single element grad_output tensor, but got: ", grad_output.sizes());
  }
  at::native::resize_output(grad_input, self.sizes());
  backward_impl(grad_output, self, target, w, reduction, ignore_index, total_weight, grad_input);
  return grad_input;
}

at::Tensor nll_loss2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               const at::Tensor& target, const std::optional<at::Tensor>& weight,
                               int64_t reduction, int64_t ignore_index,
                               const at::Tensor& total_weight) {
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  nll_loss2d_backward_grad_input(grad_output, self, target, weight, reduction, ignore_index,
                                 total_weight, grad_input);
  return grad_input;
}

}  // namespace torch_tpu::aten
