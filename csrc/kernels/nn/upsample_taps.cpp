// Source indices and weights of one resampled axis (upsample_taps.h). The
// arithmetic follows ATen's types step by step (the compute type C, the
// double literals, floorf), so the taps are the ones CPU eager uses.
#include <algorithm>
#include <cmath>

#include "kernels/common/half.h"
#include "kernels/nn/upsample_taps.h"

namespace torch_tpu::kernels::resample {
namespace {

// compute_scales_value: 1 / scale when given, else in / out.
template <typename C>
C scales_value(double scale, int64_t in, int64_t out) {
  return scale > 0. ? static_cast<C>(1.0 / scale) : static_cast<C>(in) / static_cast<C>(out);
}

// area_pixel_compute_scale.
template <typename C>
C area_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<C>(in - 1) / static_cast<C>(out - 1) : C(0);
  return scales_value<C>(scale, in, out);
}

// area_pixel_compute_source_index.
template <typename C>
C source_index(C scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<C>(o);
  const C x = scale * (static_cast<C>(o) + C(0.5)) - C(0.5);
  return (!cubic && x < C(0)) ? C(0) : x;
}

// guard_index_and_lambda: ATen floors in float whatever C is.
template <typename C>
void floor_and_fraction(C x, int64_t in, int64_t& i, C& l) {
  i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(x))), in - 1);
  l = std::min(std::max(x - static_cast<C>(i), C(0)), C(1));
}

template <typename C>
C cubic1(C x, C a) {  // |x| <= 1
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename C>
C cubic2(C x, C a) {  // 1 < |x| < 2
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

// get_cubic_upsample_coefficients (A = -0.75).
template <typename C>
void cubic_weights(C t, C* w) {
  const C a = C(-0.75);
  w[0] = cubic2<C>(static_cast<C>(t + 1.0), a);
  w[1] = cubic1<C>(t, a);
  const C t2 = static_cast<C>(1.0 - t);
  w[2] = cubic1<C>(t2, a);
  w[3] = cubic2<C>(static_cast<C>(t2 + 1.0), a);
}

// The antialiasing filters (Pillow's): triangle, and Keys cubic with a = -0.5.
template <typename C>
C aa_filter(bool cubic, C x) {
  x = std::abs(x);
  if (!cubic) return x < C(1) ? static_cast<C>(1.0 - x) : C(0);
  if (x < C(1)) return cubic1<C>(x, C(-0.5));
  if (x < C(2)) return cubic2<C>(x, C(-0.5));
  return C(0);
}

// A weight as ATen's generic kernel stores it for a float16/bfloat16 input.
float round_to_dtype(DType t, float v) {
  if (t == DType::kFloat16) return half_bits_to_float(float_to_half_bits(v));
  if (t == DType::kBFloat16) return bfloat16_bits_to_float(float_to_bfloat16_bits(v));
  return v;
}
double round_to_dtype(DType, double v) { return v; }

template <typename C>
void nearest_taps(const ResampleDesc& d, double scale, bool float_rule, AxisTaps<C>& t) {
  const bool exact = d.mode == ResampleMode::kNearestExact;
  const int64_t in = t.in, out = t.out;
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (float_rule && !exact && out == in) {
      i = o;
    } else if (float_rule && !exact && out == 2 * in) {
      i = o >> 1;
    } else if (float_rule) {  // nearest_idx / nearest_exact_idx
      const float s = scales_value<float>(scale, in, out);
      i = exact ? static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * s)))
                : static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
    } else {  // the generic kernel's HelperInterpNearest(Exact)
      const C s = area_scale<C>(in, out, false, scale);
      i = exact ? static_cast<int64_t>(std::floor(static_cast<float>(
                      static_cast<double>(source_index<C>(s, o, false, false)) + 0.5)))
                : static_cast<int64_t>(std::floor(static_cast<float>(source_index<C>(s, o, true, false))));
    }
    t.index[o] = std::min(i, in - 1);
    t.weight[o] = C(1);
    t.count[o] = 1;
  }
}

}  // namespace

