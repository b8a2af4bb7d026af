// Complex exponentials, logarithms, roots and (inverse) trigonometric and
// hyperbolic functions with PyTorch CPU's bits. Private to the kernel
// library; include after kernels/common/fp_contract.h.
//
// CPU's complex kernels (ATen's Vectorized<c10::complex<T>>, the contiguous
// path) map most of these element by element to c10::complex's std::
// functions, which call libstdc++'s, which call C99's cexp/clog/csin/...
// of glibc's libm; the builtins below make the same calls, so the results
// agree exactly (checked against torch CPU on random and special values,
// inf and NaN parts included). The others follow ATen's formulas, with the
// fused multiply-adds GCC forms where it compiles c10's scalar code for the
// AVX2/AVX-512 kernels:
//   exp2        exp(z * ln 2), both parts multiplied by ln 2 (Vectorized::exp2;
//               std::pow(2, z) differs for ~0.1% of inputs)
//   expm1, log1p  c10/util/complex_math.h's CPU formulas
//   log2, log10 log(z) with both parts divided by ln 2 / ln 10
//   reciprocal, rsqrt  1 / z, 1 / sqrt(z) by c10's complex division
//   sigmoid     1 / (1 + exp(0 - z)), as CPU's vectorized sigmoid
//   acos        complex128: pi/2 - asin(z) part by part (Vectorized<complex
//               <double>>::acos); complex64: cacosf
// The libm calls do not vectorize: each element is one call.
#pragma once

#include <cmath>

#include "kernels/common/isa.h"
#include "kernels/elementwise/math.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace cx {

// GCC's complex types: what libstdc++ hands to the C99 functions.
inline __complex__ float to_c99(Complex<float> z) {
  __complex__ float r;
  __real__ r = z.re;
  __imag__ r = z.im;
  return r;
}
inline __complex__ double to_c99(Complex<double> z) {
  __complex__ double r;
  __real__ r = z.re;
  __imag__ r = z.im;
  return r;
}
inline Complex<float> from_c99(__complex__ float z) { return {__real__ z, __imag__ z}; }
inline Complex<double> from_c99(__complex__ double z) { return {__real__ z, __imag__ z}; }

// Builtins, not std::complex: no template instantiations outside this ISA
// namespace (see isa.h).
#define TORCH_TPU_CX_LIBM(name)                                                                  \
  inline Complex<float> name(Complex<float> z) { return from_c99(__builtin_c##name##f(to_c99(z))); } \
  inline Complex<double> name(Complex<double> z) { return from_c99(__builtin_c##name(to_c99(z))); }
TORCH_TPU_CX_LIBM(exp)
TORCH_TPU_CX_LIBM(log)
TORCH_TPU_CX_LIBM(sqrt)
TORCH_TPU_CX_LIBM(sin)
TORCH_TPU_CX_LIBM(cos)
TORCH_TPU_CX_LIBM(tan)
TORCH_TPU_CX_LIBM(sinh)
TORCH_TPU_CX_LIBM(cosh)
TORCH_TPU_CX_LIBM(tanh)
TORCH_TPU_CX_LIBM(asin)
TORCH_TPU_CX_LIBM(atan)
TORCH_TPU_CX_LIBM(asinh)
TORCH_TPU_CX_LIBM(acosh)
TORCH_TPU_CX_LIBM(atanh)
#undef TORCH_TPU_CX_LIBM

inline Complex<float> acos(Complex<float> z) { return from_c99(__builtin_cacosf(to_c99(z))); }
inline Complex<double> acos(Complex<double> z) {
  const Complex<double> a = asin(z);
  constexpr double kPi2 = 1.57079632679489661923;
  return {kPi2 - a.re, 0.0 - a.im};
}

template <typename T>
inline Complex<T> exp2(Complex<T> z) {
  constexpr T kLn2 = T(0.693147180559945309417);
  return exp(Complex<T>{z.re * kLn2, z.im * kLn2});
}

// expm1(x) cos(y) - 2 sin(y/2)^2 + i e^x sin(y), the first product fused.
template <typename T>
inline Complex<T> expm1(Complex<T> z) {
  const T a = std::sin(z.im / T(2));
  return {std::fma(std::expm1(z.re), std::cos(z.im), -(T(2) * a * a)), std::exp(z.re) * std::sin(z.im)};
}

// log(u) * (z / (u - 1)) with u = 1 + z (numpy's), exact cases first; the
// product with the fused multiply-adds of c10's operator*.
template <typename T>
inline Complex<T> log1p(Complex<T> z) {
  const Complex<T> u{z.re + T(1), z.im};
  if (u.re == T(1) && u.im == T(0)) return z;
  const Complex<T> lu = log(u);
  const Complex<T> um1{u.re - T(1), u.im};
  if (um1.re == z.re && um1.im == z.im) return lu;
  const Complex<T> q = complex_div(z, um1);
  return {std::fma(lu.re, q.re, -(lu.im * q.im)), std::fma(lu.re, q.im, lu.im * q.re)};
}

// log(z) / ln(base), part by part (the divisor is std::log(2) or
// std::log(10) rounded to T, as Vectorized::log2/log10).
template <typename T>
inline Complex<T> log2(Complex<T> z) {
  constexpr T kLn2 = T(0.693147180559945309417);
  const Complex<T> l = log(z);
  return {l.re / kLn2, l.im / kLn2};
}
template <typename T>
inline Complex<T> log10(Complex<T> z) {
  constexpr T kLn10 = T(2.30258509299404568402);
  const Complex<T> l = log(z);
  return {l.re / kLn10, l.im / kLn10};
}

template <typename T>
inline Complex<T> reciprocal(Complex<T> z) {
  return complex_div(Complex<T>{T(1), T(0)}, z);
}
template <typename T>
inline Complex<T> rsqrt(Complex<T> z) {
  return reciprocal(sqrt(z));
}
template <typename T>
inline Complex<T> sigmoid(Complex<T> z) {
  const Complex<T> e = exp(Complex<T>{T(0) - z.re, T(0) - z.im});
  return reciprocal(Complex<T>{T(1) + e.re, T(0) + e.im});
}

}  // namespace cx
}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels::ew
