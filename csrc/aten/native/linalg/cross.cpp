// torch.linalg.cross (cross_stub; ATen's linalg_cross_out has broadcast the
// inputs and sized the result): the three components as tpu multiplies and
// subtracts, written into the result's slices along dim.
#include <ATen/ops/mul.h>
#include <ATen/ops/sub.h>

#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

void linalg_cross_kernel(const at::Tensor& result, const at::Tensor& a, const at::Tensor& b, const int64_t d) {
  if (result.numel() == 0) return;
  auto component = [&](const at::Tensor& t, int64_t k) { return t.narrow(d, k, 1); };
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t i = (k + 1) % 3, j = (k + 2) % 3;  // r_k = a_i * b_j - a_j * b_i
    at::Tensor out = result.narrow(d, k, 1);
    at::sub_out(out, at::mul(component(a, i), component(b, j)), at::mul(component(a, j), component(b, i)));
  }
}

}  // namespace torch_tpu::aten
