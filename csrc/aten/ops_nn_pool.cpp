// Pooling (direct route: ATen's CPU kernels are CPU-only). The structured
// ops (max_pool2d_with_indices, avg_pool2d and their backwards) reuse ATen's
// meta(): argument checks, output sizes (ceil_mode) and output layout
// (channels-last kept, as CPU) come from the one place CPU and CUDA take
// them. _adaptive_avg_pool2d is not structured: its checks are ATen's
// adaptive_avg_pool2d_out_cpu_template's. kernels/nn.h does the arithmetic
// on contiguous planes.
#include <ATen/core/Tensor.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <c10/core/DeviceGuard.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "aten/structured_wrappers.h"
#include "generated/aten_ops.h"
#include "kernels/nn.h"

namespace torch_tpu::aten {
namespace {

// p[i] of a 1- or 2-element parameter (ATen's rule); `fallback` when empty.
int64_t pick(at::IntArrayRef p, size_t i, at::IntArrayRef fallback) {
  if (p.empty()) return pick(fallback, i, {});
  return p.size() == 1 ? p[0] : p[i];
}

// The last two dimensions of `x` and `out` as pooling planes.
kernels::PoolDesc plane_desc(kernels::PoolKind kind, const at::Tensor& x, const at::Tensor& out,
                             const char* name) {
  kernels::PoolDesc d;
  d.kind = kind;
  d.dtype = device_dtype(x.scalar_type(), name);
  d.in[1] = x.size(-2);
  d.in[2] = x.size(-1);
  d.out[1] = out.size(-2);
  d.out[2] = out.size(-1);
  d.planes = d.in[1] * d.in[2] == 0 ? 0 : x.numel() / (d.in[1] * d.in[2]);
  return d;
}

void set_window(kernels::PoolDesc& d, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                at::IntArrayRef dilation) {
  for (size_t i = 0; i < 2; ++i) {
    d.kernel[i + 1] = pick(kernel, i, {});
    d.stride[i + 1] = pick(stride, i, kernel);
    d.padding[i + 1] = pick(padding, i, {});
    d.dilation[i + 1] = dilation.empty() ? 1 : pick(dilation, i, {});
  }
}

void check_device(const at::Tensor& ref, const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.device() == ref.device(), name, ": expected all tensors on ", ref.device(), ", got ", t.device());
}

void run_forward(const kernels::PoolDesc& d, const at::Tensor& x, const at::Tensor& out, const at::Tensor* indices,
                 const char* name) {
  c10::DeviceGuard guard(x.device());
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
  c10::DeviceGuard guard(grad_output.device());
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

std::tuple<at::Tensor, at::Tensor> max_pool2d_with_indices(const at::Tensor& self, at::IntArrayRef kernel_size,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode) {
  const char* name = "max_pool2d_with_indices";
  structured::Functional<at::meta::structured_max_pool2d_with_indices, 2> op;
  op.meta(self, kernel_size, stride, padding, dilation, ceil_mode);
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kMax, self, op.output(0), name);
  set_window(d, kernel_size, stride, padding, dilation);
  run_forward(d, self, op.output(0), &op.output(1), name);
  return {std::move(op.outputs_[0]), std::move(op.outputs_[1])};
}

at::Tensor max_pool2d_with_indices_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            at::IntArrayRef kernel_size, at::IntArrayRef stride,
                                            at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                            const at::Tensor& indices) {
  const char* name = "max_pool2d_with_indices_backward";
  check_device(self, grad_output, name);
  check_device(self, indices, name);
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": expected int64 indices, got ", indices.scalar_type());
  structured::Functional<at::meta::structured_max_pool2d_with_indices_backward, 1> op;
  op.meta(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices);
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kMax, self, grad_output, name);
  set_window(d, kernel_size, stride, padding, dilation);
  run_backward(d, grad_output, &indices, op.output(0), name);
  return std::move(op.outputs_[0]);
}

at::Tensor avg_pool2d(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                      at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                      std::optional<int64_t> divisor_override) {
  const char* name = "avg_pool2d";
  structured::Functional<at::meta::structured_avg_pool2d, 1> op;
  op.meta(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAvg, self, op.output(0), name);
  set_window(d, kernel_size, stride, padding, {});
  d.count_include_pad = count_include_pad;
  d.divisor_override = divisor_override.value_or(0);
  run_forward(d, self, op.output(0), nullptr, name);
  return std::move(op.outputs_[0]);
}

at::Tensor avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel_size,
                               at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode,
                               bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* name = "avg_pool2d_backward";
  check_device(self, grad_output, name);
  structured::Functional<at::meta::structured_avg_pool2d_backward, 1> op;
  op.meta(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
  kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAvg, self, grad_output, name);
  set_window(d, kernel_size, stride, padding, {});
  d.count_include_pad = count_include_pad;
  d.divisor_override = divisor_override.value_or(0);
  run_backward(d, grad_output, nullptr, op.output(0), name);
  return std::move(op.outputs_[0]);
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
  c10::DeviceGuard guard(self.device());
  at::Tensor out = at::empty(shape, self.options().memory_format(self.suggest_memory_format()));
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveAvg, self, out, name);
  run_forward(d, self, out, nullptr, name);
  return out;
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const char* name = "_adaptive_avg_pool2d_backward";
  check_device(self, grad_output, name);
  TORCH_CHECK(self.dim() == grad_output.dim() && (self.dim() == 3 || self.dim() == 4),
              "adaptive_avg_pool2d_backward(): Expected 3D or 4D grad_output, but got ", grad_output.sizes());
  TORCH_CHECK(self.scalar_type() == grad_output.scalar_type(), "expected dtype ", self.scalar_type(),
              " for `grad_output` but got dtype ", grad_output.scalar_type());
  for (int64_t i = 0; i < self.dim() - 2; ++i) {
    TORCH_CHECK(self.size(i) == grad_output.size(i), name, ": grad_output of size ", grad_output.sizes(),
                " does not match input of size ", self.sizes());
  }
  c10::DeviceGuard guard(self.device());
  at::Tensor grad_input = at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
  const kernels::PoolDesc d = plane_desc(kernels::PoolKind::kAdaptiveAvg, self, grad_output, name);
  run_backward(d, grad_output, nullptr, grad_input, name);
  return grad_input;
}

}  // namespace torch_tpu::aten
