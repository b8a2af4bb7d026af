// _cummax_helper / _cummin_helper and _logcumsumexp(.out) (direct route;
// kernels/reduce/cumulative.h). ATen's cummax/cummin/logcumsumexp
// (CompositeExplicitAutograd) check the outputs, size them and handle 0-dim
// inputs, then call these CPU-only helpers; the kernel scans each line along
// `dim` in the tensors' own strides.
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty_like.h>

#include "aten/launch.h"
#include "generated/ops/_cummax_helper.h"
#include "generated/ops/_cummin_helper.h"
#include "generated/ops/_logcumsumexp.h"
#include "generated/ops/_logcumsumexp_out.h"
#include "kernels/reduce/cumulative.h"

namespace torch_tpu::aten {
namespace {

void cumulative_extreme(kernels::CumExtreme op, const at::Tensor& self, at::Tensor& values, at::Tensor& indices,
                        int64_t dim) {
  const char* name = op == kernels::CumExtreme::kMax ? "cummax" : "cummin";
  const kernels::DType t = device_dtype(self.scalar_type(), name);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::cum_extreme_supports(t), "\"", name, "_cpu\" not implemented for '",
                              toString(self.scalar_type()), "'");
  if (self.numel() == 0) return;
  if (self.dim() == 0) {  // one element: itself, at index 0
    values.copy_(self);
    indices.zero_();
    return;
  }
  dim = at::maybe_wrap_dim(dim, self.dim());
  kernels::TensorDesc v = describe(values, name), i = describe(indices, name), s = describe(self, name);
  launch(self.device().index(), name, {v.data, i.data, s.data},
         [op, v = std::move(v), i = std::move(i), s = std::move(s), dim] { kernels::cum_extreme(op, v, i, s, dim); });
}

}  // namespace

void _cummax_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  cumulative_extreme(kernels::CumExtreme::kMax, self, values, indices, dim);
}

void _cummin_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  cumulative_extreme(kernels::CumExtreme::kMin, self, values, indices, dim);
}

// ReduceOpsKernel.cpp's logcumsumexp_cpu_kernel over cpu_cum_base_kernel.
at::Tensor& _logcumsumexp_out(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  const kernels::DType t = device_dtype(self.scalar_type(), "logcumsumexp");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::logcumsumexp_supports(t), "\"logcumsumexp_out_cpu\" not implemented for '",
                              toString(self.scalar_type()), "'");
  if (out.sizes() != self.sizes()) at::native::resize_output(out, self.sizes());
  if (self.numel() == 0) return out;
  if (self.dim() == 0) {
    out.copy_(self);
    return out;
  }
  at::assert_no_internal_overlap(out);  // CPU's TensorIterator checks
  at::assert_no_partial_overlap(out, self);
  kernels::TensorDesc o = describe(out, "logcumsumexp"), s = describe(self, "logcumsumexp");
  launch(self.device().index(), "logcumsumexp", {o.data, s.data},
         [o = std::move(o), s = std::move(s), dim] { kernels::logcumsumexp(o, s, dim); });
  return out;
}

at::Tensor _logcumsumexp(const at::Tensor& self, int64_t dim) {
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  return _logcumsumexp_out(self, dim, out);
}

}  // namespace torch_tpu::aten
