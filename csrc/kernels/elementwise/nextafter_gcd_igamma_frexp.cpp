// More elementwise special and number-theoretic functions: nextafter, gcd,
// lcm, angle, the regularized incomplete gamma functions igamma (P) and
// igammac (Q), and frexp's two halves. CPU's kernels are ATen/native/cpu/BinaryOpsKernel.cpp and
// UnaryOpsKernel.cpp over ATen/native/Math.h; their special values are
// matched exactly, the values computed here from the definitions (see
// special_functions.cpp for the rest of the family).
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <type_traits>

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/float_math.h"

namespace torch_tpu::kernels::ew {
namespace {

// ---- nextafter ------------------------------------------------------------------

// The next representable value of the compute dtype after `from` toward `to`.
// float and double: libm's. float16/bfloat16 step their own 16-bit pattern
// (a step in float would land between two half values): NaN if either is
// NaN, `to` if both are zeros (its sign), the smallest subnormal with `to`'s
// sign from a zero, else one unit toward `to`.
inline uint16_t nextafter_bits16(uint16_t from, uint16_t to, bool from_nan, bool to_nan, uint16_t nan_bits) {
  if (from_nan || to_nan) return nan_bits;
  if (from == to) return from;
  constexpr uint16_t kSign = 0x8000u;
  const uint16_t abs_from = from & ~kSign, abs_to = to & ~kSign;
  if (abs_from == 0) return abs_to == 0 ? to : static_cast<uint16_t>((to & kSign) | 1u);
  const bool down = abs_from > abs_to || ((from ^ to) & kSign);
  return static_cast<uint16_t>(down ? from - 1 : from + 1);
}

struct NextafterOp : FloatingOp<ElementwiseOp::kNextafter, 2> {
  static constexpr const char* kName = "nextafter";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (is_reduced_v<C>) {
        // a and b are exact widenings of C values, so the round trip is exact.
        const C ca = from_buffer<C>(a), cb = from_buffer<C>(b);
        const C nan = from_buffer<C>(a + b);
        const uint16_t r = nextafter_bits16(ca.bits, cb.bits, a != a, b != b, nan.bits);
        return to_buffer<M>(C{r});
      } else {
        return std::nextafter(a, b);
      }
    }
  };
};

// ---- gcd, lcm ---------------------------------------------------------------------

// |v| as C++'s std::abs on the promoted type, converted back (so the most
// negative value stays itself); wrapping for int64.
template <typename T>
inline T abs_wrap(T v) {
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
  } else {
    return v;
  }
}

// Euclid's algorithm on |a|, |b| (CPU's calc_gcd).
template <typename T>
inline T gcd_of(T a, T b) {
  a = abs_wrap(a);
  b = abs_wrap(b);
  while (a != 0) {
    const T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}

// AT_INTEGRAL_TYPES: uint8, int8, int16, int32, int64.
struct GcdOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kGcd;
  static constexpr const char* kName = "gcd";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsIntegral<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const { return gcd_of(a, b); }
  };
};

// |a / gcd * b|, 0 where the gcd is 0; in C++'s promoted type (int for the
// narrow ones) with wrapping, then converted back, as CPU's expression.
struct LcmOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kLcm;
  static constexpr const char* kName = "lcm";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsIntegral<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      const M g = gcd_of(a, b);
      if (g == 0) return M(0);
      using W = std::conditional_t<(sizeof(M) < sizeof(int)), int, M>;
      using U = std::make_unsigned_t<W>;
      // g == -1 (gcd(min, max) of int32/int64): a / g traps on CPU (SIGFPE for
      // a == min); here it wraps instead.
      const W q = std::is_signed_v<M> && g == M(-1) ? static_cast<W>(std::make_unsigned_t<W>(0) - static_cast<std::make_unsigned_t<W>>(a))
                             : static_cast<W>(static_cast<W>(a) / static_cast<W>(g));
      const W p = static_cast<W>(static_cast<U>(q) * static_cast<U>(static_cast<W>(b)));
      return static_cast<M>(abs_wrap(p));
    }
  };
};

