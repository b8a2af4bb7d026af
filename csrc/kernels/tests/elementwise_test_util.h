// Helpers shared by the elementwise kernel tests: strided host buffers of any
// dtype, descriptors over them, values set and read through convert_element.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/copy/copy.h"
#include "kernels/elementwise/elementwise.h"

namespace ew_test {

using namespace torch_tpu::kernels;

// A host buffer of `storage` elements of `dtype` (pre-set to 0xCD bytes) and a
// view of it with an iteration shape and strides, both fastest dim first, in
// elements.
struct Buf {
  DType dtype;
  std::vector<unsigned char> bytes;
  int64_t offset = 0;
  std::vector<int64_t> strides;  // elements, per iteration dim

  size_t es() const { return dtype_size(dtype); }
  unsigned char* at(int64_t elem) { return bytes.data() + elem * es(); }
  const unsigned char* at(int64_t elem) const { return bytes.data() + elem * es(); }
  ElementwiseOperand operand() {
    std::vector<int64_t> b;
    for (int64_t s : strides) b.push_back(s * static_cast<int64_t>(es()));
    return ElementwiseOperand::tensor(at(offset), dtype, b);
  }
};

inline Buf make_buf(DType t, int64_t storage, int64_t offset, std::vector<int64_t> strides) {
  return Buf{t, std::vector<unsigned char>(storage * dtype_size(t), 0xCD), offset, std::move(strides)};
}

// Contiguous (dense, fastest dim first) buffer for `shape`.
inline Buf dense(DType t, const std::vector<int64_t>& shape) {
  std::vector<int64_t> st;
  int64_t n = 1;
  for (int64_t s : shape) {
    st.push_back(n);
    n *= s;
  }
  return make_buf(t, n, 0, st);
}

inline void set_value(Buf& b, int64_t elem, double re, double im = 0) {
  const double z[2] = {re, im};
  convert_element(b.dtype, b.at(elem), DType::kComplex128, z);
}

// The element as complex128 (exact for every dtype).
inline std::pair<double, double> get_value(const Buf& b, int64_t elem) {
  double z[2];
  convert_element(DType::kComplex128, z, b.dtype, b.at(elem));
  return {z[0], z[1]};
}

// Visits the element offsets (in elements) of the views, for every index of
// `shape` (fastest dim first).
template <typename F>
void for_each_index(const std::vector<int64_t>& shape, const std::vector<const Buf*>& bufs, F&& f) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<int64_t> idx(shape.size(), 0);
  std::vector<int64_t> off(bufs.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < bufs.size(); ++k) {
      off[k] = bufs[k]->offset;
      for (size_t d = 0; d < shape.size(); ++d) off[k] += idx[d] * bufs[k]->strides[d];
    }
    f(off);
    for (size_t d = 0; d < shape.size(); ++d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Bitwise equality with every NaN equal to every other NaN (per part).
inline bool same_value(DType t, const unsigned char* a, const unsigned char* b) {
  if (std::memcmp(a, b, dtype_size(t)) == 0) return true;
  double x[2], y[2];
  convert_element(DType::kComplex128, x, t, a);
  convert_element(DType::kComplex128, y, t, b);
  for (int i = 0; i < 2; ++i) {
    const bool both_nan = std::isnan(x[i]) && std::isnan(y[i]);
    if (!both_nan && std::memcmp(&x[i], &y[i], sizeof(double)) != 0) return false;
  }
  return true;
}

}  // namespace ew_test
