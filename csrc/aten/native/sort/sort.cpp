// Sort and distance stubs (stub_kernels.h, "stub" route): ATen's shared
// implementations (sort_stable_out, _cdist_forward, _pdist_forward) check
// arguments and allocate outputs; these hand contiguous buffers to the device
// kernels (kernels/sort/sort.h, distance.h), copying in or out only where a
// layout differs.
#include <ATen/core/Tensor.h>
#include <ATen/native/Distance.h>
#include <ATen/native/Sorting.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>

#include <type_traits>

#include "aten/launch.h"
#include "generated/stub_kernels.h"
#include "kernels/linalg/distance.h"
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
  c10::DeviceGuard guard(values.device());
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

void cdist_kernel(at::Tensor& result, const at::Tensor& x1, const at::Tensor& x2, const double p) {
  const kernels::DType t = device_dtype(x1.scalar_type(), "cdist");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::distance_supports(t), "\"cdist\" not implemented for '",
                              x1.scalar_type(), "' on tpu");
  TORCH_CHECK(x2.scalar_type() == x1.scalar_type(), "cdist: X1 and X2 must have one dtype, got ",
              x1.scalar_type(), " and ", x2.scalar_type());
  c10::DeviceGuard guard(result.device());
  const at::Tensor a = x1.contiguous(), b = x2.contiguous();
  at::Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  const int64_t B = a.size(0), P = a.size(1), R = b.size(1), M = a.size(2);
  const void* ap = a.const_data_ptr();
  const void* bp = b.const_data_ptr();
  void* op = out.data_ptr();
  launch(result.device().index(), "cdist", {ap, bp, op}, [=] { kernels::cdist(t, ap, bp, op, B, P, R, M, p); });
  if (!out.is_same(result)) result.copy_(out);
}

void pdist_forward_kernel(at::Tensor& result, const at::Tensor& self, const double p) {
  const kernels::DType t = device_dtype(self.scalar_type(), "pdist");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::distance_supports(t), "\"pdist\" not implemented for '",
                              self.scalar_type(), "' on tpu");
  c10::DeviceGuard guard(result.device());
  const at::Tensor x = self.contiguous();
  const int64_t N = x.size(0), M = x.size(1);
  const void* xp = x.const_data_ptr();
  void* op = result.data_ptr();
  launch(result.device().index(), "pdist", {xp, op}, [=] { kernels::pdist(t, xp, op, N, M, p); });
}

}  // namespace torch_tpu::aten
