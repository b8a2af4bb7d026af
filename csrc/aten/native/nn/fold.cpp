// col2im (F.fold) and im2col (F.unfold; fold's backward), direct route:
// ATen's implementations are CPU-only. Checks are ATen's
// (im2col_shape_check.h); the work is the convolution lowering's
// (kernels/nn/conv.h): col2im sums overlapping windows in float (double for
// float64; complex part by part) in CPU's order and rounds once, im2col
// gathers (any dtype: it moves bits).
#include <ATen/core/Tensor.h>
#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/empty.h>

#include "aten/launch.h"
#include "generated/ops/col2im.h"
#include "generated/ops/im2col.h"
#include "kernels/nn/conv.h"

namespace torch_tpu::aten {

at::Tensor col2im(const at::Tensor& self, at::IntArrayRef output_size, at::IntArrayRef kernel_size,
                  at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride) {
  for (auto [v, what] : {std::pair{output_size, "output_size"}, {kernel_size, "kernel_size"},
                         {dilation, "dilation"}, {padding, "padding"}, {stride, "stride"}}) {
    TORCH_CHECK(v.size() == 2, "It is expected ", what, " equals to 2, but got size ", v.size());
  }
  at::native::col2im_shape_check(self, at::Tensor(), output_size[0], output_size[1], kernel_size[0],
                                 kernel_size[1], dilation[0], dilation[1], padding[0], padding[1], stride[0],
                                 stride[1]);
  const kernels::DType t = device_dtype(self.scalar_type(), "col2im");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::conv_supports(t) || self.is_complex(), "\"col2im\" not implemented for '",
                              self.scalar_type(), "' on tpu");
  const bool batched = self.dim() == 3;
  const at::Tensor col = batched ? self.contiguous() : self.unsqueeze(0).contiguous();
  const int64_t K = kernel_size[0] * kernel_size[1];
  kernels::ConvDesc d;
  d.dtype = t;
  d.batch = col.size(0);
  d.image_channels = col.size(1) / K;
  d.flat_channels = col.size(1);
  d.geo.image[1] = output_size[0];
  d.geo.image[2] = output_size[1];
  d.geo.kernel[1] = kernel_size[0];
  d.geo.kernel[2] = kernel_size[1];
  for (int i = 0; i < 2; ++i) {
    d.geo.stride[i + 1] = stride[i];
    d.geo.padding[i + 1] = padding[i];
    d.geo.dilation[i + 1] = dilation[i];
    d.geo.flat[i + 1] =
        (output_size[i] + 2 * padding[i] - (dilation[i] * (kernel_size[i] - 1) + 1)) / stride[i] + 1;
  }
  at::Tensor out = at::empty({d.batch, d.image_channels, output_size[0], output_size[1]}, col.options());
  if (out.numel() > 0) {
    const void* cp = col.const_data_ptr();
    void* op = out.data_ptr();
    launch(self.device().index(), "col2im", {cp, op}, [d, cp, op] { kernels::conv_col2im(d, cp, op); });
  }
  return batched ? out : out.squeeze(0);
}

at::Tensor im2col(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef dilation,
                  at::IntArrayRef padding, at::IntArrayRef stride) {
  for (auto [v, what] : {std::pair{kernel_size, "kernel_size"}, {dilation, "dilation"}, {padding, "padding"},
                         {stride, "stride"}}) {
    TORCH_CHECK(v.size() == 2, "It is expected ", what, " equals to 2, but got size ", v.size());
  }
  at::native::im2col_shape_check(self, at::Tensor(), kernel_size[0], kernel_size[1], dilation[0], dilation[1],
                                 padding[0], padding[1], stride[0], stride[1]);
  const kernels::DType t = device_dtype(self.scalar_type(), "im2col");
  const bool batched = self.dim() == 4;
  const at::Tensor image = batched ? self.contiguous() : self.unsqueeze(0).contiguous();
  kernels::ConvDesc d;
  d.dtype = t;
  d.batch = image.size(0);
  d.image_channels = image.size(1);
  int64_t blocks = 1;
  for (int i = 0; i < 2; ++i) {
    d.geo.image[i + 1] = image.size(i + 2);
    d.geo.kernel[i + 1] = kernel_size[i];
    d.geo.stride[i + 1] = stride[i];
    d.geo.padding[i + 1] = padding[i];
    d.geo.dilation[i + 1] = dilation[i];
    d.geo.flat[i + 1] =
        (image.size(i + 2) + 2 * padding[i] - (dilation[i] * (kernel_size[i] - 1) + 1)) / stride[i] + 1;
    blocks *= d.geo.flat[i + 1];
  }
  d.flat_channels = d.image_channels * kernel_size[0] * kernel_size[1];
  at::Tensor out = at::empty({d.batch, d.flat_channels, blocks}, image.options());
  if (out.numel() > 0) {
    const void* ip = image.const_data_ptr();
    void* op = out.data_ptr();
    launch(self.device().index(), "im2col", {ip, op}, [d, ip, op] { kernels::conv_im2col(d, ip, op); });
  }
  return batched ? out : out.squeeze(0);
}

}  // namespace torch_tpu::aten
