// Grouped GEMM (grouped_gemm.h): the offsets are read here, on the device,
// and each group is one call of the device GEMM on views of the operands.
#include "kernels/linalg/grouped_gemm.h"

#include <algorithm>
#include <cstring>

namespace torch_tpu::kernels {
namespace {

char* at_element(void* base, int64_t elements, size_t size) {
  return static_cast<char*>(base) + elements * static_cast<int64_t>(size);
}

// Zeroes C's rows [r0, r1) (kRowsOfA) or columns [c0, c1) (kColsOfB) by a
// product with k = 0, which writes alpha * (empty sum) = 0.
void zero_part(GemmDesc g, int64_t r0, int64_t r1, int64_t c0, int64_t c1, size_t size) {
  if (r1 <= r0 || c1 <= c0) return;
  g.c.data = at_element(g.c.data, r0 * g.c.row_stride + c0 * g.c.col_stride, size);
  g.m = r1 - r0, g.n = c1 - c0, g.k = 0, g.batch = 1;
  g.beta_zero = true;
  g.s = g.c;
  gemm(g);
}

}  // namespace

void grouped_gemm(const GroupedGemmDesc& d) {
  const GemmDesc& w = d.gemm;
  const size_t size = dtype_size(w.dtype);
  const int64_t extent = d.split == GroupedGemmDesc::Split::kRowsOfA   ? w.m
                         : d.split == GroupedGemmDesc::Split::kColsOfB ? w.n
                                                                       : w.k;
  int64_t start = 0, covered = 0;
  for (int64_t g = 0; g < d.groups; ++g) {
    const int64_t end_raw = d.offs[g];
    const int64_t lo = std::clamp<int64_t>(start, 0, extent), hi = std::clamp<int64_t>(end_raw, 0, extent);
    start = end_raw;
    GemmDesc p = w;
    p.batch = 1;
    p.beta_zero = true;
    switch (d.split) {
      case GroupedGemmDesc::Split::kRowsOfA:
        if (hi <= lo) continue;
        p.m = hi - lo;
        p.a.data = at_element(w.a.data, lo * w.a.row_stride, size);
        p.b.data = at_element(w.b.data, g * w.b.batch_stride, size);
        p.c.data = at_element(w.c.data, lo * w.c.row_stride, size);
        covered = std::max(covered, hi);
        break;
      case GroupedGemmDesc::Split::kColsOfB:
        if (hi <= lo) continue;
        p.n = hi - lo;
        p.a.data = at_element(w.a.data, g * w.a.batch_stride, size);
        p.b.data = at_element(w.b.data, lo * w.b.col_stride, size);
        p.c.data = at_element(w.c.data, lo * w.c.col_stride, size);
        covered = std::max(covered, hi);
        break;
      case GroupedGemmDesc::Split::kInner:
        p.k = std::max<int64_t>(hi - lo, 0);
        p.a.data = at_element(w.a.data, lo * w.a.col_stride, size);
        p.b.data = at_element(w.b.data, lo * w.b.row_stride, size);
        p.c.data = at_element(w.c.data, g * w.c.batch_stride, size);
        break;
    }
    p.s = p.c;
    gemm(p);
  }
  // What no group wrote: ATen's loop leaves it as allocated; zero is defined.
  if (d.split == GroupedGemmDesc::Split::kRowsOfA) zero_part(w, covered, w.m, 0, w.n, size);
  if (d.split == GroupedGemmDesc::Split::kColsOfB) zero_part(w, 0, w.m, covered, w.n, size);
}

}  // namespace torch_tpu::kernels
