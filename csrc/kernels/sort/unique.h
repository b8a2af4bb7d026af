// unique and unique_consecutive, flat and along a dimension (unique.cpp), as
// PyTorch CPU's Unique.cpp computes them: flat unique sorts (stably; NaN
// last), then keeps each element unequal (!=) to its predecessor, so every
// NaN is its own entry; along a dimension the slices are ordered by CPU's
// lexicographic std::sort and grouped by exact equality (NaN unequal).
// Every writer stores the number of unique entries in *count, the only value
// the host reads back (the output sizes depend on it). Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// bool, integers (uint16/32/64 too), floating types: CPU's dispatch.
bool unique_supports(DType t);

// values: n elements, a flat copy of the input, replaced by the unique
// values in ascending order (the first *count of them); perm: n scratch.
// inverse (n, optional): each input element's entry; counts (n, optional):
// each entry's number of elements.
void unique_sorted(DType t, void* values, int64_t* perm, int64_t n, int64_t* inverse, int64_t* counts,
                   int64_t* count);

// The same for runs of equal neighbours of src (n elements, unsorted) into out.
void unique_consecutive(DType t, const void* src, int64_t n, void* out, int64_t* inverse, int64_t* counts,
                        int64_t* count);

// rows [S, L] contiguous: the unique rows into out [S, L] (the first *count),
// sorted unless `consecutive`; inverse [S] and counts [S] always.
void unique_rows(DType t, const void* rows, int64_t S, int64_t L, bool consecutive, void* out, int64_t* inverse,
                 int64_t* counts, int64_t* count);

}  // namespace torch_tpu::kernels
