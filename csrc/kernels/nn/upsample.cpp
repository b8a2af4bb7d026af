// Separable resampling (upsample.h). A unit of work is one plane [*spatial]
// (layout [N, C, *spatial]) or one image [*spatial, C] (channels last): it
// is widened into the compute type, resampled axis by axis through two
// scratch buffers, and rounded once into the output. Along an axis every
// output row is a weighted sum of whole input rows (each row the part of
// the tensor inside that axis), so the inner loops run over contiguous
// memory except along the innermost axis of a [N, C, *spatial] plane.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/nn/rows.h"
#include "kernels/nn/upsample.h"
#include "kernels/nn/upsample_taps.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

using resample::AxisTaps;

template <typename C>
void load_block(const void* src, DType t, int64_t offset, int64_t n, C* dst) {
  if (t == DType::kUInt8) {
    const uint8_t* s = static_cast<const uint8_t*>(src) + offset;
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(s[i]);
    return;
  }
  nn::load_row(src, t, offset, n, dst);
}

template <typename C>
void store_block(const C* src, int64_t n, void* dst, DType t, int64_t offset) {
  if (t == DType::kUInt8) {  // nearest only: the values are copies
    uint8_t* o = static_cast<uint8_t*>(dst) + offset;
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint8_t>(src[i]);
    return;
  }
  nn::store_row(src, n, dst, t, offset);
}

// out[q, o, :] = sum_j w[o, j] * in[q, index[o, j], :] over rows of `inner`
// elements; the first product initialises, as ATen's sums do. linear: ATen's
// generic kernel computes t0 * w0 + t1 * w1, which its build contracts into
// fma(t0, w0, t1 * w1): spelled out, so the float results are CPU's bits.
template <typename C>
void apply_axis(const AxisTaps<C>& t, bool copy, bool linear, const C* in, C* out, int64_t outer, int64_t inner) {
  if (inner == 1 && (copy || linear)) {  // the innermost axis of a plane: a gather per element
    const int64_t* idx = t.index.data();
    const C* w = t.weight.data();
    for (int64_t q = 0; q < outer; ++q) {
      const C* __restrict src = in + q * t.in;
      C* __restrict dst = out + q * t.out;
      if (copy) {
        for (int64_t o = 0; o < t.out; ++o) dst[o] = src[idx[o]];
      } else {
        for (int64_t o = 0; o < t.out; ++o) {
          dst[o] = std::fma(src[idx[2 * o]], w[2 * o], src[idx[2 * o + 1]] * w[2 * o + 1]);
        }
      }
    }
    return;
  }
  for (int64_t q = 0; q < outer; ++q) {
    const C* src = in + q * t.in * inner;
    for (int64_t o = 0; o < t.out; ++o) {
      const int64_t* idx = t.index.data() + o * t.width;
      const C* w = t.weight.data() + o * t.width;
      const int n = t.count[o];
      C* __restrict dst = out + (q * t.out + o) * inner;
      if (copy) {
        std::copy_n(src + idx[0] * inner, inner, dst);
      } else if (n == 0) {
        std::fill_n(dst, inner, C(0));
      } else if (linear) {
        const C* __restrict s0 = src + idx[0] * inner;
        const C* __restrict s1 = src + idx[1] * inner;
        const C w0 = w[0], w1 = w[1];
        for (int64_t l = 0; l < inner; ++l) dst[l] = std::fma(s0[l], w0, s1[l] * w1);
      } else if (inner == 1) {
        C acc = src[idx[0]] * w[0];
        for (int j = 1; j < n; ++j) acc += src[idx[j]] * w[j];
        *dst = acc;
      } else {
        const C* __restrict s0 = src + idx[0] * inner;
        const C w0 = w[0];
        for (int64_t l = 0; l < inner; ++l) dst[l] = s0[l] * w0;
        for (int j = 1; j < n; ++j) {
          const C* __restrict s = src + idx[j] * inner;
          const C wj = w[j];
          for (int64_t l = 0; l < inner; ++l) dst[l] += s[l] * wj;
        }
      }
    }
  }
}

