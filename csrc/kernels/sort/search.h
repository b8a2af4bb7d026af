// searchsorted / bucketize (search.cpp): each value's insertion position in
// its row of sorted boundaries, by CPU's binary search (Bucketization.cpp)
// with its comparisons (left: move right while !(b >= v); right: while
// !(b > v)), so NaN values and boundaries land where CPU's do. float16/
// bfloat16 compare as float. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct SearchDesc {
  DType dtype = DType::kFloat32;    // of values and boundaries
  const void* values = nullptr;     // numel, contiguous
  int64_t numel = 0;
  int64_t values_row = 1;           // values per innermost row
  const void* boundaries = nullptr; // contiguous rows of boundary_row
  int64_t boundary_row = 0;
  bool boundaries_1d = true;        // every value searches the one row
  const int64_t* sorter = nullptr;  // optional: boundaries' sorting permutation per row
  void* out = nullptr;              // numel positions, int32 or int64
  bool out_int32 = false;
  bool right = false;
};

bool search_supports(DType t);
void searchsorted(const SearchDesc& d);

}  // namespace torch_tpu::kernels
