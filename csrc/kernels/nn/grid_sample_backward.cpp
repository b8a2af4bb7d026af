// grid_sampler_2d_backward (grid_sample.h): ATen's rules
// (ATen/native/GridSampler.h, the *_set_grad coordinate helpers): each grid
// point scatters grad_output * weight into its taps of grad_input and
// gathers d(out)/d(x, y) from the input values at its taps, times the
// derivative of unnormalize and of the border/reflection mapping. One batch
// entry per task (its grid points share grad_input planes).
#include <cmath>
#include <stdexcept>

#include "kernels/nn/grid_sample.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename T>
T gsb_unnormalize(T coord, int64_t size, bool align, T* grad) {
  if (align) {
    *grad = static_cast<T>(size - 1) / 2;
    return ((coord + 1) / 2) * (size - 1);
  }
  *grad = static_cast<T>(size) / 2;
  return ((coord + 1) * size - 1) / 2;
}

template <typename T>
T gsb_clip(T in, int64_t size, T* grad) {
  if (in <= T(0)) {
    *grad = 0;
    return 0;
  }
  const T max = static_cast<T>(size - 1);
  if (in >= max) {
    *grad = 0;
    return max;
  }
  *grad = 1;
  return in;
}

template <typename T>
T gsb_reflect(T in, int64_t twice_low, int64_t twice_high, T* grad) {
  if (twice_low == twice_high) {
    *grad = 0;
    return 0;
  }
  const T lo = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  in = in - lo;
  int mult = 1;
  if (in < T(0)) {
    mult = -1;
    in = -in;
  }
  const T extra = std::fmod(in, span);
  const int flips = static_cast<int>(std::floor(in / span));
  if (flips % 2 == 0) {
    *grad = static_cast<T>(mult);
    return extra + lo;
  }
  *grad = static_cast<T>(-mult);
  return span - extra + lo;
}

// grid_sampler_compute_source_index_set_grad.
template <typename T>
T gsb_source_index(T coord, int64_t size, GridPadding padding, bool align, T* grad) {
  coord = gsb_unnormalize(coord, size, align, grad);
  T g_clip, g_refl;
  if (padding == GridPadding::kBorder) {
    coord = gsb_clip(coord, size, &g_clip);
    *grad = *grad * g_clip;
  } else if (padding == GridPadding::kReflection) {
    coord = align ? gsb_reflect(coord, 0, 2 * (size - 1), &g_refl) : gsb_reflect(coord, -1, 2 * size - 1, &g_refl);
    coord = gsb_clip(coord, size, &g_clip);
    *grad = *grad * g_refl * g_clip;
  }
  return coord;
}

// compute_coordinates (no gradient): the padding of one bicubic tap.
template <typename T>
T gsb_pad(T coord, int64_t size, GridPadding padding, bool align) {
  T unused;
  if (padding == GridPadding::kBorder) return gsb_clip(coord, size, &unused);
  if (padding == GridPadding::kReflection) {
    coord = align ? gsb_reflect(coord, 0, 2 * (size - 1), &unused) : gsb_reflect(coord, -1, 2 * size - 1, &unused);
    return gsb_clip(coord, size, &unused);
  }
  return coord;
}

