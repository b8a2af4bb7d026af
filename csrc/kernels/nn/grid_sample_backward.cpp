// grid_sampler_2d_backward (grid_sample.h): ATen's rules
// (ATen/native/GridSampler.h; coordinates: grid_coords.h): each grid
// point scatters grad_output * weight into its taps of grad_input and
// gathers d(out)/d(x, y) from the input values at its taps, times the
// derivative of unnormalize and of the border/reflection mapping. One batch
// entry per task (its grid points share grad_input planes).
#include <cmath>
#include <stdexcept>

#include "kernels/nn/grid_coords.h"
#include "kernels/nn/grid_sample.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// compute_coordinates (no gradient): the padding of one bicubic tap.
template <typename T>
T gsb_pad(T coord, int64_t size, GridPadding padding, bool align) {
  T unused = 1;
  return grid::pad(coord, size, padding, align, &unused);
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
          const T ix = grid::unnormalize(g[0], d.W, align, &gx_mult);
          const T iy = grid::unnormalize(g[1], d.H, align, &gy_mult);
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
          const T ix = grid::source_index(g[0], d.W, d.padding, align, &gx_mult);
          const T iy = grid::source_index(g[1], d.H, d.padding, align, &gy_mult);
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
  grid::with_grid_type(d.dtype, "grid_sampler_2d_backward", [&](auto z) {
    using T = decltype(z);
    backward_typed(d, static_cast<const T*>(grad_output), static_cast<const T*>(input),
                   static_cast<const T*>(grid), static_cast<T*>(grad_input), static_cast<T*>(grad_grid));
  });
}

}  // namespace torch_tpu::kernels
