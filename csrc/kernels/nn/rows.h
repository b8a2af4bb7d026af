// Row helpers shared by the nn kernels (softmax, layer norm): widen a row of
// float16/bfloat16/float/double (and int64, for the int64 convolution) into
// the compute type and narrow it back,
// lane-parallel sums and maxima, and exp in the compute type. Private to the
// kernel library.
//
// The reductions keep 16 independent partial results (one AVX-512 register
// of floats) and combine them at the end: GCC vectorizes the fixed-width
// inner loops without -ffast-math, and the lane-wise order is what PyTorch
// CPU's Vectorized reductions do as well.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/common/half.h"
#include "kernels/common/vec_math.h"
#include "kernels/common/tensor_desc.h"

#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace nn {

constexpr int kLanes = 16;

// The compute type of an nn kernel: double for float64, float otherwise.
inline bool computes_in_double(DType t) { return t == DType::kFloat64; }

// Calls f(C{}) with the compute type C of an nn kernel on dtype t: double for
// float64, else float (float16/bfloat16 widen to float and round once).
template <class F>
void with_compute_type(DType t, F&& f) {
  if (computes_in_double(t)) {
    f(double{});
  } else {
    f(float{});
  }
}

inline bool is_nn_float(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64;
}

// dst[0..n) = src[offset .. offset + n) widened to C.
template <typename C>
inline void load_row(const void* src, DType t, int64_t offset, int64_t n, C* __restrict dst) {
  switch (t) {
    case DType::kFloat32: {
      const float* s = static_cast<const float*>(src) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(s[i]);
      return;
    }
    case DType::kFloat64: {
      const double* s = static_cast<const double*>(src) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(s[i]);
      return;
    }
    case DType::kFloat16: {
      const Half* s = static_cast<const Half*>(src) + offset;
      if constexpr (std::is_same_v<C, float>) {
        half_to_float_n(dst, s, n);
      } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = half_bits_to_float(s[i].bits);
      }
      return;
    }
    case DType::kBFloat16: {
      const BFloat16* s = static_cast<const BFloat16*>(src) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(bfloat16_bits_to_float(s[i].bits));
      return;
    }
    case DType::kInt64: {  // the int64 convolution (C = uint64_t: wrapping sums)
      const int64_t* s = static_cast<const int64_t*>(src) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C>(s[i]);
      return;
    }
    default:
      return;
  }
}

// dst[offset .. offset + n) = src[0..n) narrowed (round to nearest even).
template <typename C>
inline void store_row(const C* __restrict src, int64_t n, void* dst, DType t, int64_t offset) {
  switch (t) {
    case DType::kFloat32: {
      float* d = static_cast<float*>(dst) + offset;
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(src[i]);
      return;
    }
    case DType::kFloat64: {
      double* d = static_cast<double*>(dst) + offset;
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<double>(src[i]);
      return;
    }
    case DType::kFloat16: {
      Half* d = static_cast<Half*>(dst) + offset;
      if constexpr (std::is_same_v<C, float>) {
        float_to_half_n(d, src, n);
      } else {
        for (int64_t i = 0; i < n; ++i) d[i].bits = float_to_half_bits(static_cast<float>(src[i]));
      }
      return;
    }
    case DType::kBFloat16: {
      BFloat16* d = static_cast<BFloat16*>(dst) + offset;
      for (int64_t i = 0; i < n; ++i) d[i].bits = float_to_bfloat16_bits(static_cast<float>(src[i]));
      return;
    }
    case DType::kInt64: {
      int64_t* d = static_cast<int64_t*>(dst) + offset;
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<int64_t>(src[i]);
      return;
    }
    default:
      return;
  }
}

// Rows per parallel_for chunk for rows of row_elems elements: about 32K
// elements of work per chunk.
inline int64_t rows_grain(int64_t row_elems) {
  constexpr int64_t kWorkElems = 32768;
  return std::max<int64_t>(1, kWorkElems / std::max<int64_t>(1, row_elems));
}

