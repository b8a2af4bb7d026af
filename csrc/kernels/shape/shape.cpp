// tril/triu, arange, linspace, nonzero (shape.h).
#include "kernels/shape/shape.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

void check_desc(const TensorDesc& t, const char* op) {
  if (t.sizes.size() != t.strides.size()) throw std::invalid_argument(std::string(op) + ": malformed descriptor");
}

template <typename T>
void triangle_typed(const TensorDesc& out, const TensorDesc& self, int64_t k, bool lower) {
  const int64_t nd = out.dim();
  const int64_t M = out.sizes[nd - 2], N = out.sizes[nd - 1];
  int64_t batches = 1;
  for (int64_t d = 0; d < nd - 2; ++d) batches *= out.sizes[d];
  const int64_t orow = out.strides[nd - 2], ocol = out.strides[nd - 1];
  const int64_t srow = self.strides[nd - 2], scol = self.strides[nd - 1];
  const bool in_place = out.data == self.data && out.strides == self.strides;
  T* const ob = static_cast<T*>(out.data);
  const T* const sb = static_cast<const T*>(self.data);
  const T zero{};
  const int64_t grain = std::max<int64_t>(1, grain_elements(sizeof(T)) / std::max<int64_t>(1, N));
  runtime::parallel_for(0, batches * M, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / M, i = r % M;
      int64_t ooff = 0, soff = 0, rest = b;
      for (int64_t d = nd - 3; d >= 0; --d) {
        const int64_t c = rest % out.sizes[d];
        rest /= out.sizes[d];
        ooff += c * out.strides[d];
        soff += c * self.strides[d];
      }
      T* o = ob + ooff + i * orow;
      const T* s = sb + soff + i * srow;
      // Columns kept: lower: j <= i + k; upper: j >= i + k.
      const int64_t edge = i + k;
      const int64_t keep_begin = lower ? 0 : std::clamp<int64_t>(edge, 0, N);
      const int64_t keep_end = lower ? std::clamp<int64_t>(edge + 1, 0, N) : N;
      for (int64_t j = 0; j < keep_begin; ++j) o[j * ocol] = zero;
      if (!in_place) {
        if (ocol == 1 && scol == 1) {
          std::memcpy(o + keep_begin, s + keep_begin, sizeof(T) * (keep_end - keep_begin));
        } else {
          for (int64_t j = keep_begin; j < keep_end; ++j) o[j * ocol] = s[j * scol];
        }
      }
      for (int64_t j = keep_end; j < N; ++j) o[j * ocol] = zero;
    }
  });
}

// CPU's arange/linspace write dtype T from the computation type C.
template <typename T, typename C>
T to_elem(C v) {
  return convert<T>(v);
}

}  // namespace

void triangle(const TensorDesc& out, const TensorDesc& self, int64_t k, bool lower) {
  check_desc(out, "tril/triu");
  check_desc(self, "tril/triu");
  if (out.sizes != self.sizes || out.dtype != self.dtype || out.dim() < 2) {
    throw std::invalid_argument("tril/triu: out and self must match and have 2+ dims");
  }
  if (out.numel() == 0) return;
  visit_element_size(dtype_size(out.dtype), [&](auto tag) {
    triangle_typed<typename decltype(tag)::type>(out, self, k, lower);
  });
}

void arange(const TensorDesc& out, RangeScalar start, RangeScalar step) {
  check_desc(out, "arange");
  if (out.dim() != 1) throw std::invalid_argument("arange: out must be 1-D");
  const int64_t n = out.sizes[0], st = out.strides[0];
  if (n == 0) return;
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T> || std::is_same_v<T, Bool>) {
      throw std::invalid_argument("arange: unsupported dtype");
    } else {
      T* p = static_cast<T*>(out.data);
      runtime::parallel_for(0, n, grain_elements(sizeof(T)), [&](int64_t b, int64_t e) {
        if constexpr (std::is_integral_v<T>) {
          for (int64_t i = b; i < e; ++i) p[i * st] = static_cast<T>(start.i + step.i * i);
        } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
          const float s0 = static_cast<float>(start.d), s1 = static_cast<float>(step.d);
          for (int64_t i = b; i < e; ++i) p[i * st] = convert<T>(s0 + s1 * static_cast<float>(i));
        } else {
          for (int64_t i = b; i < e; ++i) p[i * st] = static_cast<T>(start.d + step.d * static_cast<double>(i));
        }
      });
    }
  });
}

