// Group norm over contiguous [N, C, S] (S = the spatial positions), C split
// into G groups of D = C / G channels (group_norm.cpp). Per (n, g):
// mean and rstd = 1 / sqrt(max(var, 0) + eps) of its D * S values (biased
// variance), y = x * (rstd * gamma[c]) + (beta[c] - mean * rstd * gamma[c]),
// as ATen's CPU kernel. Backward, with ds[n, c] = sum_s dy * x and
// db[n, c] = sum_s dy:
//   dgamma[c] = sum_n (ds[n, c] - db[n, c] * mean) * rstd,  dbeta[c] = sum_n db[n, c]
//   dx = rstd * gamma[c] * dy + c2 * x + c3, where over the group
//   c2 = (sum db * gamma * mean - sum ds * gamma) * rstd^3 / (D * S),
//   c3 = -c2 * mean - sum db * gamma * rstd / (D * S).
// float16/bfloat16/float/double; computed in float (double for float64),
// sums in double. Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct GroupNormDesc {
  DType x_dtype = DType::kFloat32, param_dtype = DType::kFloat32, stat_dtype = DType::kFloat32;
  const void* x = nullptr;
  const void* gamma = nullptr;  // [C] or null (1)
  const void* beta = nullptr;   // [C] or null (0)
  void* y = nullptr;
  void* mean = nullptr;  // [N, G]
  void* rstd = nullptr;  // [N, G]
  int64_t N = 0, C = 0, S = 0, G = 1;
  double eps = 1e-5;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {x, gamma, beta, y, mean, rstd}; }
};

struct GroupNormBackwardDesc {
  DType x_dtype = DType::kFloat32, param_dtype = DType::kFloat32, stat_dtype = DType::kFloat32;
  const void* dy = nullptr;
  const void* x = nullptr;
  const void* mean = nullptr;
  const void* rstd = nullptr;
  const void* gamma = nullptr;  // or null
  void* dx = nullptr;           // each output may be null (not asked for)
  void* dgamma = nullptr;
  void* dbeta = nullptr;
  int64_t N = 0, C = 0, S = 0, G = 1;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {dy, x, mean, rstd, gamma, dx, dgamma, dbeta}; }
};

void group_norm_forward(const GroupNormDesc& d);
void group_norm_backward(const GroupNormBackwardDesc& d);

}  // namespace torch_tpu::kernels
