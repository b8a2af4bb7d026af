// copy_strided and convert_element (copy.h).
//
// Plan: coalesce dims; order them so dst is written sequentially; then one of
//   - contiguous on both sides: memcpy (same dtype) or a conversion loop the
//     compiler vectorizes, split across cores;
//   - a transpose (dst unit stride on the inner dim, src unit stride on
//     another): cache-sized tiles, so both sides touch whole cache lines;
//   - anything else: rows along the innermost dim with an index counter for
//     the outer dims; the flat index range is split across cores.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "copy.h"
#include "dtype_dispatch.h"
#include "loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

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

// Tile edge for the transpose path: a tile of the destination type is at
// most 16 KiB, so it stays in L1 next to the source and destination lines.
template <typename To>
constexpr int64_t tile_edge() {
  return sizeof(To) <= 4 ? 64 : 32;
}

struct CopyPlan {
  Layout<2> layout;  // operand 0 = dst, 1 = src
  bool tiled = false;  // last two dims form a transpose (see make_plan)
};

// Orders the dims so dst strides decrease (dst is written in order), merges
// what can be merged, and detects the transpose case, moving the src
// unit-stride dim next to the innermost one.
CopyPlan make_plan(TensorDesc d, TensorDesc s) {
  coalesce_dims({&d, &s});
  const int nd = static_cast<int>(d.sizes.size());
  std::vector<int> perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) {
    if (d.strides[a] != d.strides[b]) return d.strides[a] > d.strides[b];
    return s.strides[a] > s.strides[b];
  });
  TensorDesc d2 = d, s2 = s;
  for (int i = 0; i < nd; ++i) {
    d2.sizes[i] = s2.sizes[i] = d.sizes[perm[i]];
    d2.strides[i] = d.strides[perm[i]];
    s2.strides[i] = s.strides[perm[i]];
  }
  coalesce_dims({&d2, &s2});

  CopyPlan p;
  p.layout.sizes = d2.sizes;
  p.layout.strides = {d2.strides, s2.strides};
  auto& sz = p.layout.sizes;
  auto& ds = p.layout.strides[0];
  auto& ss = p.layout.strides[1];
  const int n = static_cast<int>(sz.size());
  if (n >= 2 && ds[n - 1] == 1 && ss[n - 1] > 1 && sz[n - 1] >= 4) {
    for (int k = n - 2; k >= 0; --k) {
      if (ss[k] == 1 && sz[k] >= 4) {
        // Any dim order is valid for an elementwise copy.
        std::rotate(sz.begin() + k, sz.begin() + k + 1, sz.begin() + n - 1);
        std::rotate(ds.begin() + k, ds.begin() + k + 1, ds.begin() + n - 1);
        std::rotate(ss.begin() + k, ss.begin() + k + 1, ss.begin() + n - 1);
        p.tiled = true;
        break;
      }
    }
  }
  return p;
}

// ---- typed kernels --------------------------------------------------------

template <typename To, typename From>
void copy_rows(const Layout<2>& L, To* dst, const From* src) {
  const int64_t ds = L.strides[0].back();
  const int64_t ss = L.strides[1].back();
  const int64_t grain = grain_elements(std::max(sizeof(To), sizeof(From)));
  runtime::parallel_for(0, L.numel(), grain, [&](int64_t begin, int64_t end) {
    for_each_row(L, begin, end, [&](const std::array<int64_t, 2>& off, int64_t n) {
      convert_row(dst + off[0], ds, src + off[1], ss, n);
    });
  });
}

