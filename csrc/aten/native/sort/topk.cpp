// topk / topk.values (direct route): ATen's topk_out_cpu calls topk_stub
// with a hard-coded CPU device. The generated wrappers run ATen's structured
// meta(), which checks k and sizes the outputs; kernels/sort/sort.h selects as CPU does, along the last axis of a
// contiguous copy when dim is not already last.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/WrapDimMinimal.h>

#include "aten/launch.h"
#include "generated/ops/topk.h"
#include "kernels/sort/sort.h"

namespace torch_tpu::aten {
namespace {

void run_topk(const at::Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, const at::Tensor& values,
              const at::Tensor& indices) {
  const char* name = "topk";
  const kernels::DType t = device_dtype(self.scalar_type(), name);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::sort_supports(t), "\"topk\" not implemented for '", self.scalar_type(),
                              "' on tpu");
  if (self.dim() == 0) {  // one element: itself, at index 0 (k is 0 or 1)
    if (k == 1) {
      values.copy_(self);
      indices.zero_();
    }
    return;
  }
  dim = c10::maybe_wrap_dim(dim, self.dim());
  if (values.numel() == 0) return;
  const at::Tensor src = self.movedim(dim, -1).contiguous();
  at::Tensor v = values.movedim(dim, -1), i = indices.movedim(dim, -1);
  if (!v.is_contiguous()) v = at::empty(v.sizes(), v.options());
  if (!i.is_contiguous()) i = at::empty(i.sizes(), i.options());
  const int64_t n = src.size(-1), rows = src.numel() / n;
  const void* sp = src.const_data_ptr();
  void* vp = v.data_ptr();
  int64_t* ip = i.data_ptr<int64_t>();
  launch(self.device().index(), name, {sp, vp, ip},
         [=] { kernels::topk_rows(t, sp, vp, ip, rows, n, k, largest, sorted); });
  if (!v.is_alias_of(values)) values.copy_(v.movedim(-1, dim));
  if (!i.is_alias_of(indices)) indices.copy_(i.movedim(-1, dim));
}

}  // namespace

void topk_out(const at::Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
              const at::Tensor& values, const at::Tensor& indices) {
  run_topk(self, k, dim, largest, sorted, values, indices);
}

}  // namespace torch_tpu::aten