template <typename C>
AxisTaps<C> axis_taps(const ResampleDesc& d, int axis, bool backward) {
  const double scale = d.scale[axis];
  AxisTaps<C> t;
  t.in = d.in[axis];
  t.out = d.out[axis];
  const int64_t in = t.in, out = t.out;
  const bool round_weights = d.dtype_weights && !backward;
  auto size = [&](int width) {
    t.width = width;
    t.index.assign(out * width, 0);
    t.weight.assign(out * width, C(0));
    t.count.assign(out, width);
  };
  switch (d.mode) {
    case ResampleMode::kNearest:
    case ResampleMode::kNearestExact:
      size(1);
      nearest_taps<C>(d, scale, backward || d.nearest_float_index, t);
      break;
    case ResampleMode::kLinear: {
      size(2);
      const C s = area_scale<C>(in, out, d.align_corners, scale);
      for (int64_t o = 0; o < out; ++o) {
        int64_t i0 = o;
        C l1 = C(0);
        if (out != in) floor_and_fraction<C>(source_index<C>(s, o, d.align_corners, false), in, i0, l1);
        C l0 = C(1) - l1;
        if (round_weights) {
          l1 = static_cast<C>(round_to_dtype(d.dtype, l1));
          l0 = static_cast<C>(round_to_dtype(d.dtype, C(1) - l1));
        }
        t.index[2 * o] = i0;
        t.index[2 * o + 1] = out != in && i0 < in - 1 ? i0 + 1 : i0;
        t.weight[2 * o] = l0;
        t.weight[2 * o + 1] = l1;
      }
      break;
    }
    case ResampleMode::kCubic: {
      size(4);
      const C s = area_scale<C>(in, out, d.align_corners, scale);
      for (int64_t o = 0; o < out; ++o) {
        int64_t i0;
        C l;
        floor_and_fraction<C>(source_index<C>(s, o, d.align_corners, true), in, i0, l);
        C w[4];
        cubic_weights<C>(l, w);
        for (int j = 0; j < 4; ++j) {
          t.index[4 * o + j] = std::clamp<int64_t>(i0 - 1 + j, 0, in - 1);
          t.weight[4 * o + j] = round_weights ? static_cast<C>(round_to_dtype(d.dtype, w[j])) : w[j];
        }
      }
      break;
    }
    case ResampleMode::kLinearAA:
    case ResampleMode::kCubicAA: {
      const bool cubic = d.mode == ResampleMode::kCubicAA;
      const int taps = cubic ? 4 : 2;
      const C s = area_scale<C>(in, out, d.align_corners, scale);
      const C support = s >= C(1) ? static_cast<C>((taps * 0.5) * s) : static_cast<C>(taps * 0.5);
      const int width = static_cast<int>(std::ceil(support)) * 2 + 1;
      size(width);
      const C invscale = static_cast<C>(s >= C(1) ? 1.0 / s : 1.0);
      for (int64_t o = 0; o < out; ++o) {
        const C center = static_cast<C>(s * (static_cast<double>(o) + 0.5));
        const int64_t lo = std::max(static_cast<int64_t>(center - support + 0.5), int64_t{0});
        const int64_t hi = std::min(static_cast<int64_t>(center + support + 0.5), in);
        const int64_t n = std::clamp<int64_t>(hi - lo, 0, width);
        C* w = t.weight.data() + o * width;
        C total = 0;
        for (int64_t j = 0; j < n; ++j) {
          w[j] = aa_filter<C>(cubic, static_cast<C>((static_cast<C>(j + lo) - center + 0.5) * invscale));
          total += w[j];
          t.index[o * width + j] = lo + j;
        }
        if (total != C(0)) {
          for (int64_t j = 0; j < n; ++j) w[j] /= total;
        }
        t.count[o] = static_cast<int>(n);
      }
      break;
    }
  }
  return t;
}

