// grid_sampler_3d and its backward (grid_sample.h), ATen's rules
// (ATen/native/GridSampler.h and the CPU implementation in GridSampler.cpp):
// the grid point (x, y, z) indexes (W, H, D); trilinear corners in ATen's
// order tnw, tne, tsw, tse, bnw, bne, bsw, bse (t/b: z, n/s: y, w/e: x),
// each weight the product of its x, y and z factors (x1 - x or x - x0,
// ...); nearest rounds half to even. Forward: one output row (n, d, h) per
// task; backward: one batch entry per task (its points share grad_input).
#include <cmath>
#include <stdexcept>

#include "kernels/nn/grid_coords.h"
#include "kernels/nn/grid_sample.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// A position inside the volume as an offset into a channel (-1 outside);
// far outside coordinates (or NaN) give no tap instead of overflowing.
template <typename T>
int64_t gs3_at(T z, T y, T x, const GridSampleDesc& d) {
  if (!(z >= T(0) && z < static_cast<T>(d.D) && y >= T(0) && y < static_cast<T>(d.H) && x >= T(0) &&
        x < static_cast<T>(d.W))) {
    return -1;
  }
  return (static_cast<int64_t>(z) * d.H + static_cast<int64_t>(y)) * d.W + static_cast<int64_t>(x);
}

// The taps of one grid point: 8 trilinear corners or 1 nearest, with the
// factors the backward needs.
template <typename T>
struct Taps3 {
  int64_t at[8];
  T w[8];
  T wx[2], wy[2], wz[2];  // trilinear factors: [0] = x1 - x, [1] = x - x0
  T mult[3];              // d(source index)/d(grid) for x, y, z
  int n = 0;
};

template <typename T>
Taps3<T> gs3_taps(const GridSampleDesc& d, const T* g) {
  Taps3<T> t;
  const T ix = grid::source_index(g[0], d.W, d.padding, d.align_corners, &t.mult[0]);
  const T iy = grid::source_index(g[1], d.H, d.padding, d.align_corners, &t.mult[1]);
  const T iz = grid::source_index(g[2], d.D, d.padding, d.align_corners, &t.mult[2]);
  if (d.interpolation == GridInterpolation::kNearest) {
    t.at[0] = gs3_at(std::nearbyint(iz), std::nearbyint(iy), std::nearbyint(ix), d);
    t.w[0] = 1;
    t.n = 1;
    return t;
  }
  const T x0 = std::floor(ix), y0 = std::floor(iy), z0 = std::floor(iz);
  t.wx[0] = (x0 + 1) - ix;
  t.wx[1] = ix - x0;
  t.wy[0] = (y0 + 1) - iy;
  t.wy[1] = iy - y0;
  t.wz[0] = (z0 + 1) - iz;
  t.wz[1] = iz - z0;
  for (int k = 0; k < 8; ++k) {
    const int bz = k >> 2, by = (k >> 1) & 1, bx = k & 1;
    t.at[k] = gs3_at(z0 + bz, y0 + by, x0 + bx, d);
    t.w[k] = t.wx[bx] * t.wy[by] * t.wz[bz];
  }
  t.n = 8;
  return t;
}

template <typename T>
void forward_typed(const GridSampleDesc& d, const T* input, const T* grid, T* out) {
  const int64_t vol = d.D * d.H * d.W, out_vol = d.out_d * d.out_h * d.out_w;
  const int64_t rows = d.N * d.out_d * d.out_h;
  runtime::parallel_for(0, rows, nn::rows_grain(d.out_w * d.C), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / (d.out_d * d.out_h), pos0 = (row % (d.out_d * d.out_h)) * d.out_w;
      for (int64_t w = 0; w < d.out_w; ++w) {
        const int64_t p = pos0 + w;
        const Taps3<T> t = gs3_taps<T>(d, grid + (n * out_vol + p) * 3);
        for (int64_t c = 0; c < d.C; ++c) {
          const T* src = input + (n * d.C + c) * vol;
          T acc = 0;
          for (int k = 0; k < t.n; ++k) {
            if (t.at[k] >= 0) acc += src[t.at[k]] * t.w[k];
          }
          out[(n * d.C + c) * out_vol + p] = acc;
        }
      }
    }
  });
}

template <typename T>
void backward_typed(const GridSampleDesc& d, const T* gout, const T* input, const T* grid, T* ginp, T* ggrid) {
  const int64_t vol = d.D * d.H * d.W, out_vol = d.out_d * d.out_h * d.out_w;
  runtime::parallel_for(0, d.N, 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      for (int64_t p = 0; p < out_vol; ++p) {
        const Taps3<T> t = gs3_taps<T>(d, grid + (n * out_vol + p) * 3);
        T* gg = ggrid + (n * out_vol + p) * 3;
        T gx = 0, gy = 0, gz = 0;
        for (int64_t c = 0; c < d.C; ++c) {
          const T go = gout[(n * d.C + c) * out_vol + p];
          const T* xc = input + (n * d.C + c) * vol;
          T* gic = ginp ? ginp + (n * d.C + c) * vol : nullptr;
          for (int k = 0; k < t.n; ++k) {
            const int64_t a = t.at[k];
            if (a < 0) continue;
            if (gic) gic[a] += t.n == 1 ? go : t.w[k] * go;
            if (t.n == 1) continue;
            const int bz = k >> 2, by = (k >> 1) & 1, bx = k & 1;
            const T v = xc[a];
            const T dx = v * t.wy[by] * t.wz[bz] * go, dy = v * t.wx[bx] * t.wz[bz] * go;
            const T dz = v * t.wx[bx] * t.wy[by] * go;
            gx = bx ? gx + dx : gx - dx;
            gy = by ? gy + dy : gy - dy;
            gz = bz ? gz + dz : gz - dz;
          }
        }
        gg[0] = t.mult[0] * gx;
        gg[1] = t.mult[1] * gy;
        gg[2] = t.mult[2] * gz;
      }
    }
  });
}

}  // namespace

void grid_sample_3d(const GridSampleDesc& d, const void* input, const void* grid, void* out) {
  grid::with_grid_type(d.dtype, "grid_sampler_3d", [&](auto z) {
    using T = decltype(z);
    forward_typed(d, static_cast<const T*>(input), static_cast<const T*>(grid), static_cast<T*>(out));
  });
}

void grid_sample_3d_backward(const GridSampleDesc& d, const void* grad_output, const void* input, const void* grid,
                             void* grad_input, void* grad_grid) {
  grid::with_grid_type(d.dtype, "grid_sampler_3d_backward", [&](auto z) {
    using T = decltype(z);
    backward_typed(d, static_cast<const T*>(grad_output), static_cast<const T*>(input),
                   static_cast<const T*>(grid), static_cast<T*>(grad_input), static_cast<T*>(grad_grid));
  });
}

}  // namespace torch_tpu::kernels
