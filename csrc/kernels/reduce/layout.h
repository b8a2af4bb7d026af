// The loop layout of a reduction (reduce.h): which dimensions are reduced,
// which are kept, both groups sorted by input stride and coalesced, so the
// loops see as few and as long dimensions as possible. Private to the kernel
// library.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/reduce/reduce.h"

namespace torch_tpu::kernels::red {

struct Layout {
  // Reduced dims, smallest input stride first: sizes and input byte strides.
  // Never empty (a single size-1 dim when nothing is reduced).
  std::vector<int64_t> rsize, rstride;
  // Kept dims, smallest input stride first: sizes, input byte strides and
  // each output's byte strides. May be empty (a full reduction).
  std::vector<int64_t> ksize, kin;
  std::vector<int64_t> kout[2];
  int64_t n_out = 1;  // product of ksize
  int64_t n_red = 1;  // product of rsize
  int noutputs = 1;
};

// Validates `d` and plans its loops. Ops that report an index (argmax, max
// with indices) have one reduced dim, so the flat reduced index is the index
// along it.
Layout plan_layout(const ReduceDesc& d);

// Byte offset of flat index `i` over dims [from, size.size()) of a group
// (dim `from` varies fastest).
inline int64_t group_offset(const std::vector<int64_t>& size, const std::vector<int64_t>& stride, int64_t i,
                            size_t from = 0) {
  if (size.size() == from + 1) return i * stride[from];  // one dim: no division
  int64_t off = 0;
  for (size_t k = from; k < size.size() && i != 0; ++k) {
    const int64_t q = i / size[k];
    off += (i - q * size[k]) * stride[k];
    i = q;
  }
  return off;
}

}  // namespace torch_tpu::kernels::red
