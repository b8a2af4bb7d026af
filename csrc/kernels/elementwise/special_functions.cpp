// Elementwise special functions of torch.special: the normal distribution's
// ndtri and log_ndtr; erfcx; entr and xlog1py; polygamma and the Hurwitz
// zeta (the modified Bessel functions i0, i0e, i1, i1e: special_vec.cpp).
// CPU's kernels are ATen/native/cpu/UnaryOpsKernel.cpp and BinaryOpsKernel.cpp over
// ATen/native/Math.h; their special values (0, ±inf, NaN, poles, out-of-
// domain arguments, overflow of e^x) are matched exactly, the values
// themselves are computed here from the functions' definitions (power series,
// asymptotic expansions, continued fractions, reflection and recurrence,
// Halley refinement), in double where float needs it, and rounded once.
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>
#include <limits>
#include <numbers>

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/float_math.h"

namespace torch_tpu::kernels::ew {
namespace {

constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr double kNaND = std::numeric_limits<double>::quiet_NaN();

// An op of one floating input computed in double (float16/bfloat16 through
// float, as CPU upcasts them) and rounded once; F(M tag, double) -> double.
template <ElementwiseOp kO, typename F>
struct DoubleUnaryOp : FloatingOp<kO, 1> {
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const { return static_cast<M>(F::template f<M>(static_cast<double>(x))); }
  };
};

// ---- erfcx, log_ndtr, ndtri ---------------------------------------------------

// e^(x^2) erfc(x) for x >= 0: libm's erfc times e^(x^2) (x^2's rounding error
// restored to first order) while erfc is a normal number, then Laplace's
// continued fraction (DLMF 7.9.2)
//   erfcx(x) = (1/sqrt(pi)) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))),
// evaluated bottom up, which needs no x^2 and so never overflows (inf -> 0).
inline double erfcx_nonneg(double x) {
  if (x < 26.0) {
    const double x2 = x * x;
    const double lo = std::fma(x, x, -x2);
    return std::exp(x2) * std::erfc(x) * (1.0 + lo);
  }
  double t = x;
  for (int k = 12; k >= 1; --k) t = x + (0.5 * k) / t;
  return (1.0 / std::sqrt(std::numbers::pi)) / t;
}

// Below 0, erfcx(x) = 2 e^(x^2) - erfcx(-x); CPU returns inf below -26.7
// (where e^(x^2) overflows double anyway). For float, x^2 is rounded to float
// first as CPU's float kernel does: e^(x^2) amplifies that rounding (x^2 eps,
// 5e-6 relative at x = -9) and CPU's values carry it.
template <typename M>
inline double erfcx_of(double x) {
  if (std::isnan(x)) return x;
  if (x >= 0) return erfcx_nonneg(x);
  if (x < -26.7) return kInfD;
  double e;
  if constexpr (std::is_same_v<M, float>) {
    e = 2.0 * std::exp(static_cast<double>(static_cast<float>(x * x)));
  } else {
    const double x2 = x * x;
    e = 2.0 * std::exp(x2) * (1.0 + std::fma(x, x, -x2));
  }
  return x < -6.1 ? e : e - erfcx_nonneg(-x);
}

// log Phi(x), Phi the standard normal CDF: with t = x / sqrt(2),
// log(erfcx(-t) / 2) - t^2 below -1 (Phi(x) = erfc(-t) / 2 underflows
// there), log1p(-erfc(t) / 2) above (as CPU's branches).
inline double log_ndtr_of(double x) {
  const double t = x * std::numbers::sqrt2 / 2;
  if (x < -1.0) return std::log(erfcx_of<double>(-t) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

// Phi^-1(p) = sqrt(2) erfinv(2p - 1) in double (float: vec_math.h's ndtri_f,
// which vectorizes): NaN outside [0, 1], -inf at 0, inf at 1. With
// q = min(p, 1 - p) (1 - p is exact for p >= 1/2):
//   - q >= 1e-7: Giles' single-precision erfinv ("Approximating the erfinv
//     function", GPU Computing Gems, 2011; vec_math.h's erfinv_ratio, here
//     in double), with w = -ln(1 - y^2) = -ln(4 q (1 - q)) formed from q (a
//     few 1e-7 relative), then one Halley step;
//   - deeper tails: Abramowitz & Stegun 26.2.23 in t = sqrt(-2 ln q)
//     (|error| < 4.5e-4), then two Halley steps.
// The Halley step on Phi(x) = q,
//   u = (Phi(x) - q) / phi(x),  x <- x - u / (1 + x u / 2),
// uses Phi / phi = sqrt(pi / 2) erfcx(-x / sqrt(2)) and Phi(x) - q =
// -Phi(x) expm1(ln q - ln Phi(x)), so that no step under- or overflows, down
// to the smallest subnormal q (cubic convergence).
inline double ndtri_of(double p) {
  if (!(p >= 0.0 && p <= 1.0)) return kNaND;
  if (p == 0.0) return -kInfD;
  if (p == 1.0) return kInfD;
  const bool upper = p > 0.5;
  const double q = upper ? 1.0 - p : p;
  double x;  // Phi^-1(q) <= 0
  int steps;
  if (q >= 1e-7) {
    double w = -std::log(4.0 * q * (1.0 - q)), poly;
    if (w < 5.0) {
      w -= 2.5;
      poly = 2.81022636e-08;
      for (const double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                             -0.00417768164, 0.246640727, 1.50140941}) {
        poly = c + poly * w;
      }
    } else {
      w = std::sqrt(w) - 3.0;
      poly = -0.000200214257;
      for (const double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                             0.00943887047, 1.00167406, 2.83297682}) {
        poly = c + poly * w;
      }
    }
    x = std::numbers::sqrt2 * poly * (2.0 * q - 1.0);  // 2q - 1 exact for q in [1/4, 1/2]
    steps = 1;
  } else {
    const double t = std::sqrt(-2.0 * std::log(q));
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                  (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
    steps = 2;
  }
  const double log_q = std::log(q);
  for (int i = 0; i < steps; ++i) {
    const double r = erfcx_of<double>(-x * (std::numbers::sqrt2 / 2));
    const double log_phi_cdf = std::log(0.5 * r) - 0.5 * x * x;
    const double u = std::sqrt(std::numbers::pi / 2) * r * -std::expm1(log_q - log_phi_cdf);
    x -= u / (1.0 + 0.5 * x * u);
  }
  return upper ? -x : x;
}

struct ErfcxImpl {
  template <typename M>
  static double f(double x) { return erfcx_of<M>(x); }
};
// float: CPU's float kernel squares t in float, and t^2 dominates the result
// below -1; its rounding then carries into log_ndtr's gradient,
// e^-(log_ndtr(x) + x^2 / 2), which the generated tests compare. So t and
// t^2 are rounded to float here too (the rest in double).
struct LogNdtrImpl {
  template <typename M>
  static double f(double x) {
    if constexpr (std::is_same_v<M, float>) {
      if (x < -1.0) {
        const float t = static_cast<float>(x) * (std::numbers::sqrt2_v<float> / 2);
        const float head = static_cast<float>(std::log(erfcx_of<double>(-static_cast<double>(t)) / 2));
        return head - t * t;
      }
    }
    return log_ndtr_of(x);
  }
};

// float and double only, as CPU's AT_DISPATCH_FLOATING_TYPES.
template <ElementwiseOp kO, typename F>
struct DoubleUnaryOpNoReduced : DoubleUnaryOp<kO, F> {
  template <typename C>
  static constexpr bool supports = kFloatOrDouble<C>;
};

struct SpecialErfcxOp : DoubleUnaryOpNoReduced<ElementwiseOp::kSpecialErfcx, ErfcxImpl> {
  static constexpr const char* kName = "special_erfcx";
};
struct SpecialLogNdtrOp : DoubleUnaryOpNoReduced<ElementwiseOp::kSpecialLogNdtr, LogNdtrImpl> {
  static constexpr const char* kName = "special_log_ndtr";
};
struct NdtriImpl {
  __attribute__((always_inline)) static float f(float p) { return vmath::ndtri_f(p); }
  static double f(double p) { return ndtri_of(p); }
};
struct SpecialNdtriOp : FloatDoubleOp<ElementwiseOp::kSpecialNdtri, 1, NdtriImpl> {
  static constexpr const char* kName = "special_ndtri";
};

// ---- entr, xlog1py ---------------------------------------------------------------

// -x log x: NaN stays, 0 at 0, -inf below 0. CPU's float16/bfloat16 loop
// rounds the log to the compute dtype (c10's std::log of a Half is a Half).
struct SpecialEntrOp : FloatingOp<ElementwiseOp::kSpecialEntr, 1> {
  static constexpr const char* kName = "special_entr";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const {
      const M v = -x * round_to<C>(log_of(x));
      const M r = x == M(0) ? M(0) : (x > M(0) ? v : -std::numeric_limits<M>::infinity());
      return x != x ? x : r;
    }
  };
};

// x log1p(y): NaN where y is NaN, else 0 where x == 0.
struct SpecialXlog1pyOp : FloatingOp<ElementwiseOp::kSpecialXlog1py, 2> {
  static constexpr const char* kName = "special_xlog1py";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M y) const {
      const M v = x * round_to<C>(log1p_of(y));
      return y != y ? y : (x == M(0) ? M(0) : v);
    }
  };
};

