// logsumexp.out: ATen's composite computes into temporaries (amax, exp,
// sum, log: kernels) and finds an out on another device only when it writes
// the result. Upstream declares no device check for it (NoCheck), but the
// out= contract wants an out on another device rejected before launch, as a
// device kernel would (CUDA's message); then the same composite runs.
#include <ATen/ops/logsumexp_native.h>

#include "generated/ops/logsumexp_out.h"

namespace torch_tpu::aten {

at::Tensor& logsumexp_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  TORCH_CHECK(out.device() == self.device(), "Expected out tensor to have device ", self.device(),
              ", but got ", out.device(), " instead");
  return at::native::logsumexp_out(self, dim, keepdim, out);
}

}  // namespace torch_tpu::aten
