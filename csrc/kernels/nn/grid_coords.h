// Coordinate rules of the grid_sampler backwards (ATen/native/GridSampler.h,
// the *_set_grad helpers): a grid coordinate in [-1, 1] unnormalized by
// align_corners, then clipped (border) or reflected and clipped
// (reflection), each step also giving its derivative; and the dtype
// dispatch of every grid_sample entry. Private to the kernel library
// (grid_sample*.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/nn/grid_sample.h"

namespace torch_tpu::kernels::grid {

// f(T{}) with the element type of t (float or double, the dtypes the
// grid_sample kernels have); others throw naming `name`.
template <class F>
void with_grid_type(DType t, const char* name, F&& f) {
  if (t == DType::kFloat32) {
    f(float{});
  } else if (t == DType::kFloat64) {
    f(double{});
  } else {
    throw std::invalid_argument(std::string(name) + ": float or double only");
  }
}

template <typename T>
T unnormalize(T coord, int64_t size, bool align, T* grad) {
  if (align) {
    *grad = static_cast<T>(size - 1) / 2;
    return ((coord + 1) / 2) * (size - 1);
  }
  *grad = static_cast<T>(size) / 2;
  return ((coord + 1) * size - 1) / 2;
}

template <typename T>
T clip(T in, int64_t size, T* grad) {
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
T reflect(T in, int64_t twice_low, int64_t twice_high, T* grad) {
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

// compute_coordinates: the border/reflection mapping of an unnormalized
// coordinate (zeros padding keeps it); grad times its derivative.
template <typename T>
T pad(T coord, int64_t size, GridPadding padding, bool align, T* grad) {
  T g_clip, g_refl;
  if (padding == GridPadding::kBorder) {
    coord = clip(coord, size, &g_clip);
    *grad = *grad * g_clip;
  } else if (padding == GridPadding::kReflection) {
    coord = align ? reflect(coord, 0, 2 * (size - 1), &g_refl) : reflect(coord, -1, 2 * size - 1, &g_refl);
    coord = clip(coord, size, &g_clip);
    *grad = *grad * g_refl * g_clip;
  }
  return coord;
}

// grid_sampler_compute_source_index_set_grad.
template <typename T>
T source_index(T coord, int64_t size, GridPadding padding, bool align, T* grad) {
  coord = unnormalize(coord, size, align, grad);
  return pad(coord, size, padding, align, grad);
}

}  // namespace torch_tpu::kernels::grid
