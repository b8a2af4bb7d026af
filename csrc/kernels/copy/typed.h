// Private to the kernel library: the typed loops of copy_strided (copy.h),
// shared by copy.cpp and the to_*.cpp files. Instantiating them for all
// 15 x 14 converting dtype pairs in one translation unit took about a minute,
// so each to_*.cpp instantiates the pairs of one group of destination
// dtypes and a parallel build compiles the groups side by side.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {

// ---- element loops ------------------------------------------------------

// Kept out of line: one copy per dtype pair, and a named symbol whose
// assembly shows whether the loop vectorized.
template <typename To, typename From>
__attribute__((noinline)) void convert_contiguous(To* __restrict d, const From* __restrict s, int64_t n) {
  if constexpr (std::is_same_v<To, From>) {
    if (static_cast<const void*>(d) != static_cast<const void*>(s)) {
      std::memcpy(d, s, static_cast<size_t>(n) * sizeof(To));
    }
  } else if constexpr (std::is_same_v<To, Half> && std::is_same_v<From, float>) {
    float_to_half_n(d, s, n);
  } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, Half>) {
    half_to_float_n(d, s, n);
  } else if constexpr (std::is_same_v<From, Bool>) {
    // A select between the two possible results: GCC vectorizes this (on the
    // scalar members for struct types), but not the bool -> float conversion
    // it reduces `convert` to.
    const uint8_t* b = reinterpret_cast<const uint8_t*>(s);
    const To one = convert<To>(Bool{1}), zero = convert<To>(Bool{0});
    if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
      for (int64_t i = 0; i < n; ++i) d[i].bits = b[i] ? one.bits : zero.bits;
    } else if constexpr (is_complex_v<To>) {
      for (int64_t i = 0; i < n; ++i) {
        d[i].re = b[i] ? one.re : zero.re;
        d[i].im = zero.im;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) d[i] = b[i] ? one : zero;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(s[i]);
  }
}

template <typename T>
void fill_row(T* d, int64_t ds, T v, int64_t n) {
  if (ds == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = v;
  }
}

// One row: n elements with element strides ds (dst) and ss (src).
template <typename To, typename From>
void convert_row(To* d, int64_t ds, const From* s, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 1) {
    convert_contiguous(d, s, n);
  } else if (ss == 0) {  // broadcast source: convert once
    fill_row(d, ds, convert<To>(*s), n);
  } else if (ds == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(s[i * ss]);
  } else if (ss == 1) {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = convert<To>(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = convert<To>(s[i * ss]);
  }
}

// ---- layouts ------------------------------------------------------------

struct CopyPlan {
  Layout<2> layout;  // operand 0 = dst, 1 = src
  bool tiled = false;  // last two dims form a transpose (see make_plan in copy.cpp)
};

// ---- kernels ----------------------------------------------------------------
//
// The row and tile walks below depend on the element sizes only; per dtype
// pair there is only its row converter (convert_row, called once per row or
// tile column). Walking the layout in each of the ~210 pairs' own copy was
// most of these files' compile time.

// n elements from s (element stride ss) converted into d (element stride ds).
using ConvertRowFn = void (*)(void* d, int64_t ds, const void* s, int64_t ss, int64_t n);

template <typename To, typename From>
void convert_row_of(void* d, int64_t ds, const void* s, int64_t ss, int64_t n) {
  convert_row(static_cast<To*>(d), ds, static_cast<const From*>(s), ss, n);
}

inline void copy_rows(const Layout<2>& L, char* dst, int64_t to_size, const char* src, int64_t from_size,
                      ConvertRowFn row) {
  const int64_t ds = L.strides[0].back();
  const int64_t ss = L.strides[1].back();
  const int64_t grain = grain_elements(static_cast<size_t>(std::max(to_size, from_size)));
  runtime::parallel_for(0, L.numel(), grain, [&](int64_t begin, int64_t end) {
    for_each_row(L, begin, end, [&](const std::array<int64_t, 2>& off, int64_t n) {
      row(dst + off[0] * to_size, ds, src + off[1] * from_size, ss, n);
    });
  });
}