AxisTapsU8 axis_taps_uint8(const ResampleDesc& d, int axis) {
  AxisTapsU8 t;
  t.in = d.in[axis];
  t.out = d.out[axis];
  const int64_t in = t.in, out = t.out;
  const bool cubic = d.mode == ResampleMode::kCubic || d.mode == ResampleMode::kCubicAA;
  const bool aa = d.mode == ResampleMode::kLinearAA || d.mode == ResampleMode::kCubicAA;
  const int taps = cubic ? 4 : 2;
  const double s = area_scale<double>(in, out, d.align_corners, d.scale[axis]);
  auto filter = [&](double x) {
    x = std::abs(x);
    if (!cubic) return x < 1.0 ? 1.0 - x : 0.0;
    const double a = aa ? -0.5 : -0.75;  // Pillow's Keys cubic with antialiasing, OpenCV's without
    if (x < 1.0) return cubic1<double>(x, a);
    if (x < 2.0) return cubic2<double>(x, a);
    return 0.0;
  };
  double support = taps * 0.5;
  int width = taps;
  if (aa) {
    support = s >= 1.0 ? (taps * 0.5) * s : taps * 0.5;
    width = static_cast<int>(std::ceil(support)) * 2 + 1;
  }
  t.width = width;
  t.start.assign(out, 0);
  t.count.assign(out, 0);
  std::vector<double> w(out * width, 0.0);
  double w_max = 0;
  for (int64_t o = 0; o < out; ++o) {
    double* wo = w.data() + o * width;
    int64_t lo, n;
    if (aa) {  // _compute_indices_min_size_weights_aa
      const double center = s * (static_cast<double>(o) + 0.5);
      const double invscale = s >= 1.0 ? 1.0 / s : 1.0;
      lo = std::max(static_cast<int64_t>(center - support + 0.5), int64_t{0});
      n = std::clamp<int64_t>(std::min(static_cast<int64_t>(center + support + 0.5), in) - lo, 0, width);
      double total = 0;
      for (int64_t j = 0; j < n; ++j) {
        wo[j] = filter((static_cast<double>(j + lo) - center + 0.5) * invscale);
        total += wo[j];
      }
      for (int64_t j = 0; j < n && total != 0.0; ++j) {
        wo[j] /= total;
        w_max = std::max(w_max, wo[j]);
      }
    } else {  // _compute_indices_min_size_weights: out-of-range taps fold into the edge ones
      int64_t i0;
      double l;
      floor_and_fraction<double>(source_index<double>(s, o, d.align_corners, cubic), in, i0, l);
      const int64_t half = static_cast<int64_t>(width * 0.5);
      const int64_t unbound_lo = i0 - half + 1;
      lo = std::max(unbound_lo, int64_t{0});
      n = std::clamp<int64_t>(std::min(i0 + half + 1, in) - lo, 0, width);
      int64_t k = 0;
      for (int64_t j = 0; j < width; ++j) {
        const double v = filter(static_cast<double>(j + 1 - half) - l);
        if (unbound_lo + j <= 0) {
          k = 0;
        } else if (unbound_lo + j >= in - 1) {
          k = n - 1;
        }
        wo[k] += v;
        w_max = std::max(w_max, wo[k]);
        ++k;
      }
    }
    t.start[o] = lo;
    t.count[o] = static_cast<int>(n);
  }
  unsigned p = 0;
  for (; p < 22; ++p) {
    if (static_cast<int>(0.5 + w_max * (1 << (p + 1))) >= (1 << 15)) break;
  }
  t.precision = p;
  t.weight.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    const double v = w[i] * (1 << p);
    t.weight[i] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return t;
}

template AxisTaps<float> axis_taps<float>(const ResampleDesc&, int, bool);
template AxisTaps<double> axis_taps<double>(const ResampleDesc&, int, bool);

}  // namespace torch_tpu::kernels::resample