void linspace(const TensorDesc& out, double start_d, double end_d, int64_t steps, double start_im,
              double end_im) {
  check_desc(out, "linspace");
  if (out.dim() != 1 || out.sizes[0] != steps || steps < 2) throw std::invalid_argument("linspace: bad out");
  const int64_t st = out.strides[0];
  const int64_t halfway = steps / 2;
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Bool>) {
      throw std::invalid_argument("linspace: unsupported dtype");
    } else if constexpr (is_complex_v<T>) {
      // CPU: start/end converted to complex<F>, step = (end - start) / F(n - 1)
      // and start + step * F(i) / end - step * F(n - 1 - i): each part alone.
      using F = decltype(T{}.re);
      const F s_re = static_cast<F>(start_d), s_im = static_cast<F>(start_im);
      const F e_re = static_cast<F>(end_d), e_im = static_cast<F>(end_im);
      const F n1 = static_cast<F>(steps - 1);
      const F step_re = (e_re - s_re) / n1, step_im = (e_im - s_im) / n1;
      T* p = static_cast<T*>(out.data);
      runtime::parallel_for(0, steps, grain_elements(sizeof(T)), [&](int64_t b, int64_t en) {
        for (int64_t i = b; i < en; ++i) {
          if (i < halfway) {
            const F k = static_cast<F>(i);
            p[i * st] = T{s_re + step_re * k, s_im + step_im * k};
          } else {
            const F k = static_cast<F>(steps - i - 1);
            p[i * st] = T{e_re - step_re * k, e_im - step_im * k};
          }
        }
      });
    } else {
      // CPU: start/end converted to the element type first; the step and the
      // values in double (integral) or the element's own type (float16 and
      // bfloat16 compute in float but round start/end/step to the type).
      using C = std::conditional_t<std::is_integral_v<T>, double,
                                   std::conditional_t<std::is_same_v<T, double>, double, float>>;
      const T start_t = convert<T>(start_d), end_t = convert<T>(end_d);
      const C s = static_cast<C>(real_value(start_t)), e = static_cast<C>(real_value(end_t));
      // float16/bfloat16 arithmetic rounds every intermediate (c10::Half).
      auto r = [](C x) -> C {
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
          return real_value(convert<T>(x));
        } else {
          return x;
        }
      };
      const C step = r(r(e - s) / r(static_cast<C>(steps - 1)));
      T* p = static_cast<T*>(out.data);
      runtime::parallel_for(0, steps, grain_elements(sizeof(T)), [&](int64_t b, int64_t en) {
        for (int64_t i = b; i < en; ++i) {
          const C v = i < halfway ? r(s + r(step * static_cast<C>(i))) : r(e - r(step * static_cast<C>(steps - i - 1)));
          p[i * st] = convert<T>(v);
        }
      });
    }
  });
}

// ---- nonzero ------------------------------------------------------------------

namespace {

// Per-element "is nonzero" for any dtype (complex: either part; NaN: yes).
template <typename T>
bool nonzero_elem(const T& x) {
  return convert<Bool>(x).v != 0;
}

template <typename Fn>
void visit_nonzero_rows(const TensorDesc& self, int64_t begin, int64_t end, Fn&& fn) {
  Layout<1> L;
  L.sizes = self.sizes.empty() ? std::vector<int64_t>{1} : self.sizes;
  L.strides = {self.sizes.empty() ? std::vector<int64_t>{0} : self.strides};
  for_each_row(L, begin, end, fn);
}

// Counts per chunk (fixed chunking), so the write pass knows where each
// chunk's coordinates start.
constexpr int64_t kNonzeroChunk = 1 << 16;

template <typename T>
std::vector<int64_t> chunk_counts(const TensorDesc& self) {
  const int64_t n = self.numel();
  const int64_t nchunks = (n + kNonzeroChunk - 1) / kNonzeroChunk;
  std::vector<int64_t> counts(nchunks, 0);
  const T* base = static_cast<const T*>(self.data);
  const int64_t inner_stride = self.sizes.empty() ? 0 : self.strides.back();
  runtime::parallel_for(0, nchunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      int64_t cnt = 0;
      visit_nonzero_rows(self, c * kNonzeroChunk, std::min(n, (c + 1) * kNonzeroChunk),
                         [&](const std::array<int64_t, 1>& off, int64_t len) {
                           const T* p = base + off[0];
                           for (int64_t j = 0; j < len; ++j) cnt += nonzero_elem(p[j * inner_stride]);
                         });
      counts[c] = cnt;
    }
  });
  return counts;
}

}  // namespace

