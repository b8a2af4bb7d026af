// softmax / log_softmax forward and backward over [outer, dim, inner].
//
// Two shapes of work: softmax over the last dimension (inner == 1) walks
// contiguous rows, vectorized along the row; otherwise a slab of up to
// kCols neighbouring columns is handled at once, vectorized across columns.
// float16/bfloat16 rows are widened to float in a per-thread buffer; float
// rows are used in place.
// No FMA contraction: CPU rounds x * scale + bias as two operations.
#include "kernels/common/fp_contract.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/nn/nn.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

using nn::kLanes;

constexpr int64_t kCols = 64;           // columns per slab (inner > 1)

// ---- one contiguous row (inner == 1) ----------------------------------------

// out = softmax(x) or log_softmax(x) of one row, in C. out may alias x.
template <typename C>
void softmax_row(const C* x, C* out, int64_t n, bool log) {
  const C m = nn::max_lanes(x, n);
  if (log) {
    const double s = nn::sum_lanes<C>(n, [&](int64_t i) { return nn::exp_c<C>(x[i] - m); });
    const C ls = static_cast<C>(std::log(s));
    for (int64_t i = 0; i < n; ++i) out[i] = (x[i] - m) - ls;
    return;
  }
  // exp into out a block at a time, then sum the block while it is in L1.
  // (Summing in the exp loop kept the lane sums in memory: out may alias x,
  // so GCC could not keep them in registers.)
  double total = 0;
  constexpr int64_t kBlock = 2048;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    for (int64_t i = b; i < e; ++i) out[i] = nn::exp_c<C>(x[i] - m);
    const C* blk = out + b;
    total += nn::sum_lanes<C>(e - b, [&](int64_t i) { return blk[i]; });
  }
  const C scale = static_cast<C>(1.0 / total);
  for (int64_t i = 0; i < n; ++i) out[i] *= scale;
}

template <typename C>
void softmax_backward_row(const C* g, const C* y, C* gi, int64_t n, bool log) {
  if (log) {
    const C s = static_cast<C>(nn::sum_lanes<C>(n, [&](int64_t i) { return g[i]; }));
    for (int64_t i = 0; i < n; ++i) gi[i] = g[i] - nn::exp_c<C>(y[i]) * s;
  } else {
    const C s = static_cast<C>(nn::sum_lanes<C>(n, [&](int64_t i) { return g[i] * y[i]; }));
    for (int64_t i = 0; i < n; ++i) gi[i] = y[i] * (g[i] - s);
  }
}

// ---- a slab of columns (inner > 1) --------------------------------------------
// buf holds dim x w values, buf[d * w + c].

template <typename C>
void softmax_cols(C* buf, int64_t dim, int64_t w, bool log) {
  C m[kCols], s[kCols];
  for (int64_t c = 0; c < w; ++c) {
    m[c] = -std::numeric_limits<C>::infinity();
    s[c] = 0;
  }
  for (int64_t d = 0; d < dim; ++d) {
    const C* r = buf + d * w;
    for (int64_t c = 0; c < w; ++c) m[c] = (r[c] > m[c] || r[c] != r[c]) ? r[c] : m[c];
  }
  for (int64_t d = 0; d < dim; ++d) {
    C* r = buf + d * w;
    for (int64_t c = 0; c < w; ++c) {
      const C e = nn::exp_c<C>(r[c] - m[c]);
      s[c] += e;
      if (!log) r[c] = e;
    }
  }
  if (log) {
    for (int64_t c = 0; c < w; ++c) s[c] = std::log(s[c]);
    for (int64_t d = 0; d < dim; ++d) {
      C* r = buf + d * w;
      for (int64_t c = 0; c < w; ++c) r[c] = (r[c] - m[c]) - s[c];
    }
  } else {
    for (int64_t c = 0; c < w; ++c) s[c] = C(1) / s[c];
    for (int64_t d = 0; d < dim; ++d) {
      C* r = buf + d * w;
      for (int64_t c = 0; c < w; ++c) r[c] *= s[c];
    }
  }
}

// g and y: dim x w each; the result replaces g.
template <typename C>
void softmax_backward_cols(C* g, const C* y, int64_t dim, int64_t w, bool log) {
  C s[kCols];
  for (int64_t c = 0; c < w; ++c) s[c] = 0;
  for (int64_t d = 0; d < dim; ++d) {
    for (int64_t c = 0; c < w; ++c) s[c] += log ? g[d * w + c] : g[d * w + c] * y[d * w + c];
  }
  for (int64_t d = 0; d < dim; ++d) {
    for (int64_t c = 0; c < w; ++c) {
      C& gi = g[d * w + c];
      gi = log ? gi - nn::exp_c<C>(y[d * w + c]) * s[c] : y[d * w + c] * (gi - s[c]);
    }
  }
}

// Loads / stores the dim x w slab starting at column c0 of outer row o.
template <typename C>
void load_slab(const void* src, DType t, int64_t o, int64_t c0, int64_t w, int64_t dim,
               int64_t inner, C* buf) {
  for (int64_t d = 0; d < dim; ++d) nn::load_row(src, t, (o * dim + d) * inner + c0, w, buf + d * w);
}
template <typename C>
void store_slab(const C* buf, void* dst, DType t, int64_t o, int64_t c0, int64_t w, int64_t dim,
                int64_t inner) {
  for (int64_t d = 0; d < dim; ++d) nn::store_row(buf + d * w, w, dst, t, (o * dim + d) * inner + c0);
}