// ---- angle ------------------------------------------------------------------------

// Real: pi below 0, 0 otherwise, NaN stays (float16/bfloat16: pi rounded to
// them). Complex: (arg z, 0), the glue keeps the real part.
struct AngleOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kAngle;
  static constexpr const char* kName = "angle";
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = kIsFloating<C> || is_complex_v<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M z) const {
      if constexpr (is_complex_v<M>) {
        return M{std::atan2(z.im, z.re), 0};
      } else {
        const M r = z < M(0) ? std::numbers::pi_v<M> : M(0);
        return z != z ? z : r;
      }
    }
  };
};

// ---- regularized incomplete gamma functions --------------------------------------
//
// P(a, x) = gamma(a, x) / Gamma(a), Q(a, x) = 1 - P(a, x), in double:
//   - the series (DLMF 8.7.1)
//       P(a, x) = x^a e^-x / Gamma(a + 1) sum_k x^k / ((a + 1) ... (a + k))
//     for x < a + 1;
//   - Legendre's continued fraction (DLMF 8.9.2), by the modified Lentz method,
//       Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...))
//     for x >= a + 1;
//   - for Q with a < 1 and x < a + 1, where P is close to 1, the series of
//     DLMF 8.7.3, Q = -expm1(a ln x - lnGamma(a + 1))
//                     - x^a / Gamma(a) sum_{n >= 1} (-x)^n / (n! (a + n)).
// CPU's boundary values come first, in its order.

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxIter = 100000;
constexpr double kEps = 1e-17;

inline double igamma_series(double a, double x) {
  double ap = a, term = 1, sum = 1;
  for (int k = 0; k < kMaxIter; ++k) {
    ap += 1;
    term *= x / ap;
    sum += term;
    if (term <= sum * kEps) break;
  }
  return sum * std::exp(a * std::log(x) - x - std::lgamma(a + 1));
}

inline double igammac_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < kMaxIter; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kEps) break;
  }
  return std::exp(a * std::log(x) - x - std::lgamma(a)) * h;
}

inline double igammac_small_series(double a, double x) {
  double fac = 1, sum = 0;
  for (int n = 1; n < kMaxIter; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  const double log_x = std::log(x);
  return -std::expm1(a * log_x - std::lgamma(a + 1)) - std::exp(a * log_x - std::lgamma(a)) * sum;
}

// Large a (> 1e4): Temme's uniform asymptotic expansion (DLMF 8.12.3-8.12.10)
//   Q(a, x) = erfc(eta sqrt(a / 2)) / 2 + R,  P(a, x) = erfc(-eta sqrt(a / 2)) / 2 - R,
//   R = e^(-a eta^2 / 2) / sqrt(2 pi a) (c0(eta) + c1(eta) / a),
// with mu = x / a - 1, eta^2 / 2 = mu - ln(1 + mu) (sign of mu),
//   c0 = 1/mu - 1/eta,  c1 = 1/eta^3 - 1/mu^3 - 1/mu^2 - 1/(12 mu),
// and their Taylor series in eta near 0 (and that of mu - ln(1 + mu) near 0),
// where the closed forms cancel. The next term is O(a^-2) relative: below
// 1e-10 there, where the series and the fraction would need ~sqrt(a)
// iterations and lose a ln a digits in their prefactor.
constexpr double kTemmeMinA = 1e4;

inline double temme_r(double a, double x, double* eta_out) {
  const double mu = (x - a) / a;
  double h;
  if (std::fabs(mu) < 0.01) {
    h = 0;  // mu - ln(1 + mu) = sum_{k >= 2} (-mu)^k / k
    double p = mu;
    for (int k = 2; k < 14; ++k) {
      p *= -mu;
      h += p / k;
    }
  } else {
    h = mu - std::log1p(mu);
  }
  const double eta = std::copysign(std::sqrt(2 * h), mu);
  double c0, c1;
  if (std::fabs(eta) < 1e-2) {
    c0 = -1.0 / 3 + eta * (1.0 / 12 + eta * (-2.0 / 135 + eta * (1.0 / 864 + eta * (8.0 / 2835))));
    c1 = -1.0 / 540 + eta * (-1.0 / 288 + eta * (1.0 / 378));
  } else {
    c0 = 1 / mu - 1 / eta;
    c1 = 1 / (eta * eta * eta) - 1 / (mu * mu * mu) - 1 / (mu * mu) - 1 / (12 * mu);
  }
  *eta_out = eta;
  return std::exp(-0.5 * a * eta * eta) / std::sqrt(2 * std::numbers::pi * a) * (c0 + c1 / a);
}

inline double igamma_of(double a, double x) {
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 1.0 : kNaN;
  if (x == 0) return 0.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0.0;
  if (std::isinf(x)) return 1.0;
  if (a != a || x != x) return kNaN;
  if (a > kTemmeMinA) {
    double eta;
    const double r = temme_r(a, x, &eta);
    return 0.5 * std::erfc(-eta * std::sqrt(0.5 * a)) - r;
  }
  return x < a + 1 ? igamma_series(a, x) : 1.0 - igammac_fraction(a, x);
}

inline double igammac_of(double a, double x) {
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 0.0 : kNaN;
  if (x == 0) return 1.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1.0;
  if (std::isinf(x)) return 0.0;
  if (a != a || x != x) return kNaN;
  if (a > kTemmeMinA) {
    double eta;
    const double r = temme_r(a, x, &eta);
    return 0.5 * std::erfc(eta * std::sqrt(0.5 * a)) + r;
  }
  if (x >= a + 1) return igammac_fraction(a, x);
  if (a < 1) return igammac_small_series(a, x);
  return 1.0 - igamma_series(a, x);
}

// Floating dtypes; float16/bfloat16 through float as CPU (which computes
// float's in float), here all in double, rounded once.
template <ElementwiseOp kO, double (*F)(double, double)>
struct IncompleteGammaOp : FloatingOp<kO, 2> {
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M x) const { return static_cast<M>(F(a, x)); }
  };
};

