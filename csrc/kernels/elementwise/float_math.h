// Shared pieces of the floating-point elementwise ops of nn_pointwise.cpp,
// special_math.cpp, special_functions.cpp, special_bessel.cpp and
// special_vec.cpp. Private to the kernel library; include after
// kernels/common/fp_contract.h. In the ISA namespace (isa.h): special_vec.cpp
// is compiled per ISA.
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>
#include <type_traits>

#include "kernels/common/vec_math.h"
#include "kernels/elementwise/unary.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h

// An op over floating compute dtypes: kIn inputs, kA scalar arguments.
template <ElementwiseOp kO, int kIn, int kA = 0>
struct FloatingOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr int kInputs = kIn;
  static constexpr int kArgs = kA;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C>;
};

// float and double only: CPU's AT_DISPATCH_FLOATING_TYPES (no float16/bfloat16).
template <typename C>
inline constexpr bool kFloatOrDouble = std::is_same_v<C, float> || std::is_same_v<C, double>;

// The shell of most torch.special ops: float and double, no scalar
// arguments, the value F::f(inputs...) computed in the dtype itself.
template <ElementwiseOp kO, int kIn, typename F>
struct FloatDoubleOp : FloatingOp<kO, kIn> {
  template <typename C>
  static constexpr bool supports = kFloatOrDouble<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    // always_inline: a call left in the op's loop keeps it scalar.
    template <typename... X>
      requires(sizeof...(X) == kIn && (std::same_as<X, M> && ...))
    __attribute__((always_inline)) M operator()(X... x) const {
      return F::f(x...);
    }
  };
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

// ---- modified Bessel functions of the first kind, orders 0 and 1 -------------
// Shared by i0, i0e, i1, i1e (special_vec.cpp) and modified_bessel_i0/i1 and
// the K functions (special_bessel.cpp).
//
// For 0 <= x <= split, the power series (DLMF 10.25.2)
//   I_nu(x) = (x/2)^nu sum_k (x^2/4)^k / (k! (k + nu)!),
// all terms positive, by Horner in y = x^2/4; above it the asymptotic
// expansion (DLMF 10.40.1)
//   I_nu(x) = e^x / sqrt(2 pi x) sum_k t_k,  t_0 = 1,
//   t_k = -t_{k-1} (4 nu^2 - (2k - 1)^2) / (8 k x).
// Both are computed and one is selected: with fixed term counts (the Horner
// loops unrolled) the op's loop vectorizes. The counts keep the relative
// truncation error below 1e-16 (double: split 21, 42 and 24 terms) or 1e-9
// (float: split 12, 19 and 11 terms; float's smallest series coefficient,
// 1/(19! 20!), is still a normal float).

template <int kTerms, int kNu>
struct SeriesCoef {
  double c[kTerms + 1];
  constexpr SeriesCoef() : c() {
    double f = 1;  // k! (k + nu)!
    for (int k = 1; k <= kNu; ++k) f *= k;
    for (int k = 0; k <= kTerms; ++k) {
      if (k > 0) f *= double(k) * double(k + kNu);
      c[k] = 1.0 / f;
    }
  }
};

template <int kTerms, int kNu>
inline constexpr SeriesCoef<kTerms, kNu> kSeriesCoef{};

// sum_k (x^2/4)^k / (k! (k + nu)!) (without the (x/2)^nu), in T.
template <int kTerms, int kNu, typename T>
inline T bessel_series(T x) {
  const T y = T(0.25) * x * x;
  T s = 0;
  // GCC unrolls at most 16 iterations by itself; unrolled, the op's loop vectorizes
#pragma GCC unroll 64
  for (int k = kTerms; k >= 0; --k) s = s * y + static_cast<T>(kSeriesCoef<kTerms, kNu>.c[k]);
  return s;
}

// t_k / x^-k of the asymptotic expansion: prod_{j <= k} -(4 nu^2 - (2j - 1)^2) / (8 j).
template <int kTerms, int kNu>
struct AsymCoef {
  double c[kTerms + 1];
  constexpr AsymCoef() : c() {
    c[0] = 1;
    for (int k = 1; k <= kTerms; ++k) {
      const double odd = 2 * k - 1;
      c[k] = c[k - 1] * -(4.0 * kNu * kNu - odd * odd) / (8.0 * k);
    }
  }
};

