// Elementwise special functions and sign/step ops: logaddexp, logaddexp2,
// copysign, heaviside, sinc, digamma, logit (+ backward), as CPU's kernels in
// ATen/native/cpu/BinaryOpsKernel.cpp and UnaryOpsKernel.cpp (lgamma, erfc
// and erfinv: special_vec.cpp). Floating ops compute in opmath (float for
// float16/bfloat16, rounded once), with vec_math.h's vectorizing float
// functions (a few ulp from CPU's SLEEF); logaddexp and sinc also take
// complex64/complex128 (CPU's scalar formulas).
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>
#include <limits>
#include <numbers>

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/complex_math.h"
#include "kernels/elementwise/float_math.h"

namespace torch_tpu::kernels::ew {
namespace {

// CPU's complex logaddexp (ATen's _log_add_exp_helper): the operand with the
// smaller real part is `lo` (a NaN operand, y's first, is both); NaN if lo
// has a NaN part; equal infinite real parts give lo (-inf) or
// log(e^lo + e^hi) (+inf); else hi + log1p(e^(lo - hi)), with glibc's
// cexp/clog and c10's complex log1p (complex_math.h).
template <typename T>
Complex<T> complex_logaddexp(Complex<T> x, Complex<T> y) {
  auto nan = [](Complex<T> z) { return z.re != z.re || z.im != z.im; };
  Complex<T> lo = y, hi = y;
  if (!nan(y)) {
    if (nan(x)) {
      lo = hi = x;
    } else if (x.re < y.re) {
      lo = x;
    } else {
      hi = x;
    }
  }
  if (nan(lo)) return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};
  if (!std::isfinite(lo.re) && lo.re == hi.re) {
    if (lo.re < T(0)) return lo;
    const Complex<T> a = cx::exp(lo), b = cx::exp(hi);
    return cx::log(Complex<T>{a.re + b.re, a.im + b.im});
  }
  const Complex<T> l = cx::log1p(cx::exp(Complex<T>{lo.re - hi.re, lo.im - hi.im}));
  return {l.re + hi.re, l.im + hi.im};
}

// log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities give themselves
// (their difference would be NaN). Complex: complex_logaddexp below.
struct LogaddexpOp : FloatingOp<ElementwiseOp::kLogaddexp, 2> {
  static constexpr const char* kName = "logaddexp";
  static constexpr bool kComplex32 = true;  // CUDA's: in complex64, rounded
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C> || is_complex_v<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (is_complex_v<M>) {
        return complex_logaddexp(a, b);
      } else {
        if (std::isinf(a) && a == b) return a;
        const M m = a > b ? a : (a != a ? a : b);
        return m + log1p_of(exp_of(-std::abs(a - b)));
      }
    }
  };
};

// log2(2^a + 2^b) = max + log1p(2^-|a - b|) / ln 2.
struct Logaddexp2Op : FloatingOp<ElementwiseOp::kLogaddexp2, 2> {
  static constexpr const char* kName = "logaddexp2";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if (std::isinf(a) && a == b) return a;
      const M m = a > b ? a : (a != a ? a : b);
      return m + log1p_of(exp2_of(-std::abs(a - b))) / M(std::numbers::ln2);
    }
  };
};

// |a| with b's sign bit (NaN signs included), exact in every float dtype.
struct CopysignOp : FloatingOp<ElementwiseOp::kCopysign, 2> {
  static constexpr const char* kName = "copysign";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const { return std::copysign(a, b); }
  };
};

// x == 0 ? values : x > 0 (NaN gives 0), in every real dtype and bool.
struct HeavisideOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kHeaviside;
  static constexpr const char* kName = "heaviside";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsRealOrBool<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M values) const { return x == M(0) ? values : static_cast<M>(x > M(0)); }
  };
};

// sin(pi x) / (pi x), 1 at 0. Complex as CPU's scalar loop: c10's product
// (pi, 0) * x, glibc's csin, c10's division.
struct SincOp : FloatingOp<ElementwiseOp::kSinc, 1> {
  static constexpr const char* kName = "sinc";
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C> || is_complex_v<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const {
      if constexpr (is_complex_v<M>) {
        using T = decltype(x.re);
        if (x.re == T(0) && x.im == T(0)) return M{T(1), T(0)};
        constexpr T pi = std::numbers::pi_v<T>;
        const M product{pi * x.re - T(0) * x.im, pi * x.im + T(0) * x.re};
        return complex_div(cx::sin(product), product);
      } else {
        if (x == M(0)) return M(1);
        const M product = std::numbers::pi_v<M> * x;
        return std::sin(product) / product;
      }
    }
  };
};

