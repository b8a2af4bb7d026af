// Max, average, adaptive average and adaptive max pooling over 1 to 3 spatial dimensions
// (nn.h), forward and backward. The planes split over the device cores; a
// plane is widened once into the compute type (float, double for float64),
// its windows reduced there, and the result rounded once. Backward
// accumulates a plane's gradient in the compute type, then rounds.
// Integer planes (forward only: integers have no gradient) are reduced in
// their own type, as CPU's kernels: max pooling for uint8..int64, average
// pooling for int64 (the only integer dtype CPU averages).
#include "kernels/common/fp_contract.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/nn/nn.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

bool takes_max(PoolKind kind) { return kind == PoolKind::kMax || kind == PoolKind::kAdaptiveMax; }

struct Window {
  int64_t lo = 0, hi = 0, step = 1;  // taps lo, lo + step, ... < hi
  int64_t size = 0;                  // avg with count_include_pad: the divisor's factor
};

// The windows of one dimension, one per output index.
std::vector<Window> windows(const PoolDesc& d, int dim) {
  const int64_t in = d.in[dim], out = d.out[dim], k = d.kernel[dim], s = d.stride[dim];
  const int64_t p = d.padding[dim], dil = d.dilation[dim];
  std::vector<Window> w(out);
  for (int64_t o = 0; o < out; ++o) {
    Window& v = w[o];
    switch (d.kind) {
      case PoolKind::kMax: {
        v.lo = o * s - p;
        v.hi = std::min(v.lo + (k - 1) * dil + 1, in);
        while (v.lo < 0) v.lo += dil;
        v.step = dil;
        break;
      }
      case PoolKind::kAvg: {
        v.lo = o * s - p;
        v.hi = std::min(v.lo + k, in + p);
        v.size = v.hi - v.lo;
        v.lo = std::max<int64_t>(v.lo, 0);
        v.hi = std::min(v.hi, in);
        break;
      }
      case PoolKind::kAdaptiveAvg:
      case PoolKind::kAdaptiveMax: {
        v.lo = (o * in) / out;
        v.hi = ((o + 1) * in + out - 1) / out;
        v.size = v.hi - v.lo;
        break;
      }
    }
  }
  return w;
}

struct Plan {
  std::vector<Window> w[3];
  int64_t in_total = 1, out_total = 1;
};

Plan plan_of(const PoolDesc& d) {
  Plan p;
  for (int i = 0; i < 3; ++i) {
    p.w[i] = windows(d, i);
    p.in_total *= d.in[i];
    p.out_total *= d.out[i];
  }
  return p;
}

// Calls f(o, divisor, empty, taps) for every output position, with the flat
// input offsets of the window's taps visited through taps(visit). The
// divisor is an integer, as CPU's divide_factor: the float kernels convert
// it, int64 average pooling divides by it.
template <typename F>
void for_each_window(const PoolDesc& d, const Plan& p, F&& f) {
  const int64_t i1 = d.in[1], i2 = d.in[2];
  int64_t o = 0;
  for (const Window& a : p.w[0]) {
    for (const Window& b : p.w[1]) {
      for (const Window& c : p.w[2]) {
        int64_t divisor = 1;
        if (!takes_max(d.kind)) {
          if (d.divisor_override != 0) {
            divisor = d.divisor_override;
          } else if (d.kind == PoolKind::kAvg && d.count_include_pad) {
            divisor = a.size * b.size * c.size;
          } else {
            divisor = (a.hi - a.lo) * (b.hi - b.lo) * (c.hi - c.lo);
          }
        }
        auto taps = [&](auto&& visit) {
          for (int64_t x = a.lo; x < a.hi; x += a.step) {
            for (int64_t y = b.lo; y < b.hi; y += b.step) {
              const int64_t row = (x * i1 + y) * i2;
              for (int64_t z = c.lo; z < c.hi; z += c.step) visit(row + z);
            }
          }
        };
        const bool empty = a.lo >= a.hi || b.lo >= b.hi || c.lo >= c.hi;
        f(o, divisor, empty, taps);
        ++o;
      }
    }
  }
}

