// Scalar arithmetic of the elementwise ops, written to give PyTorch CPU's
// bits (ATen's vectorized x86 code paths, the ones CPU takes for contiguous
// inputs) and to vectorize. Private to the kernel library; include after
// elementwise_fp_contract.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "convert.h"

namespace torch_tpu::kernels::ew {

// ---- integers: two's complement wrap-around, no undefined behaviour --------

// Unsigned type wide enough that arithmetic on it does not promote to int.
template <typename T>
using wrap_t = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;

template <typename T>
inline T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
}
template <typename T>
inline T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) - static_cast<wrap_t<T>>(b));
}
template <typename T>
inline T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
}
template <typename T>
inline T wrap_neg(T a) {
  return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(a));
}

// ---- complex ----------------------------------------------------------------

// (ac - bd) + (ad + bc)i with four roundings and no fused operation, as
// ATen's Vectorized<complex> operator* (mul, permute, mul, hsub).
template <typename T>
inline Complex<T> complex_mul(Complex<T> x, Complex<T> y) {
  return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
}

// c10::complex operator/ (Smith's algorithm, as numpy), with the fused
// multiply-adds GCC forms when it compiles it for ATen's AVX2/AVX512
// kernels (checked against torch CPU on random and special values).
// Branch free so that it vectorizes; same results as the branches.
template <typename T>
inline Complex<T> complex_div(Complex<T> x, Complex<T> y) {
  const T a = x.re, b = x.im, c = y.re, d = y.im;
  const T abs_c = std::fabs(c), abs_d = std::fabs(d);
  const bool ge = abs_c >= abs_d;  // false when either is NaN, like the branch
  const T rat = ge ? d / c : c / d;
  const T den = ge ? std::fma(d, rat, c) : std::fma(c, rat, d);
  const T scl = T(1) / den;
  T re = (ge ? std::fma(b, rat, a) : std::fma(a, rat, b)) * scl;
  T im = (ge ? std::fma(-a, rat, b) : std::fma(b, rat, -a)) * scl;
  // Both parts of the divisor zero: a complex inf or NaN, part by part.
  const bool zero = ge && abs_c == T(0);
  re = zero ? a / abs_c : re;
  im = zero ? b / abs_d : im;
  return {re, im};
}

// |x| as ATen's Vectorized<complex<float>>::abs (Sleef_hypotf_u05, within
// 0.5001 ulp): computed exactly enough in double, rounded once; an infinite
// part gives inf even when the other is NaN. (Not vectorized: GCC treats
// sqrt as setting errno unless the whole library is built -fno-math-errno.)
inline float complex_abs(Complex<float> x) {
  const double re = x.re, im = x.im;
  const float r = static_cast<float>(std::sqrt(re * re + im * im));
  const bool inf = (std::fabs(x.re) == std::numeric_limits<float>::infinity()) |
                   (std::fabs(x.im) == std::numeric_limits<float>::infinity());  // |: no branch
  return inf ? std::numeric_limits<float>::infinity() : r;
}

// |x| as glibc's hypot (CPU's strided path). CPU's contiguous path uses
// Sleef_hypotd_u05, which differs in the last bit for about 0.2% of inputs.
inline double complex_abs(Complex<double> x) { return std::hypot(x.re, x.im); }

}  // namespace torch_tpu::kernels::ew
