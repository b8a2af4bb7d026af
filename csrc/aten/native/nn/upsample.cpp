// Every upsample_* op of ATen and its backward (direct route: ATen's CPU
// implementations call their kernels with a hard-coded CPU device).
// Structured impls: the generated wrappers run ATen's meta(), which checks
// the sizes and allocates the output; the .vec overloads (Core ATen IR) are
// CompositeImplicit and reach these. kernels/nn/upsample.h computes, in the
// input's layout ([N, C, *spatial], or channels_last when the input is
// stored so) into the output's or a temporary copied into it.
//
// CPU eager picks between two kernels by layout and size, and they round
// differently; the descriptor says which one to follow: its vectorized
// kernel (channels_last with more than 3 channels, or a 2-d output with
// H + W <= 128, or bilinear with one thread and 3 channels) keeps weights in
// float and computes nearest indices with a float scale, its generic kernel
// stores linear/cubic weights in the dtype and nearest scales in the compute
// type.
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include <initializer_list>

#include "aten/launch.h"
#include "generated/ops/_upsample_bicubic2d_aa.h"
#include "generated/ops/_upsample_bicubic2d_aa_backward.h"
#include "generated/ops/_upsample_bilinear2d_aa.h"
#include "generated/ops/_upsample_bilinear2d_aa_backward.h"
#include "generated/ops/_upsample_nearest_exact1d.h"
#include "generated/ops/_upsample_nearest_exact1d_backward.h"
#include "generated/ops/_upsample_nearest_exact2d.h"
#include "generated/ops/_upsample_nearest_exact2d_backward.h"
#include "generated/ops/_upsample_nearest_exact3d.h"
#include "generated/ops/_upsample_nearest_exact3d_backward.h"
#include "generated/ops/upsample_bicubic2d.h"
#include "generated/ops/upsample_bicubic2d_backward.h"
#include "generated/ops/upsample_bilinear2d.h"
#include "generated/ops/upsample_bilinear2d_backward.h"
#include "generated/ops/upsample_linear1d.h"
#include "generated/ops/upsample_linear1d_backward.h"
#include "generated/ops/upsample_nearest1d.h"
#include "generated/ops/upsample_nearest1d_backward.h"
#include "generated/ops/upsample_nearest2d.h"
#include "generated/ops/upsample_nearest2d_backward.h"
#include "generated/ops/upsample_nearest3d.h"
#include "generated/ops/upsample_nearest3d_backward.h"
#include "generated/ops/upsample_trilinear3d.h"
#include "generated/ops/upsample_trilinear3d_backward.h"
#include "kernels/nn/upsample.h"

