// _softmax / _log_softmax and their backwards (direct route: ATen's CPU
// implementations call their stubs with kCPU). The generated wrappers run
// ATen's structured meta(), which checks the arguments and allocates (or
// checks) the outputs exactly as on CPU, and set the device guard; these
// structured impls then launch kernels::softmax_forward/backward on the
// contiguous [outer, dim, inner] view.
//
// half_to_float (float16 in, float out) is accepted as CUDA does; CPU
// rejects it.
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/_log_softmax.h"
#include "generated/ops/_log_softmax_backward_data.h"
#include "generated/ops/_softmax.h"
#include "generated/ops/_softmax_backward_data.h"
#include "kernels/nn/nn.h"

namespace torch_tpu::aten {
namespace {

struct Shape3 {
  int64_t outer = 1, dim = 1, inner = 1;
};

Shape3 split_at(const at::Tensor& t, int64_t dim) {
  Shape3 s;
  if (t.dim() == 0) return s;
  for (int64_t i = 0; i < dim; ++i) s.outer *= t.size(i);
  s.dim = t.size(dim);
  for (int64_t i = dim + 1; i < t.dim(); ++i) s.inner *= t.size(i);
  return s;
}

void check_half_to_float(const at::Tensor& input, bool half_to_float, const char* op) {
  TORCH_CHECK(!half_to_float || input.scalar_type() == at::kHalf,
              op, ": conversion is supported for Half type only");
}

void softmax_impl(const at::Tensor& input, int64_t dim, bool half_to_float, const at::Tensor& out,
                  bool log) {
  const char* name = log ? "_log_softmax" : "_softmax";
  check_half_to_float(input, half_to_float, name);
  if (input.numel() == 0) return;
  const int64_t dim_ = at::maybe_wrap_dim(dim, input.dim());
  const at::Tensor x = input.contiguous();
  const Shape3 s = split_at(x, dim_);
  into_contiguous(out, [&](const at::Tensor& y) {
    kernels::SoftmaxDesc d;
    d.input = x.const_data_ptr();
    d.output = y.data_ptr();
    d.input_dtype = device_dtype(x.scalar_type(), name);
    d.output_dtype = device_dtype(y.scalar_type(), name);
    d.outer = s.outer;
    d.dim = s.dim;
    d.inner = s.inner;
    d.log = log;
    launch(input.device().index(), name, d.buffers(), [d] { kernels::softmax_forward(d); });
  });
}

void softmax_backward_impl(const at::Tensor& grad, const at::Tensor& output, int64_t dim,
                           const at::Tensor& grad_input, bool log) {
  const char* name = log ? "_log_softmax_backward_data" : "_softmax_backward_data";
  TORCH_CHECK(output.scalar_type() == grad.scalar_type(), name,
              ": expected grad_output and output of one dtype, got ", grad.scalar_type(), " and ",
              output.scalar_type());
  if (output.numel() == 0) return;
  const int64_t dim_ = at::maybe_wrap_dim(dim, grad.dim());
  const at::Tensor g = grad.contiguous();
  const at::Tensor y = output.contiguous();
  const Shape3 s = split_at(g, dim_);
  into_contiguous(grad_input, [&](const at::Tensor& gi) {
    kernels::SoftmaxBackwardDesc d;
    d.grad_output = g.const_data_ptr();
    d.output = y.const_data_ptr();
    d.grad_input = gi.data_ptr();
    d.grad_dtype = device_dtype(g.scalar_type(), name);
    d.grad_input_dtype = device_dtype(gi.scalar_type(), name);
    d.outer = s.outer;
    d.dim = s.dim;
    d.inner = s.inner;
    d.log = log;
    launch(grad.device().index(), name, d.buffers(),
           [d] { kernels::softmax_backward(d); });
  });
}

}  // namespace

void _softmax_out(const at::Tensor& self, int64_t dim, bool half_to_float, const at::Tensor& out) {
  softmax_impl(self, dim, half_to_float, out, false);
}

void _log_softmax_out(const at::Tensor& self, int64_t dim, bool half_to_float, const at::Tensor& out) {
  softmax_impl(self, dim, half_to_float, out, true);
}

void _softmax_backward_data_out(const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
                                at::ScalarType /*input_dtype*/, const at::Tensor& grad_input) {
  softmax_backward_impl(grad_output, output, dim, grad_input, false);
}

void _log_softmax_backward_data_out(const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
                                    at::ScalarType /*input_dtype*/, const at::Tensor& out) {
  softmax_backward_impl(grad_output, output, dim, out, true);
}

}  // namespace torch_tpu::aten
