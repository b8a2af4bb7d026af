// eye.out / eye.m_out: ATen's CPU and CUDA kernels are their own (CPU writes
// through data pointers), so the device composes it from its own kernels:
// zero the (resized) output, then fill its diagonal view with 1. Checks and
// messages are CPU's; the functional torch.eye(..., device="tpu") reaches
// these through its CompositeExplicitAutograd wrapper.
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>

#include "generated/ops/eye_m_out.h"
#include "generated/ops/eye_out.h"

namespace torch_tpu::aten {

at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  at::native::resize_output(out, {n, m});
  out.zero_();
  if (n > 0 && m > 0) out.diagonal().fill_(1);
  return out;
}

at::Tensor& eye_out(int64_t n, at::Tensor& out) { return eye_m_out(n, n, out); }

}  // namespace torch_tpu::aten
