// torch.segment_reduce (the lengths and offsets forms) and its backward, as
// CPU's SegmentReduce.cpp loops: data [outer, size, inner] contiguous, the
// reduction axis in the middle; per outer row, lengths [segments] or offsets
// [segments + 1]. Each segment starts from `initial` (else -inf, +inf, 0 or
// 1), folds its elements in the element type (NaN wins for max and min), and
// a mean divides by the length (NaN for an empty segment without initial).
// The backward repeats CPU's rules, its quirks included (max/min split a
// positive gradient among tied elements only). Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// ATen's ReductionType order.
enum class SegmentReduction : int8_t { kMax, kMean, kMin, kSum, kProd };

struct SegmentReduceDesc {
  DType dtype = DType::kFloat32;       // data, output, grad, grad_input (floating)
  DType index_dtype = DType::kInt64;   // lengths / offsets (int32 or int64)
  SegmentReduction reduction = SegmentReduction::kSum;
  bool offsets = false;                // lengths_or_offsets holds offsets
  bool has_initial = false;
  double initial = 0;
  int64_t outer = 1, size = 0, inner = 1, segments = 0;
  const void* data = nullptr;          // [outer, size, inner]
  const void* lengths_or_offsets = nullptr;  // [outer, segments (+1)]
  void* output = nullptr;              // forward: written [outer, segments, inner]
  // backward only
  const void* grad = nullptr;          // [outer, segments, inner]
  const void* forward_output = nullptr;  // [outer, segments, inner]
  void* grad_input = nullptr;          // [outer, size, inner], zeroed first
};

bool segment_reduce_supports(DType t);
void segment_reduce(const SegmentReduceDesc& d);
void segment_reduce_backward(const SegmentReduceDesc& d);

}  // namespace torch_tpu::kernels
