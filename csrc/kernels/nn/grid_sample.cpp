// grid_sampler_2d (grid_sample.h): one output row (n, h) per task; each grid
// point's taps and weights are computed once and applied to every channel.
#include <cmath>
#include <stdexcept>

#include "kernels/nn/grid_coords.h"
#include "kernels/nn/grid_sample.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename T>
T unnormalize(T coord, int64_t size, bool align) {
  return align ? ((coord + 1) / 2) * (size - 1) : ((coord + 1) * size - 1) / 2;
}

template <typename T>
T clip(T in, int64_t size) {
  return std::min(static_cast<T>(size - 1), std::max(in, static_cast<T>(0)));
}

template <typename T>
T reflect(T in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const T lo = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  in = std::fabs(in - lo);
  const T extra = std::fmod(in, span);
  const int flips = static_cast<int>(std::floor(in / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

// Border / reflection mapping of an unnormalized coordinate. Zeros padding
// keeps it, limited to a few pixels past the image (every tap from there is
// outside anyway) so that the integer conversion below stays defined.
template <typename T>
T pad_coordinate(T coord, int64_t size, GridPadding padding, bool align) {
  if (padding == GridPadding::kBorder) return clip(coord, size);
  if (padding == GridPadding::kReflection) {
    coord = align ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return std::min(static_cast<T>(size + 4), std::max(coord, static_cast<T>(-5)));
}

template <typename T>
void cubic_coefficients(T t, T (&c)[4]) {
  const T A = -0.75;
  auto conv1 = [&](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto conv2 = [&](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  c[0] = conv2(t + 1);
  c[1] = conv1(t);
  c[2] = conv1(1 - t);
  c[3] = conv2(2 - t);
}

// Up to 16 taps: offsets into a channel plane (-1 = outside) and weights.
template <typename T>
struct Taps {
  int64_t at[16];
  T w[16];
  int n = 0;
  void add(int64_t y, int64_t x, int64_t H, int64_t W, T weight) {
    at[n] = (y >= 0 && y < H && x >= 0 && x < W) ? y * W + x : -1;
    w[n++] = weight;
  }
};

template <typename T>
Taps<T> taps_for(const GridSampleDesc& d, T gx, T gy) {
  Taps<T> t;
  const bool align = d.align_corners;
  if (!std::isfinite(gx) || !std::isfinite(gy)) return t;  // NaN/inf: every tap outside
  if (d.interpolation == GridInterpolation::kBicubic) {
    const T x = unnormalize(gx, d.W, align), y = unnormalize(gy, d.H, align);
    const T x0 = std::floor(x), y0 = std::floor(y);
    T cx[4], cy[4];
    cubic_coefficients(x - x0, cx);
    cubic_coefficients(y - y0, cy);
    for (int j = 0; j < 4; ++j) {
      const T py = pad_coordinate(y0 - 1 + j, d.H, d.padding, align);
      for (int i = 0; i < 4; ++i) {
        const T px = pad_coordinate(x0 - 1 + i, d.W, d.padding, align);
        t.add(static_cast<int64_t>(py), static_cast<int64_t>(px), d.H, d.W, cx[i] * cy[j]);
      }
    }
    return t;
  }
  const T x = pad_coordinate(unnormalize(gx, d.W, align), d.W, d.padding, align);
  const T y = pad_coordinate(unnormalize(gy, d.H, align), d.H, d.padding, align);
  if (d.interpolation == GridInterpolation::kNearest) {
    t.add(static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)), d.H, d.W, T(1));
    return t;
  }
  const T xw = std::floor(x), yn = std::floor(y);
  const T w = x - xw, e = 1 - w, n = y - yn, s = 1 - n;
  const int64_t ix = static_cast<int64_t>(xw), iy = static_cast<int64_t>(yn);
  t.add(iy, ix, d.H, d.W, s * e);
  t.add(iy, ix + 1, d.H, d.W, s * w);
  t.add(iy + 1, ix, d.H, d.W, n * e);
  t.add(iy + 1, ix + 1, d.H, d.W, n * w);
  return t;
}

template <typename T>
void sample_typed(const GridSampleDesc& d, const T* input, const T* grid, T* out) {
  const int64_t plane = d.H * d.W, out_plane = d.out_h * d.out_w;
  runtime::parallel_for(0, d.N * d.out_h, nn::rows_grain(d.out_w * d.C), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / d.out_h, h = row % d.out_h;
      for (int64_t w = 0; w < d.out_w; ++w) {
        const T* g = grid + ((n * d.out_h + h) * d.out_w + w) * 2;
        const Taps<T> t = taps_for<T>(d, g[0], g[1]);
        for (int64_t c = 0; c < d.C; ++c) {
          const T* src = input + (n * d.C + c) * plane;
          T acc = 0;
          for (int k = 0; k < t.n; ++k) {
            if (t.at[k] >= 0) acc += src[t.at[k]] * t.w[k];
          }
          out[(n * d.C + c) * out_plane + h * d.out_w + w] = acc;
        }
      }
    }
  });
}

}  // namespace

bool grid_sample_supports(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }

void grid_sample_2d(const GridSampleDesc& d, const void* input, const void* grid, void* out) {
  grid::with_grid_type(d.dtype, "grid_sampler_2d", [&](auto z) {
    using T = decltype(z);
    sample_typed(d, static_cast<const T*>(input), static_cast<const T*>(grid), static_cast<T*>(out));
  });
}

}  // namespace torch_tpu::kernels