struct IgammaOp : IncompleteGammaOp<ElementwiseOp::kIgamma, &igamma_of> {
  static constexpr const char* kName = "igamma";
};
struct IgammacOp : IncompleteGammaOp<ElementwiseOp::kIgammac, &igammac_of> {
  static constexpr const char* kName = "igammac";
};

// ---- frexp --------------------------------------------------------------------------

// x = mantissa * 2^exponent, |mantissa| in [0.5, 1) (libm's frexp; 0, inf
// and NaN give themselves and exponent 0). Two ops over the same input, one
// per output (the glue launches both, csrc/aten/native/elementwise/frexp.cpp);
// float16/bfloat16 values are exact in float, so float's frexp gives theirs.
struct FrexpMantissaOp : FloatingOp<ElementwiseOp::kFrexpMantissa, 1> {
  static constexpr const char* kName = "frexp_mantissa";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const {
      int e;
      return std::frexp(x, &e);
    }
  };
};

// The exponent as a value of the compute dtype (exact: at most 1074 in
// magnitude, 133 for bfloat16, 24 for float16), converted to the int32 output.
struct FrexpExponentOp : FloatingOp<ElementwiseOp::kFrexpExponent, 1> {
  static constexpr const char* kName = "frexp_exponent";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const {
      int e = 0;
      (void)std::frexp(x, &e);
      return static_cast<M>(e);
    }
  };
};

}  // namespace

constinit const OpEntry kFrexpMantissaEntry = make_entry<FrexpMantissaOp>();
constinit const OpEntry kFrexpExponentEntry = make_entry<FrexpExponentOp>();
constinit const OpEntry kNextafterEntry = make_entry<NextafterOp>();
constinit const OpEntry kGcdEntry = make_entry<GcdOp>();
constinit const OpEntry kLcmEntry = make_entry<LcmOp>();
constinit const OpEntry kAngleEntry = make_entry<AngleOp>();
constinit const OpEntry kIgammaEntry = make_entry<IgammaOp>();
constinit const OpEntry kIgammacEntry = make_entry<IgammacOp>();

}  // namespace torch_tpu::kernels::ew
