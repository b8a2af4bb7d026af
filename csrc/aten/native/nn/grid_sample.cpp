// grid_sampler_2d (direct route): ATen's CPU implementation calls its kernel
// with a hard-coded CPU device. float16/bfloat16 run the float kernels on
// widened copies and round once (CPU's fallback kernel for them rounds
// every intermediate: ops.yaml compares them with CPU's float32 result). Checks are ATen's (GridSamplerUtils.h); the
// output is contiguous [N, C, out_h, out_w], as on CPU and in FakeTensor's
// meta. Sampling is kernels/grid_sample.h.
#include <ATen/core/Tensor.h>
#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>

#include "aten/launch.h"
#include "generated/ops/grid_sampler_2d.h"
#include "generated/ops/grid_sampler_2d_backward.h"
#include "generated/ops/grid_sampler_3d.h"
#include "generated/ops/grid_sampler_3d_backward.h"
#include "kernels/nn/grid_sample.h"

namespace torch_tpu::aten {
namespace {

// The checks 2-D and 3-D share (padding mode, matching dtypes, a dtype the
// kernels support); the device dtype.
kernels::DType checked_grid_dtype(const at::Tensor& input, const at::Tensor& grid, int64_t padding_mode,
                                  const char* name) {
  TORCH_CHECK(padding_mode >= 0 && padding_mode <= 2,
              "grid_sampler(): expected padding_mode 0 (zeros), 1 (border) or 2 (reflection), got ", padding_mode);
  TORCH_CHECK(grid.scalar_type() == input.scalar_type(), "grid_sampler(): expected input and grid to have the "
              "same dtype, but input has ", input.scalar_type(), " and grid has ", grid.scalar_type());
  const kernels::DType t = device_dtype(input.scalar_type(), name);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::grid_sample_supports(t), "\"", name, "\" not implemented for '",
                              input.scalar_type(), "' on tpu");
  return t;
}

// ATen's checks of grid_sampler_2d and its backward; the descriptor of the
// contiguous input x and grid g.
kernels::GridSampleDesc gs2_desc(const at::Tensor& input, const at::Tensor& grid, const at::Tensor& x,
                                 const at::Tensor& g, int64_t interpolation_mode, int64_t padding_mode,
                                 bool align_corners, const char* name) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_2d(input, grid);
  TORCH_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2,
              "grid_sampler(): expected interpolation_mode 0 (bilinear), 1 (nearest) or 2 (bicubic), got ",
              interpolation_mode);
  kernels::GridSampleDesc d;
  d.dtype = checked_grid_dtype(input, grid, padding_mode, name);
  d.N = x.size(0);
  d.C = x.size(1);
  d.H = x.size(2);
  d.W = x.size(3);
  d.out_h = g.size(1);
  d.out_w = g.size(2);
  d.interpolation = static_cast<kernels::GridInterpolation>(interpolation_mode);
  d.padding = static_cast<kernels::GridPadding>(padding_mode);
  d.align_corners = align_corners;
  return d;
}

// The same for grid_sampler_3d (input [N, C, D, H, W], grid [N, D', H', W', 3]).
kernels::GridSampleDesc gs3_desc(const at::Tensor& input, const at::Tensor& grid, const at::Tensor& x,
                                 const at::Tensor& g, int64_t interpolation_mode, int64_t padding_mode,
                                 bool align_corners, const char* name) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_3d(input, grid, interpolation_mode);
  TORCH_CHECK(interpolation_mode >= 0 && interpolation_mode <= 1,
              "grid_sampler(): expected interpolation_mode 0 (bilinear) or 1 (nearest), got ", interpolation_mode);
  kernels::GridSampleDesc d;
  d.dtype = checked_grid_dtype(input, grid, padding_mode, name);
  d.N = x.size(0);
  d.C = x.size(1);
  d.D = x.size(2);
  d.H = x.size(3);
  d.W = x.size(4);
  d.out_d = g.size(1);
  d.out_h = g.size(2);
  d.out_w = g.size(3);
  d.interpolation = static_cast<kernels::GridInterpolation>(interpolation_mode);
  d.padding = static_cast<kernels::GridPadding>(padding_mode);
  d.align_corners = align_corners;
  return d;
}

// float16/bfloat16 input and grid of one dtype: computed in float.
bool widen_grid_sample(const at::Tensor& input, const at::Tensor& grid) {
  const at::ScalarType t = input.scalar_type();
  return (t == at::kHalf || t == at::kBFloat16) && grid.scalar_type() == t;
}

// A widened backward's gradients rounded back to the input's dtype.
std::tuple<at::Tensor, at::Tensor> narrow_grads(std::tuple<at::Tensor, at::Tensor> grads, at::ScalarType t) {
  auto& [gi, gg] = grads;
  return {gi.defined() ? gi.to(t) : gi, gg.to(t)};
}

using GridBackwardKernel = void (*)(const kernels::GridSampleDesc&, const void* grad_output, const void* input,
                                    const void* grid, void* grad_input, void* grad_grid);

