// Separable resampling of [N, C, *spatial] tensors with 1 to 3 spatial
// dimensions, forward and backward: every upsample_* mode of ATen
// (nearest, nearest-exact, linear/bilinear/trilinear, bicubic, and the
// antialiased bilinear/bicubic). Each spatial axis has its own taps (source
// indices and weights per output index, upsample_taps.h, with ATen's rules);
// the forward applies them axis by axis from the innermost (W, then H, then
// D), which is exactly ATen's nested sum out = sum_d wd (sum_h wh (sum_w ww
// x)) with the partial sums kept in the compute type; the backward applies
// the transposed passes in the reverse order. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

enum class ResampleMode : int8_t {
  kNearest,       // upsample_nearest*: floor(o * in / out)
  kNearestExact,  // _upsample_nearest_exact*: floor((o + 0.5) * in / out)
  kLinear,        // upsample_linear1d / bilinear2d / trilinear3d
  kCubic,         // upsample_bicubic2d (A = -0.75, clamped taps)
  kLinearAA,      // _upsample_bilinear2d_aa (triangle filter widened by the scale)
  kCubicAA,       // _upsample_bicubic2d_aa (Keys cubic, A = -0.5, widened)
};

struct ResampleDesc {
  ResampleMode mode = ResampleMode::kNearest;
  bool align_corners = false;
  // Data as [N, *spatial, C] (channels_last / channels_last_3d) instead of
  // [N, C, *spatial]; both dense.
  bool channels_last = false;
  // Nearest modes: ATen's nearest_idx / nearest_exact_idx (float scale; its
  // channels-last kernel and every backward) instead of its generic kernel's
  // rule (scale in the compute type, double for float64).
  bool nearest_float_index = false;
  // Linear/cubic forward on float16/bfloat16: ATen's generic kernel stores the
  // weights in the dtype (rounded), its channels-last kernel keeps them in float.
  bool dtype_weights = false;
  DType dtype = DType::kFloat32;
  int dims = 2;                        // spatial dimensions, 1..3
  int64_t batch = 0, channels = 0;
  int64_t in[3] = {1, 1, 1};           // spatial sizes, the last `dims` used (D, H, W)
  int64_t out[3] = {1, 1, 1};
  double scale[3] = {0, 0, 0};         // the scales_* arguments; <= 0: none
};

// y = resample(x): x holds batch * channels * prod(in), y the same with out.
void resample_forward(const ResampleDesc& d, const void* x, void* y);
// grad_input = resample^T(grad_output) (floating dtypes; overwrites grad_input).
void resample_backward(const ResampleDesc& d, const void* grad_output, void* grad_input);

}  // namespace torch_tpu::kernels
