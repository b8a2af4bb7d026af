// Elementwise pow (tensor ** tensor, tensor ** scalar), atan2 and hypot
// (kernels/elementwise/ops.h). Transcendental results come from the C library (CPU's
// vectorized paths use SLEEF, within 1 ulp of them: tests use tolerances);
// the exact special cases of CPU's pow_tensor_scalar (x*x, x*x*x, 1/(x*x),
// sqrt, 1/sqrt, 1/x) are reproduced bit for bit.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

template <typename C>
inline constexpr bool kPowTypes = kIsIntegral<C> || kIsFloating<C> || is_complex_v<C>;

struct PowOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kPow;
  static constexpr const char* kName = "pow";
  static constexpr int kInputs = 2;
  static constexpr bool kComplex32 = true;  // CUDA's: in complex64, rounded
  template <typename C>
  static constexpr bool supports = kPowTypes<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (is_complex_v<M>) {
        return from_std(std::pow(to_std(a), to_std(b)));
      } else if constexpr (std::is_floating_point_v<M>) {
        return std::pow(a, b);
      } else {
        return powi(a, b);
      }
    }
  };
};

// The exponent as a double (real part of a complex one).
inline double exponent_of(const ScalarArg& e) {
  return e.kind == ScalarArg::Kind::kDouble || e.kind == ScalarArg::Kind::kComplex ? e.re
                                                                                    : static_cast<double>(e.i);
}
inline bool exponent_is(const ScalarArg& e, double v) {
  return exponent_of(e) == v && (e.kind != ScalarArg::Kind::kComplex || e.im == 0);
}

// pow(x, e) with a scalar exponent (args: e, unconverted), as CPU's
// pow_tensor_scalar_kernel chooses per dtype:
//   float/double/bfloat16/complex: e == 0.5, -0.5, -1 -> sqrt, 1/sqrt, 1/x;
//   float/double/complex: e == 2, 3, -2 -> x*x, x*x*x, 1/(x*x), else pow
//     (float: e rounded to float, as Vectorized<float>(e));
//   bfloat16: e rounded to bfloat16 first, then the same cases, every step
//     rounded to bfloat16;
//   float16: e rounded to float16, pow in float, no special cases;
//   integral: powi(x, e) with e converted to the dtype.
struct PowScalarOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kPowScalar;
  static constexpr const char* kName = "pow_scalar";
  static constexpr int kInputs = 1;
  static constexpr bool kComplex32 = true;  // CUDA's: in complex64, rounded
  static constexpr int kArgs = 1;
  template <typename C>
  static constexpr bool supports = kPowTypes<C>;

  enum Case : int8_t { kSqrt, kRsqrt, kRecip, kSquare, kCube, kInvSquare, kGeneral };

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    Case c = kGeneral;
    M e{};

    explicit Fn(const ScalarArgs& args) {
      const ScalarArg& x = args[0];
      if constexpr (!std::is_same_v<C, Half> && (kIsFloating<C> || is_complex_v<C>)) {
        if (exponent_is(x, 0.5)) c = kSqrt;
        if (exponent_is(x, -0.5)) c = kRsqrt;
        if (exponent_is(x, -1.0)) c = kRecip;
      }
      if constexpr (std::is_same_v<C, Complex<Half>>) {
        e = scalar_to<M>(x);  // CUDA: pow in complex64, no square/cube cases
      } else if constexpr (std::is_same_v<C, Half>) {
        e = to_buffer<float>(scalar_to<Half>(x));
      } else if constexpr (kIsFloating<C> || is_complex_v<C>) {
        // The cases compare the exponent in the type CPU compares it in:
        // double for float/double/complex, bfloat16 for bfloat16.
        const double d = std::is_same_v<C, BFloat16> ? to_buffer<float>(scalar_to<BFloat16>(x)) : exponent_of(x);
        const bool real = x.kind != ScalarArg::Kind::kComplex || x.im == 0;
        if (c == kGeneral && real) {
          if (d == 2.0) c = kSquare;
          if (d == 3.0) c = kCube;
          if (d == -2.0) c = kInvSquare;
        }
        if constexpr (is_complex_v<C>) {
          e = scalar_to<C>(x);
        } else if constexpr (std::is_same_v<C, BFloat16>) {
          e = static_cast<float>(d);
        } else {
          e = static_cast<M>(scalar_to<double>(x));  // float: Vectorized<float>(double)
        }
      } else {
        e = scalar_to<C>(x);
      }
    }

    M operator()(M a) const {
      if constexpr (is_complex_v<M>) {
        using T = decltype(a.re);
        switch (c) {
          case kSqrt: return from_std(std::sqrt(to_std(a)));
          case kRsqrt: return complex_reciprocal(from_std(std::sqrt(to_std(a))));
          case kRecip: return complex_reciprocal(a);
          case kSquare: return complex_mul(a, a);
          case kCube: return complex_mul(complex_mul(a, a), a);
          case kInvSquare: return complex_reciprocal(complex_mul(a, a));
          default: return from_std(std::pow(to_std(a), std::complex<T>(e.re, e.im)));
        }
      } else if constexpr (std::is_floating_point_v<M>) {
        // Rounded steps for bfloat16 (Vectorized<BFloat16> ops); the
        // framework rounds the result once more (exactly).
        switch (c) {
          case kSqrt: return std::sqrt(a);
          case kRsqrt: return M(1) / round_to<C>(std::sqrt(a));  // bfloat16: 1 / bf16(sqrt(x))
          case kRecip: return M(1) / a;
          case kSquare: return a * a;
          case kCube: return round_to<C>(a * a) * a;
          case kInvSquare: return M(1) / round_to<C>(a * a);
          default: return std::pow(a, e);
        }
      } else {
        return powi(a, e);
      }
    }
  };
};

template <ElementwiseOp kO, bool kAtan2>
struct Atan2HypotOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kAtan2 ? "atan2" : "hypot";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsFloating<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const { return kAtan2 ? std::atan2(a, b) : std::hypot(a, b); }
  };
};

}  // namespace
}  // namespace TORCH_TPU_ISA

constinit const OpEntry TORCH_TPU_ISA_ENTRY(kPowEntry) = make_entry<PowOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kPowScalarEntry) = make_entry<PowScalarOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAtan2Entry) = make_entry<Atan2HypotOp<ElementwiseOp::kAtan2, true>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kHypotEntry) = make_entry<Atan2HypotOp<ElementwiseOp::kHypot, false>>();

}  // namespace torch_tpu::kernels::ew
