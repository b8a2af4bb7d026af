// p-norm distances between rows (distance.cpp), float and double, as ATen's
// CPU kernels define them: dist(a, b) = (sum_k |a_k - b_k|^p)^(1/p), with
// p = 0 counting the nonzero differences and p = inf their largest
// magnitude; summed in double, rounded once. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

bool distance_supports(DType t);

// out[b, i, j] = dist(x1[b, i, :], x2[b, j, :]); x1 [B, P, M], x2 [B, R, M],
// out [B, P, R], all contiguous.
void cdist(DType t, const void* x1, const void* x2, void* out, int64_t B, int64_t P, int64_t R, int64_t M,
           double p);

// out = dist(x[i], x[j]) for i < j in row-major order of the upper triangle;
// x [N, M] contiguous, out [N * (N - 1) / 2].
void pdist(DType t, const void* x, void* out, int64_t N, int64_t M, double p);

}  // namespace torch_tpu::kernels