// Element i of p (dtype t) in C, and v stored there: the one-element forms
// of load_row / store_row (per-row statistics, losses, weights).
template <typename C>
inline C load_one(const void* p, DType t, int64_t i) {
  C v{};
  load_row(p, t, i, 1, &v);
  return v;
}
template <typename C>
inline void store_one(C v, void* p, DType t, int64_t i) {
  store_row(&v, 1, p, t, i);
}

// ---- lane-parallel reductions ---------------------------------------------

template <typename C>
inline C combine_sum(const C (&acc)[kLanes]) {
  // Pairwise, like a vector horizontal add.
  C t[kLanes];
  for (int l = 0; l < kLanes; ++l) t[l] = acc[l];
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) t[l] += t[l + w];
  }
  return t[0];
}

// Sum of f(i) for i in [0, n), f returning C. Blocks of 2048 elements are
// summed lane-wise in C, and block sums are added in double, so long rows
// keep their accuracy (cascade summation).
template <typename C, typename F>
inline double sum_lanes(int64_t n, F&& f) {
  constexpr int64_t kBlock = 2048;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    C acc[kLanes] = {};
    int64_t i = b;
    for (; i + kLanes <= e; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) acc[l] += f(i + l);
    }
    C tail = 0;
    for (; i < e; ++i) tail += f(i);
    total += static_cast<double>(combine_sum(acc)) + static_cast<double>(tail);
  }
  return total;
}

// sum_lanes of f and of g in one pass (each summed exactly as sum_lanes
// would): {sum f, sum g}.
template <typename C, typename F, typename G>
inline std::pair<double, double> sum2_lanes(int64_t n, F&& f, G&& g) {
  constexpr int64_t kBlock = 2048;
  double tf = 0, tg = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    C af[kLanes] = {}, ag[kLanes] = {};
    int64_t i = b;
    for (; i + kLanes <= e; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        af[l] += f(i + l);
        ag[l] += g(i + l);
      }
    }
    C rf = 0, rg = 0;
    for (; i < e; ++i) {
      rf += f(i);
      rg += g(i);
    }
    tf += static_cast<double>(combine_sum(af)) + static_cast<double>(rf);
    tg += static_cast<double>(combine_sum(ag)) + static_cast<double>(rg);
  }
  return {tf, tg};
}

// Maximum of x[0..n) (NaN if any element is NaN, -inf for n == 0).
// A lane takes v when v > acc or v is NaN; once NaN it stays NaN (no
// comparison with NaN is true). One select per lane keeps the loop a
// vector loop: a separate bool NaN flag per lane made GCC scalarize it.
template <typename C>
inline C max_lanes(const C* __restrict x, int64_t n) {
  constexpr int kL = 2 * kLanes;  // two registers: hides the compare latency
  C acc[kL];
  for (int l = 0; l < kL; ++l) acc[l] = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  for (; i + kL <= n; i += kL) {
    for (int l = 0; l < kL; ++l) {
      const C v = x[i + l];
      acc[l] = (v > acc[l] || v != v) ? v : acc[l];
    }
  }
  for (int l = 0; i + l < n; ++l) {
    const C v = x[i + l];
    acc[l] = (v > acc[l] || v != v) ? v : acc[l];
  }
  C m = acc[0];
  for (int l = 1; l < kL; ++l) m = (acc[l] > m || acc[l] != acc[l]) ? acc[l] : m;
  return m;
}

// ---- exp ----------------------------------------------------------------------

// exp in the compute type: vec_math.h's vectorizing expf (2-3 ulp, FMA
// based) for float; CPU's softmax uses a 20-ulp exp (exp_u20), so this stays
// the more accurate of the two.
template <typename C>
inline C exp_c(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return vmath::exp_f(x);
  } else {
    return std::exp(x);
  }
}

}  // namespace nn
}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