namespace torch_tpu::aten {
namespace {

using kernels::ResampleMode;
using UpsScales = std::initializer_list<std::optional<double>>;

kernels::ResampleDesc ups_desc(ResampleMode mode, bool align_corners, at::IntArrayRef input_size,
                               at::IntArrayRef output_size, at::ScalarType dtype, UpsScales scales,
                               const char* name) {
  kernels::ResampleDesc d;
  d.mode = mode;
  d.align_corners = align_corners;
  d.dtype = device_dtype(dtype, name);
  d.dims = static_cast<int>(output_size.size());
  d.batch = input_size[0];
  d.channels = input_size[1];
  const int first = 3 - d.dims;
  int i = 0;
  for (const auto& s : scales) {
    d.in[first + i] = input_size[2 + i];
    d.out[first + i] = output_size[i];
    d.scale[first + i] = s.value_or(0);
    ++i;
  }
  return d;
}

at::MemoryFormat ups_channels_last_format(int64_t dim) {
  return dim == 5 ? at::MemoryFormat::ChannelsLast3d : at::MemoryFormat::ChannelsLast;
}

// t is stored [N, *spatial, C] (and not also [N, C, *spatial]).
bool ups_is_channels_last(const at::Tensor& t) {
  if (t.dim() < 4 || t.is_contiguous()) return false;
  return t.is_contiguous(ups_channels_last_format(t.dim()));
}

bool ups_reduced(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16; }

// CPU's _use_vectorized_kernel_cond_2d / _3d.
bool ups_cpu_vectorized_2d(const at::Tensor& self, at::IntArrayRef output_size) {
  return (self.is_contiguous(at::MemoryFormat::ChannelsLast) && self.size(1) > 3) ||
         (output_size[0] + output_size[1] <= 128);
}
bool ups_cpu_vectorized_3d(const at::Tensor& self) {
  return self.is_contiguous(at::MemoryFormat::ChannelsLast3d) && self.size(1) > 3;
}

// Runs fill(t) on out when it is dense in `format`, else on a temporary that
// is copied into out.
template <typename F>
void ups_into(const at::Tensor& out, at::MemoryFormat format, F&& fill) {
  if (out.is_contiguous(format)) {
    fill(out);
    return;
  }
  at::Tensor tmp = at::empty(out.sizes(), out.options().memory_format(format));
  fill(tmp);
  const_cast<at::Tensor&>(out).copy_(tmp);
}

void ups_forward(kernels::ResampleDesc d, const at::Tensor& self, const at::Tensor& out, const char* name) {
  if (out.numel() == 0) return;
  d.channels_last = ups_is_channels_last(self);
  const at::MemoryFormat format =
      d.channels_last ? ups_channels_last_format(self.dim()) : at::MemoryFormat::Contiguous;
  const at::Tensor x = self.contiguous(format);
  ups_into(out, format, [&](const at::Tensor& o) {
    launch(self.device().index(), name, {x.const_data_ptr(), o.data_ptr()},
           [d, xp = x.const_data_ptr(), op = o.data_ptr()] { kernels::resample_forward(d, xp, op); });
  });
}

void ups_backward(kernels::ResampleDesc d, const at::Tensor& grad_output, const at::Tensor& grad_input,
                  const char* name) {
  if (grad_input.numel() == 0) return;
  if (grad_output.numel() == 0) {
    const_cast<at::Tensor&>(grad_input).zero_();
    return;
  }
  d.channels_last = ups_is_channels_last(grad_output);
  const at::MemoryFormat format =
      d.channels_last ? ups_channels_last_format(grad_output.dim()) : at::MemoryFormat::Contiguous;
  const at::Tensor g = grad_output.contiguous(format);
  ups_into(grad_input, format, [&](const at::Tensor& gi) {
    launch(grad_output.device().index(), name, {g.const_data_ptr(), gi.data_ptr()},
           [d, gp = g.const_data_ptr(), gip = gi.data_ptr()] { kernels::resample_backward(d, gp, gip); });
  });
}

// Forward of a nearest mode; float_index: CPU takes its vectorized kernel.
void ups_nearest(ResampleMode mode, const at::Tensor& self, at::IntArrayRef output_size, UpsScales scales,
                 bool float_index, const at::Tensor& out, const char* name) {
  kernels::ResampleDesc d = ups_desc(mode, false, self.sizes(), output_size, self.scalar_type(), scales, name);
  d.nearest_float_index = float_index;
  ups_forward(d, self, out, name);
}

// Forward of linear/cubic; cpu_vectorized: CPU keeps the weights in float.
void ups_interp(ResampleMode mode, const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                UpsScales scales, bool cpu_vectorized, const at::Tensor& out, const char* name) {
  kernels::ResampleDesc d =
      ups_desc(mode, align_corners, self.sizes(), output_size, self.scalar_type(), scales, name);
  d.dtype_weights = ups_reduced(self.scalar_type()) && !cpu_vectorized;
  ups_forward(d, self, out, name);
}

void ups_grad(ResampleMode mode, const at::Tensor& grad_output, at::IntArrayRef output_size,
              at::IntArrayRef input_size, bool align_corners, UpsScales scales, const at::Tensor& grad_input,
              const char* name) {
  ups_backward(ups_desc(mode, align_corners, input_size, output_size, grad_output.scalar_type(), scales, name),
               grad_output, grad_input, name);
}

}  // namespace

// ---- nearest ------------------------------------------------------------------

void upsample_nearest1d_out(const at::Tensor& self, at::IntArrayRef output_size, std::optional<double> scales,
                            const at::Tensor& out) {
  ups_nearest(ResampleMode::kNearest, self, output_size, {scales}, false, out, "upsample_nearest1d");
}

void upsample_nearest2d_out(const at::Tensor& self, at::IntArrayRef output_size, std::optional<double> scales_h,
                            std::optional<double> scales_w, const at::Tensor& out) {
  ups_nearest(ResampleMode::kNearest, self, output_size, {scales_h, scales_w},
              ups_cpu_vectorized_2d(self, output_size), out, "upsample_nearest2d");
}

void upsample_nearest3d_out(const at::Tensor& self, at::IntArrayRef output_size, std::optional<double> scales_d,
                            std::optional<double> scales_h, std::optional<double> scales_w, const at::Tensor& out) {
  ups_nearest(ResampleMode::kNearest, self, output_size, {scales_d, scales_h, scales_w},
              ups_cpu_vectorized_3d(self), out, "upsample_nearest3d");
}

void _upsample_nearest_exact1d_out(const at::Tensor& self, at::IntArrayRef output_size,
                                   std::optional<double> scales, const at::Tensor& out) {
  ups_nearest(ResampleMode::kNearestExact, self, output_size, {scales}, false, out, "_upsample_nearest_exact1d");
}

void _upsample_nearest_exact2d_out(const at::Tensor& self, at::IntArrayRef output_size,
                                   std::optional<double> scales_h, std::optional<double> scales_w,
                                   const at::Tensor& out) {
  ups_nearest(ResampleMode::kNearestExact, self, output_size, {scales_h, scales_w},
              ups_cpu_vectorized_2d(self, output_size), out, "_upsample_nearest_exact2d");
}

void _upsample_nearest_exact3d_out(const at::Tensor& self, at::IntArrayRef output_size,
                                   std::optional<double> scales_d, std::optional<double> scales_h,
                                   std::optional<double> scales_w, const at::Tensor& out) {
  ups_nearest(ResampleMode::kNearestExact, self, output_size, {scales_d, scales_h, scales_w},
              ups_cpu_vectorized_3d(self), out, "_upsample_nearest_exact3d");
}

void upsample_nearest1d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                     at::IntArrayRef input_size, std::optional<double> scales,
                                     const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kNearest, grad_output, output_size, input_size, false, {scales}, grad_input,
           "upsample_nearest1d_backward");
}

