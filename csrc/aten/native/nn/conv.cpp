// convolution / convolution_backward (direct route). ATen's own convolution
// picks a backend per device and, for an out-of-tree device, calls
// convolution_overrideable; registering the core overloads themselves keeps
// one entry point for eager, autograd (convolution's derivative is
// convolution_backward) and export, whose graphs contain exactly these two.
// Checks and output sizes follow ATen's _convolution (Convolution.cpp);
// the arithmetic is kernels/nn/conv.h's lowering onto the device GEMM.
// Results are contiguous whatever the input's layout: what FakeTensor
// predicts for a backend ATen would send to convolution_overrideable
// (_conv_determine_backend_memory_format), so compiled graphs see the strides
// eager produces. CPU keeps channels-last; a channels-last kernel would be an
// optimisation, not a different answer.
#include <algorithm>

#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>

#include "aten/launch.h"
#include "aten/optional_tensor.h"
#include "generated/ops/convolution.h"
#include "generated/ops/convolution_backward.h"
#include "kernels/nn/conv.h"

namespace torch_tpu::aten {
namespace {

std::vector<int64_t> expand(at::IntArrayRef p, int64_t dims, const char* what) {
  if (p.size() == 1) return std::vector<int64_t>(dims, p[0]);
  TORCH_CHECK(static_cast<int64_t>(p.size()) == dims, "expected ", what, " to be a single integer value or a list of ",
              dims, " values to match the convolution dimensions, but got ", what, "=", p);
  return p.vec();
}

// A convolution's parameters, checked, with the image/flat roles of
// kernels/nn/conv.h assigned.
struct Conv {
  int64_t dims = 0;  // spatial dimensions
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
  std::vector<int64_t> output_shape;
};

Conv check(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
           at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
           at::IntArrayRef output_padding, int64_t groups) {
  Conv c;
  const int64_t k = weight.dim();
  TORCH_CHECK(k >= 3, "weight should have at least three dimensions");  // ATen's _convolution
  TORCH_CHECK(k <= 5, "convolution: expected a 3-, 4- or 5-dimensional weight, got ", weight.sizes());
  TORCH_CHECK(input.dim() == k, "Expected ", k, "-dimensional input for ", k, "-dimensional weight ",
              weight.sizes(), ", but got ", input.dim(), "-dimensional input of size ", input.sizes(),
              " instead");
  c.dims = k - 2;
  c.stride = expand(stride, c.dims, "stride");
  c.padding = expand(padding, c.dims, "padding");
  c.dilation = expand(dilation, c.dims, "dilation");
  c.output_padding = expand(output_padding, c.dims, "output_padding");
  c.transposed = transposed;
  c.groups = groups;
  TORCH_CHECK(groups > 0, "non-positive groups is not supported");
  for (int64_t i = 0; i < c.dims; ++i) {
    TORCH_CHECK(c.stride[i] > 0, "non-positive stride is not supported");
    TORCH_CHECK(c.padding[i] >= 0, "negative padding is not supported");
    TORCH_CHECK(c.dilation[i] > 0, "dilation should be greater than zero");
    TORCH_CHECK(c.output_padding[i] >= 0, "negative output_padding is not supported");
    TORCH_CHECK(!transposed || c.output_padding[i] < c.stride[i] || c.output_padding[i] < c.dilation[i],
                "output padding must be smaller than either stride or dilation, but got output_padding=",
                at::IntArrayRef(c.output_padding), ", stride=", at::IntArrayRef(c.stride),
                ", dilation=", at::IntArrayRef(c.dilation));
  }
  TORCH_CHECK(input.options().type_equal(weight.options()), "Input type (", input.toString(),
              ") and weight type (", weight.toString(), ") should be the same");
  TORCH_CHECK(!bias.defined() || input.options().type_equal(bias.options()), "Input type (",
              input.toString(), ") and bias type (", bias.toString(), ") should be the same");
  const int64_t in_channels = input.size(1);
  int64_t out_channels = 0;
  if (!transposed) {
    TORCH_CHECK(weight.size(0) >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
                " at dimension 0, but got weight of size ", weight.sizes(), " instead");
    TORCH_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
                groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
    TORCH_CHECK(in_channels == weight.size(1) * groups, "Given groups=", groups, ", weight of size ",
                weight.sizes(), ", expected input", input.sizes(), " to have ", weight.size(1) * groups,
                " channels, but got ", in_channels, " channels instead");
    out_channels = weight.size(0);
  } else {
    TORCH_CHECK(in_channels == weight.size(0), "Given transposed=1, weight of size ", weight.sizes(),
                ", expected input", input.sizes(), " to have ", weight.size(0), " channels, but got ",
                in_channels, " channels instead");
    TORCH_CHECK(weight.size(0) >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
                " at dimension 0, but got weight of size ", weight.sizes(), " instead");
    TORCH_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
                groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
    out_channels = weight.size(1) * groups;
  }
  TORCH_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), "Given weight of size ",
              weight.sizes(), ", expected bias to be 1-dimensional with ", out_channels,
              " elements, but got bias of size ", bias.sizes(), " instead");
  c.output_shape = {input.size(0), out_channels};
  for (int64_t i = 0; i < c.dims; ++i) {
    const int64_t in = input.size(i + 2), kernel = weight.size(i + 2);
    const int64_t span = c.dilation[i] * (kernel - 1) + 1;
    int64_t out = 0;
    if (!transposed) {
      TORCH_CHECK(in + 2 * c.padding[i] >= span, "Calculated padded input size per channel: (",
                  in + 2 * c.padding[i], "). Kernel size: (", span,
                  "). Kernel size can't be greater than actual input size");
      out = (in + 2 * c.padding[i] - span) / c.stride[i] + 1;
    } else {
      out = (in - 1) * c.stride[i] - 2 * c.padding[i] + span + c.output_padding[i];
      TORCH_CHECK(out > 0, "Given input size per channel: (", in, "). Calculated output size per channel: (",
                  out, "). Output size is too small");
    }
    c.output_shape.push_back(out);
  }
  return c;
}

