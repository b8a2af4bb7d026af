// Pooling, 2d and 3d (direct route: ATen's CPU kernels are CPU-only). The
// structured ops (max_pool2d_with_indices, avg_pool2d/3d and their
// backwards) are structured impls: the generated wrappers run ATen's meta(): argument checks, output sizes (ceil_mode)
// and output layout (channels-last kept, as CPU) come from the one place CPU
// and CUDA take them. max_pool3d_with_indices and the adaptive pools are not
// structured: their checks are ATen's CPU templates' (Pool.h's
// pool3d_shape_check, adaptive_avg_pool*_out_cpu_template). kernels/nn/nn.h does the arithmetic
// on contiguous planes.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/native/Pool.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/_adaptive_avg_pool2d.h"
#include "generated/ops/_adaptive_avg_pool2d_backward.h"
#include "generated/ops/_adaptive_avg_pool3d.h"
#include "generated/ops/_adaptive_avg_pool3d_backward.h"
#include "generated/ops/adaptive_max_pool2d.h"
#include "generated/ops/adaptive_max_pool2d_backward.h"
#include "generated/ops/adaptive_max_pool3d.h"
#include "generated/ops/adaptive_max_pool3d_backward.h"
#include "generated/ops/avg_pool2d.h"
#include "generated/ops/avg_pool2d_backward.h"
#include "generated/ops/avg_pool3d.h"
#include "generated/ops/avg_pool3d_backward.h"
#include "generated/ops/max_pool2d_with_indices.h"
#include "generated/ops/max_pool2d_with_indices_backward.h"
#include "generated/ops/max_pool3d_with_indices.h"
#include "generated/ops/max_pool3d_with_indices_backward.h"
#include "kernels/nn/nn.h"

namespace torch_tpu::aten {
namespace {

// p[i] of a 1- or `dims`-element parameter (ATen's rule); `fallback` when empty.
int64_t pick(at::IntArrayRef p, size_t i, at::IntArrayRef fallback) {
  if (p.empty()) return pick(fallback, i, {});
  return p.size() == 1 ? p[0] : p[i];
}

// The last `dims` dimensions of `x` and `out` as pooling planes.
kernels::PoolDesc plane_desc(kernels::PoolKind kind, const at::Tensor& x, const at::Tensor& out, int dims,
                             const char* name) {
  kernels::PoolDesc d;
  d.kind = kind;
  d.dtype = device_dtype(x.scalar_type(), name);
  int64_t plane = 1;
  for (int i = 0; i < dims; ++i) {
    d.in[3 - dims + i] = x.size(x.dim() - dims + i);
    d.out[3 - dims + i] = out.size(out.dim() - dims + i);
    plane *= d.in[3 - dims + i];
  }
  d.planes = plane == 0 ? 0 : x.numel() / plane;
  return d;
}

void set_window(kernels::PoolDesc& d, int dims, at::IntArrayRef kernel, at::IntArrayRef stride,
                at::IntArrayRef padding, at::IntArrayRef dilation) {
  for (int i = 0; i < dims; ++i) {
    const int j = 3 - dims + i;
    d.kernel[j] = pick(kernel, i, {});
    d.stride[j] = pick(stride, i, kernel);
    d.padding[j] = pick(padding, i, {});
    d.dilation[j] = dilation.empty() ? 1 : pick(dilation, i, {});
  }
}

// avg_pool2d/3d and their backwards: the window, and how a window averages.
kernels::PoolDesc avg_desc(const at::Tensor& self, const at::Tensor& ref, int dims, at::IntArrayRef kernel,
                           at::IntArrayRef stride, at::IntArrayRef padding, bool count_include_pad,
                           std::optional<int64_t> divisor_override, const char* name) {
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAvg, self, ref, dims, name);
  set_window(d, dims, kernel, stride, padding, {});
  d.count_include_pad = count_include_pad;
  d.divisor_override = divisor_override.value_or(0);
  return d;
}

void run_forward(const kernels::PoolDesc& d, const at::Tensor& x, const at::Tensor& out, const at::Tensor* indices,
                 const char* name) {
  const at::Tensor in = x.contiguous();
  into_contiguous(out, [&](const at::Tensor& o) {
    auto body = [&](const at::Tensor* idx) {
      if (d.planes == 0 || o.numel() == 0) return;
      int64_t* ip = idx ? idx->data_ptr<int64_t>() : nullptr;
      launch(x.device().index(), name, {in.const_data_ptr(), o.data_ptr(), ip},
             [d, xp = in.const_data_ptr(), yp = o.data_ptr(), ip] { kernels::pool_forward(d, xp, yp, ip); });
    };
    if (indices) {
      into_contiguous(*indices, [&](const at::Tensor& i) { body(&i); });
    } else {
      body(nullptr);
    }
  });
}

void run_backward(const kernels::PoolDesc& d, const at::Tensor& grad_output, const at::Tensor* indices,
                  const at::Tensor& grad_input, const char* name) {
  const at::Tensor go = grad_output.contiguous();
  const at::Tensor idx = indices ? indices->contiguous() : at::Tensor();
  into_contiguous(grad_input, [&](const at::Tensor& gi) {
    if (gi.numel() == 0) return;
    if (d.planes == 0 || go.numel() == 0) {
      const_cast<at::Tensor&>(gi).zero_();
      return;
    }
    const int64_t* ip = idx.defined() ? idx.const_data_ptr<int64_t>() : nullptr;
    launch(grad_output.device().index(), name, {go.const_data_ptr(), ip, gi.data_ptr()},
           [d, gp = go.const_data_ptr(), ip, gip = gi.data_ptr()] { kernels::pool_backward(d, gp, ip, gip); });
  });
}

}  // namespace