// The transpose of apply_axis: gin[q, index[o, j], :] += w[o, j] * gout[q, o, :].
template <typename C>
void apply_axis_transposed(const AxisTaps<C>& t, bool copy, const C* gout, C* gin, int64_t outer, int64_t inner) {
  std::fill_n(gin, outer * t.in * inner, C(0));
  for (int64_t q = 0; q < outer; ++q) {
    C* dst_q = gin + q * t.in * inner;
    for (int64_t o = 0; o < t.out; ++o) {
      const int64_t* idx = t.index.data() + o * t.width;
      const C* w = t.weight.data() + o * t.width;
      const C* __restrict src = gout + (q * t.out + o) * inner;
      for (int j = 0; j < t.count[o]; ++j) {
        C* __restrict dst = dst_q + idx[j] * inner;
        if (copy) {
          for (int64_t l = 0; l < inner; ++l) dst[l] += src[l];
        } else {
          const C wj = w[j];
          for (int64_t l = 0; l < inner; ++l) dst[l] += wj * src[l];
        }
      }
    }
  }
}

struct Geometry {
  int first = 0;        // first spatial axis used (3 - dims)
  int64_t lanes = 1;    // elements per spatial position in a unit
  int64_t units = 0;
  int64_t in_total = 0, out_total = 0;  // elements per unit
};

Geometry geometry(const ResampleDesc& d) {
  Geometry g;
  g.first = 3 - d.dims;
  g.lanes = d.channels_last ? d.channels : 1;
  g.units = d.channels_last ? d.batch : d.batch * d.channels;
  g.in_total = g.lanes;
  g.out_total = g.lanes;
  for (int a = g.first; a < 3; ++a) {
    g.in_total *= d.in[a];
    g.out_total *= d.out[a];
  }
  return g;
}

bool is_nearest(ResampleMode m) { return m == ResampleMode::kNearest || m == ResampleMode::kNearestExact; }
bool is_aa(ResampleMode m) { return m == ResampleMode::kLinearAA || m == ResampleMode::kCubicAA; }

// Elements before / after axis a of a unit whose spatial sizes are cur.
int64_t outer_of(const int64_t* cur, int first, int a) {
  int64_t n = 1;
  for (int b = first; b < a; ++b) n *= cur[b];
  return n;
}
int64_t inner_of(const int64_t* cur, int a, int64_t lanes) {
  int64_t n = lanes;
  for (int b = a + 1; b < 3; ++b) n *= cur[b];
  return n;
}

// uint8 bilinear/bicubic (upsample_taps.h's fixed point): ATen resamples
// the axes whose size changes, innermost first, through uint8 buffers.
void apply_axis_uint8(const resample::AxisTapsU8& t, const uint8_t* in, uint8_t* out, int64_t outer,
                      int64_t inner) {
  const int32_t half = 1 << (t.precision - 1);
  for (int64_t q = 0; q < outer; ++q) {
    const uint8_t* src = in + q * t.in * inner;
    for (int64_t o = 0; o < t.out; ++o) {
      const int16_t* w = t.weight.data() + o * t.width;
      const uint8_t* s0 = src + t.start[o] * inner;
      uint8_t* dst = out + (q * t.out + o) * inner;
      for (int64_t l = 0; l < inner; ++l) {
        int32_t acc = half;
        for (int j = 0; j < t.count[o]; ++j) acc += static_cast<int32_t>(s0[j * inner + l]) * w[j];
        dst[l] = static_cast<uint8_t>(std::clamp(acc >> t.precision, 0, 255));
      }
    }
  }
}

void forward_uint8(const ResampleDesc& d, const void* x, void* y) {
  const Geometry g = geometry(d);
  resample::AxisTapsU8 taps[3];
  bool run[3] = {false, false, false};
  for (int a = g.first; a < 3; ++a) {
    run[a] = d.in[a] != d.out[a];
    if (run[a]) taps[a] = resample::axis_taps_uint8(d, a);
  }
  runtime::parallel_for(0, g.units, nn::rows_grain(g.out_total), [&](int64_t b, int64_t e) {
    std::vector<uint8_t> buf[2];
    for (int64_t u = b; u < e; ++u) {
      const uint8_t* src = static_cast<const uint8_t*>(x) + u * g.in_total;
      int cur_buf = -1;  // -1: still the input
      int64_t cur[3] = {d.in[0], d.in[1], d.in[2]};
      for (int a = 2; a >= g.first; --a) {
        if (!run[a]) continue;
        const int64_t outer = outer_of(cur, g.first, a), inner = inner_of(cur, a, g.lanes);
        const int next = cur_buf == 0 ? 1 : 0;
        buf[next].resize(outer * d.out[a] * inner);
        apply_axis_uint8(taps[a], cur_buf < 0 ? src : buf[cur_buf].data(), buf[next].data(), outer, inner);
        cur[a] = d.out[a];
        cur_buf = next;
      }
      uint8_t* dst = static_cast<uint8_t*>(y) + u * g.out_total;
      std::copy_n(cur_buf < 0 ? src : buf[cur_buf].data(), g.out_total, dst);
    }
  });
}

