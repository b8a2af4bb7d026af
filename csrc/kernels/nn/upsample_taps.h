// The taps of one resampled axis: for every output index, the source indices
// and weights that ATen's CPU kernels use (ATen/native/UpSample.h and
// cpu/UpSampleKernel.cpp), in the compute type C (float for float16,
// bfloat16, float32 and uint8; double for float64):
//
// - scale: align_corners: (in - 1) / (out - 1) (0 for out == 1); else
//   1 / scales_x when given and > 0, else in / out, in C.
// - nearest: floor(o * scale) clamped to in - 1; nearest-exact:
//   floor(max(scale * (o + 0.5) - 0.5, 0) + 0.5) (generic kernel) or
//   floor((o + 0.5) * scale) (nearest_exact_idx); ATen floors in float
//   (floorf) whatever C is, and nearest_idx (float scale) copies when
//   out == in and halves when out == 2 in.
// - linear: out == in copies; else x = scale * o (align_corners) or
//   max(scale * (o + 0.5) - 0.5, 0); taps i0 = min(floorf(x), in - 1) and
//   i0 + 1 (clamped), weights 1 - l, l with l = clamp(x - i0, 0, 1).
// - cubic: x as linear but not clamped at 0, taps i0 - 1 .. i0 + 2 clamped
//   to [0, in), weights of the cubic convolution with A = -0.75 at t = l.
// - antialiased (bilinear: triangle, bicubic: Keys A = -0.5): support =
//   taps / 2 * max(scale, 1), window [center - support + 0.5, center +
//   support + 0.5) around center = scale * (o + 0.5), weights filter((i -
//   center + 0.5) / max(scale, 1)) normalised to sum 1.
// - dtype_weights rounds linear/cubic weights to the float16/bfloat16 dtype
//   (1 - l from the rounded l), as ATen's generic kernel stores them.
// Runtime headers only; private to the kernel library.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/nn/upsample.h"

namespace torch_tpu::kernels::resample {

template <typename C>
struct AxisTaps {
  int64_t in = 1, out = 1;
  int width = 1;               // taps stored per output index
  std::vector<int64_t> index;  // [out * width] source indices
  std::vector<C> weight;       // [out * width]
  std::vector<int> count;      // taps used per output index (<= width)
};

// The taps of spatial axis `axis` (0..2 of d.in/d.out). backward: the rule
// of ATen's backward kernels (nearest_idx in float, weights in C).
template <typename C>
AxisTaps<C> axis_taps(const ResampleDesc& d, int axis, bool backward);

// uint8 bilinear/bicubic (antialiased or not): ATen's fixed-point taps
// (_compute_index_ranges_int16_weights): weights in double over a window
// [start, start + count) (non-antialiased: taps past an edge fold into the
// edge one), scaled by 2^precision (the largest precision < 22 keeping
// 2 * max weight < 2^15) and rounded half away from zero into int16. A
// pass computes clamp((2^(precision - 1) + sum w * x) >> precision, 0, 255).
struct AxisTapsU8 {
  int64_t in = 1, out = 1;
  int width = 1;
  std::vector<int64_t> start;
  std::vector<int> count;
  std::vector<int16_t> weight;  // [out * width]
  unsigned precision = 0;
};
AxisTapsU8 axis_taps_uint8(const ResampleDesc& d, int axis);

extern template AxisTaps<float> axis_taps<float>(const ResampleDesc&, int, bool);
extern template AxisTaps<double> axis_taps<double>(const ResampleDesc&, int, bool);

}  // namespace torch_tpu::kernels::resample