template <typename T>
void gsb_cubic(T t, T (&c)[4], T (&g)[4]) {
  const T A = -0.75;
  auto conv1 = [&](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto conv2 = [&](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  c[0] = conv2(t + 1);
  c[1] = conv1(t);
  c[2] = conv1(1 - t);
  c[3] = conv2(2 - t);
  T x = -1 - t;
  g[0] = (-3 * A * x - 10 * A) * x - 8 * A;
  x = -t;
  g[1] = (-3 * (A + 2) * x - 2 * (A + 3)) * x;
  x = 1 - t;
  g[2] = (3 * (A + 2) * x - 2 * (A + 3)) * x;
  x = 2 - t;
  g[3] = (3 * A * x - 10 * A) * x + 8 * A;
}

// A tap position inside the image, as a plane offset (-1 outside). Far
// outside coordinates (or NaN) convert to no tap instead of overflowing.
template <typename T>
int64_t gsb_at(T y, T x, int64_t H, int64_t W) {
  if (!(y >= T(0) && y < static_cast<T>(H) && x >= T(0) && x < static_cast<T>(W))) return -1;
  return static_cast<int64_t>(y) * W + static_cast<int64_t>(x);
}

template <typename T>
void backward_typed(const GridSampleDesc& d, const T* gout, const T* input, const T* grid, T* ginp, T* ggrid) {
  const int64_t plane = d.H * d.W, out_plane = d.out_h * d.out_w;
  const bool align = d.align_corners;
  runtime::parallel_for(0, d.N, 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      const T* x_n = input + n * d.C * plane;
      const T* go_n = gout + n * d.C * out_plane;
      T* gi_n = ginp ? ginp + n * d.C * plane : nullptr;
      for (int64_t p = 0; p < out_plane; ++p) {
        const T* g = grid + (n * out_plane + p) * 2;
        T* gg = ggrid + (n * out_plane + p) * 2;
        T gx_mult, gy_mult, gix = 0, giy = 0;
        if (d.interpolation == GridInterpolation::kBicubic) {
          const T ix = gsb_unnormalize(g[0], d.W, align, &gx_mult), iy = gsb_unnormalize(g[1], d.H, align, &gy_mult);
          const T x0 = std::floor(ix), y0 = std::floor(iy);
          T cx[4], cy[4], dx[4], dy[4];
          gsb_cubic(ix - x0, cx, dx);
          gsb_cubic(iy - y0, cy, dy);
          int64_t at[16];
          for (int j = 0; j < 4; ++j) {
            const T py = gsb_pad(y0 - 1 + j, d.H, d.padding, align);
            for (int i = 0; i < 4; ++i) {
              const T px = gsb_pad(x0 - 1 + i, d.W, d.padding, align);
              at[j * 4 + i] = gsb_at(std::trunc(py), std::trunc(px), d.H, d.W);
            }
          }
          for (int64_t c = 0; c < d.C; ++c) {
            const T go = go_n[c * out_plane + p];
            const T* xc = x_n + c * plane;
            for (int i = 0; i < 4; ++i) {  // ATen's order: x taps outer, y taps inner
              for (int j = 0; j < 4; ++j) {
                const int64_t a = at[j * 4 + i];
                if (a < 0) continue;
                if (gi_n) gi_n[c * plane + a] += go * cx[i] * cy[j];
                const T v = xc[a];
                gix -= v * dx[i] * cy[j] * go;
                giy -= v * dy[j] * cx[i] * go;
              }
            }
          }
        } else {
          const T ix = gsb_source_index(g[0], d.W, d.padding, align, &gx_mult);
          const T iy = gsb_source_index(g[1], d.H, d.padding, align, &gy_mult);
          if (d.interpolation == GridInterpolation::kNearest) {
            const int64_t a = gsb_at(std::nearbyint(iy), std::nearbyint(ix), d.H, d.W);
            if (gi_n && a >= 0) {
              for (int64_t c = 0; c < d.C; ++c) gi_n[c * plane + a] += go_n[c * out_plane + p];
            }
            gg[0] = 0;
            gg[1] = 0;
            continue;
          }
          const T x_w = std::floor(ix), y_n = std::floor(iy);
          const T x_e = x_w + 1, y_s = y_n + 1;
          const T nw = (x_e - ix) * (y_s - iy), ne = (ix - x_w) * (y_s - iy);
          const T sw = (x_e - ix) * (iy - y_n), se = (ix - x_w) * (iy - y_n);
          const int64_t a_nw = gsb_at(y_n, x_w, d.H, d.W), a_ne = gsb_at(y_n, x_e, d.H, d.W);
          const int64_t a_sw = gsb_at(y_s, x_w, d.H, d.W), a_se = gsb_at(y_s, x_e, d.H, d.W);
          for (int64_t c = 0; c < d.C; ++c) {
            const T go = go_n[c * out_plane + p];
            const T* xc = x_n + c * plane;
            if (gi_n) {
              T* gic = gi_n + c * plane;
              if (a_nw >= 0) gic[a_nw] += nw * go;
              if (a_ne >= 0) gic[a_ne] += ne * go;
              if (a_sw >= 0) gic[a_sw] += sw * go;
              if (a_se >= 0) gic[a_se] += se * go;
            }
            if (a_nw >= 0) {
              gix -= xc[a_nw] * (y_s - iy) * go;
              giy -= xc[a_nw] * (x_e - ix) * go;
            }
            if (a_ne >= 0) {
              gix += xc[a_ne] * (y_s - iy) * go;
              giy -= xc[a_ne] * (ix - x_w) * go;
            }
            if (a_sw >= 0) {
              gix -= xc[a_sw] * (iy - y_n) * go;
              giy += xc[a_sw] * (x_e - ix) * go;
            }
            if (a_se >= 0) {
              gix += xc[a_se] * (iy - y_n) * go;
              giy += xc[a_se] * (ix - x_w) * go;
            }
          }
        }
        gg[0] = gx_mult * gix;
        gg[1] = gy_mult * giy;
      }
    }
  });
}

}  // namespace

void grid_sample_2d_backward(const GridSampleDesc& d, const void* grad_output, const void* input, const void* grid,
                             void* grad_input, void* grad_grid) {
  if (d.dtype == DType::kFloat32) {
    backward_typed(d, static_cast<const float*>(grad_output), static_cast<const float*>(input),
                   static_cast<const float*>(grid), static_cast<float*>(grad_input), static_cast<float*>(grad_grid));
  } else if (d.dtype == DType::kFloat64) {
    backward_typed(d, static_cast<const double*>(grad_output), static_cast<const double*>(input),
                   static_cast<const double*>(grid), static_cast<double*>(grad_input),
                   static_cast<double*>(grad_grid));
  } else {
    throw std::invalid_argument("grid_sampler_2d_backward: float or double only");
  }
}

}  // namespace torch_tpu::kernels
