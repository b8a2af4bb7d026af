// fill (copy.h): write one element value everywhere in dst.
//
// Only bits move, so the loops are instantiated per element size. When all
// bytes of the value are equal (zero_, fill_(-1) on ints, ...) rows become
// memset; otherwise a store loop the compiler turns into vector stores.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/copy/copy.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// Contiguous run of a repeated value. The value is a local copy so the
// compiler knows the stores cannot change it (no aliasing checks).
template <typename T>
void fill_contiguous(T* p, T value, int64_t n) {
  if constexpr (std::is_same_v<T, Bytes16>) {
    // As interleaved 8-byte halves, which GCC vectorizes (the struct it does not).
    uint64_t* q = reinterpret_cast<uint64_t*>(p);
    const uint64_t lo = value.lo, hi = value.hi;
    for (int64_t i = 0; i < n; ++i) {
      q[2 * i] = lo;
      q[2 * i + 1] = hi;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) p[i] = value;
  }
}

template <typename T>
void fill_typed(const Layout<1>& L, void* data, const T value, bool bytes_equal, uint8_t byte) {
  T* base = static_cast<T*>(data);
  const int64_t stride = L.strides[0].back();
  runtime::parallel_for(0, L.numel(), grain_elements(sizeof(T)), [&](int64_t begin, int64_t end) {
    const T v = value;
    for_each_row(L, begin, end, [&](const std::array<int64_t, 1>& off, int64_t n) {
      T* p = base + off[0];
      if (stride == 1 && bytes_equal) {
        std::memset(p, byte, static_cast<size_t>(n) * sizeof(T));
      } else if (stride == 1) {
        fill_contiguous(p, v, n);
      } else {
        for (int64_t i = 0; i < n; ++i) p[i * stride] = v;
      }
    });
  });
}

}  // namespace

void fill(const TensorDesc& dst, const void* value) {
  if (dst.strides.size() != dst.sizes.size()) {
    throw std::invalid_argument("fill: dst has " + std::to_string(dst.sizes.size()) +
                                " sizes but " + std::to_string(dst.strides.size()) + " strides");
  }
  for (size_t i = 0; i < dst.sizes.size(); ++i) {
    if (dst.sizes[i] < 0 || dst.strides[i] < 0) {
      throw std::invalid_argument("fill: negative size or stride");
    }
  }
  if (dst.numel() == 0) return;
  if (dst.data == nullptr || value == nullptr) throw std::invalid_argument("fill: null pointer");

  const size_t es = dtype_size(dst.dtype);
  uint8_t bytes[16];
  std::memcpy(bytes, value, es);  // read the value once, before any core starts
  const bool bytes_equal = std::all_of(bytes, bytes + es, [&](uint8_t b) { return b == bytes[0]; });

  // Dims of stride 0 write the same elements again: drop them (the result is
  // the same), then merge the rest.
  TensorDesc d = dst;
  for (size_t i = 0; i < d.sizes.size(); ++i) {
    if (d.strides[i] == 0) d.sizes[i] = 1;
  }
  coalesce_dims({&d});
  Layout<1> L;
  L.sizes = d.sizes;
  L.strides = {d.strides};

  visit_element_size(es, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    fill_typed<T>(L, dst.data, v, bytes_equal, bytes[0]);
  });
}

}  // namespace torch_tpu::kernels