// Max pooling of 1-d and 2-d planes, a row of windows at a time: the plane
// goes into a border of -inf wide enough for every window (ceil_mode's
// last ones included), and each tap updates the whole row's running maxima
// and indices. The row's windows are independent, so the compares pipeline
// and vectorise; per window, one dependent compare-and-branch per tap was
// the kernel's time. A border tap never wins (-inf > max is false, and it
// is not NaN), so taps visit in the generic loop's order with the same
// result: the last NaN, else the first maximum.
bool max_rows_fit(const PoolDesc& d) {
  return d.kind == PoolKind::kMax && d.in[0] == 1 && d.out[0] == 1 && d.kernel[0] == 1 && d.padding[0] == 0;
}

template <typename C>
void max_plane_rows(const PoolDesc& d, const Plan& p, const C* in, C* out, int64_t* idx,
                    std::vector<C>& padded, std::vector<C>& best, std::vector<int64_t>& where) {
  const int64_t ih = d.in[1], iw = d.in[2], oh = d.out[1], ow = d.out[2];
  const int64_t kh = d.kernel[1], kw = d.kernel[2], sh = d.stride[1], sw = d.stride[2];
  const int64_t ph = d.padding[1], pw = d.padding[2], dh = d.dilation[1], dw = d.dilation[2];
  // Padded rows/columns cover [-p, max(in, last tap + 1)).
  const int64_t rows = std::max(ih, (oh - 1) * sh - ph + (kh - 1) * dh + 1) + ph;
  const int64_t cols = std::max(iw, (ow - 1) * sw - pw + (kw - 1) * dw + 1) + pw;
  padded.assign(rows * cols, -std::numeric_limits<C>::infinity());
  for (int64_t r = 0; r < ih; ++r) std::copy(in + r * iw, in + (r + 1) * iw, padded.data() + (r + ph) * cols + pw);
  best.resize(ow);
  where.resize(ow);
  for (int64_t o = 0; o < oh; ++o) {
    const Window& a = p.w[1][o];
    for (int64_t c = 0; c < ow; ++c) {
      best[c] = -std::numeric_limits<C>::infinity();
      where[c] = a.lo * iw + p.w[2][c].lo;  // the window's first real tap
    }
    for (int64_t i = 0; i < kh; ++i) {
      const int64_t r = o * sh + i * dh;  // padded row
      for (int64_t j = 0; j < kw; ++j) {
        const C* src = padded.data() + r * cols + j * dw;
        const int64_t flat = (r - ph) * iw + j * dw - pw;  // unpadded index of column 0's tap
        for (int64_t c = 0; c < ow; ++c) {
          const C v = src[c * sw];
          const bool take = (v > best[c]) | (v != v);
          best[c] = take ? v : best[c];
          where[c] = take ? flat + c * sw : where[c];
        }
      }
    }
    std::copy(best.begin(), best.end(), out + o * ow);
    if (idx) std::copy(where.begin(), where.end(), idx + o * ow);
  }
}

template <typename C>
void forward_typed(const PoolDesc& d, const void* x, void* y, int64_t* indices) {
  const Plan p = plan_of(d);
  const bool rows = max_rows_fit(d);
  runtime::parallel_for(0, d.planes, nn::rows_grain(p.in_total), [&](int64_t b, int64_t e) {
    std::vector<C> in(p.in_total), out(p.out_total), padded, best;
    std::vector<int64_t> where;
    for (int64_t plane = b; plane < e; ++plane) {
      nn::load_row(x, d.dtype, plane * p.in_total, p.in_total, in.data());
      int64_t* idx = indices ? indices + plane * p.out_total : nullptr;
      if (rows) {
        max_plane_rows(d, p, in.data(), out.data(), idx, padded, best, where);
        nn::store_row(out.data(), p.out_total, y, d.dtype, plane * p.out_total);
        continue;
      }
      for_each_window(d, p, [&](int64_t o, int64_t divisor, bool empty, auto&& taps) {
        if (takes_max(d.kind)) {
          C best = -std::numeric_limits<C>::infinity();
          int64_t where = -1;
          taps([&](int64_t i) {
            if (where < 0) where = i;
            const C v = in[i];
            if (v > best || std::isnan(v)) {
              best = v;
              where = i;
            }
          });
          out[o] = best;
          if (idx) idx[o] = where;
        } else if (empty) {
          out[o] = C(0);
        } else {
          C sum = 0;
          taps([&](int64_t i) { sum += in[i]; });
          out[o] = static_cast<C>(sum / static_cast<C>(divisor));
        }
      });
      nn::store_row(out.data(), p.out_total, y, d.dtype, plane * p.out_total);
    }
  });
}