// Both backwards, after their checks (d): grad_input zeros in input's shape
// (contiguous) when wanted, else undefined; grad_grid contiguous like grid,
// as CPU's. x, g: the contiguous input and grid.
std::tuple<at::Tensor, at::Tensor> grid_backward(const kernels::GridSampleDesc& d, const at::Tensor& grad_output,
                                                 const at::Tensor& x, const at::Tensor& g,
                                                 std::array<bool, 2> output_mask, const char* name,
                                                 GridBackwardKernel kernel) {
  const at::Tensor go = grad_output.contiguous();
  at::Tensor grad_input;
  if (output_mask[0]) grad_input = at::zeros(x.sizes(), x.options());
  at::Tensor grad_grid = at::empty(g.sizes(), g.options());
  if (grad_grid.numel() == 0) return {grad_input, grad_grid};
  if (x.numel() == 0) {
    grad_grid.zero_();
    return {grad_input, grad_grid};
  }
  const void* gop = go.const_data_ptr();
  const void* xp = x.const_data_ptr();
  const void* gp = g.const_data_ptr();
  void* gip = grad_input.defined() ? grad_input.data_ptr() : nullptr;
  void* ggp = grad_grid.data_ptr();
  launch(x.device().index(), name, {gop, xp, gp, gip, ggp},
         [d, gop, xp, gp, gip, ggp, kernel] { kernel(d, gop, xp, gp, gip, ggp); });
  return {grad_input, grad_grid};
}

}  // namespace

at::Tensor grid_sampler_2d(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
                           int64_t padding_mode, bool align_corners) {
  if (widen_grid_sample(input, grid)) {
    return torch_tpu::aten::grid_sampler_2d(input.to(at::kFloat), grid.to(at::kFloat), interpolation_mode,
                                            padding_mode, align_corners)
        .to(input.scalar_type());
  }
  const at::Tensor x = input.contiguous(), g = grid.contiguous();
  const kernels::GridSampleDesc d =
      gs2_desc(input, grid, x, g, interpolation_mode, padding_mode, align_corners, "grid_sampler_2d");
  at::Tensor out = at::empty({d.N, d.C, d.out_h, d.out_w}, x.options());
  if (out.numel() > 0) {
    const void* xp = x.const_data_ptr();
    const void* gp = g.const_data_ptr();
    void* op = out.data_ptr();
    launch(input.device().index(), "grid_sampler_2d", {xp, gp, op},
           [d, xp, gp, op] { kernels::grid_sample_2d(d, xp, gp, op); });
  }
  return out;
}

std::tuple<at::Tensor, at::Tensor> grid_sampler_2d_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                            const at::Tensor& grid, int64_t interpolation_mode,
                                                            int64_t padding_mode, bool align_corners,
                                                            std::array<bool, 2> output_mask) {
  if (widen_grid_sample(input, grid) && grad_output.scalar_type() == input.scalar_type()) {
    return narrow_grads(
        torch_tpu::aten::grid_sampler_2d_backward(grad_output.to(at::kFloat), input.to(at::kFloat),
                                                     grid.to(at::kFloat), interpolation_mode, padding_mode,
                                                     align_corners, output_mask),
        input.scalar_type());
  }
  const at::Tensor x = input.contiguous(), g = grid.contiguous();
  return grid_backward(
      gs2_desc(input, grid, x, g, interpolation_mode, padding_mode, align_corners, "grid_sampler_2d_backward"),
      grad_output, x, g, output_mask, "grid_sampler_2d_backward", &kernels::grid_sample_2d_backward);
}

at::Tensor grid_sampler_3d(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation_mode,
                           int64_t padding_mode, bool align_corners) {
  if (widen_grid_sample(input, grid)) {
    return torch_tpu::aten::grid_sampler_3d(input.to(at::kFloat), grid.to(at::kFloat), interpolation_mode,
                                            padding_mode, align_corners)
        .to(input.scalar_type());
  }
  const at::Tensor x = input.contiguous(), g = grid.contiguous();
  const kernels::GridSampleDesc d =
      gs3_desc(input, grid, x, g, interpolation_mode, padding_mode, align_corners, "grid_sampler_3d");
  at::Tensor out = at::empty({d.N, d.C, d.out_d, d.out_h, d.out_w}, x.options());
  if (out.numel() > 0) {
    const void* xp = x.const_data_ptr();
    const void* gp = g.const_data_ptr();
    void* op = out.data_ptr();
    launch(input.device().index(), "grid_sampler_3d", {xp, gp, op},
           [d, xp, gp, op] { kernels::grid_sample_3d(d, xp, gp, op); });
  }
  return out;
}

std::tuple<at::Tensor, at::Tensor> grid_sampler_3d_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                            const at::Tensor& grid, int64_t interpolation_mode,
                                                            int64_t padding_mode, bool align_corners,
                                                            std::array<bool, 2> output_mask) {
  if (widen_grid_sample(input, grid) && grad_output.scalar_type() == input.scalar_type()) {
    return narrow_grads(
        torch_tpu::aten::grid_sampler_3d_backward(grad_output.to(at::kFloat), input.to(at::kFloat),
                                                     grid.to(at::kFloat), interpolation_mode, padding_mode,
                                                     align_corners, output_mask),
        input.scalar_type());
  }
  const at::Tensor x = input.contiguous(), g = grid.contiguous();
  return grid_backward(
      gs3_desc(input, grid, x, g, interpolation_mode, padding_mode, align_corners, "grid_sampler_3d_backward"),
      grad_output, x, g, output_mask, "grid_sampler_3d_backward", &kernels::grid_sample_3d_backward);
}

}  // namespace torch_tpu::aten
