// The segment_reduce stubs (kernels/reduce/segment_reduce.h). ATen's shared
// segment_reduce_kernel / _segment_reduce_backward_kernel have checked the
// arguments and made data, lengths/offsets (and grad, output) contiguous;
// the reduction axis is the last dim of lengths/offsets.
#include <ATen/native/ReductionType.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>

#include "aten/launch.h"
#include "generated/stub_kernels.h"
#include "kernels/reduce/segment_reduce.h"

namespace torch_tpu::aten {
namespace {

kernels::SegmentReduceDesc segment_desc(at::native::ReductionType reduction, const at::Tensor& data,
                                        const at::Tensor& lengths_or_offsets, bool offsets,
                                        const std::optional<at::Scalar>& initial) {
  kernels::SegmentReduceDesc d;
  d.dtype = device_dtype(data.scalar_type(), "segment_reduce");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::segment_reduce_supports(d.dtype), "\"_segment_reduce_cpu\" not implemented for '",
                              toString(data.scalar_type()), "'");
  d.index_dtype = device_dtype(lengths_or_offsets.scalar_type(), "segment_reduce");
  TORCH_CHECK(lengths_or_offsets.scalar_type() == at::kInt || lengths_or_offsets.scalar_type() == at::kLong,
              "_segment_reduce_cpu_kernel1 not implemented for '", toString(lengths_or_offsets.scalar_type()), "'");
  d.reduction = static_cast<kernels::SegmentReduction>(static_cast<int>(reduction));
  d.offsets = offsets;
  d.has_initial = initial.has_value();
  d.initial = initial.has_value() ? initial->toDouble() : 0.0;
  const int64_t axis = lengths_or_offsets.dim() - 1;
  for (int64_t k = 0; k < axis; ++k) d.outer *= data.size(k);
  for (int64_t k = axis + 1; k < data.dim(); ++k) d.inner *= data.size(k);
  d.size = data.size(axis);
  d.segments = lengths_or_offsets.size(axis) - (offsets ? 1 : 0);
  d.data = data.const_data_ptr();
  d.lengths_or_offsets = lengths_or_offsets.const_data_ptr();
  return d;
}

std::vector<int64_t> segment_output_shape(const at::Tensor& data, const kernels::SegmentReduceDesc& d,
                                          int64_t axis) {
  std::vector<int64_t> shape(data.sizes().begin(), data.sizes().end());
  shape[axis] = d.segments;
  return shape;
}

at::Tensor segment_forward(at::native::ReductionType reduction, const at::Tensor& data, const at::Tensor& index,
                           bool offsets, const std::optional<at::Scalar>& initial) {
  kernels::SegmentReduceDesc d = segment_desc(reduction, data, index, offsets, initial);
  at::Tensor out = at::empty(segment_output_shape(data, d, index.dim() - 1), data.options());
  if (out.numel() == 0) return out;
  d.output = out.data_ptr();
  launch(data.device().index(), "segment_reduce", {d.data, d.lengths_or_offsets, d.output},
         [d] { kernels::segment_reduce(d); });
  return out;
}

at::Tensor segment_backward(const at::Tensor& grad, const at::Tensor& output, const at::Tensor& data,
                            at::native::ReductionType reduction, const at::Tensor& index, bool offsets,
                            const std::optional<at::Scalar>& initial) {
  kernels::SegmentReduceDesc d = segment_desc(reduction, data, index, offsets, initial);
  at::Tensor grad_input = at::zeros(data.sizes(), grad.options());
  if (grad_input.numel() == 0 || d.segments == 0) return grad_input;
  d.grad = grad.const_data_ptr();
  d.forward_output = output.const_data_ptr();
  d.grad_input = grad_input.data_ptr();
  launch(data.device().index(), "segment_reduce_backward",
         {d.data, d.lengths_or_offsets, d.grad, d.forward_output, d.grad_input},
         [d] { kernels::segment_reduce_backward(d); });
  return grad_input;
}

}  // namespace

at::Tensor segment_reduce_lengths_kernel(at::native::ReductionType reduction, const at::Tensor& data,
                                         const at::Tensor& lengths, int64_t axis,
                                         const std::optional<at::Scalar>& initial) {
  (void)axis;  // the last dim of lengths, as CPU recomputes it
  return segment_forward(reduction, data, lengths, /*offsets=*/false, initial);
}

at::Tensor segment_reduce_offsets_kernel(at::native::ReductionType reduction, const at::Tensor& data,
                                         const at::Tensor& offsets, int64_t axis,
                                         const std::optional<at::Scalar>& initial) {
  (void)axis;
  return segment_forward(reduction, data, offsets, /*offsets=*/true, initial);
}

at::Tensor segment_reduce_lengths_backward_kernel(const at::Tensor& grad, const at::Tensor& output,
                                                  const at::Tensor& data, at::native::ReductionType reduction,
                                                  const at::Tensor& lengths, int64_t axis,
                                                  const std::optional<at::Scalar>& initial) {
  (void)axis;
  return segment_backward(grad, output, data, reduction, lengths, /*offsets=*/false, initial);
}

at::Tensor segment_reduce_offsets_backward_kernel(const at::Tensor& grad, const at::Tensor& output,
                                                  const at::Tensor& data, at::native::ReductionType reduction,
                                                  const at::Tensor& offsets, int64_t axis,
                                                  const std::optional<at::Scalar>& initial) {
  (void)axis;
  return segment_backward(grad, output, data, reduction, offsets, /*offsets=*/true, initial);
}

}  // namespace torch_tpu::aten
