// grid_sampler_2d (grid_sample.cpp): out[n, c, h, w] = input[n, c] sampled at
// grid[n, h, w] = (x, y) in [-1, 1], with ATen's coordinate rules
// (ATen/native/GridSampler.h): unnormalize by align_corners, then border
// clipping or reflection; bilinear, nearest (round half to even) or bicubic
// (A = -0.75, padding applied per tap) interpolation; taps outside the
// image read 0. float and double, contiguous tensors. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

enum class GridInterpolation : int8_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class GridPadding : int8_t { kZeros = 0, kBorder = 1, kReflection = 2 };

struct GridSampleDesc {
  DType dtype = DType::kFloat32;
  int64_t N = 0, C = 0, H = 0, W = 0;  // input
  int64_t out_h = 0, out_w = 0;        // grid [N, out_h, out_w, 2]
  int64_t D = 1, out_d = 1;            // 3-d: input [N, C, D, H, W], grid [N, out_d, out_h, out_w, 3]
  GridInterpolation interpolation = GridInterpolation::kBilinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
};

bool grid_sample_supports(DType t);
void grid_sample_2d(const GridSampleDesc& d, const void* input, const void* grid, void* out);
// grid_sampler_2d_backward (grid_sample_backward.cpp): grad_input (zeroed by
// the caller; nullptr: not wanted) accumulates, grad_grid [N, out_h, out_w, 2]
// is written.
void grid_sample_2d_backward(const GridSampleDesc& d, const void* grad_output, const void* input, const void* grid,
                             void* grad_input, void* grad_grid);
// grid_sampler_3d and its backward (grid_sample_3d.cpp): trilinear (8 taps,
// weights (x1 - x)(y1 - y)(z1 - z) ... as ATen) or nearest; no bicubic.
void grid_sample_3d(const GridSampleDesc& d, const void* input, const void* grid, void* out);
void grid_sample_3d_backward(const GridSampleDesc& d, const void* grad_output, const void* input, const void* grid,
                             void* grad_input, void* grad_grid);

}  // namespace torch_tpu::kernels