void upsample_nearest2d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                     at::IntArrayRef input_size, std::optional<double> scales_h,
                                     std::optional<double> scales_w, const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kNearest, grad_output, output_size, input_size, false, {scales_h, scales_w}, grad_input,
           "upsample_nearest2d_backward");
}

void upsample_nearest3d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                     at::IntArrayRef input_size, std::optional<double> scales_d,
                                     std::optional<double> scales_h, std::optional<double> scales_w,
                                     const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kNearest, grad_output, output_size, input_size, false, {scales_d, scales_h, scales_w},
           grad_input, "upsample_nearest3d_backward");
}

void _upsample_nearest_exact1d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                            at::IntArrayRef input_size, std::optional<double> scales,
                                            const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kNearestExact, grad_output, output_size, input_size, false, {scales}, grad_input,
           "_upsample_nearest_exact1d_backward");
}

void _upsample_nearest_exact2d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                            at::IntArrayRef input_size, std::optional<double> scales_h,
                                            std::optional<double> scales_w, const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kNearestExact, grad_output, output_size, input_size, false, {scales_h, scales_w},
           grad_input, "_upsample_nearest_exact2d_backward");
}

void _upsample_nearest_exact3d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                            at::IntArrayRef input_size, std::optional<double> scales_d,
                                            std::optional<double> scales_h, std::optional<double> scales_w,
                                            const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kNearestExact, grad_output, output_size, input_size, false,
           {scales_d, scales_h, scales_w}, grad_input, "_upsample_nearest_exact3d_backward");
}

