// The orthogonal polynomials of torch.special (and its spherical Bessel j0), (x, n) -> P_n(x): Chebyshev
// T, U, V, W (also shifted to [0, 1]), Hermite H (physicists') and He
// (probabilists'), Laguerre L, Legendre P. float and double only, computed in
// the dtype itself by their three-term recurrences, as CPU's kernels
// (ATen/native/cpu/BinaryOpsKernel.cpp over Math.h), with CPU's conventions:
// n is truncated to an integer (NaN and out-of-range n act as n < 0), 0 for
// n < 0, closed forms at the interval's ends, and the trigonometric forms
// (T_n(cos t) = cos(n t), U_n = sin((n + 1) t) / sin t, V_n = cos((n + 1/2) t)
// / cos(t / 2), W_n = sin((n + 1/2) t) / sin(t / 2)) inside it beyond CPU's
// thresholds of n, where the recurrence would accumulate rounding. CPU's
// compiler contracts each recurrence step a * b - c * d into
// fma(a, b, -(c * d)); so do these (std::fma: this file is built with
// contraction off, kernels/common/fp_contract.h), or float's values drift
// apart by 1e-5 over a few dozen steps.
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/float_math.h"

namespace torch_tpu::kernels::ew {
namespace {

// n as CPU's static_cast<int64_t>(n) on x86 (cvttsd2si): NaN and values out
// of int64's range give INT64_MIN, so they act as a negative n.
template <typename T>
inline int64_t degree_of(T n) {
  constexpr T kTwo63 = T(9223372036854775808.0);
  if (!(n > -kTwo63 && n < kTwo63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

enum class Cheb { kT, kU, kV, kW };

// (-1)^n v.
template <typename T>
inline T alternate(int64_t n, T v) {
  return n % 2 == 0 ? v : -v;
}

// Chebyshev polynomial of kind K at y, degree n >= 0, with the end values of
// the unshifted (ends x = +-1) or the shifted (ends x = 1, 0) form; y = x or
// 2x - 1. kTrig: the degree above which CPU switches to the trigonometric form.
template <Cheb K, bool kShifted, typename T>
inline T chebyshev_of(T x, int64_t n) {
  if (n < 0) return T(0);
  const T y = kShifted ? x + x - T(1) : x;
  const bool at_plus_one = kShifted ? x == T(1) : std::abs(x) == T(1) && x > T(0);
  const bool at_minus_one = kShifted ? x == T(0) : std::abs(x) == T(1) && !(x > T(0));
  const T two_n_1 = T(n + n + 1);
  if (at_plus_one) {
    switch (K) {
      case Cheb::kT: return T(1);
      case Cheb::kU: return T(n + 1);
      case Cheb::kV: return T(1);
      case Cheb::kW: return two_n_1;
    }
  }
  if (at_minus_one) {
    switch (K) {
      case Cheb::kT: return alternate(n, T(1));
      case Cheb::kU: return alternate(n, T(n + 1));
      case Cheb::kV: return alternate(n, two_n_1);
      case Cheb::kW: return alternate(n, T(1));
    }
  }
  constexpr int64_t kTrig = K == Cheb::kT ? 6 : (kShifted ? (K == Cheb::kW ? 4 : 6) : 8);
  if (n > kTrig && std::abs(y) < T(1)) {
    const T t = std::acos(y);
    switch (K) {
      case Cheb::kT:
        return std::cos(T(n) * t);
      case Cheb::kU:
        if (std::sin(t) != T(0)) return std::sin(T(n + 1) * t) / std::sin(t);
        return T(n + 1) * std::cos(T(n + 1) * t) / y;
      case Cheb::kV:
        if (std::sin(t / T(2)) != T(1)) return std::cos((T(n) + T(0.5)) * t) / std::cos(t / T(2));
        return alternate(n, two_n_1);
      case Cheb::kW:
        if (std::cos(t / T(2)) != T(1)) return std::sin((T(n) + T(0.5)) * t) / std::sin(t / T(2));
        if (!kShifted && x > T(0)) return two_n_1;
        return alternate(n, T(1));
    }
  }
  const T two_y = y + y;
  T q;  // degree 1
  switch (K) {
    case Cheb::kT: q = y; break;
    case Cheb::kU: q = two_y; break;
    case Cheb::kV: q = two_y - T(1); break;
    case Cheb::kW: q = two_y + T(1); break;
  }
  if (n == 0) return T(1);
  if (n == 1) return q;
  T p = T(1), r = q;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    r = std::fma(two_y, q, -p);
    p = q;
    q = r;
  }
  return r;
}

// CPU's degree limits of the Hermite recurrences (NaN above).
template <typename T>
inline constexpr int64_t kHermiteLimit = std::is_same_v<T, float> ? 128 : 512;

// H_n: H_{k+1} = 2x H_k - 2k H_{k-1}. A NaN or infinite n counts as -1.
template <typename T>
inline T hermite_h_of(T x, T nf) {
  const int64_t n = std::isnan(nf) || std::isinf(nf) ? -1 : degree_of(nf);
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  if (n > kHermiteLimit<T>) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = x + x, r = T(0);
  for (int64_t k = 2; k < n + n; k += 2) {
    r = std::fma(x + x, q, -(T(k) * p));
    p = q;
    q = r;
  }
  return r;
}

// He_n: He_{k+1} = x He_k - k He_{k-1}.
template <typename T>
inline T hermite_he_of(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  if (n > kHermiteLimit<T>) return std::numeric_limits<T>::quiet_NaN();
  T p = T(1), q = x, r = T(0);
  for (int64_t k = 1; k < n; ++k) {
    r = std::fma(x, q, -(T(k) * p));
    p = q;
    q = r;
  }
  return r;
}

// L_n: (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; 1 at x = 0.
template <typename T>
inline T laguerre_of(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(0)) return T(1);
  if (n == 0) return T(1);
  if (n == 1) return T(1) - x;
  T p = T(1), q = T(1) - x, r = q;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    r = std::fma(T(k + k) + (T(1) - x), q, -(T(k) * p)) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

// P_n: (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; +-1 at x = +-1.
template <typename T>
inline T legendre_of(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return x > T(0) ? T(1) : alternate(n, T(1));
  if (n == 0) return T(1);
  if (n == 1) return x;
  T p = T(1), q = x, r = q;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    r = std::fma(T(k + k + 1) * x, q, -(T(k) * p)) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

// (x, n) ops over float and double (AT_DISPATCH_FLOATING_TYPES): FloatDoubleOp.
template <Cheb K, bool kShifted>
struct ChebImpl {
  template <typename T>
  static T f(T x, T n) { return chebyshev_of<K, kShifted>(x, degree_of(n)); }
};
struct HermiteHImpl {
  template <typename T>
  static T f(T x, T n) { return hermite_h_of(x, n); }
};
struct HermiteHeImpl {
  template <typename T>
  static T f(T x, T n) { return hermite_he_of(x, degree_of(n)); }
};
struct LaguerreImpl {
  template <typename T>
  static T f(T x, T n) { return laguerre_of(x, degree_of(n)); }
};
struct LegendreImpl {
  template <typename T>
  static T f(T x, T n) { return legendre_of(x, degree_of(n)); }
};

using ChebTImpl = ChebImpl<Cheb::kT, false>;
using ShiftedChebTImpl = ChebImpl<Cheb::kT, true>;
using ChebUImpl = ChebImpl<Cheb::kU, false>;
using ShiftedChebUImpl = ChebImpl<Cheb::kU, true>;
using ChebVImpl = ChebImpl<Cheb::kV, false>;
using ShiftedChebVImpl = ChebImpl<Cheb::kV, true>;
using ChebWImpl = ChebImpl<Cheb::kW, false>;
using ShiftedChebWImpl = ChebImpl<Cheb::kW, true>;

#define TORCH_TPU_POLY_OP(Name, name, Impl)                          \
  struct Name##Op : FloatDoubleOp<ElementwiseOp::k##Name, 2, Impl> { \
    static constexpr const char* kName = name;                       \
  };
TORCH_TPU_POLY_OP(SpecialChebyshevT, "special_chebyshev_polynomial_t", ChebTImpl)
TORCH_TPU_POLY_OP(SpecialChebyshevU, "special_chebyshev_polynomial_u", ChebUImpl)
TORCH_TPU_POLY_OP(SpecialChebyshevV, "special_chebyshev_polynomial_v", ChebVImpl)
TORCH_TPU_POLY_OP(SpecialChebyshevW, "special_chebyshev_polynomial_w", ChebWImpl)
TORCH_TPU_POLY_OP(SpecialShiftedChebyshevT, "special_shifted_chebyshev_polynomial_t", ShiftedChebTImpl)
TORCH_TPU_POLY_OP(SpecialShiftedChebyshevU, "special_shifted_chebyshev_polynomial_u", ShiftedChebUImpl)
TORCH_TPU_POLY_OP(SpecialShiftedChebyshevV, "special_shifted_chebyshev_polynomial_v", ShiftedChebVImpl)
TORCH_TPU_POLY_OP(SpecialShiftedChebyshevW, "special_shifted_chebyshev_polynomial_w", ShiftedChebWImpl)
TORCH_TPU_POLY_OP(SpecialHermiteH, "special_hermite_polynomial_h", HermiteHImpl)
TORCH_TPU_POLY_OP(SpecialHermiteHe, "special_hermite_polynomial_he", HermiteHeImpl)
TORCH_TPU_POLY_OP(SpecialLaguerreL, "special_laguerre_polynomial_l", LaguerreImpl)
TORCH_TPU_POLY_OP(SpecialLegendreP, "special_legendre_polynomial_p", LegendreImpl)
#undef TORCH_TPU_POLY_OP

// j0(x) = sin(x) / x, the spherical Bessel function of order 0: 0 at
// +-inf, and below |x| = 1/2 its Taylor series
//   sum_k (-x^2)^k / (2k + 1)!  (to k = 6, as CPU: within an ulp there),
// in the dtype itself (float and double, as CPU).
struct SphericalBesselJ0Impl {
  template <typename M>
  static M f(M x) {
    if (std::isinf(x)) return M(0);
    if (std::abs(x) < M(0.5)) {
      const M z = x * x;
      // 1/(2k+1)! for k = 6 down to 1, by Horner in -x^2
      M s = M(1) / M(6227020800.0);
      for (const M c : {M(-1) / M(39916800.0), M(1) / M(362880.0), M(-1) / M(5040.0), M(1) / M(120.0),
                        M(-1) / M(6.0)}) {
        s = c + z * s;
      }
      return M(1) + z * s;
    }
    return std::sin(x) / x;
  }
};
struct SpecialSphericalBesselJ0Op : FloatDoubleOp<ElementwiseOp::kSpecialSphericalBesselJ0, 1, SphericalBesselJ0Impl> {
  static constexpr const char* kName = "special_spherical_bessel_j0";
};

}  // namespace

constinit const OpEntry kSpecialSphericalBesselJ0Entry = make_entry<SpecialSphericalBesselJ0Op>();
constinit const OpEntry kSpecialChebyshevTEntry = make_entry<SpecialChebyshevTOp>();
constinit const OpEntry kSpecialChebyshevUEntry = make_entry<SpecialChebyshevUOp>();
constinit const OpEntry kSpecialChebyshevVEntry = make_entry<SpecialChebyshevVOp>();
constinit const OpEntry kSpecialChebyshevWEntry = make_entry<SpecialChebyshevWOp>();
constinit const OpEntry kSpecialShiftedChebyshevTEntry = make_entry<SpecialShiftedChebyshevTOp>();
constinit const OpEntry kSpecialShiftedChebyshevUEntry = make_entry<SpecialShiftedChebyshevUOp>();
constinit const OpEntry kSpecialShiftedChebyshevVEntry = make_entry<SpecialShiftedChebyshevVOp>();
constinit const OpEntry kSpecialShiftedChebyshevWEntry = make_entry<SpecialShiftedChebyshevWOp>();
constinit const OpEntry kSpecialHermiteHEntry = make_entry<SpecialHermiteHOp>();
constinit const OpEntry kSpecialHermiteHeEntry = make_entry<SpecialHermiteHeOp>();
constinit const OpEntry kSpecialLaguerreLEntry = make_entry<SpecialLaguerreLOp>();
constinit const OpEntry kSpecialLegendrePEntry = make_entry<SpecialLegendrePOp>();

}  // namespace torch_tpu::kernels::ew