// The kernel descriptor: image = input for a regular convolution, output for
// a transposed one (`image` and `flat` are the two sides' [N, C, *spatial]).
kernels::ConvDesc describe_conv(const Conv& c, at::IntArrayRef image, at::IntArrayRef flat,
                                at::IntArrayRef weight, at::ScalarType dtype, const char* name) {
  kernels::ConvDesc d;
  d.dtype = device_dtype(dtype, name);
  d.batch = image[0];
  d.groups = c.groups;
  d.image_channels = image[1];
  d.flat_channels = flat[1];
  const int64_t lead = 3 - c.dims;
  for (int64_t i = 0; i < c.dims; ++i) {
    d.geo.image[lead + i] = image[i + 2];
    d.geo.flat[lead + i] = flat[i + 2];
    d.geo.kernel[lead + i] = weight[i + 2];
    d.geo.stride[lead + i] = c.stride[i];
    d.geo.padding[lead + i] = c.padding[i];
    d.geo.dilation[lead + i] = c.dilation[i];
  }
  return d;
}

}  // namespace

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias_opt,
                       at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                       at::IntArrayRef output_padding, int64_t groups) {
  const char* name = "convolution";
  const at::Tensor& bias = value_or_undefined(bias_opt);
  const Conv c = check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  // CPU's integer convolutions other than int64 take its slow2d/slow3d path
  // only: its transposed (slow_conv_transpose) and dilated (slow_conv_dilated)
  // paths have no kernel for them, so neither does tpu.
  if (at::isIntegralType(input.scalar_type(), false) && input.scalar_type() != at::kLong) {
    const bool dilated = std::any_of(c.dilation.begin(), c.dilation.end(), [](int64_t d) { return d != 1; });
    TORCH_CHECK_NOT_IMPLEMENTED(!transposed && !dilated, "convolution: ", transposed ? "transposed" : "dilated",
                                " convolution is not implemented for ", input.scalar_type(),
                                " (CPU has no kernel for it either)");
  }
  const at::Tensor x = input.contiguous();
  const at::Tensor w = weight.contiguous();
  const at::Tensor b = bias.defined() ? bias.contiguous() : bias;
  at::Tensor out = at::empty(c.output_shape, x.options());
  if (out.numel() > 0) {
    const void* bp = b.defined() ? b.const_data_ptr() : nullptr;
    if (!transposed) {
      const kernels::ConvDesc d = describe_conv(c, x.sizes(), out.sizes(), w.sizes(), x.scalar_type(), name);
      launch(input.device().index(), name, {x.const_data_ptr(), w.const_data_ptr(), bp, out.data_ptr()},
             [d, xp = x.const_data_ptr(), wp = w.const_data_ptr(), bp, op = out.data_ptr()] {
               kernels::conv_lower(d, xp, wp, bp, op);
             });
    } else {
      const kernels::ConvDesc d = describe_conv(c, out.sizes(), x.sizes(), w.sizes(), x.scalar_type(), name);
      launch(input.device().index(), name, {x.const_data_ptr(), w.const_data_ptr(), bp, out.data_ptr()},
             [d, xp = x.const_data_ptr(), wp = w.const_data_ptr(), bp, op = out.data_ptr()] {
               kernels::conv_raise(d, xp, wp, bp, op);
             });
    }
  }
  return out;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    at::OptionalIntArrayRef bias_sizes, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
    bool transposed, at::IntArrayRef output_padding, int64_t groups, std::array<bool, 3> output_mask) {
  const char* name = "convolution_backward";
  const Conv c = check(input, weight, at::Tensor(), stride, padding, dilation, transposed, output_padding, groups);
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(c.output_shape), "convolution_backward: expected grad_output of size ",
              at::IntArrayRef(c.output_shape), ", got ", grad_output.sizes());
  TORCH_CHECK(grad_output.scalar_type() == input.scalar_type(), "convolution_backward: grad_output has dtype ",
              grad_output.scalar_type(), " and input ", input.scalar_type());
  const at::Tensor gy = grad_output.contiguous();
  const at::Tensor x = input.contiguous();
  const at::Tensor w = weight.contiguous();
  at::Tensor gx, gw, gb;
  // image/flat roles: regular (image = input, flat = grad_output), transposed swapped.
  const at::Tensor& image = transposed ? gy : x;
  const at::Tensor& flat = transposed ? x : gy;
  const kernels::ConvDesc d = describe_conv(c, image.sizes(), flat.sizes(), w.sizes(), x.scalar_type(), name);
  const c10::DeviceIndex dev = input.device().index();
  if (output_mask[0]) {
    gx = at::empty(x.sizes(), x.options());
    if (gx.numel() > 0) {
      launch(dev, name, {gy.const_data_ptr(), w.const_data_ptr(), gx.data_ptr()},
             [d, transposed, gyp = gy.const_data_ptr(), wp = w.const_data_ptr(), gxp = gx.data_ptr()] {
               if (transposed) {
                 kernels::conv_lower(d, gyp, wp, nullptr, gxp);
               } else {
                 kernels::conv_raise(d, gyp, wp, nullptr, gxp);
               }
             });
    }
  }
  if (output_mask[1]) {
    gw = at::empty(w.sizes(), w.options());
    if (gw.numel() > 0) {
      launch(dev, name, {flat.const_data_ptr(), image.const_data_ptr(), gw.data_ptr()},
             [d, fp = flat.const_data_ptr(), ip = image.const_data_ptr(), gwp = gw.data_ptr()] {
               kernels::conv_weight_grad(d, fp, ip, gwp);
             });
    }
  }
  if (output_mask[2]) {
    const int64_t channels = gy.size(1);
    TORCH_CHECK(!bias_sizes.has_value() || (bias_sizes->size() == 1 && (*bias_sizes)[0] == channels),
                "convolution_backward: bias_sizes ", *bias_sizes, " do not match ", channels, " output channels");
    gb = at::empty({channels}, gy.options());
    if (channels > 0) {
      const int64_t spatial = gy.numel() == 0 ? 0 : gy.numel() / (gy.size(0) * channels);
      const kernels::DType t = device_dtype(gy.scalar_type(), name);
      launch(dev, name, {gy.const_data_ptr(), gb.data_ptr()},
             [t, gyp = gy.const_data_ptr(), batch = gy.size(0), channels, spatial, gbp = gb.data_ptr()] {
               kernels::conv_bias_grad(t, gyp, batch, channels, spatial, gbp);
             });
    }
  }
  return {std::move(gx), std::move(gw), std::move(gb)};
}

}  // namespace torch_tpu::aten
