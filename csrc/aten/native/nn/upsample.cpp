// upsample_nearest2d / upsample_bilinear2d and their backwards (direct
// route: ATen's CPU implementations call their kernels with a hard-coded CPU
// device). Structured impls: the generated wrappers run ATen's meta(), which
// checks the sizes and allocates the output in the input's layout; the .vec overloads (Core ATen IR) are
// CompositeImplicit and reach these. kernels/nn/upsample.h computes.
#include <ATen/core/Tensor.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/upsample_bilinear2d.h"
#include "generated/ops/upsample_bilinear2d_backward.h"
#include "generated/ops/upsample_nearest2d.h"
#include "generated/ops/upsample_nearest2d_backward.h"
#include "kernels/nn/upsample.h"

namespace torch_tpu::aten {
namespace {

kernels::UpsampleDesc desc(bool bilinear, bool align_corners, at::IntArrayRef input_size, at::IntArrayRef output_size,
                           at::ScalarType dtype, std::optional<double> scales_h, std::optional<double> scales_w,
                           const char* name) {
  kernels::UpsampleDesc d;
  d.bilinear = bilinear;
  d.align_corners = align_corners;
  d.dtype = device_dtype(dtype, name);
  d.planes = input_size[0] * input_size[1];
  d.in_h = input_size[2];
  d.in_w = input_size[3];
  d.out_h = output_size[0];
  d.out_w = output_size[1];
  d.scale_h = scales_h.value_or(0);
  d.scale_w = scales_w.value_or(0);
  return d;
}

void forward(const kernels::UpsampleDesc& d, const at::Tensor& self, const at::Tensor& out, const char* name) {
  const at::Tensor x = self.contiguous();
  into_contiguous(out, [&](const at::Tensor& o) {
    if (o.numel() == 0) return;
    launch(self.device().index(), name, {x.const_data_ptr(), o.data_ptr()},
           [d, xp = x.const_data_ptr(), op = o.data_ptr()] { kernels::upsample_forward(d, xp, op); });
  });
}

void backward(const kernels::UpsampleDesc& d, const at::Tensor& grad_output, const at::Tensor& grad_input,
              const char* name) {
  const at::Tensor g = grad_output.contiguous();
  into_contiguous(grad_input, [&](const at::Tensor& gi) {
    if (gi.numel() == 0) return;
    if (g.numel() == 0) {
      const_cast<at::Tensor&>(gi).zero_();
      return;
    }
    launch(grad_output.device().index(), name, {g.const_data_ptr(), gi.data_ptr()},
           [d, gp = g.const_data_ptr(), gip = gi.data_ptr()] { kernels::upsample_backward(d, gp, gip); });
  });
}

}  // namespace

void upsample_nearest2d_out(const at::Tensor& self, at::IntArrayRef output_size, std::optional<double> scales_h,
                            std::optional<double> scales_w, const at::Tensor& out) {
  const char* name = "upsample_nearest2d";
  forward(desc(false, false, self.sizes(), output_size, self.scalar_type(), scales_h, scales_w, name), self, out,
          name);
}

void upsample_nearest2d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                     at::IntArrayRef input_size, std::optional<double> scales_h,
                                     std::optional<double> scales_w, const at::Tensor& grad_input) {
  const char* name = "upsample_nearest2d_backward";
  backward(desc(false, false, input_size, output_size, grad_output.scalar_type(), scales_h, scales_w, name),
           grad_output, grad_input, name);
}

void upsample_bilinear2d_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                             std::optional<double> scales_h, std::optional<double> scales_w, const at::Tensor& out) {
  const char* name = "upsample_bilinear2d";
  forward(desc(true, align_corners, self.sizes(), output_size, self.scalar_type(), scales_h, scales_w, name), self,
          out, name);
}

void upsample_bilinear2d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                      at::IntArrayRef input_size, bool align_corners,
                                      std::optional<double> scales_h, std::optional<double> scales_w,
                                      const at::Tensor& grad_input) {
  const char* name = "upsample_bilinear2d_backward";
  backward(desc(true, align_corners, input_size, output_size, grad_output.scalar_type(), scales_h, scales_w, name),
           grad_output, grad_input, name);
}

}  // namespace torch_tpu::aten
