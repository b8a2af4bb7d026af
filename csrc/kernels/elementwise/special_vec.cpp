// The special functions whose float path is straight-line float code that
// vectorizes (no libm call, selects instead of branches), compiled per ISA
// (CMake's TPU_KERNEL_AVX512_SOURCES) as CPU runs SLEEF's and MKL's AVX-512
// code for them: lgamma, erfc and erfinv (vec_math.h), and the modified
// Bessel functions i0, i0e, i1, i1e (float_math.h). float16/bfloat16 compute
// in float, rounded once; double keeps libm (lgamma, erfc) and
// Newton-refined erfinv. Special values as CPU's: lgamma inf at 0, the
// negative integers and -inf; erfinv +-inf at +-1, NaN outside [-1, 1]; i0/i1
// inf once e^x overflows.
#include "kernels/common/fp_contract.h"  // first, see there
// GCC 12's own avx512 half conversions, inlined: see kernels/elementwise/arith.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cmath>
#include <limits>
#include <numbers>

#include "kernels/common/isa.h"
#include "kernels/common/vec_math.h"
#include "kernels/elementwise/float_math.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

// always_inline: a call left in the op's loop would keep it from vectorizing.
__attribute__((always_inline)) inline float lgamma_of(float x) { return vmath::lgamma_f(x); }
inline double lgamma_of(double x) { return std::lgamma(x); }

struct LgammaOp : FloatingOp<ElementwiseOp::kLgamma, 1> {
  static constexpr const char* kName = "lgamma";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    __attribute__((always_inline)) M operator()(M x) const { return lgamma_of(x); }
  };
};

__attribute__((always_inline)) inline float erfc_of(float x) { return vmath::erfc_f(x); }
inline double erfc_of(double x) { return std::erfc(x); }

struct ErfcOp : FloatingOp<ElementwiseOp::kErfc, 1> {
  static constexpr const char* kName = "erfc";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    __attribute__((always_inline)) M operator()(M x) const { return erfc_of(x); }
  };
};

// Double: Giles' single-precision approximation (vec_math.h's erfinv_f) as
// the start, then two Newton steps on erf(x) - y, within an ulp or two of
// CPU's.
__attribute__((always_inline)) inline float erfinv_of(float y) { return vmath::erfinv_f(y); }
inline double erfinv_of(double y) {
  if (!(y >= -1.0 && y <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0 || y == -1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (const double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                           -0.00417768164, 0.246640727, 1.50140941}) {
      p = c + p * w;
    }
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (const double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                           0.00943887047, 1.00167406, 2.83297682}) {
      p = c + p * w;
    }
  }
  double x = p * y;
  const double two_over_sqrt_pi = 2.0 / std::sqrt(std::numbers::pi);
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

struct ErfinvOp : FloatingOp<ElementwiseOp::kErfinv, 1> {
  static constexpr const char* kName = "erfinv";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    __attribute__((always_inline)) M operator()(M x) const { return erfinv_of(x); }
  };
};

// i0, i1 in double (float: e^x in float, as CPU), rounded once; i0e, i1e in
// the compute precision (float_math.h says why). I1 and I1e are odd: CPU
// negates for x < 0 (so -0 gives +0).
template <int kNu, bool kScaled>
struct BesselIImpl {
  template <typename M>
  static M f(M x) {
    M r;
    if constexpr (kScaled) {
      r = bessel_i_scaled<M, kNu>(std::fabs(x));
    } else {
      r = static_cast<M>(bessel_i<M, kNu>(std::fabs(static_cast<double>(x))));
    }
    return kNu == 1 && x < M(0) ? -r : r;
  }
};

template <ElementwiseOp kO, int kNu, bool kScaled>
struct BesselIOp : FloatingOp<kO, 1> {
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const { return BesselIImpl<kNu, kScaled>::f(x); }
  };
};

struct I0Op : BesselIOp<ElementwiseOp::kI0, 0, false> {
  static constexpr const char* kName = "i0";
};
struct SpecialI0eOp : BesselIOp<ElementwiseOp::kSpecialI0e, 0, true> {
  static constexpr const char* kName = "special_i0e";
};
struct SpecialI1Op : BesselIOp<ElementwiseOp::kSpecialI1, 1, false> {
  static constexpr const char* kName = "special_i1";
};
struct SpecialI1eOp : BesselIOp<ElementwiseOp::kSpecialI1e, 1, true> {
  static constexpr const char* kName = "special_i1e";
};

}  // namespace
}  // namespace TORCH_TPU_ISA

constinit const OpEntry TORCH_TPU_ISA_ENTRY(kLgammaEntry) = make_entry<LgammaOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kErfcEntry) = make_entry<ErfcOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kErfinvEntry) = make_entry<ErfinvOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kI0Entry) = make_entry<I0Op>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSpecialI0eEntry) = make_entry<SpecialI0eOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSpecialI1Entry) = make_entry<SpecialI1Op>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSpecialI1eEntry) = make_entry<SpecialI1eOp>();

}  // namespace torch_tpu::kernels::ew