void max_pool2d_with_indices_out(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                 at::IntArrayRef padding, at::IntArrayRef dilation, bool /*ceil_mode*/,
                                 const at::Tensor& out, const at::Tensor& indices) {
  const char* name = "max_pool2d_with_indices";
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kMax, self, out, 2, name);
  set_window(d, 2, kernel_size, stride, padding, dilation);
  run_forward(d, self, out, &indices, name);
}

void max_pool2d_with_indices_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                          at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                          at::IntArrayRef padding, at::IntArrayRef dilation, bool /*ceil_mode*/,
                                          const at::Tensor& indices, const at::Tensor& grad_input) {
  const char* name = "max_pool2d_with_indices_backward";
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": expected int64 indices, got ", indices.scalar_type());
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kMax, self, grad_output, 2, name);
  set_window(d, 2, kernel_size, stride, padding, dilation);
  run_backward(d, grad_output, &indices, grad_input, name);
}

// ATen's meta() precomputes the window (stride defaulting to the kernel).
void avg_pool2d_out(const at::Tensor& self, int64_t kH, int64_t kW, int64_t dH, int64_t dW, int64_t padH,
                    int64_t padW, bool /*ceil_mode*/, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const at::Tensor& out) {
  const char* name = "avg_pool2d";
  run_forward(avg_desc(self, out, 2, {kH, kW}, {dH, dW}, {padH, padW}, count_include_pad, divisor_override, name),
              self, out, nullptr, name);
}

void avg_pool2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel_size,
                             at::IntArrayRef stride, at::IntArrayRef padding, bool /*ceil_mode*/,
                             bool count_include_pad, std::optional<int64_t> divisor_override,
                             const at::Tensor& grad_input) {
  const char* name = "avg_pool2d_backward";
  run_backward(avg_desc(self, grad_output, 2, kernel_size, stride, padding, count_include_pad, divisor_override, name),
               grad_output, nullptr, grad_input, name);
}

