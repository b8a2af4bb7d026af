// Sorting along the last axis of rows [rows, n], contiguous (sort, topk;
// sort.cpp). The order is PyTorch CPU's: NaN is the largest value (last in
// ascending order, first in descending), ties keep their original order
// when sorting stably; topk repeats CPU's partial_sort / nth_element steps
// over (value, index) pairs, so even its ties resolve as CPU's do. Values
// are moved as element bits (indices gather them), never rounded. Every
// dtype but complex. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

bool sort_supports(DType t);

// values [rows, n] sorted in place along each row; indices [rows, n] get
// each value's position in the original row.
void sort_rows(DType t, void* values, int64_t* indices, int64_t rows, int64_t n, bool descending,
               bool stable);

// values / indices [rows, k] = the k largest (smallest) of each row of
// src [rows, n], in order when `sorted`.
void topk_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n, int64_t k,
               bool largest, bool sorted);

}  // namespace torch_tpu::kernels
