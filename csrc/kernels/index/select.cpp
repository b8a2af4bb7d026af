// index_select (index.h): the embedding lookup. Work is split as
// (outer position, selected index) pairs; each copies one slice of the
// trailing dimensions: a memcpy when that slice is contiguous on both sides
// (an embedding row), else a strided element loop. Only bits move, so the
// loops are instantiated per element size.
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/index/index.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {

void IndexBounds::fail(int64_t k, int64_t size, int64_t own_dim) const {
  const std::string text = message ? std::string(message)
                                   : std::string(prefix) + "index " + std::to_string(k) +
                                         " is out of bounds for dimension " +
                                         std::to_string(dim >= 0 ? dim : own_dim) + " with size " +
                                         std::to_string(size);
  if (index_error) throw_index_error(text);
  throw_data_error(text);
}

namespace {

// The trailing dimensions (after `dim`) of out and self, merged where both
// allow it: one slice to copy per (outer, i).
struct Slice {
  Layout<2> L;       // operand 0 = out, 1 = self
  int64_t numel = 1;
  bool contiguous = false;  // both unit stride over one merged dim
};

Slice trailing_slice(const TensorDesc& out, const TensorDesc& self, int64_t dim) {
  TensorDesc o, s;
  o.dtype = out.dtype;
  s.dtype = self.dtype;
  for (size_t d = dim + 1; d < out.sizes.size(); ++d) {
    o.sizes.push_back(out.sizes[d]);
    o.strides.push_back(out.strides[d]);
    s.sizes.push_back(self.sizes[d]);
    s.strides.push_back(self.strides[d]);
  }
  Slice r;
  if (o.sizes.empty()) {
    r.L.sizes = {1};
    r.L.strides = {std::vector<int64_t>{1}, std::vector<int64_t>{1}};
    r.contiguous = true;
    return r;
  }
  coalesce_dims({&o, &s});
  r.L.sizes = o.sizes;
  r.L.strides = {o.strides, s.strides};
  r.numel = r.L.numel();
  r.contiguous = o.sizes.size() == 1 && (o.strides[0] == 1 || o.sizes[0] == 1) &&
                 (s.strides[0] == 1 || s.sizes[0] == 1);
  return r;
}

template <typename T>
void select_typed(const TensorDesc& out, const TensorDesc& self, int64_t dim, const TensorDesc& index) {
  const Slice slice = trailing_slice(out, self, dim);
  const int64_t nidx = index.numel();
  const bool idx32 = index.dtype == DType::kInt32;
  const int64_t idx_stride = index.sizes.empty() ? 0 : index.strides[0];
  const char* idx_base = static_cast<const char*>(index.data);
  const size_t idx_es = idx32 ? 4 : 8;
  const int64_t self_size = self.sizes[dim];
  const int64_t self_dim_stride = self.strides[dim];
  const int64_t out_dim_stride = out.strides[dim];

  // Leading dims (before `dim`), flattened row-major.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out.sizes[d];
  T* const out_base = static_cast<T*>(out.data);
  const T* const self_base = static_cast<const T*>(self.data);

  const int64_t grain = std::max<int64_t>(1, grain_elements(sizeof(T)) / std::max<int64_t>(1, slice.numel));
  runtime::parallel_for(0, outer * nidx, grain, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w) {
      const int64_t o = w / nidx, i = w % nidx;
      // Offsets of the leading position o in out and self.
      int64_t out_off = 0, self_off = 0, rest = o;
      for (int64_t d = dim - 1; d >= 0; --d) {
        const int64_t c = rest % out.sizes[d];
        rest /= out.sizes[d];
        out_off += c * out.strides[d];
        self_off += c * self.strides[d];
      }
      const int64_t k = [&] {
        int64_t v;
        const char* p = idx_base + i * idx_stride * static_cast<int64_t>(idx_es);
        if (idx32) {
          int32_t x;
          std::memcpy(&x, p, 4);
          v = x;
        } else {
          std::memcpy(&v, p, 8);
        }
        return v;
      }();
      if (k < 0 || k >= self_size) throw_index_error("index out of range in self");
      T* dst = out_base + out_off + i * out_dim_stride;
      const T* src = self_base + self_off + k * self_dim_stride;
      if (slice.contiguous) {
        std::memcpy(dst, src, static_cast<size_t>(slice.numel) * sizeof(T));
        continue;
      }
      for_each_row(slice.L, 0, slice.numel, [&](const std::array<int64_t, 2>& off, int64_t n) {
        T* dp = dst + off[0];
        const T* sp = src + off[1];
        const int64_t ds = slice.L.strides[0].back(), ss = slice.L.strides[1].back();
        for (int64_t j = 0; j < n; ++j) dp[j * ds] = sp[j * ss];
      });
    }
  });
}

}  // namespace

void index_select(const TensorDesc& out, const TensorDesc& self, int64_t dim, const TensorDesc& index) {
  if (out.dtype != self.dtype || out.sizes.size() != self.sizes.size() || dim < 0 ||
      dim >= static_cast<int64_t>(std::max<size_t>(1, self.sizes.size()))) {
    throw std::invalid_argument("index_select: malformed descriptors");
  }
  if (index.dtype != DType::kInt32 && index.dtype != DType::kInt64) {
    throw std::invalid_argument("index_select: index must be int32 or int64");
  }
  if (out.numel() == 0 || index.numel() == 0) return;
  if (self.sizes.empty()) {
    // 0-dim self: the only valid index is 0.
    TensorDesc o = out, s = self;
    o.sizes = {1}; o.strides = {1};
    s.sizes = {1}; s.strides = {1};
    return index_select(o, s, 0, index);
  }
  visit_element_size(dtype_size(out.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    select_typed<T>(out, self, dim, index);
  });
}

}  // namespace torch_tpu::kernels