at::Tensor adaptive_avg_pool2d(const at::Tensor& self, at::IntArrayRef output_size) {
  const char* name = "_adaptive_avg_pool2d";
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  const int64_t ndim = self.dim();
  TORCH_CHECK(ndim == 3 || ndim == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ", self.sizes());
  for (int64_t i = 1; i < ndim; ++i) {
    TORCH_CHECK(self.size(i) > 0, "adaptive_avg_pool2d(): Expected self to have non-zero size for non-batch "
                "dimensions, but input has sizes ", self.sizes(), " with dimension ", i, " being empty");
  }
  TORCH_CHECK(output_size[0] >= 0 && output_size[1] >= 0, "adaptive_avg_pool2d: elements of output_size must be "
              "greater than or equal to 0 but received {", output_size[0], ", ", output_size[1], "}");
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 2);
  shape.push_back(output_size[0]);
  shape.push_back(output_size[1]);
  at::Tensor out = at::empty(shape, self.options().memory_format(self.suggest_memory_format()));
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveAvg, self, out, 2, name);
  run_forward(d, self, out, nullptr, name);
  return out;
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const char* name = "_adaptive_avg_pool2d_backward";
  TORCH_CHECK(self.dim() == grad_output.dim() && (self.dim() == 3 || self.dim() == 4),
              "adaptive_avg_pool2d_backward(): Expected 3D or 4D grad_output, but got ", grad_output.sizes());
  TORCH_CHECK(self.scalar_type() == grad_output.scalar_type(), "expected dtype ", self.scalar_type(),
              " for `grad_output` but got dtype ", grad_output.scalar_type());
  for (int64_t i = 0; i < self.dim() - 2; ++i) {
    TORCH_CHECK(self.size(i) == grad_output.size(i), name, ": grad_output of size ", grad_output.sizes(),
                " does not match input of size ", self.sizes());
  }
  at::Tensor grad_input = at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveAvg, self, grad_output, 2, name);
  run_backward(d, grad_output, nullptr, grad_input, name);
  return grad_input;
}

namespace {

std::vector<int64_t> pool3d_output_shape(const at::Tensor& self, const kernels::PoolDesc& d, bool ceil_mode,
                                         const char* name) {
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 3);
  int64_t out[3];
  for (int i = 0; i < 3; ++i) {
    out[i] = at::native::pooling_output_shape<int64_t>(d.in[i], d.kernel[i], d.padding[i], d.stride[i],
                                                      d.dilation[i], ceil_mode);
    shape.push_back(out[i]);
  }
  at::native::pool3d_shape_check(self, self.size(-4), d.kernel[0], d.kernel[1], d.kernel[2], d.stride[0],
                                 d.stride[1], d.stride[2], d.padding[0], d.padding[1], d.padding[2],
                                 d.dilation[0], d.dilation[1], d.dilation[2], d.in[0], d.in[1], d.in[2], out[0],
                                 out[1], out[2], name);
  return shape;
}

void check_3d_params(at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                     at::IntArrayRef dilation) {
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 3,
              "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3,
              "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(padding.size() == 1 || padding.size() == 3,
              "max_pool3d: padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dilation.size() == 1 || dilation.size() == 3,
              "max_pool3d: dilation must be either a single int, or a tuple of three ints");
}

at::Tensor adaptive_output(const at::Tensor& self, at::IntArrayRef output_size, int dims, const char* name) {
  TORCH_CHECK(static_cast<int>(output_size.size()) == dims, name, ": output_size must be ", dims);
  const int64_t ndim = self.dim();
  TORCH_CHECK(ndim == dims + 1 || ndim == dims + 2, name, "(): Expected ", dims + 1, "D or ", dims + 2,
              "D tensor, but got ", self.sizes());
  for (int64_t i = 1; i < ndim; ++i) {
    TORCH_CHECK(self.size(i) > 0, name, "(): Expected self to have non-zero size for non-batch dimensions, "
                "but input has sizes ", self.sizes(), " with dimension ", i, " being empty");
  }
  for (int64_t o : output_size) TORCH_CHECK(o >= 0, name, ": elements of output_size must be >= 0, got ", output_size);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - dims);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  return at::empty(shape, self.options().memory_format(self.suggest_memory_format()));
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> max_pool3d_with_indices(const at::Tensor& self, at::IntArrayRef kernel_size,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode) {
  const char* name = "max_pool3d_with_indices";
  check_3d_params(kernel_size, stride, padding, dilation);
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kMax, self, self, 3, name);
  set_window(d, 3, kernel_size, stride, padding, dilation);
  const std::vector<int64_t> shape = pool3d_output_shape(self, d, ceil_mode, name);
  const auto options = self.options().memory_format(self.suggest_memory_format());
  at::Tensor out = at::empty(shape, options);
  at::Tensor indices = at::empty(shape, options.dtype(at::kLong));
  for (int i = 0; i < 3; ++i) d.out[i] = shape[shape.size() - 3 + i];
  run_forward(d, self, out, &indices, name);
  return {std::move(out), std::move(indices)};
}

