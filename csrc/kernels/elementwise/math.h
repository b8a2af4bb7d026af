// Scalar arithmetic of the elementwise ops, written to give PyTorch CPU's
// bits (ATen's vectorized x86 code paths, the ones CPU takes for contiguous
// inputs) and to vectorize. Private to the kernel library; include after
// kernels/common/fp_contract.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/common/convert.h"

#include "kernels/common/isa.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h

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

// hypot(x, y) by the double-double algorithm of SLEEF's hypot_u05 (FMA
// variant), which ATen's Vectorized<complex<double>>::abs calls on x86, so the
// bits agree with CPU's contiguous path (glibc's hypot, CPU's strided path,
// differs in the last bit for ~0.2% of inputs): q = min/max as a double-double
// quotient, sqrt(q^2 + 1) in double-double, times max, then the special cases.
inline double hypot_u05(double x, double y) {
  x = std::fabs(x);
  y = std::fabs(y);
  const double mn = y < x ? y : x, mx = x < y ? y : x;
  const bool tiny = mx < std::numeric_limits<double>::min();  // scale subnormals by 2^54
  const double n = tiny ? mn * 0x1p54 : mn, d = tiny ? mx * 0x1p54 : mx;

  // q = n / d as qh + ql.
  const double r = 1.0 / d;
  const double qh = n * r;
  const double e = std::fma(-d, r, 1.0);  // 1 - d*r
  const double ql = std::fma(qh, e, std::fma(r, n, -qh) + 0.0);  // + 0.0: the low part of n (0), as SLEEF
  // a = q^2 as ah + al, then b = a + 1 (two-sum).
  const double ah = qh * qh;
  const double al = std::fma(qh + qh, ql, std::fma(qh, qh, -ah));
  const double bh = ah + 1.0;
  const double bv = bh - ah;
  const double bl = ((ah - (bh - bv)) + (1.0 - bv)) + al;
  // sqrt(b) = (b + t*t) / t / 2 with t = sqrt(bh + bl), in double-double.
  const double t = std::sqrt(bh + bl);
  const double th = t * t, tl = std::fma(t, t, -th);
  const double sh = bh + th;
  const double sv = sh - bh;
  const double sl = ((bh - (sh - sv)) + (th - sv)) + (bl + tl);
  const double rh = 1.0 / t, rl = rh * std::fma(-t, rh, 1.0);
  const double mh = sh * rh;
  const double ml = std::fma(sh, rl, std::fma(sl, rh, std::fma(sh, rh, -mh)));
  const double qh2 = mh * 0.5, ql2 = ml * 0.5;
  // Times max.
  const double ph = qh2 * mx;
  const double pl = std::fma(ql2, mx, std::fma(qh2, mx, -ph));
  double ret = ph + pl;

  ret = std::isnan(ret) ? std::numeric_limits<double>::infinity() : ret;
  ret = mn == 0 ? mx : ret;
  ret = (std::isnan(x) || std::isnan(y)) ? std::numeric_limits<double>::quiet_NaN() : ret;
  ret = (x == std::numeric_limits<double>::infinity() || y == std::numeric_limits<double>::infinity())
            ? std::numeric_limits<double>::infinity()
            : ret;
  return ret;
}

inline double complex_abs(Complex<double> x) { return hypot_u05(x.re, x.im); }

}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels::ew
