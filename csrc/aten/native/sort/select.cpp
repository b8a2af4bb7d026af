// median, nanmedian, kthvalue, mode (direct route; kernels/sort/select.h).
// CPU's implementations (Sorting.cpp, TensorCompare.cpp) are CPU-only
// functions; these repeat their checks and messages, move the reduced
// dimension last in a contiguous copy, and let the kernel write one value and
// index per row, into the outputs when their layout allows, else into a
// buffer copied over.
#include <ATen/TensorUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/SortingUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>

#include <limits>

#include "aten/launch.h"
#include "generated/ops/kthvalue_values.h"
#include "generated/ops/median.h"
#include "generated/ops/median_dim_values.h"
#include "generated/ops/mode.h"
#include "generated/ops/mode_values.h"
#include "generated/ops/nanmedian.h"
#include "generated/ops/nanmedian_dim_values.h"
#include "kernels/sort/select.h"

namespace torch_tpu::aten {
namespace {

enum class SelectKind { kMedian, kNanMedian, kKthValue, kMode };

// Rows of `self` along `dim` (moved last, contiguous), one value and index
// per row into values/indices, whose shape is self's without `dim` (the
// caller has squeezed a kept dim).
void select_rows(SelectKind kind, const at::Tensor& self, int64_t dim, int64_t k, const at::Tensor& values,
                 const at::Tensor& indices, const char* name) {
  const kernels::DType t = device_dtype(self.scalar_type(), name);
  if (self.numel() == 0) return;
  const at::Tensor src = self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(dim, -1).contiguous();
  const int64_t n = src.size(-1), rows = src.numel() / n;
  at::Tensor v = values.is_contiguous() ? values : at::empty(values.sizes(), values.options());
  at::Tensor i = indices.is_contiguous() ? indices : at::empty(indices.sizes(), indices.options());
  const void* sp = src.const_data_ptr();
  void* vp = v.data_ptr();
  int64_t* ip = i.data_ptr<int64_t>();
  launch(self.device().index(), name, {sp, vp, ip}, [=] {
    switch (kind) {
      case SelectKind::kMedian:
      case SelectKind::kNanMedian:
        kernels::median_rows(t, sp, vp, ip, rows, n, kind == SelectKind::kNanMedian);
        break;
      case SelectKind::kKthValue:
        kernels::kthvalue_rows(t, sp, vp, ip, rows, n, k);
        break;
      case SelectKind::kMode:
        kernels::mode_rows(t, sp, vp, ip, rows, n);
        break;
    }
  });
  if (!v.is_same(values)) values.copy_(v);
  if (!i.is_same(indices)) indices.copy_(i);
}

void select_check_dtype(const at::Tensor& self, bool ok, const char* cpu_name) {
  TORCH_CHECK_NOT_IMPLEMENTED(ok, "\"", cpu_name, "\" not implemented for '", toString(self.scalar_type()), "'");
}

// Sorting.cpp's median_with_indices_impl.
void select_median_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& values, at::Tensor& indices,
                       bool ignore_nan) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  at::native::zero_numel_check_dims(self, dim, "median()");
  at::checkDeviceType("median", {values, indices}, self.device().type());
  at::checkScalarType("median", {indices, "indices", 1}, at::kLong);
  at::checkSameType("median", {values, "values", 0}, {self, "self", 2});
  std::vector<int64_t> out_shape = self.sizes().vec();
  if (self.dim() > 0) {
    if (keepdim) {
      out_shape[dim] = 1;
    } else {
      out_shape.erase(out_shape.begin() + dim);
    }
  }
  at::native::resize_output(values, out_shape);
  at::native::resize_output(indices, out_shape);
  select_check_dtype(self, kernels::select_supports(device_dtype(self.scalar_type(), "median")), "median_out");
  const bool squeeze = keepdim && self.dim() > 0;
  select_rows(ignore_nan ? SelectKind::kNanMedian : SelectKind::kMedian, self, dim, 0,
              squeeze ? values.squeeze(dim) : values, squeeze ? indices.squeeze(dim) : indices,
              ignore_nan ? "nanmedian" : "median");
}

// Sorting.cpp's median_impl: NaN for an empty input (converted to the
// input's dtype, as CPU converts it), else the median of a flat copy.
at::Tensor select_median_all(const at::Tensor& self, bool ignore_nan) {
  const char* name = ignore_nan ? "nanmedian" : "median";
  if (self.numel() == 0) {
    return at::full({}, std::numeric_limits<float>::quiet_NaN(), self.options().dtype(at::kFloat))
        .to(self.scalar_type());
  }
  const kernels::DType t = device_dtype(self.scalar_type(), name);
  select_check_dtype(self, kernels::select_supports(t), "median_cpu");
  at::Tensor in = at::empty({self.numel()}, self.options());
  in.view(self.sizes()).copy_(self);
  at::Tensor out = at::empty({}, self.options());
  void* ip = in.data_ptr();
  void* op = out.data_ptr();
  const int64_t n = self.numel();
  launch(self.device().index(), name, {ip, op}, [=] { kernels::median_all(t, ip, n, op, ignore_nan); });
  return out;
}

}  // namespace