// ---- Hurwitz zeta and polygamma ----------------------------------------------------

// zeta(s, q) = sum_{k >= 0} (q + k)^-s, by Euler-Maclaurin summation: the
// terms up to a = q + N with N >= 9 and a > 9 (stopping early once a term no
// longer changes the sum), then
//   + a^(1-s) / (s - 1) - a^-s / 2
//   + sum_j B_2j / (2j)! s (s + 1) ... (s + 2j - 2) a^(-s-2j+1).
// CPU's special values: inf at s == 1, NaN for s < 1, inf where q is a
// non-positive integer (before s is looked at further), NaN for q < 0 with
// a non-integer s. T is CPU's accumulation type: double for float and double,
// float for float16/bfloat16 (whose polygamma sums in float: where the terms
// cancel, near negative q, the float sum is what CPU returns).
template <typename T>
inline T zeta_of(T s, T q) {
  if (s == T(1)) return std::numeric_limits<T>::infinity();
  if (s < T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (q <= T(0)) {
    if (q == std::floor(q)) return std::numeric_limits<T>::infinity();
    if (s != std::floor(s)) return std::numeric_limits<T>::quiet_NaN();
  }
  constexpr T kEps = T(1.1102230246251565e-16);
  T sum = std::pow(q, -s);
  T a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= T(9)) {
    ++i;
    a += T(1);
    b = std::pow(a, -s);
    sum += b;
    if (-kEps * sum < b && b < kEps * sum) return sum;
  }
  // (2j)! / B_2j for j = 1..12.
  constexpr T kFactOverBernoulli[] = {
      T(12.0), T(-720.0), T(30240.0), T(-1209600.0), T(47900160.0), T(-1307674368000.0 / 691.0),
      T(74724249600.0), T(-10670622842880000.0 / 3617.0), T(5109094217170944000.0 / 43867.0),
      T(-802857662698291200000.0 / 174611.0), T(155112100433309859840000.0 / 854513.0),
      T(-1.6938241367317436694528e27 / 236364091.0)};
  sum += b * a / (s - T(1)) - T(0.5) * b;
  T rising = 1, k = 0;
  for (const T c : kFactOverBernoulli) {
    rising *= s + k;  // s (s + 1) ... (s + 2j - 2)
    b /= a;
    const T t = rising * b / c;
    sum += t;
    if (std::fabs(t / sum) < kEps) break;
    k += T(1);
    rising *= s + k;
    b /= a;
    k += T(1);
  }
  return sum;
}

