// upsample_nearest2d / upsample_bilinear2d and their backwards (direct
// route: ATen's CPU implementations call their kernels with a hard-coded CPU
// device). ATen's structured meta() checks the sizes and allocates the
// output in the input's layout; the .vec overloads (Core ATen IR) are
// CompositeImplicit and reach these. kernels/upsample.h computes.
#include <ATen/core/Tensor.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_meta.h>
#include <c10/core/DeviceGuard.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "aten/structured_wrappers.h"
#include "generated/aten_ops.h"
#include "kernels/upsample.h"

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
  c10::DeviceGuard guard(self.device());
  const at::Tensor x = self.contiguous();
  into_contiguous(out, [&](const at::Tensor& o) {
    if (o.numel() == 0) return;
    launch(self.device().index(), name, {x.const_data_ptr(), o.data_ptr()},
           [d, xp = x.const_data_ptr(), op = o.data_ptr()] { kernels::upsample_forward(d, xp, op); });
  });
}

void backward(const kernels::UpsampleDesc& d, const at::Tensor& grad_output, const at::Tensor& grad_input,
              const char* name) {
  c10::DeviceGuard guard(grad_output.device());
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

at::Tensor upsample_nearest2d(const at::Tensor& self, at::IntArrayRef output_size, std::optional<double> scales_h,
                              std::optional<double> scales_w) {
  const char* name = "upsample_nearest2d";
  structured::Functional<at::meta::structured_upsample_nearest2d, 1> op;
  op.meta(self, output_size, scales_h, scales_w);
  forward(desc(false, false, self.sizes(), output_size, self.scalar_type(), scales_h, scales_w, name), self,
          op.output(0), name);
  return std::move(op.outputs_[0]);
}

at::Tensor upsample_nearest2d_backward(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                       at::IntArrayRef input_size, std::optional<double> scales_h,
                                       std::optional<double> scales_w) {
  const char* name = "upsample_nearest2d_backward";
  structured::Functional<at::meta::structured_upsample_nearest2d_backward, 1> op;
  op.meta(grad_output, output_size, input_size, scales_h, scales_w);
  backward(desc(false, false, input_size, output_size, grad_output.scalar_type(), scales_h, scales_w, name),
           grad_output, op.output(0), name);
  return std::move(op.outputs_[0]);
}

at::Tensor upsample_bilinear2d(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  const char* name = "upsample_bilinear2d";
  structured::Functional<at::meta::structured_upsample_bilinear2d, 1> op;
  op.meta(self, output_size, align_corners, scales_h, scales_w);
  forward(desc(true, align_corners, self.sizes(), output_size, self.scalar_type(), scales_h, scales_w, name), self,
          op.output(0), name);
  return std::move(op.outputs_[0]);
}

at::Tensor upsample_bilinear2d_backward(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                        at::IntArrayRef input_size, bool align_corners,
                                        std::optional<double> scales_h, std::optional<double> scales_w) {
  const char* name = "upsample_bilinear2d_backward";
  structured::Functional<at::meta::structured_upsample_bilinear2d_backward, 1> op;
  op.meta(grad_output, output_size, input_size, align_corners, scales_h, scales_w);
  backward(desc(true, align_corners, input_size, output_size, grad_output.scalar_type(), scales_h, scales_w, name),
           grad_output, op.output(0), name);
  return std::move(op.outputs_[0]);
}

}  // namespace torch_tpu::aten