// Integer planes, read and written in place (no widening: every value is
// exact). Max: the first maximum (integers have no NaN; CPU starts from the
// type's lowest value and the window's first tap, as here). Average (int64
// only): the sum wraps like CPU's int64 accumulator, and the quotient
// truncates toward zero (C++ division, as CPU's sum / divide_factor).
template <typename T>
void forward_int(const PoolDesc& d, const T* x, T* y, int64_t* indices) {
  const Plan p = plan_of(d);
  runtime::parallel_for(0, d.planes, nn::rows_grain(p.in_total), [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      const T* in = x + plane * p.in_total;
      T* out = y + plane * p.out_total;
      int64_t* idx = indices ? indices + plane * p.out_total : nullptr;
      for_each_window(d, p, [&](int64_t o, int64_t divisor, bool empty, auto&& taps) {
        if (takes_max(d.kind)) {
          T best = std::numeric_limits<T>::lowest();
          int64_t where = -1;
          taps([&](int64_t i) {
            if (where < 0) where = i;
            if (in[i] > best) {
              best = in[i];
              where = i;
            }
          });
          out[o] = best;
          if (idx) idx[o] = where;
        } else if constexpr (std::is_same_v<T, int64_t>) {
          if (empty) {
            out[o] = 0;
            return;
          }
          uint64_t sum = 0;
          taps([&](int64_t i) { sum += static_cast<uint64_t>(in[i]); });
          // divisor_override -1: negate with wrap (INT64_MIN / -1 would trap).
          out[o] = divisor == -1 ? static_cast<int64_t>(0 - sum) : static_cast<int64_t>(sum) / divisor;
        }
      });
    }
  });
}

template <typename C>
void backward_typed(const PoolDesc& d, const void* grad_output, const int64_t* indices, void* grad_input) {
  const Plan p = plan_of(d);
  runtime::parallel_for(0, d.planes, nn::rows_grain(p.in_total), [&](int64_t b, int64_t e) {
    std::vector<C> acc(p.in_total), g(p.out_total);
    for (int64_t plane = b; plane < e; ++plane) {
      std::fill(acc.begin(), acc.end(), C(0));
      nn::load_row(grad_output, d.dtype, plane * p.out_total, p.out_total, g.data());
      if (takes_max(d.kind)) {
        const int64_t* idx = indices + plane * p.out_total;
        for (int64_t o = 0; o < p.out_total; ++o) {
          if (idx[o] >= 0 && idx[o] < p.in_total) acc[idx[o]] += g[o];
        }
      } else {
        for_each_window(d, p, [&](int64_t o, int64_t divisor, bool empty, auto&& taps) {
          if (empty) return;
          const C share = g[o] / static_cast<C>(divisor);
          taps([&](int64_t i) { acc[i] += share; });
        });
      }
      nn::store_row(acc.data(), p.in_total, grad_input, d.dtype, plane * p.in_total);
    }
  });
}

}  // namespace

void pool_forward(const PoolDesc& d, const void* x, void* y, int64_t* indices) {
  if (nn::is_nn_float(d.dtype)) {
    nn::with_compute_type(d.dtype, [&](auto c) { forward_typed<decltype(c)>(d, x, y, indices); });
    return;
  }
  // CPU max-pools every integral dtype but averages int64 only.
  const bool has_int_kernel = takes_max(d.kind) || d.dtype == DType::kInt64;
  if (has_int_kernel && visit_integral_dtype(d.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        forward_int(d, static_cast<const T*>(x), static_cast<T*>(y), indices);
      })) {
    return;
  }
  throw std::invalid_argument("pool: unsupported dtype");
}

void pool_backward(const PoolDesc& d, const void* grad_output, const int64_t* indices, void* grad_input) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("pool: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { backward_typed<decltype(c)>(d, grad_output, indices, grad_input); });
}

}  // namespace torch_tpu::kernels