struct DigammaOp : FloatingOp<ElementwiseOp::kDigamma, 1> {
  static constexpr const char* kName = "digamma";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    // float too is computed in double and rounded once: CPU's float digamma
    // agrees with its double one to an ulp, near the poles included.
    M operator()(M x) const { return static_cast<M>(digamma_of(static_cast<double>(x))); }
  };
};

// args: eps (negative: none). log(x / (1 - x)), x first clamped to
// [eps, 1 - eps] when eps >= 0 (NaN stays NaN).
struct LogitOp : FloatingOp<ElementwiseOp::kLogit, 1, 1> {
  static constexpr const char* kName = "logit";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lo, hi;
    bool clamp;
    explicit Fn(const ScalarArgs& args)
        : lo(scalar_to<M>(args[0])), hi(M(1) - lo), clamp(lo >= M(0)) {}
    M operator()(M x) const {
      if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
      // CPU's float16/bfloat16 loop rounds 1 - x and the quotient
      return std::log(round_to<C>(x / round_to<C>(M(1) - x)));
    }
  };
};

// (grad, x), args: eps: grad / (x (1 - x)); outside [eps, 1 - eps] (NaN
// included) 0 when eps >= 0; outside [0, 1] NaN without eps.
struct LogitBackwardOp : FloatingOp<ElementwiseOp::kLogitBackward, 2, 1> {
  static constexpr const char* kName = "logit_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lo, hi;
    bool clamp;
    explicit Fn(const ScalarArgs& args)
        : lo(scalar_to<M>(args[0])), hi(M(1) - lo), clamp(lo >= M(0)) {}
    M operator()(M g, M x) const {
      if (clamp) return (x >= lo && x <= hi) ? g / (x * (M(1) - x)) : M(0);  // NaN: 0
      return (x < M(0) || x > M(1)) ? std::numeric_limits<M>::quiet_NaN() : g / (x * (M(1) - x));
    }
  };
};

// The sign bit, as bool: floats' own bit (-0.0 and -NaN included), x < 0
// for signed integers, false for unsigned ones and bool.
struct SignbitOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSignbit;
  static constexpr const char* kName = "signbit";
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = kIsRealOrBool<C>;
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    bool operator()(M x) const {
      if constexpr (std::is_floating_point_v<M>) {
        return std::signbit(x);
      } else if constexpr (std::is_signed_v<M>) {
        return x < M(0);
      } else {
        return false;
      }
    }
  };
};

// args: nan, posinf, neginf (the glue fills in the dtype's defaults: 0, its
// largest and its lowest finite value): x with NaN and infinities replaced.
struct NanToNumOp : FloatingOp<ElementwiseOp::kNanToNum, 1, 3> {
  static constexpr const char* kName = "nan_to_num";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M nan, posinf, neginf;
    explicit Fn(const ScalarArgs& args)
        : nan(scalar_to<M>(args[0])), posinf(scalar_to<M>(args[1])), neginf(scalar_to<M>(args[2])) {}
    M operator()(M x) const {
      if (x != x) return nan;
      if (x == std::numeric_limits<M>::infinity()) return posinf;
      if (x == -std::numeric_limits<M>::infinity()) return neginf;
      return x;
    }
  };
};

}  // namespace

constinit const OpEntry kLogaddexpEntry = make_entry<LogaddexpOp>();
constinit const OpEntry kLogaddexp2Entry = make_entry<Logaddexp2Op>();
constinit const OpEntry kCopysignEntry = make_entry<CopysignOp>();
constinit const OpEntry kHeavisideEntry = make_entry<HeavisideOp>();
constinit const OpEntry kSincEntry = make_entry<SincOp>();
constinit const OpEntry kDigammaEntry = make_entry<DigammaOp>();
constinit const OpEntry kLogitEntry = make_entry<LogitOp>();
constinit const OpEntry kLogitBackwardEntry = make_entry<LogitBackwardOp>();
constinit const OpEntry kSignbitEntry = make_entry<SignbitOp>();
constinit const OpEntry kNanToNumEntry = make_entry<NanToNumOp>();

}  // namespace torch_tpu::kernels::ew
