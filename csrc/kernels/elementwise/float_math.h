// Shared pieces of the floating-point elementwise ops of nn_pointwise.cpp,
// special_math.cpp and special_functions.cpp. Private to the kernel library; include after
// kernels/common/fp_contract.h.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>

#include "kernels/common/vec_math.h"
#include "kernels/elementwise/unary.h"

namespace torch_tpu::kernels::ew {

// An op over floating compute dtypes: kIn inputs, kA scalar arguments.
template <ElementwiseOp kO, int kIn, int kA = 0>
struct FloatingOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr int kInputs = kIn;
  static constexpr int kArgs = kA;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C>;
};

// Float through vec_math.h's vectorizing functions, double through libm.
inline float exp_of(float x) { return vmath::exp_f(x); }
inline double exp_of(double x) { return std::exp(x); }
inline float exp2_of(float x) { return vmath::exp2_f(x); }
inline double exp2_of(double x) { return std::exp2(x); }
inline float expm1_of(float x) { return vmath::expm1_f(x); }
inline double expm1_of(double x) { return std::expm1(x); }
inline float log_of(float x) { return vmath::log_f(x); }
inline double log_of(double x) { return std::log(x); }
inline float log1p_of(float x) { return vmath::log1p_f(x); }
inline double log1p_of(double x) { return std::log1p(x); }
inline float tanh_of(float x) { return vmath::tanh_f(x); }
inline double tanh_of(double x) { return std::tanh(x); }

// Shared by digamma (special_math.cpp) and polygamma(0, x)
// (special_functions.cpp).
// digamma, the derivative of lgamma: ±inf at ±0 (the sign flipped), NaN at
// negative integers, reflection psi(x) = psi(1 - x) - pi / tan(pi frac(x))
// below 0, the recurrence psi(x) = psi(x + 1) - 1 / x up to 10, then the
// asymptotic series ln x - 1/2x - sum B_2k / (2k x^2k) (Abramowitz & Stegun
// 6.3.18).
template <typename T>
inline T digamma_of(T x) {
  if (x == T(0)) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  T result = 0;
  if (x < T(0)) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    T whole;
    const T frac = std::modf(x, &whole);
    result = -std::numbers::pi_v<T> / std::tan(std::numbers::pi_v<T> * frac);
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  // B_2k / 2k for k = 7 down to 1: the series in z = 1 / x^2, by Horner.
  constexpr T kCoef[] = {T(1.0 / 12.0), T(-691.0 / 32760.0), T(1.0 / 132.0), T(-1.0 / 240.0),
                         T(1.0 / 252.0), T(-1.0 / 120.0), T(1.0 / 12.0)};
  T series = 0;
  if (x < T(1e17)) {
    const T z = T(1) / (x * x);
    T poly = 0;
    for (const T c : kCoef) poly = poly * z + c;
    series = z * poly;
  }
  return result + std::log(x) - T(0.5) / x - series;
}

}  // namespace torch_tpu::kernels::ew
