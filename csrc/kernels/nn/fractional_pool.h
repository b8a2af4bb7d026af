// fractional_max_pool2d / 3d forward (fractional_pool.cpp), ATen's
// algorithm: per plane and axis, window starts from the plane's random
// sample u: alpha = (in - pool) / (out - 1), start[i] = int((i + u) * alpha)
// - int(u * alpha) for i < out - 1, start[out - 1] = in - pool (in the
// dtype, as ATen: float16/bfloat16 round after every operation);
// the output is the window's maximum (the first one; a NaN wins) and its
// flat index in the plane. The samples of a plane are (w, h) in 2-d and
// (t, h, w) in 3-d, as ATen reads them. The backward is pool_backward's
// index scatter (nn.h). Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct FractionalPoolDesc {
  DType dtype = DType::kFloat32;
  int dims = 2;                    // 2 or 3
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pool[3] = {1, 1, 1};  // (T, H, W), the last `dims` used
};

// x [P, *in], samples [P, dims] (x's dtype), y [P, *out], indices [P, *out].
void fractional_max_pool_forward(const FractionalPoolDesc& d, const void* x, const void* samples, void* y,
                                 int64_t* indices);

}  // namespace torch_tpu::kernels
