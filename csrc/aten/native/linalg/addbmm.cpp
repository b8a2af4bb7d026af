// addbmm: beta * self + alpha * sum_b batch1[b] @ batch2[b]. CPU runs one
// addmm_ per batch into the result; tpu runs one GEMM over the concatenated
// inner dimension, (n, B*k) @ (B*k, m), so a batch of B costs one launch, not
// B (float16/bfloat16 then round once, not after every batch). The checks and
// messages are CPU's, in its order, and all come before any device work.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/empty.h>

#include "generated/ops/addbmm.h"
#include "generated/ops/addbmm_.h"
#include "generated/ops/addbmm_out.h"

namespace torch_tpu::aten {

at::Tensor& addbmm_out(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                       const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& result) {
  // CPU reads batch1.size(1) and batch2.size(2) first (an IndexError for a
  // 2-D batch2), then expands self to the product's shape.
  auto b_self = at::expand_size(self, {batch1.size(1), batch2.size(2)}, "addbmm_out");
  TORCH_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  TORCH_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
              batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  const int64_t batches = batch1.size(0), n = batch1.size(1), k = batch1.size(2), m = batch2.size(2);
  if (batches > 0) {
    // CPU's first addmm_ into the result: self (the result) against mat2, then mat1.
    TORCH_CHECK(result.scalar_type() == batch2.scalar_type(), "self and mat2 must have the same dtype, but got ",
                result.scalar_type(), " and ", batch2.scalar_type());
    TORCH_CHECK(batch1.scalar_type() == batch2.scalar_type(), "mat1 and mat2 must have the same dtype, but got ",
                batch1.scalar_type(), " and ", batch2.scalar_type());
  }
  const at::Tensor expanded = *b_self;
  if (!result.is_same(self)) result.resize_(expanded.sizes());
  if (batches == 0) {
    if (beta.toComplexDouble() == 0.0) return result.zero_();
    if (!result.is_same(self)) result.copy_(expanded);
    return result.mul_(beta);
  }
  const at::Tensor mat1 = batch1.transpose(0, 1).reshape({n, batches * k});
  const at::Tensor mat2 = batch2.reshape({batches * k, m});
  // addmm_out reads self before writing result, so result may be self.
  return at::addmm_out(result, expanded, mat1, mat2, beta, alpha);
}

at::Tensor addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                  const at::Scalar& alpha) {
  at::Tensor result = at::empty({0}, self.options());
  return addbmm_out(self, batch1, batch2, beta, alpha, result);
}

at::Tensor& addbmm_(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                    const at::Scalar& alpha) {
  return addbmm_out(self, batch1, batch2, beta, alpha, self);
}

}  // namespace torch_tpu::aten
