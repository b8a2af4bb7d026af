// Nearest / bilinear upsampling (upsample.h). Per output row and column the
// two taps and their weights are computed once; the planes split over the
// device cores, each widened into the compute type and rounded once.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/nn/upsample.h"

namespace torch_tpu::kernels {
namespace {

template <typename C>
struct Taps {
  std::vector<int64_t> i0, i1;
  std::vector<C> w0, w1;
};

template <typename C>
C scale_of(int64_t in, int64_t out, double scale) {
  return scale > 0 ? static_cast<C>(1.0 / scale) : static_cast<C>(in) / static_cast<C>(out);
}

template <typename C>
Taps<C> taps(const UpsampleDesc& d, int64_t in, int64_t out, double scale) {
  Taps<C> t;
  t.i0.resize(out);
  t.i1.resize(out);
  t.w0.resize(out);
  t.w1.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    if (!d.bilinear) {
      int64_t i;
      if (out == in) {
        i = o;
      } else if (out == 2 * in) {
        i = o >> 1;
      } else {
        const float s = scale_of<float>(in, out, scale);  // ATen's nearest_idx works in float
        i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
      }
      t.i0[o] = t.i1[o] = i;
      t.w0[o] = C(1);
      t.w1[o] = C(0);
      continue;
    }
    C s;
    if (d.align_corners) {
      s = out > 1 ? static_cast<C>(in - 1) / static_cast<C>(out - 1) : C(0);
    } else {
      s = scale_of<C>(in, out, scale);
    }
    C x = d.align_corners ? s * static_cast<C>(o) : s * (static_cast<C>(o) + C(0.5)) - C(0.5);
    if (!d.align_corners && x < 0) x = 0;
    const int64_t i0 = static_cast<int64_t>(x);
    const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    const C l1 = x - static_cast<C>(i0);
    t.i0[o] = i0;
    t.i1[o] = i1;
    t.w0[o] = C(1) - l1;
    t.w1[o] = l1;
  }
  return t;
}

template <typename C>
void forward_typed(const UpsampleDesc& d, const void* x, void* y) {
  const Taps<C> th = taps<C>(d, d.in_h, d.out_h, d.scale_h), tw = taps<C>(d, d.in_w, d.out_w, d.scale_w);
  const int64_t in_total = d.in_h * d.in_w, out_total = d.out_h * d.out_w;
  runtime::parallel_for(0, d.planes, nn::rows_grain(out_total), [&](int64_t b, int64_t e) {
    std::vector<C> in(in_total), out(out_total);
    for (int64_t p = b; p < e; ++p) {
      nn::load_row(x, d.dtype, p * in_total, in_total, in.data());
      for (int64_t oh = 0; oh < d.out_h; ++oh) {
        const C* r0 = in.data() + th.i0[oh] * d.in_w;
        const C* r1 = in.data() + th.i1[oh] * d.in_w;
        C* dst = out.data() + oh * d.out_w;
        if (!d.bilinear) {
          for (int64_t ow = 0; ow < d.out_w; ++ow) dst[ow] = r0[tw.i0[ow]];
          continue;
        }
        const C h0 = th.w0[oh], h1 = th.w1[oh];
        for (int64_t ow = 0; ow < d.out_w; ++ow) {
          const int64_t a = tw.i0[ow], c = tw.i1[ow];
          dst[ow] = h0 * (tw.w0[ow] * r0[a] + tw.w1[ow] * r0[c]) + h1 * (tw.w0[ow] * r1[a] + tw.w1[ow] * r1[c]);
        }
      }
      nn::store_row(out.data(), out_total, y, d.dtype, p * out_total);
    }
  });
}

template <typename C>
void backward_typed(const UpsampleDesc& d, const void* grad_output, void* grad_input) {
  const Taps<C> th = taps<C>(d, d.in_h, d.out_h, d.scale_h), tw = taps<C>(d, d.in_w, d.out_w, d.scale_w);
  const int64_t in_total = d.in_h * d.in_w, out_total = d.out_h * d.out_w;
  runtime::parallel_for(0, d.planes, nn::rows_grain(out_total), [&](int64_t b, int64_t e) {
    std::vector<C> acc(in_total), g(out_total);
    for (int64_t p = b; p < e; ++p) {
      std::fill(acc.begin(), acc.end(), C(0));
      nn::load_row(grad_output, d.dtype, p * out_total, out_total, g.data());
      for (int64_t oh = 0; oh < d.out_h; ++oh) {
        C* r0 = acc.data() + th.i0[oh] * d.in_w;
        C* r1 = acc.data() + th.i1[oh] * d.in_w;
        const C* src = g.data() + oh * d.out_w;
        if (!d.bilinear) {
          for (int64_t ow = 0; ow < d.out_w; ++ow) r0[tw.i0[ow]] += src[ow];
          continue;
        }
        const C h0 = th.w0[oh], h1 = th.w1[oh];
        for (int64_t ow = 0; ow < d.out_w; ++ow) {
          const int64_t a = tw.i0[ow], c = tw.i1[ow];
          r0[a] += h0 * tw.w0[ow] * src[ow];
          r0[c] += h0 * tw.w1[ow] * src[ow];
          r1[a] += h1 * tw.w0[ow] * src[ow];
          r1[c] += h1 * tw.w1[ow] * src[ow];
        }
      }
      nn::store_row(acc.data(), in_total, grad_input, d.dtype, p * in_total);
    }
  });
}

}  // namespace

void upsample_forward(const UpsampleDesc& d, const void* x, void* y) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("upsample: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { forward_typed<decltype(c)>(d, x, y); });
}

void upsample_backward(const UpsampleDesc& d, const void* grad_output, void* grad_input) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("upsample backward: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { backward_typed<decltype(c)>(d, grad_output, grad_input); });
}

}  // namespace torch_tpu::kernels