template <int kTerms, int kNu>
inline constexpr AsymCoef<kTerms, kNu> kAsymCoef{};

// sum_k t_k of the asymptotic expansion, by Horner in 1/x, in T.
template <int kTerms, int kNu, typename T>
inline T bessel_asymptotic(T x) {
  const T z = T(1) / x;
  T s = 0;
#pragma GCC unroll 64
  for (int k = kTerms; k >= 0; --k) s = s * z + static_cast<T>(kAsymCoef<kTerms, kNu>.c[k]);
  return s;
}

// e^x in the compute precision: float's through vec_math.h (it vectorizes),
// double's through libm.
template <typename M>
inline double exp_in(double x) {
  if constexpr (std::is_same_v<M, float>) {
    return exp_of(static_cast<float>(x));
  } else {
    return std::exp(x);
  }
}

// Term counts per compute precision.
template <typename M>
struct BesselTerms {  // double
  static constexpr double kSplit = 21;
  static constexpr int kSeries = 42;
  static constexpr int kAsym = 24;
};
template <>
struct BesselTerms<float> {
  static constexpr double kSplit = 12;
  static constexpr int kSeries = 19;
  static constexpr int kAsym = 11;
};

// e^-x I_nu(x) for x = |input| >= 0, in M itself (NaN stays NaN: the
// asymptotic branch). Float's rounding (a few ulp) is far inside the default
// tolerances of these values, all below 1 (CPU's float i1e itself is up to
// 13 ulps off).
template <typename M, int kNu>
inline M bessel_i_scaled(M ax) {
  using T = BesselTerms<M>;
  constexpr M kSplit = static_cast<M>(T::kSplit);
  const M half_x_nu = kNu == 0 ? M(1) : M(0.5) * ax;
  // e^-x stops at the split, where the series stops being used: below e^-12
  // float's e^-x would reach slow subnormals.
  const M series = half_x_nu * bessel_series<T::kSeries, kNu>(ax) * exp_of(-(ax < kSplit ? ax : kSplit));
  if constexpr (!std::is_same_v<M, float>) {
    if (ax <= kSplit) return series;  // double calls libm (no vector loop): one branch only
  }
  const M asym = bessel_asymptotic<T::kAsym, kNu>(ax) / std::sqrt(M(2 * std::numbers::pi) * ax);
  return ax <= kSplit ? series : asym;
}

// I_nu(x) for x = |input| >= 0, in double (CPU's float I1 is up to 13 ulps
// off: ours stays within an ulp, so that the two stay within tolerance).
// CPU computes e^x in the compute precision and multiplies: the result is inf
// as soon as e^x overflows (x > log(max)), even where I_nu(x) itself would
// still be finite, and NaN at inf (inf / inf).
template <typename M, int kNu>
inline double bessel_i(double ax) {
  using T = BesselTerms<M>;
  constexpr double kExpOverflow = std::is_same_v<M, float> ? 88.72283935546875 : 709.782712893384;
  const double half_x_nu = kNu == 0 ? 1.0 : 0.5 * ax;
  const double series = half_x_nu * bessel_series<T::kSeries, kNu>(ax);
  if constexpr (!std::is_same_v<M, float>) {
    if (ax <= T::kSplit) return series;  // double calls libm (no vector loop): one branch only
  }
  // Divided before e^x multiplies: just below double's overflow, e^x times
  // I0's sum (1 + 1/(8x) + ...) would overflow where I0 itself does not.
  const double e = exp_in<M>(ax < kExpOverflow ? ax : kExpOverflow);
  const double asym = e * (bessel_asymptotic<T::kAsym, kNu>(ax) / std::sqrt(2 * std::numbers::pi * ax));
  double r = ax <= T::kSplit ? series : asym;
  r = ax > kExpOverflow ? std::numeric_limits<double>::infinity() : r;
  return ax == std::numeric_limits<double>::infinity() ? std::numeric_limits<double>::quiet_NaN() : r;  // CPU: e^inf / sqrt(inf)
}

}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels::ew
