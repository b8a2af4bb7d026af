// torch.equal: same sizes and equal elements (NaN is not equal to itself),
// types promoted as eq does; one counted synchronisation for the answer, as
// CUDA's (CPU's reads memory directly).
#include <ATen/ops/eq.h>

#include "generated/ops/equal.h"

namespace torch_tpu::aten {

// The generated wrapper has checked that both are on this device.
bool equal(const at::Tensor& self, const at::Tensor& other) {
  if (!self.is_same_size(other)) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item<bool>();
}

}  // namespace torch_tpu::aten