template <typename C>
void softmax_forward_typed(const SoftmaxDesc& d) {
  if (d.inner == 1) {
    const bool in_place_float = std::is_same_v<C, float> && d.input_dtype == DType::kFloat32 &&
                                d.output_dtype == DType::kFloat32;
    runtime::parallel_for(0, d.outer, nn::rows_grain(d.dim), [&](int64_t b, int64_t e) {
      std::vector<C> buf(in_place_float ? 0 : d.dim);
      for (int64_t r = b; r < e; ++r) {
        if (in_place_float) {
          const float* x = static_cast<const float*>(d.input) + r * d.dim;
          float* y = static_cast<float*>(d.output) + r * d.dim;
          softmax_row<float>(x, y, d.dim, d.log);
        } else {
          nn::load_row(d.input, d.input_dtype, r * d.dim, d.dim, buf.data());
          softmax_row<C>(buf.data(), buf.data(), d.dim, d.log);
          nn::store_row(buf.data(), d.dim, d.output, d.output_dtype, r * d.dim);
        }
      }
    });
    return;
  }
  const int64_t slabs = (d.inner + kCols - 1) / kCols;
  runtime::parallel_for(0, d.outer * slabs, nn::rows_grain(d.dim * kCols), [&](int64_t b, int64_t e) {
    std::vector<C> buf(d.dim * kCols);
    for (int64_t k = b; k < e; ++k) {
      const int64_t o = k / slabs, c0 = (k % slabs) * kCols;
      const int64_t w = std::min(kCols, d.inner - c0);
      load_slab(d.input, d.input_dtype, o, c0, w, d.dim, d.inner, buf.data());
      softmax_cols<C>(buf.data(), d.dim, w, d.log);
      store_slab(buf.data(), d.output, d.output_dtype, o, c0, w, d.dim, d.inner);
    }
  });
}

template <typename C>
void softmax_backward_typed(const SoftmaxBackwardDesc& d) {
  if (d.inner == 1) {
    const bool all_float = std::is_same_v<C, float> && d.grad_dtype == DType::kFloat32 &&
                           d.grad_input_dtype == DType::kFloat32;
    runtime::parallel_for(0, d.outer, nn::rows_grain(d.dim), [&](int64_t b, int64_t e) {
      std::vector<C> g(all_float ? 0 : d.dim), y(all_float ? 0 : d.dim);
      for (int64_t r = b; r < e; ++r) {
        if (all_float) {
          const float* gp = static_cast<const float*>(d.grad_output) + r * d.dim;
          const float* yp = static_cast<const float*>(d.output) + r * d.dim;
          float* gi = static_cast<float*>(d.grad_input) + r * d.dim;
          softmax_backward_row<float>(gp, yp, gi, d.dim, d.log);
        } else {
          nn::load_row(d.grad_output, d.grad_dtype, r * d.dim, d.dim, g.data());
          nn::load_row(d.output, d.grad_dtype, r * d.dim, d.dim, y.data());
          softmax_backward_row<C>(g.data(), y.data(), g.data(), d.dim, d.log);
          nn::store_row(g.data(), d.dim, d.grad_input, d.grad_input_dtype, r * d.dim);
        }
      }
    });
    return;
  }
  const int64_t slabs = (d.inner + kCols - 1) / kCols;
  runtime::parallel_for(0, d.outer * slabs, nn::rows_grain(d.dim * kCols), [&](int64_t b, int64_t e) {
    std::vector<C> g(d.dim * kCols), y(d.dim * kCols);
    for (int64_t k = b; k < e; ++k) {
      const int64_t o = k / slabs, c0 = (k % slabs) * kCols;
      const int64_t w = std::min(kCols, d.inner - c0);
      load_slab(d.grad_output, d.grad_dtype, o, c0, w, d.dim, d.inner, g.data());
      load_slab(d.output, d.grad_dtype, o, c0, w, d.dim, d.inner, y.data());
      softmax_backward_cols<C>(g.data(), y.data(), d.dim, w, d.log);
      store_slab(g.data(), d.grad_input, d.grad_input_dtype, o, c0, w, d.dim, d.inner);
    }
  });
}

void check_dtypes(DType a, DType b, const char* what) {
  if (!nn::is_nn_float(a) || !nn::is_nn_float(b)) {
    throw std::invalid_argument(std::string(what) + ": unsupported dtype " + dtype_name(a) + " -> " +
                                dtype_name(b));
  }
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(softmax_forward)(const SoftmaxDesc& d) {
  check_dtypes(d.input_dtype, d.output_dtype, "softmax");
  if (d.outer * d.dim * d.inner == 0) return;
  nn::with_compute_type(d.input_dtype, [&](auto c) { softmax_forward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(softmax_backward)(const SoftmaxBackwardDesc& d) {
  check_dtypes(d.grad_dtype, d.grad_input_dtype, "softmax_backward");
  if (d.outer * d.dim * d.inner == 0) return;
  nn::with_compute_type(d.grad_dtype, [&](auto c) { softmax_backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
