// Selection along the last axis of contiguous rows [rows, n]: median,
// nanmedian, kthvalue, mode (select.cpp). Each repeats the steps of PyTorch
// CPU's loop (Sorting.cpp, TensorCompareKernel.cpp) over the same (value,
// index) pairs with the same comparators, so the index chosen among equal
// values is CPU's: median/nanmedian partition indices with std::nth_element
// ordered by (value, index), NaN largest; kthvalue runs CPU's Sedgewick
// quickselect; mode sorts (value, index) pairs by value with std::sort and
// takes the last index of the longest run. Values are compared as CPU
// compares them (float16/bfloat16 as float) and moved as element bits.
// Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// median/nanmedian/kthvalue: integers and floating types (CPU's
// AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)); mode also bool.
bool select_supports(DType t);
bool mode_supports(DType t);

// values[r] / indices[r] = the median of row r of src [rows, n] and its
// position; with `ignore_nan` the median of the row's non-NaN values (NaN
// when all are), else a row holding NaN answers its first NaN.
void median_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n,
                 bool ignore_nan);

// *out = the median of the n elements of `scratch`, which it reorders.
void median_all(DType t, void* scratch, int64_t n, void* out, bool ignore_nan);

// values[r] / indices[r] = the k-th smallest (1-based) of row r of src and
// its position, NaN largest.
void kthvalue_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n,
                   int64_t k);

// values[r] / indices[r] = the most frequent value of row r (the smallest of
// equally frequent ones) and one of its positions, as CPU picks it.
void mode_rows(DType t, const void* src, void* values, int64_t* indices, int64_t rows, int64_t n);

}  // namespace torch_tpu::kernels
