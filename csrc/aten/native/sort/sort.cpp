// The sort stub (stub_kernels.h, "stub" route): ATen's shared
// sort_stable_out checks arguments and allocates outputs; this hands
// contiguous rows to the device kernel (kernels/sort/sort.h), copying in or
// out only where a layout differs. The generated wrapper set the device guard.
#include <ATen/core/Tensor.h>
#include <ATen/native/Sorting.h>
#include <ATen/ops/empty.h>

#include <type_traits>

#include "aten/launch.h"
#include "generated/stub_kernels.h"
#include "kernels/sort/sort.h"

namespace torch_tpu::aten {

namespace {

// `t` with `dim` moved last, contiguous: t's own memory when that is already
// its layout, else a fresh buffer (`copy_in` fills it from t).
at::Tensor rows_of(const at::Tensor& t, int64_t dim, bool copy_in) {
  at::Tensor moved = t.movedim(dim, -1);
  if (moved.is_contiguous()) return moved;
  return copy_in ? moved.contiguous() : at::empty(moved.sizes(), moved.options());
}

void write_back(const at::Tensor& given, const at::Tensor& rows, int64_t dim) {
  if (!rows.is_alias_of(given)) given.copy_(rows.movedim(-1, dim));
}

}  // namespace

void sort_kernel(const at::TensorBase& self, const at::TensorBase& values_base,
                 const at::TensorBase& indices_base, int64_t dim, bool descending, bool stable) {
  const at::Tensor values(values_base), indices(indices_base);
  if (values.numel() == 0) return;
  const kernels::DType t = device_dtype(values.scalar_type(), "sort");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::sort_supports(t), "\"sort\" not implemented for '", values.scalar_type(),
                              "' on tpu");
  at::Tensor v = rows_of(values, dim, /*copy_in=*/true);
  at::Tensor i = rows_of(indices, dim, /*copy_in=*/false);
  const int64_t n = v.size(-1), rows = v.numel() / n;
  void* vp = v.data_ptr();
  int64_t* ip = i.data_ptr<int64_t>();
  launch(values.device().index(), "sort", {vp, ip},
         [=] { kernels::sort_rows(t, vp, ip, rows, n, descending, stable); });
  write_back(values, v, dim);
  write_back(indices, i, dim);
  (void)self;  // values already hold self's elements
}

}  // namespace torch_tpu::aten