at::Tensor max_pool3d_with_indices_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                            at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                            const at::Tensor& indices) {
  const char* name = "max_pool3d_with_indices_backward";
  check_3d_params(kernel_size, stride, padding, dilation);
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": expected int64 indices, got ", indices.scalar_type());
  TORCH_CHECK(grad_output.scalar_type() == self.scalar_type(), name, ": expected grad_output of dtype ",
              self.scalar_type(), ", got ", grad_output.scalar_type());
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kMax, self, grad_output, 3, name);
  set_window(d, 3, kernel_size, stride, padding, dilation);
  const std::vector<int64_t> shape = pool3d_output_shape(self, d, ceil_mode, name);
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(shape) && indices.sizes() == at::IntArrayRef(shape), name,
              ": expected grad_output and indices of size ", at::IntArrayRef(shape), ", got ", grad_output.sizes(),
              " and ", indices.sizes());
  at::Tensor grad_input = at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
  run_backward(d, grad_output, &indices, grad_input, name);
  return grad_input;
}

void avg_pool3d_out(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                    at::IntArrayRef padding, bool /*ceil_mode*/, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const at::Tensor& out) {
  const char* name = "avg_pool3d";
  run_forward(avg_desc(self, out, 3, kernel_size, stride, padding, count_include_pad, divisor_override, name),
              self, out, nullptr, name);
}

void avg_pool3d_backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel_size,
                             at::IntArrayRef stride, at::IntArrayRef padding, bool /*ceil_mode*/,
                             bool count_include_pad, std::optional<int64_t> divisor_override,
                             const at::Tensor& grad_input) {
  const char* name = "avg_pool3d_backward";
  run_backward(avg_desc(self, grad_output, 3, kernel_size, stride, padding, count_include_pad, divisor_override, name),
               grad_output, nullptr, grad_input, name);
}

at::Tensor adaptive_avg_pool3d(const at::Tensor& self, at::IntArrayRef output_size) {
  const char* name = "adaptive_avg_pool3d";
  at::Tensor out = adaptive_output(self, output_size, 3, name);
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveAvg, self, out, 3, name);
  run_forward(d, self, out, nullptr, name);
  return out;
}

at::Tensor adaptive_avg_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const char* name = "_adaptive_avg_pool3d_backward";
  TORCH_CHECK(self.dim() == grad_output.dim() && (self.dim() == 4 || self.dim() == 5), name,
              ": expected 4D or 5D grad_output matching the input, got ", grad_output.sizes());
  TORCH_CHECK(self.scalar_type() == grad_output.scalar_type(), "expected dtype ", self.scalar_type(),
              " for `grad_output` but got dtype ", grad_output.scalar_type());
  at::Tensor grad_input = at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveAvg, self, grad_output, 3, name);
  run_backward(d, grad_output, nullptr, grad_input, name);
  return grad_input;
}

// Adaptive max pooling (structured impls): ATen's meta() checks the sizes
// and allocates the values and int64 indices; the windows are adaptive
// pooling's, the reduction max pooling's (last NaN, else first maximum).
namespace {

void adaptive_max_forward(const at::Tensor& self, const at::Tensor& out, const at::Tensor& indices, int dims,
                          const char* name) {
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveMax, self, out, dims, name);
  run_forward(d, self, out, &indices, name);
}

void adaptive_max_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& indices,
                           const at::Tensor& grad_input, int dims, const char* name) {
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveMax, self, grad_output, dims, name);
  run_backward(d, grad_output, &indices, grad_input, name);
}

}  // namespace

void adaptive_max_pool2d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/, const at::Tensor& out,
                             const at::Tensor& indices) {
  adaptive_max_forward(self, out, indices, 2, "adaptive_max_pool2d");
}

void adaptive_max_pool2d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                      const at::Tensor& indices, const at::Tensor& grad_input) {
  adaptive_max_backward(grad_output, self, indices, grad_input, 2, "adaptive_max_pool2d_backward");
}

void adaptive_max_pool3d_out(const at::Tensor& self, at::IntArrayRef /*output_size*/, const at::Tensor& out,
                             const at::Tensor& indices) {
  adaptive_max_forward(self, out, indices, 3, "adaptive_max_pool3d");
}

void adaptive_max_pool3d_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                      const at::Tensor& indices, const at::Tensor& grad_input) {
  adaptive_max_backward(grad_output, self, indices, grad_input, 3, "adaptive_max_pool3d_backward");
}

}  // namespace torch_tpu::aten