// Last two dims: A (src stride 1) then B (dst stride 1). Each tile is read
// from src along A (contiguous), converted into a small buffer, and written
// to dst along B (contiguous), so neither side walks memory with a large
// stride inside a cache line's lifetime. Work unit: a strip of T values of A
// (all of B) for one index of the outer dims.
inline void copy_tiled(const Layout<2>& L, char* dst, int64_t to_size, const char* src, int64_t from_size,
                       ConvertRowFn row) {
  const int64_t T = to_size <= 4 ? 64 : 32;  // a tile is at most 16 KiB: it stays in L1
  const int nd = L.ndim();
  const int64_t size_a = L.sizes[nd - 2], size_b = L.sizes[nd - 1];
  const int64_t da = L.strides[0][nd - 2], sb = L.strides[1][nd - 1];
  const int64_t strips = (size_a + T - 1) / T;
  int64_t outer = 1;
  for (int i = 0; i < nd - 2; ++i) outer *= L.sizes[i];
  const int64_t grain =
      std::max<int64_t>(1, grain_elements(static_cast<size_t>(std::max(to_size, from_size))) / (T * size_b));

  runtime::parallel_for(0, outer * strips, grain, [&](int64_t begin, int64_t end) {
    alignas(64) char buf[16384];
    for (int64_t u = begin; u < end; ++u) {
      int64_t o = u / strips;
      const int64_t a0 = (u % strips) * T;
      const int64_t na = std::min(T, size_a - a0);
      int64_t doff = 0, soff = 0;
      for (int i = nd - 3; i >= 0; --i) {
        const int64_t idx = o % L.sizes[i];
        o /= L.sizes[i];
        doff += idx * L.strides[0][i];
        soff += idx * L.strides[1][i];
      }
      char* d = dst + (doff + a0 * da) * to_size;
      const char* s = src + (soff + a0) * from_size;
      for (int64_t b0 = 0; b0 < size_b; b0 += T) {
        const int64_t nb = std::min(T, size_b - b0);
        // Column b of the tile: buf[a * T + b] for a < na.
        for (int64_t b = 0; b < nb; ++b) row(buf + b * to_size, T, s + (b0 + b) * sb * from_size, 1, na);
        for (int64_t a = 0; a < na; ++a) {
          std::memcpy(d + (a * da + b0) * to_size, buf + a * T * to_size, static_cast<size_t>(nb * to_size));
        }
      }
    }
  });
}

template <typename To, typename From>
void copy_typed(const CopyPlan& p, void* dst, const void* src) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  if (p.tiled) {
    copy_tiled(p.layout, d, sizeof(To), s, sizeof(From), &convert_row_of<To, From>);
  } else {
    copy_rows(p.layout, d, sizeof(To), s, sizeof(From), &convert_row_of<To, From>);
  }
}

// Copies with To = the storage type of `to` when it is one of Tos (From =
// that of `from`, a different dtype); returns false, doing nothing, when
// `to` belongs to another group.
template <typename... Tos>
bool copy_converting_to(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  return visit_dtype(to, [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    if constexpr ((std::is_same_v<To, Tos> || ...)) {
      visit_dtype(from, [&](auto from_tag) {
        using From = typename decltype(from_tag)::type;
        if constexpr (!std::is_same_v<To, From>) {  // same dtype: copy.cpp moves bits by element size
          copy_typed<To, From>(p, dst, src);
        }
      });
      return true;
    } else {
      return false;
    }
  });
}

// The converting copies, one group of destination dtypes per translation
// unit (copy_to_<group>.cpp); each returns false when `to` is in another group.
bool copy_to_bool(DType to, DType from, const CopyPlan& p, void* dst, const void* src);
bool copy_to_signed_int(DType to, DType from, const CopyPlan& p, void* dst, const void* src);
bool copy_to_unsigned_int(DType to, DType from, const CopyPlan& p, void* dst, const void* src);
bool copy_to_float16(DType to, DType from, const CopyPlan& p, void* dst, const void* src);  // and bfloat16
bool copy_to_float_or_complex(DType to, DType from, const CopyPlan& p, void* dst, const void* src);
// To or from complex32 (either side; the groups above take neither).
bool copy_complex32(DType to, DType from, const CopyPlan& p, void* dst, const void* src);

}  // namespace torch_tpu::kernels
