// flip (direct route: ATen's flip calls flip_stub with an iterator whose
// input has negative byte strides, which device descriptors do not take).
// A flip of dims d1..dk is index_select along each with the reversed
// positions, on the device; the result is written into empty_like(self)
// (preserve format), the layout CPU's flip gives.
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/index_select.h>

#include "generated/ops/flip.h"

namespace torch_tpu::aten {

at::Tensor flip(const at::Tensor& self, at::IntArrayRef dims) {
  const auto flipped = at::dim_list_to_bitset(dims, self.dim());  // wraps and rejects repeats, as CPU
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Preserve);
  if (self.numel() == 0) return out;
  at::Tensor r = self;
  bool any = false;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!flipped[d] || self.size(d) <= 1) continue;
    const at::Tensor reversed = at::arange(self.size(d) - 1, -1, -1, self.options().dtype(at::kLong));
    r = at::index_select(r, d, reversed);
    any = true;
  }
  out.copy_(any ? r : self);
  return out;
}

}  // namespace torch_tpu::aten