// Last two dims: A (src stride 1) then B (dst stride 1). Each tile is read
// from src along A (contiguous), converted into a small buffer, and written
// to dst along B (contiguous), so neither side walks memory with a large
// stride inside a cache line's lifetime. Work unit: a strip of T values of A
// (all of B) for one index of the outer dims.
template <typename To, typename From>
void copy_tiled(const Layout<2>& L, To* dst, const From* src) {
  constexpr int64_t T = tile_edge<To>();
  const int nd = L.ndim();
  const int64_t size_a = L.sizes[nd - 2], size_b = L.sizes[nd - 1];
  const int64_t da = L.strides[0][nd - 2], sb = L.strides[1][nd - 1];
  const int64_t strips = (size_a + T - 1) / T;
  int64_t outer = 1;
  for (int i = 0; i < nd - 2; ++i) outer *= L.sizes[i];
  const int64_t grain = std::max<int64_t>(
      1, grain_elements(std::max(sizeof(To), sizeof(From))) / (T * size_b));

  runtime::parallel_for(0, outer * strips, grain, [&](int64_t begin, int64_t end) {
    To buf[T * T];
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
      To* d = dst + doff + a0 * da;
      const From* s = src + soff + a0;
      for (int64_t b0 = 0; b0 < size_b; b0 += T) {
        const int64_t nb = std::min(T, size_b - b0);
        for (int64_t b = 0; b < nb; ++b) {
          const From* scol = s + (b0 + b) * sb;
          for (int64_t a = 0; a < na; ++a) buf[a * T + b] = convert<To>(scol[a]);
        }
        for (int64_t a = 0; a < na; ++a) {
          To* drow = d + a * da + b0;
          const To* brow = buf + a * T;
          for (int64_t b = 0; b < nb; ++b) drow[b] = brow[b];
        }
      }
    }
  });
}

template <typename To, typename From>
void copy_typed(const CopyPlan& p, void* dst, const void* src) {
  To* d = static_cast<To*>(dst);
  const From* s = static_cast<const From*>(src);
  if (p.tiled) {
    copy_tiled(p.layout, d, s);
  } else {
    copy_rows(p.layout, d, s);
  }
}

void check_desc(const TensorDesc& t, const char* what) {
  if (t.strides.size() != t.sizes.size()) {
    throw std::invalid_argument(std::string("copy_strided: ") + what + " has " +
                                std::to_string(t.sizes.size()) + " sizes but " +
                                std::to_string(t.strides.size()) + " strides");
  }
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] < 0 || t.strides[i] < 0) {
      throw std::invalid_argument(std::string("copy_strided: ") + what +
                                  " has a negative size or stride");
    }
  }
}

}  // namespace

void copy_strided(const TensorDesc& dst, const TensorDesc& src) {
  check_desc(dst, "dst");
  check_desc(src, "src");
  if (dst.sizes != src.sizes) {
    throw std::invalid_argument("copy_strided: dst and src sizes differ");
  }
  const int64_t n = dst.numel();
  if (n == 0) return;
  if (dst.data == nullptr || src.data == nullptr) {
    throw std::invalid_argument("copy_strided: null data pointer");
  }

  if (dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.data == src.data) return;  // a copy onto itself
    const int64_t bytes = n * static_cast<int64_t>(dtype_size(dst.dtype));
    char* d = static_cast<char*>(dst.data);
    const char* s = static_cast<const char*>(src.data);
    runtime::parallel_for(0, bytes, kGrainBytes, [&](int64_t begin, int64_t end) {
      // Grain-sized pieces even inside a big chunk: glibc switches to
      // non-temporal stores for very large memcpy calls, which measured
      // slower here than cache-sized pieces (13.7 vs 10.1 GB/s on 64 MiB).
      for (int64_t p = begin; p < end; p += kGrainBytes) {
        std::memcpy(d + p, s + p, static_cast<size_t>(std::min(kGrainBytes, end - p)));
      }
    });
    return;
  }

  const CopyPlan plan = make_plan(dst, src);
  if (dst.dtype == src.dtype) {
    // Only bits move: instantiate per element size, not per dtype.
    visit_element_size(dtype_size(dst.dtype), [&](auto tag) {
      using T = typename decltype(tag)::type;
      copy_typed<T, T>(plan, dst.data, src.data);
    });
    return;
  }
  visit_dtype(dst.dtype, [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    visit_dtype(src.dtype, [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      if constexpr (!std::is_same_v<To, From>) {  // same dtype was handled above
        copy_typed<To, From>(plan, dst.data, src.data);
      }
    });
  });
}

void convert_element(DType to, void* dst, DType from, const void* src) {
  visit_dtype(to, [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    visit_dtype(from, [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      From x;
      std::memcpy(&x, src, sizeof(From));  // src/dst may be unaligned
      const To y = convert<To>(x);
      std::memcpy(dst, &y, sizeof(To));
    });
  });
}

}  // namespace torch_tpu::kernels
