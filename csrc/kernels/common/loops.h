// Strided iteration shared by copy and fill: a layout of N operands with a
// common shape is walked row by row (the innermost dimension is the row), so
// the per-element work is a tight loop and the index bookkeeping happens once
// per row. Private to the kernel library.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace torch_tpu::kernels {

// Bytes of work per parallel_for chunk: big enough to amortize scheduling,
// small enough to balance across cores and stay cache friendly.
constexpr int64_t kGrainBytes = 256 * 1024;

inline int64_t grain_elements(size_t bytes_per_element) {
  return std::max<int64_t>(1, kGrainBytes / static_cast<int64_t>(bytes_per_element));
}

template <int N>
struct Layout {
  std::vector<int64_t> sizes;                  // innermost last, at least one dim
  std::array<std::vector<int64_t>, N> strides;  // in elements, per operand

  int ndim() const { return static_cast<int>(sizes.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// Calls row(offsets, n) for the rows covering flat (row-major) element
// indices [begin, end): offsets[k] is operand k's element offset of the
// first element of the row piece, n its length (all along the last dim).
template <int N, typename RowFn>
void for_each_row(const Layout<N>& L, int64_t begin, int64_t end, RowFn&& row) {
  const int nd = L.ndim();
  const int64_t inner = L.sizes[nd - 1];
  int64_t outer = begin / inner;
  int64_t col = begin % inner;

  // Multi-index of the outer dims and the operands' offsets of that row.
  std::vector<int64_t> idx(nd > 1 ? nd - 1 : 0);
  std::array<int64_t, N> off{};
  for (int d = nd - 2; d >= 0; --d) {
    idx[d] = outer % L.sizes[d];
    outer /= L.sizes[d];
    for (int k = 0; k < N; ++k) off[k] += idx[d] * L.strides[k][d];
  }

  int64_t pos = begin;
  while (pos < end) {
    const int64_t n = std::min(inner - col, end - pos);
    std::array<int64_t, N> o;
    for (int k = 0; k < N; ++k) o[k] = off[k] + col * L.strides[k][nd - 1];
    row(o, n);
    pos += n;
    col = 0;
    // Advance the outer multi-index by one row.
    for (int d = nd - 2; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off[k] += L.strides[k][d];
      if (++idx[d] < L.sizes[d]) break;
      for (int k = 0; k < N; ++k) off[k] -= L.strides[k][d] * L.sizes[d];
      idx[d] = 0;
    }
  }
}

}  // namespace torch_tpu::kernels
