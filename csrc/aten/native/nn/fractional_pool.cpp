// fractional_max_pool2d / 3d and their backwards (direct route: ATen's CPU
// implementations only). The forwards and the 2-d backward are structured:
// ATen's meta() checks the arguments and allocates; the 3-d backward checks
// what CPU's does. Given random_samples the result is deterministic:
// kernels/nn/fractional_pool.h computes the windows as CPU; the backwards
// scatter grad_output to the indices (pool_backward, kernels/nn/nn.h).
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/fractional_max_pool2d.h"
#include "generated/ops/fractional_max_pool2d_backward.h"
#include "generated/ops/fractional_max_pool3d.h"
#include "generated/ops/fractional_max_pool3d_backward.h"
#include "kernels/nn/fractional_pool.h"
#include "kernels/nn/nn.h"

namespace torch_tpu::aten {
namespace {

// d's planes and spatial sizes from the input (batched or not) and the output sizes.
void frp_shape(kernels::FractionalPoolDesc& d, const at::Tensor& self, at::IntArrayRef output_size,
               at::IntArrayRef pool) {
  const int dims = d.dims;
  const bool batched = self.dim() == dims + 2;
  d.planes = (batched ? self.size(0) : 1) * self.size(batched ? 1 : 0);
  for (int i = 0; i < dims; ++i) {
    d.in[3 - dims + i] = self.size(self.dim() - dims + i);
    d.out[3 - dims + i] = output_size[i];
    d.pool[3 - dims + i] = pool[i];
  }
}

void frp_forward(kernels::FractionalPoolDesc d, const at::Tensor& self, const at::Tensor& random_samples,
                 const at::Tensor& output, const at::Tensor& indices, const char* name) {
  if (output.numel() == 0) return;
  const at::Tensor x = self.contiguous();
  const at::Tensor s = random_samples.to(self.scalar_type()).contiguous();
  into_contiguous(indices, [&](const at::Tensor& idx) {
    into_contiguous(output, [&](const at::Tensor& o) {
      launch(self.device().index(), name, {x.const_data_ptr(), s.const_data_ptr(), o.data_ptr(), idx.data_ptr()},
             [d, xp = x.const_data_ptr(), sp = s.const_data_ptr(), op = o.data_ptr(),
              ip = idx.data_ptr<int64_t>()] { kernels::fractional_max_pool_forward(d, xp, sp, op, ip); });
    });
  });
}

void frp_backward(const kernels::FractionalPoolDesc& f, const at::Tensor& grad_output, const at::Tensor& indices,
                  const at::Tensor& grad_input, const char* name) {
  if (grad_input.numel() == 0) return;
  kernels::PoolDesc d;
  d.kind = kernels::PoolKind::kMax;
  d.dtype = f.dtype;
  d.planes = f.planes;
  for (int a = 0; a < 3; ++a) {
    d.in[a] = f.in[a];
    d.out[a] = f.out[a];
  }
  const at::Tensor g = grad_output.contiguous(), idx = indices.contiguous();
  into_contiguous(grad_input, [&](const at::Tensor& gi) {
    launch(grad_output.device().index(), name, {g.const_data_ptr(), idx.const_data_ptr(), gi.data_ptr()},
           [d, gp = g.const_data_ptr(), ip = idx.const_data_ptr<int64_t>(), gip = gi.data_ptr()] {
             kernels::pool_backward(d, gp, ip, gip);
           });
  });
}

}  // namespace

void fractional_max_pool2d_out(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef output_size,
                               const at::Tensor& random_samples, const at::Tensor& output,
                               const at::Tensor& indices) {
  const char* name = "fractional_max_pool2d";
  kernels::FractionalPoolDesc d;
  d.dims = 2;
  d.dtype = device_dtype(self.scalar_type(), name);
  frp_shape(d, self, output_size, kernel_size);
  frp_forward(d, self, random_samples, output, indices, name);
}

void fractional_max_pool2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                        at::IntArrayRef kernel_size, at::IntArrayRef output_size,
                                        const at::Tensor& indices, const at::Tensor& grad_input) {
  const char* name = "fractional_max_pool2d_backward";
  kernels::FractionalPoolDesc d;
  d.dims = 2;
  d.dtype = device_dtype(self.scalar_type(), name);
  frp_shape(d, self, output_size, kernel_size);
  frp_backward(d, grad_output, indices, grad_input, name);
}

void fractional_max_pool3d_out(const at::Tensor& self, int64_t poolSizeT, int64_t poolSizeH, int64_t poolSizeW,
                               int64_t outputT, int64_t outputH, int64_t outputW, const at::Tensor& random_samples,
                               int64_t numBatch, int64_t numPlanes, int64_t inputT, int64_t inputH, int64_t inputW,
                               const at::Tensor& output, const at::Tensor& indices) {
  const char* name = "fractional_max_pool3d";
  kernels::FractionalPoolDesc d;
  d.dims = 3;
  d.dtype = device_dtype(self.scalar_type(), name);
  frp_shape(d, self, {outputT, outputH, outputW}, {poolSizeT, poolSizeH, poolSizeW});
  frp_forward(d, self, random_samples, output, indices, name);
}

at::Tensor fractional_max_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                          at::IntArrayRef kernel_size, at::IntArrayRef output_size,
                                          const at::Tensor& indices) {
  const char* name = "fractional_max_pool3d_backward";
  TORCH_CHECK(output_size.size() == 3 && (self.dim() == 4 || self.dim() == 5),
              "fractional_max_pool3d_backward(): expected a 4D or 5D input and 3 output sizes");
  const int64_t w = self.dim() - 1;
  TORCH_CHECK(output_size[0] == grad_output.size(w - 2),
              "fractional_max_pool3d_backward_out(): gradOutput time unexpected");
  TORCH_CHECK(output_size[1] == grad_output.size(w - 1),
              "fractional_max_pool3d_backward_out(): ", "gradOutput height unexpected");
  TORCH_CHECK(output_size[2] == grad_output.size(w),
              "fractional_max_pool3d_backward_out(): gradOutput width unexpected");
  kernels::FractionalPoolDesc d;
  d.dims = 3;
  d.dtype = device_dtype(self.scalar_type(), name);
  frp_shape(d, self, output_size, kernel_size);
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  frp_backward(d, grad_output, indices, grad_input, name);
  return grad_input;
}

}  // namespace torch_tpu::aten