// In double for float too, rounded once.
struct ZetaImpl {
  template <typename M>
  static M f(M s, M q) { return static_cast<M>(zeta_of<double>(s, q)); }
};
struct SpecialZetaOp : FloatDoubleOp<ElementwiseOp::kSpecialZeta, 2, ZetaImpl> {
  static constexpr const char* kName = "special_zeta";
};

// psi'(x) in T (CPU computes float's in float): reflection below 1/2,
//   psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x),
// six steps of psi'(x) = psi'(x + 1) + 1/x^2, then the asymptotic series
//   psi'(x) = 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1)  (1/6, -1/30, 1/42).
template <typename T>
inline T trigamma_of(T x) {
  T sign = 1, result = 0;
  if (x < T(0.5)) {
    sign = -1;
    const T s = std::sin(std::numbers::pi_v<T> * x);
    result -= std::numbers::pi_v<T> * std::numbers::pi_v<T> / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T z = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) + z * (T(1) / T(6) - z * (T(1) / T(30) - z * (T(1) / T(42))))) / x;
  return sign * result;
}

// args: n (>= 0; ATen refuses negative n before the stub). n = 0: digamma
// (in double, as the digamma op), 1: trigamma, else
//   psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x),
// n! as CPU's exp(lgamma(n + 1)) in opmath (float for float16/bfloat16: inf
// from n = 35), zeta in double rounded to the compute dtype (for float16/
// bfloat16 too, as CPU's zeta<Half> returns a Half), the product in opmath.
struct PolygammaOp : FloatingOp<ElementwiseOp::kPolygamma, 1, 1> {
  static constexpr const char* kName = "polygamma";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    int64_t n;
    M factorial;
    explicit Fn(const ScalarArgs& args)
        : n(args[0].i), factorial(std::exp(std::lgamma(M(n) + M(1)))) {}
    M operator()(M x) const {
      if (n == 0) return static_cast<M>(digamma_of(static_cast<double>(x)));
      if (n == 1) return trigamma_of(x);
      using Acc = std::conditional_t<is_reduced_v<C>, float, double>;
      const M z = round_to<C>(static_cast<M>(zeta_of<Acc>(static_cast<Acc>(n + 1), static_cast<Acc>(x))));
      return (n % 2 ? M(1) : M(-1)) * factorial * z;
    }
  };
};

}  // namespace

constinit const OpEntry kSpecialNdtriEntry = make_entry<SpecialNdtriOp>();
constinit const OpEntry kSpecialLogNdtrEntry = make_entry<SpecialLogNdtrOp>();
constinit const OpEntry kSpecialErfcxEntry = make_entry<SpecialErfcxOp>();
constinit const OpEntry kSpecialEntrEntry = make_entry<SpecialEntrOp>();
constinit const OpEntry kSpecialXlog1pyEntry = make_entry<SpecialXlog1pyOp>();
constinit const OpEntry kPolygammaEntry = make_entry<PolygammaOp>();
constinit const OpEntry kSpecialZetaEntry = make_entry<SpecialZetaOp>();

}  // namespace torch_tpu::kernels::ew