// ---- linear / cubic ---------------------------------------------------------------

void upsample_linear1d_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales, const at::Tensor& out) {
  ups_interp(ResampleMode::kLinear, self, output_size, align_corners, {scales}, false, out, "upsample_linear1d");
}

void upsample_bilinear2d_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                             std::optional<double> scales_h, std::optional<double> scales_w, const at::Tensor& out) {
  const bool vectorized =
      ups_cpu_vectorized_2d(self, output_size) || (at::get_num_threads() == 1 && self.size(1) == 3);
  ups_interp(ResampleMode::kLinear, self, output_size, align_corners, {scales_h, scales_w}, vectorized, out,
             "upsample_bilinear2d");
}

void upsample_trilinear3d_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                              std::optional<double> scales_d, std::optional<double> scales_h,
                              std::optional<double> scales_w, const at::Tensor& out) {
  ups_interp(ResampleMode::kLinear, self, output_size, align_corners, {scales_d, scales_h, scales_w},
             ups_cpu_vectorized_3d(self), out, "upsample_trilinear3d");
}

void upsample_bicubic2d_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_h, std::optional<double> scales_w, const at::Tensor& out) {
  ups_interp(ResampleMode::kCubic, self, output_size, align_corners, {scales_h, scales_w}, false, out,
             "upsample_bicubic2d");
}

void _upsample_bilinear2d_aa_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                                 std::optional<double> scales_h, std::optional<double> scales_w,
                                 const at::Tensor& out) {
  ups_interp(ResampleMode::kLinearAA, self, output_size, align_corners, {scales_h, scales_w}, true, out,
             "_upsample_bilinear2d_aa");
}

void _upsample_bicubic2d_aa_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                                std::optional<double> scales_h, std::optional<double> scales_w,
                                const at::Tensor& out) {
  ups_interp(ResampleMode::kCubicAA, self, output_size, align_corners, {scales_h, scales_w}, true, out,
             "_upsample_bicubic2d_aa");
}

void upsample_linear1d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                    at::IntArrayRef input_size, bool align_corners, std::optional<double> scales,
                                    const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kLinear, grad_output, output_size, input_size, align_corners, {scales}, grad_input,
           "upsample_linear1d_backward");
}

void upsample_bilinear2d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                      at::IntArrayRef input_size, bool align_corners,
                                      std::optional<double> scales_h, std::optional<double> scales_w,
                                      const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kLinear, grad_output, output_size, input_size, align_corners, {scales_h, scales_w},
           grad_input, "upsample_bilinear2d_backward");
}

void upsample_trilinear3d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                       at::IntArrayRef input_size, bool align_corners,
                                       std::optional<double> scales_d, std::optional<double> scales_h,
                                       std::optional<double> scales_w, const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kLinear, grad_output, output_size, input_size, align_corners,
           {scales_d, scales_h, scales_w}, grad_input, "upsample_trilinear3d_backward");
}

void upsample_bicubic2d_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                     at::IntArrayRef input_size, bool align_corners,
                                     std::optional<double> scales_h, std::optional<double> scales_w,
                                     const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kCubic, grad_output, output_size, input_size, align_corners, {scales_h, scales_w},
           grad_input, "upsample_bicubic2d_backward");
}

void _upsample_bilinear2d_aa_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                          at::IntArrayRef input_size, bool align_corners,
                                          std::optional<double> scales_h, std::optional<double> scales_w,
                                          const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kLinearAA, grad_output, output_size, input_size, align_corners, {scales_h, scales_w},
           grad_input, "_upsample_bilinear2d_aa_backward");
}

void _upsample_bicubic2d_aa_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                         at::IntArrayRef input_size, bool align_corners,
                                         std::optional<double> scales_h, std::optional<double> scales_w,
                                         const at::Tensor& grad_input) {
  ups_grad(ResampleMode::kCubicAA, grad_output, output_size, input_size, align_corners, {scales_h, scales_w},
           grad_input, "_upsample_bicubic2d_aa_backward");
}

}  // namespace torch_tpu::aten