void nonzero_count(const TensorDesc& self, int64_t* count) {
  check_desc(self, "nonzero");
  int64_t total = 0;
  if (self.numel() > 0) {
    visit_dtype_or_complex32(self.dtype, [&](auto tag) {  // complex32: either part nonzero
      for (int64_t c : chunk_counts<typename decltype(tag)::type>(self)) total += c;
    });
  }
  *count = total;
}

namespace {

// Writes the coordinates of self's nonzero elements into out's rows, in
// row-major order. exact: out has one row per nonzero (nonzero); otherwise
// (nonzero_static) rows past out's end are dropped and rows past the last
// nonzero are set to fill.
void nonzero_rows(const TensorDesc& out, const TensorDesc& self, bool exact, int64_t fill) {
  check_desc(self, "nonzero");
  check_desc(out, "nonzero");
  if (out.dtype != DType::kInt64 || out.dim() != 2) throw std::invalid_argument("nonzero: out must be [n, ndim] int64");
  const int64_t n = self.numel();
  const int64_t rows = out.sizes[0];
  const int64_t nd = self.dim();
  int64_t* ob = static_cast<int64_t*>(out.data);
  int64_t written = 0;
  if (n > 0 && rows > 0) {
    visit_dtype_or_complex32(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const std::vector<int64_t> counts = chunk_counts<T>(self);
      std::vector<int64_t> starts(counts.size() + 1, 0);
      for (size_t c = 0; c < counts.size(); ++c) starts[c + 1] = starts[c] + counts[c];
      if (exact && starts.back() != rows) throw std::runtime_error("nonzero: self changed between count and write");
      written = std::min(starts.back(), rows);
      const T* base = static_cast<const T*>(self.data);
      const int64_t inner_stride = self.sizes.empty() ? 0 : self.strides.back();
      runtime::parallel_for(0, static_cast<int64_t>(counts.size()), 1, [&](int64_t c0, int64_t c1) {
        std::vector<int64_t> coord(nd);
        for (int64_t c = c0; c < c1; ++c) {
          int64_t row = starts[c];
          if (row >= rows) continue;
          const int64_t b = c * kNonzeroChunk;
          int64_t flat = b;
          visit_nonzero_rows(self, b, std::min(n, (c + 1) * kNonzeroChunk),
                             [&](const std::array<int64_t, 1>& off, int64_t len) {
                               const T* p = base + off[0];
                               for (int64_t j = 0; j < len; ++j, ++flat) {
                                 if (!nonzero_elem(p[j * inner_stride]) || row >= rows) continue;
                                 int64_t rest = flat;
                                 for (int64_t d = nd - 1; d >= 0; --d) {
                                   coord[d] = rest % self.sizes[d];
                                   rest /= self.sizes[d];
                                 }
                                 int64_t* o = ob + row * out.strides[0];
                                 for (int64_t d = 0; d < nd; ++d) o[d * out.strides[1]] = coord[d];
                                 ++row;
                               }
                             });
        }
      });
    });
  }
  if (exact) return;
  for (int64_t r = written; r < rows; ++r) {
    for (int64_t d = 0; d < out.sizes[1]; ++d) ob[r * out.strides[0] + d * out.strides[1]] = fill;
  }
}

}  // namespace

void nonzero_write(const TensorDesc& out, const TensorDesc& self) { nonzero_rows(out, self, /*exact=*/true, 0); }

void nonzero_static_write(const TensorDesc& out, const TensorDesc& self, int64_t fill) {
  nonzero_rows(out, self, /*exact=*/false, fill);
}

}  // namespace torch_tpu::kernels
