// Nearest and bilinear upsampling of planes [P, H, W] -> [P, OH, OW]
// (contiguous), forward and backward, with ATen's source-index rules
// (UpSample.h): nearest: ow == iw: o; ow == 2 iw: o / 2; else
// min(floor(o * s), iw - 1) with s = 1 / scale (given and > 0) or iw / ow,
// in float; bilinear: s = (iw - 1) / (ow - 1) with align_corners (0 for
// ow == 1), else as nearest; source x = s * o (align_corners) or
// max(s * (o + 0.5) - 0.5, 0); taps floor(x) and floor(x) + 1 (clamped),
// weights 1 - frac and frac. Scales and weights are computed in the compute
// type (float, double for float64) as CPU's opmath. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct UpsampleDesc {
  bool bilinear = false;
  bool align_corners = false;
  DType dtype = DType::kFloat32;
  int64_t planes = 0;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  double scale_h = 0, scale_w = 0;  // the scales_h/scales_w arguments; <= 0: none
};

void upsample_forward(const UpsampleDesc& d, const void* x, void* y);
void upsample_backward(const UpsampleDesc& d, const void* grad_output, void* grad_input);

}  // namespace torch_tpu::kernels
