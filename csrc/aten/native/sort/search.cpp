// searchsorted / bucketize (direct route; kernels/sort/search.h). CPU's
// searchsorted_out_cpu is a CPU-only function; this repeats it: ATen's own
// pre-check (BucketizationUtils.h: messages, the sorter range check, which
// reads aminmax with one synchronisation as on CPU), contiguous inputs in one
// common dtype (ATen's trim, with its warnings), a contiguous result copied
// back into a strided out.
#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>

#include "aten/launch.h"
#include "generated/ops/bucketize_Scalar.h"
#include "generated/ops/bucketize_Tensor.h"
#include "generated/ops/bucketize_Tensor_out.h"
#include "generated/ops/searchsorted_Scalar.h"
#include "generated/ops/searchsorted_Scalar_out.h"
#include "generated/ops/searchsorted_Tensor.h"
#include "generated/ops/searchsorted_Tensor_out.h"
#include "kernels/sort/search.h"

namespace torch_tpu::aten {
namespace {

at::Tensor& search_run(const at::Tensor& sorted_sequence, const at::Tensor& self, bool out_int32, bool right,
                       std::optional<c10::string_view> side, const std::optional<at::Tensor>& sorter_opt,
                       at::Tensor& result) {
  const at::Tensor sorter = sorter_opt.has_value() ? *sorter_opt : at::Tensor();
  at::native::searchsorted_pre_check(sorted_sequence, self, result, out_int32, right, side, sorter);
  at::native::resize_output(result, self.sizes());
  const bool is_right = side ? *side == "right" : right;
  if (self.numel() == 0) return result;
  at::Tensor out = result.is_contiguous() ? result : result.contiguous();
  at::Tensor trimmed_input, trimmed_boundaries, trimmed_sorter;
  at::native::searchsorted_maybe_trim_input_tensors(trimmed_input, trimmed_boundaries, trimmed_sorter, self,
                                                    sorted_sequence, sorter);
  const at::Tensor& input = trimmed_input.defined() ? trimmed_input : self;
  const at::Tensor& boundaries = trimmed_boundaries.defined() ? trimmed_boundaries : sorted_sequence;
  const at::Tensor& order = trimmed_sorter.defined() ? trimmed_sorter : sorter;
  const kernels::DType t = device_dtype(input.scalar_type(), "searchsorted");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::search_supports(t), "\"searchsorted_out_cpu\" not implemented for '",
                              toString(input.scalar_type()), "'");
  kernels::SearchDesc d;
  d.dtype = t;
  d.values = input.const_data_ptr();
  d.numel = input.numel();
  d.values_row = input.dim() == 0 ? 1 : input.sizes().back();
  d.boundaries = boundaries.const_data_ptr();
  d.boundary_row = boundaries.sizes().back();
  d.boundaries_1d = boundaries.dim() == 1;
  d.sorter = order.defined() ? order.const_data_ptr<int64_t>() : nullptr;
  d.out = out.data_ptr();
  d.out_int32 = out_int32;
  d.right = is_right;
  launch(self.device().index(), "searchsorted", {d.values, d.boundaries, d.sorter, d.out},
         [d] { kernels::searchsorted(d); });
  if (!out.is_same(result)) result.copy_(out);
  return result;
}

at::Tensor search_result(const at::Tensor& like, bool out_int32) {
  return at::empty({0}, like.options().dtype(out_int32 ? at::kInt : at::kLong));
}

}  // namespace

at::Tensor& searchsorted_Tensor_out(const at::Tensor& sorted_sequence, const at::Tensor& self, bool out_int32,
                                    bool right, ::std::optional<c10::string_view> side,
                                    const ::std::optional<at::Tensor>& sorter, at::Tensor& out) {
  return search_run(sorted_sequence, self, out_int32, right, side, sorter, out);
}

at::Tensor searchsorted_Tensor(const at::Tensor& sorted_sequence, const at::Tensor& self, bool out_int32, bool right,
                               ::std::optional<c10::string_view> side, const ::std::optional<at::Tensor>& sorter) {
  at::Tensor result = search_result(self, out_int32);
  return search_run(sorted_sequence, self, out_int32, right, side, sorter, result);
}

// A Scalar is searched as a wrapped 0-dim tensor on the boundaries' device,
// so it promotes as a Python number does.
at::Tensor& searchsorted_Scalar_out(const at::Tensor& sorted_sequence, const at::Scalar& self, bool out_int32,
                                    bool right, ::std::optional<c10::string_view> side,
                                    const ::std::optional<at::Tensor>& sorter, at::Tensor& out) {
  const at::Tensor value = at::native::searchsorted_scalar_tensor(self, sorted_sequence.device());
  return search_run(sorted_sequence, value, out_int32, right, side, sorter, out);
}

at::Tensor searchsorted_Scalar(const at::Tensor& sorted_sequence, const at::Scalar& self, bool out_int32, bool right,
                               ::std::optional<c10::string_view> side, const ::std::optional<at::Tensor>& sorter) {
  const at::Tensor value = at::native::searchsorted_scalar_tensor(self, sorted_sequence.device());
  at::Tensor result = search_result(value, out_int32);
  return search_run(sorted_sequence, value, out_int32, right, side, sorter, result);
}

at::Tensor& bucketize_Tensor_out(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32, bool right,
                                 at::Tensor& out) {
  TORCH_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return search_run(boundaries, self, out_int32, right, std::nullopt, std::nullopt, out);
}

at::Tensor bucketize_Tensor(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32, bool right) {
  at::Tensor result = search_result(self, out_int32);
  return bucketize_Tensor_out(self, boundaries, out_int32, right, result);
}

at::Tensor bucketize_Scalar(const at::Scalar& self, const at::Tensor& boundaries, bool out_int32, bool right) {
  return bucketize_Tensor(at::native::searchsorted_scalar_tensor(self, boundaries.device()), boundaries, out_int32,
                          right);
}

}  // namespace torch_tpu::aten
