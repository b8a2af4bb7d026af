// max_unpool2d / max_unpool3d (unpool.cpp): y[p, indices[p, i]] = x[p, i]
// over planes [P, in_plane] -> [P, out_plane] (contiguous), the rest of y
// zero; a later element overwrites an earlier one with the same index, as
// CPU's sequential loop. An index outside [0, out_plane) raises CPU's
// RuntimeError "Found an invalid max index: ...". Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct UnpoolDesc {
  DType dtype = DType::kFloat32;  // any: elements are copied
  int64_t planes = 0, in_plane = 0;
  int dims = 2;                   // 2 or 3 (the message names the output volume)
  int64_t out[3] = {1, 1, 1};     // output spatial sizes, the last `dims` used
};

void max_unpool_forward(const UnpoolDesc& d, const void* x, const int64_t* indices, void* y);

}  // namespace torch_tpu::kernels