template <typename C>
void forward_typed(const ResampleDesc& d, const void* x, void* y) {
  const Geometry g = geometry(d);
  const bool copy = is_nearest(d.mode), linear = d.mode == ResampleMode::kLinear;
  std::vector<AxisTaps<C>> taps(3);
  bool run[3] = {false, false, false};
  for (int a = g.first; a < 3; ++a) {
    // ATen's antialiased kernel leaves an axis of unchanged size alone.
    run[a] = !(is_aa(d.mode) && d.in[a] == d.out[a]);
    if (run[a]) taps[a] = resample::axis_taps<C>(d, a, false);
  }
  runtime::parallel_for(0, g.units, nn::rows_grain(g.out_total), [&](int64_t b, int64_t e) {
    std::vector<C> buf[2];
    for (int64_t u = b; u < e; ++u) {
      int cur_buf = 0;
      buf[0].resize(g.in_total);
      load_block(x, d.dtype, u * g.in_total, g.in_total, buf[0].data());
      int64_t cur[3] = {d.in[0], d.in[1], d.in[2]};
      for (int a = 2; a >= g.first; --a) {
        if (!run[a]) continue;
        const int64_t outer = outer_of(cur, g.first, a), inner = inner_of(cur, a, g.lanes);
        std::vector<C>& dst = buf[1 - cur_buf];
        dst.resize(outer * d.out[a] * inner);
        apply_axis(taps[a], copy, linear, buf[cur_buf].data(), dst.data(), outer, inner);
        cur[a] = d.out[a];
        cur_buf = 1 - cur_buf;
      }
      store_block(buf[cur_buf].data(), g.out_total, y, d.dtype, u * g.out_total);
    }
  });
}

template <typename C>
void backward_typed(const ResampleDesc& d, const void* grad_output, void* grad_input) {
  const Geometry g = geometry(d);
  const bool copy = is_nearest(d.mode);
  std::vector<AxisTaps<C>> taps(3);
  for (int a = g.first; a < 3; ++a) taps[a] = resample::axis_taps<C>(d, a, true);
  runtime::parallel_for(0, g.units, nn::rows_grain(g.out_total), [&](int64_t b, int64_t e) {
    std::vector<C> buf[2];
    for (int64_t u = b; u < e; ++u) {
      int cur_buf = 0;
      buf[0].resize(g.out_total);
      load_block(grad_output, d.dtype, u * g.out_total, g.out_total, buf[0].data());
      int64_t cur[3] = {d.out[0], d.out[1], d.out[2]};
      for (int a = g.first; a < 3; ++a) {
        const int64_t outer = outer_of(cur, g.first, a), inner = inner_of(cur, a, g.lanes);
        std::vector<C>& dst = buf[1 - cur_buf];
        dst.resize(outer * d.in[a] * inner);
        apply_axis_transposed(taps[a], copy, buf[cur_buf].data(), dst.data(), outer, inner);
        cur[a] = d.in[a];
        cur_buf = 1 - cur_buf;
      }
      store_block(buf[cur_buf].data(), g.in_total, grad_input, d.dtype, u * g.in_total);
    }
  });
}

}  // namespace

void resample_forward(const ResampleDesc& d, const void* x, void* y) {
  if (d.dtype == DType::kUInt8 && !is_nearest(d.mode)) {
    if (d.dims != 2) throw std::invalid_argument("upsample: uint8 linear/cubic resampling is 2-d only");
    forward_uint8(d, x, y);
    return;
  }
  const bool ok = nn::is_nn_float(d.dtype) || (d.dtype == DType::kUInt8 && is_nearest(d.mode));
  if (!ok) throw std::invalid_argument("upsample: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { forward_typed<decltype(c)>(d, x, y); });
}

void resample_backward(const ResampleDesc& d, const void* grad_output, void* grad_input) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("upsample backward: unsupported dtype");
  nn::with_compute_type(d.dtype, [&](auto c) { backward_typed<decltype(c)>(d, grad_output, grad_input); });
}

}  // namespace torch_tpu::kernels
