// Strided iteration for the indexing kernels: like loops.h's for_each_row,
// but over a number of operands known only at run time (advanced indexing
// has one index operand per indexed dimension). Private to the kernel
// library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/elementwise/elementwise.h"

namespace torch_tpu::kernels {

struct DynLayout {
  std::vector<int64_t> sizes;                 // innermost last, at least one dim
  std::vector<std::vector<int64_t>> strides;  // per operand, per dim (any unit)

  int ndim() const { return static_cast<int>(sizes.size()); }
  int noperands() const { return static_cast<int>(strides.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// The layout of a TensorIterator-shaped descriptor (shape fastest first,
// byte strides): innermost last, all operands, byte strides.
inline DynLayout iterator_layout(const ElementwiseDesc& d) {
  DynLayout L;
  const int nd = static_cast<int>(d.shape.size());
  L.strides.resize(d.operands.size());
  if (nd == 0) {
    L.sizes = {1};
    for (auto& s : L.strides) s = {0};
    return L;
  }
  for (int i = nd - 1; i >= 0; --i) L.sizes.push_back(d.shape[i]);
  for (size_t k = 0; k < d.operands.size(); ++k) {
    const ElementwiseOperand& o = d.operands[k];
    if (o.by_value) {  // a host scalar carried in the descriptor: stride 0
      L.strides[k].assign(nd, 0);
      continue;
    }
    if (static_cast<int>(o.strides.size()) != nd) throw std::invalid_argument("indexing kernels: bad strides");
    for (int i = nd - 1; i >= 0; --i) L.strides[k].push_back(o.strides[i]);
  }
  return L;
}

// Where an operand's element (0, ..., 0) is: device memory, or the value
// carried by the descriptor.
inline const char* operand_data(const ElementwiseOperand& o) {
  return o.by_value ? reinterpret_cast<const char*>(o.value) : static_cast<const char*>(o.data);
}

// Calls row(offsets, n) for the rows covering flat (row-major) element
// indices [begin, end): offsets[k] is operand k's offset of the row piece's
// first element, n its length along the innermost dimension.
template <typename RowFn>
void for_each_row_dyn(const DynLayout& L, int64_t begin, int64_t end, RowFn&& row) {
  const int nd = L.ndim();
  const int nops = L.noperands();
  const int64_t inner = L.sizes[nd - 1];
  int64_t outer = begin / inner;
  int64_t col = begin % inner;
  std::vector<int64_t> idx(nd > 1 ? nd - 1 : 0);
  std::vector<int64_t> off(nops, 0), o(nops);
  for (int d = nd - 2; d >= 0; --d) {
    idx[d] = outer % L.sizes[d];
    outer /= L.sizes[d];
    for (int k = 0; k < nops; ++k) off[k] += idx[d] * L.strides[k][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t n = std::min(inner - col, end - pos);
    for (int k = 0; k < nops; ++k) o[k] = off[k] + col * L.strides[k][nd - 1];
    row(o.data(), n);
    pos += n;
    col = 0;
    for (int d = nd - 2; d >= 0; --d) {
      for (int k = 0; k < nops; ++k) off[k] += L.strides[k][d];
      if (++idx[d] < L.sizes[d]) break;
      for (int k = 0; k < nops; ++k) off[k] -= L.strides[k][d] * L.sizes[d];
      idx[d] = 0;
    }
  }
}

// An index element (int64 or int32) at a byte address.
inline int64_t load_index(const char* p, bool is_int32) {
  return is_int32 ? static_cast<int64_t>(*reinterpret_cast<const int32_t*>(p))
                  : *reinterpret_cast<const int64_t*>(p);
}

}  // namespace torch_tpu::kernels