at::Tensor median(const at::Tensor& self) { return select_median_all(self, /*ignore_nan=*/false); }

at::Tensor nanmedian(const at::Tensor& self) { return select_median_all(self, /*ignore_nan=*/true); }

::std::tuple<at::Tensor&, at::Tensor&> median_dim_values(const at::Tensor& self, int64_t dim, bool keepdim,
                                                         at::Tensor& values, at::Tensor& indices) {
  select_median_out(self, dim, keepdim, values, indices, /*ignore_nan=*/false);
  return {values, indices};
}

::std::tuple<at::Tensor&, at::Tensor&> nanmedian_dim_values(const at::Tensor& self, int64_t dim, bool keepdim,
                                                            at::Tensor& values, at::Tensor& indices) {
  select_median_out(self, dim, keepdim, values, indices, /*ignore_nan=*/true);
  return {values, indices};
}

// Sorting.cpp's kthvalue_out_impl_cpu.
::std::tuple<at::Tensor&, at::Tensor&> kthvalue_values(const at::Tensor& self, int64_t k, int64_t dim_,
                                                       bool keepdim, at::Tensor& values, at::Tensor& indices) {
  const int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
  const int64_t slicesize = self.dim() == 0 ? 1 : self.size(dim);
  at::native::zero_numel_check_dims(self, dim, "kthvalue()");
  TORCH_CHECK(k >= 1 && k <= slicesize, "kthvalue(): selected number k out of range for dimension ", dim);
  at::assert_no_overlap(self, values);
  at::native::_reduction_with_indices_allocate_or_resize_output(values, indices, self, dim_, keepdim);
  if (self.dim() == 0 && self.numel() == 1) {
    values.copy_(self);
    indices.zero_();
    return {values, indices};
  }
  select_check_dtype(self, kernels::select_supports(device_dtype(self.scalar_type(), "kthvalue")),
                     "kthvalue_cpu");
  select_rows(SelectKind::kKthValue, self, dim, k, values.squeeze(dim), indices.squeeze(dim), "kthvalue");
  if (!keepdim) {
    values.squeeze_(dim);
    indices.squeeze_(dim);
  }
  return {values, indices};
}

// TensorCompare.cpp's mode_out and compare_base_kernel_core's resizing.
::std::tuple<at::Tensor&, at::Tensor&> mode_values(const at::Tensor& self, int64_t dim, bool keepdim,
                                                   at::Tensor& values, at::Tensor& indices) {
  TORCH_CHECK(self.layout() == at::Layout::Strided, "mode only supports strided layout, got: ", self.layout());
  TORCH_CHECK(self.device() == values.device(), "expected device '", self.device(), "' but got '",
              values.device(), "' for values output");
  TORCH_CHECK(self.device() == indices.device(), "expected device '", self.device(), "' but got '",
              indices.device(), "' for indices output");
  TORCH_CHECK(self.scalar_type() == values.scalar_type(), "expected scalar type '", self.scalar_type(),
              "' but got '", values.scalar_type(), "' for values output");
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "expected scalar type '", at::ScalarType::Long,
              "' but got '", indices.scalar_type(), "' for indices output");
  dim = at::maybe_wrap_dim(dim, self.dim());
  if (self.numel() == 0) {
    auto sizes = at::native::get_zero_numel_tensor_size(self, dim, keepdim, "mode()");
    at::native::resize_output(values, sizes);
    at::native::resize_output(indices, sizes);
    return {values, indices};
  }
  if (self.numel() == 1 && self.dim() == 0) {
    values.resize_({});
    values.fill_(self);
    indices.resize_({}).fill_(0);
    return {values, indices};
  }
  select_check_dtype(self, kernels::mode_supports(device_dtype(self.scalar_type(), "mode")), "mode_cpu");
  std::vector<int64_t> kept = self.sizes().vec();
  kept[dim] = 1;
  if (!keepdim) {
    if (values.dim() >= dim) values.unsqueeze_(dim);
    if (indices.dim() >= dim) indices.unsqueeze_(dim);
  }
  at::native::resize_output(values, kept);
  at::native::resize_output(indices, kept);
  select_rows(SelectKind::kMode, self, dim, 0, values.squeeze(dim), indices.squeeze(dim), "mode");
  if (!keepdim) {
    values.squeeze_(dim);
    indices.squeeze_(dim);
  }
  return {values, indices};
}

::std::tuple<at::Tensor, at::Tensor> mode(const at::Tensor& self, int64_t dim, bool keepdim) {
  at::Tensor values = at::empty({0}, self.options());
  at::Tensor indices = at::empty({0}, self.options().dtype(at::kLong));
  mode_values(self, dim, keepdim, values, indices);
  return {values, indices};
}

}  // namespace torch_tpu::aten
