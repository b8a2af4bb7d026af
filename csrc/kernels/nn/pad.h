// Reflection and replication padding over the last 1 to 3 dimensions of
// planes [P, *in] -> [P, *out], contiguous; spatial sizes padded to three
// dimensions (leading unused ones 1 with no padding). pad_lo may be
// negative (cropping). The source of output index j in a dimension of size
// n with left padding l is ATen's (ReflectionPad.cpp, ReplicationPadding):
//   reflect:   j < l: 2l - j;  j < n + l: j;  else 2(n + l - 1) - j
//   replicate: j < l: l;       j < n + l: j;  else n + l - 1
// each then shifted by max(0, -l) - max(0, l). Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

enum class PadMode : int8_t { kReflect, kReplicate };

struct PadDesc {
  PadMode mode = PadMode::kReflect;
  DType dtype = DType::kFloat32;
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pad_lo[3] = {0, 0, 0};
};

// y[p, o] = x[p, source(o)]: any dtype (moves element bits).
void pad_forward(const PadDesc& d, const void* x, void* y);
// grad_input[p, i] = sum of grad_output[p, o] over the o with source(o) = i,
// in float (double for float64 and complex128); floating and complex dtypes
// (a complex element sums its two parts independently).
void pad_backward(const PadDesc& d, const void* grad_output, void* grad_input);

}  // namespace torch_tpu::kernels
