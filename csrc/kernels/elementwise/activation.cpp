// Elementwise activations and their backward formulas: gelu (exact and tanh
// approximation), silu, the backward of sigmoid/tanh/gelu/silu, threshold
// (kernels/elementwise/ops.h). Formulas as CPU's kernels (ATen's Activation and
// BinaryOps CPU kernels), float16/bfloat16 in float, rounded once; float uses
// the vectorizing erf/tanh/exp of vec_math.h. silu and its backward also take
// complex64/complex128, as CPU.
#include "kernels/common/fp_contract.h"  // first, see there
// GCC 12's own avx512 half conversions, inlined: see kernels/elementwise/arith.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cmath>

#include "kernels/elementwise/complex_math.h"
#include "kernels/elementwise/math.h"
#include "kernels/elementwise/unary.h"
#include "kernels/common/isa.h"
#include "kernels/common/vec_math.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

__attribute__((always_inline)) inline float erf_of(float x) { return vmath::erf_f(x); }
__attribute__((always_inline)) inline double erf_of(double x) { return std::erf(x); }
__attribute__((always_inline)) inline float tanh_of(float x) { return vmath::tanh_f(x); }
__attribute__((always_inline)) inline double tanh_of(double x) { return std::tanh(x); }
__attribute__((always_inline)) inline float exp_of(float x) { return vmath::exp_f(x); }
__attribute__((always_inline)) inline double exp_of(double x) { return std::exp(x); }

constexpr double kSqrt1_2 = 0.707106781186547524401;  // M_SQRT1_2
constexpr double kSqrt2 = 1.41421356237309504880;     // M_SQRT2
constexpr double k2SqrtPi = 1.12837916709551257390;   // M_2_SQRTPI
constexpr double kKappa = 0.044715;

// x Phi(x) = x / 2 (1 + erf(x / sqrt 2)).
struct GeluImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kGelu;
  static constexpr const char* kName = "gelu";
  template <typename T>
  __attribute__((always_inline)) static T f(T x) {
    return x * T(0.5) * (T(1) + erf_of(x * T(kSqrt1_2)));
  }
};

// x / 2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
struct GeluTanhImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kGeluTanh;
  static constexpr const char* kName = "gelu_tanh";
  template <typename T>
  __attribute__((always_inline)) static T f(T x) {
    const T inner = T(kSqrt2 * k2SqrtPi * 0.5) * (x + T(kKappa) * x * x * x);
    return T(0.5) * x * (T(1) + tanh_of(inner));
  }
};

// grad (Phi(x) + x phi(x)).
struct GeluBackwardImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kGeluBackward;
  static constexpr const char* kName = "gelu_backward";
  template <typename T>
  __attribute__((always_inline)) static T f(T dy, T x) {
    const T cdf = T(0.5) * (T(1) + erf_of(x * T(kSqrt1_2)));
    const T pdf = exp_of(T(-0.5) * x * x) * T(k2SqrtPi * kSqrt1_2 * 0.5);
    return dy * (cdf + x * pdf);
  }
};

struct GeluTanhBackwardImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kGeluTanhBackward;
  static constexpr const char* kName = "gelu_tanh_backward";
  template <typename T>
  __attribute__((always_inline)) static T f(T dy, T x) {
    const T beta = T(kSqrt2 * k2SqrtPi * 0.5);
    const T x_sq = x * x;
    const T inner = beta * (x + T(kKappa) * x_sq * x);
    const T t = tanh_of(inner);
    const T left = T(0.5) * x;
    const T right = T(1) + t;
    const T left_derivative = T(0.5) * right;
    const T right_derivative = T(1) - t * t;
    const T inner_derivative = beta * (T(1) + T(3 * kKappa) * x_sq);
    return dy * (left_derivative + left * right_derivative * inner_derivative);
  }
};

// x / (1 + e^-x). Complex: CPU's vectorized formula, x / (1 + exp(0 - x))
// with glibc's cexp and c10's division.
struct SiluImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSilu;
  static constexpr const char* kName = "silu";
  static constexpr bool kComplex = true;
  template <typename T>
  __attribute__((always_inline)) static T f(T x) {
    return x / (T(1) + exp_of(-x));
  }
  template <typename T>
  static Complex<T> f(Complex<T> x) {
    const Complex<T> e = cx::exp(Complex<T>{T(0) - x.re, T(0) - x.im});
    return complex_div(x, Complex<T>{T(1) + e.re, T(0) + e.im});
  }
};

// grad s (1 + x (1 - s)), s = sigmoid(x). Complex: the same products (no
// conjugate, as CPU's silu_backward), unfused as Vectorized<complex>'s.
struct SiluBackwardImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSiluBackward;
  static constexpr const char* kName = "silu_backward";
  static constexpr bool kComplex = true;
  template <typename T>
  __attribute__((always_inline)) static T f(T dy, T x) {
    const T s = T(1) / (T(1) + exp_of(-x));
    return dy * s * (T(1) + x * (T(1) - s));
  }
  template <typename T>
  static Complex<T> f(Complex<T> dy, Complex<T> x) {
    const Complex<T> e = cx::exp(Complex<T>{T(0) - x.re, T(0) - x.im});
    const Complex<T> s = complex_div(Complex<T>{T(1), T(0)}, Complex<T>{T(1) + e.re, T(0) + e.im});
    const Complex<T> p = complex_mul(x, Complex<T>{T(1) - s.re, T(0) - s.im});
    return complex_mul(complex_mul(dy, s), Complex<T>{T(1) + p.re, T(0) + p.im});
  }
};

// grad (1 - y) y. CPU computes float16 in float16 arithmetic (each
// operation rounded to float16; bfloat16 in float, rounded once): so does
// this. Complex: grad conj((1 - y) y), with Vectorized<complex>'s unfused
// products.
struct SigmoidBackwardOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSigmoidBackward;
  static constexpr const char* kName = "sigmoid_backward";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C> || is_complex_v<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    static M round(M v) {
      if constexpr (std::is_same_v<C, Half>) {
        return half_bits_to_float(float_to_half_bits(v));
      } else {
        return v;
      }
    }
    M operator()(M dy, M y) const {
      if constexpr (is_complex_v<M>) {
        using T = decltype(y.re);
        const M p = complex_mul(M{T(1) - y.re, T(0) - y.im}, y);
        return complex_mul(dy, M{p.re, -p.im});
      } else {
        return round(round(dy * round(M(1) - y)) * y);
      }
    }
  };
};

// Complex: grad conj(1 - y y), with Vectorized<complex>'s unfused products.
struct TanhBackwardImpl {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kTanhBackward;
  static constexpr const char* kName = "tanh_backward";
  static constexpr bool kComplex = true;
  template <typename T>
  __attribute__((always_inline)) static T f(T dy, T y) {
    return dy * (T(1) - y * y);
  }
  template <typename T>
  static Complex<T> f(Complex<T> dy, Complex<T> y) {
    const Complex<T> yy = complex_mul(y, y);
    return complex_mul(dy, Complex<T>{T(1) - yy.re, -(T(0) - yy.im)});
  }
};

template <typename C>
inline constexpr bool kThresholdTypes = !is_complex_v<C> && !std::is_same_v<C, Bool> &&
                                        !std::is_same_v<C, uint16_t> && !std::is_same_v<C, uint32_t> &&
                                        !std::is_same_v<C, uint64_t>;

// x <= threshold ? value : other (threshold: other = x; threshold_backward:
// other = grad, value = 0). The glue passes threshold and value as the
// compute dtype's values (float for float16/bfloat16, as CPU's opmath).
struct ThresholdOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kThreshold;
  static constexpr const char* kName = "threshold";
  static constexpr int kInputs = 2;
  static constexpr int kArgs = 2;
  template <typename C>
  static constexpr bool supports = kThresholdTypes<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M threshold, value;
    explicit Fn(const ScalarArgs& args)
        : threshold(scalar_to<M>(args[0])), value(to_buffer<M>(scalar_to<C>(args[1]))) {}
    M operator()(M x, M other) const { return x <= threshold ? value : other; }
  };
};

}  // namespace
}  // namespace TORCH_TPU_ISA

constinit const OpEntry TORCH_TPU_ISA_ENTRY(kGeluEntry) = make_entry<FloatUnaryOp<GeluImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kGeluTanhEntry) = make_entry<FloatUnaryOp<GeluTanhImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kGeluBackwardEntry) = make_entry<FloatBinaryOp<GeluBackwardImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kGeluTanhBackwardEntry) = make_entry<FloatBinaryOp<GeluTanhBackwardImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSiluEntry) = make_entry<FloatUnaryOp<SiluImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSiluBackwardEntry) = make_entry<FloatBinaryOp<SiluBackwardImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSigmoidBackwardEntry) = make_entry<SigmoidBackwardOp>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kTanhBackwardEntry) = make_entry<FloatBinaryOp<TanhBackwardImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kThresholdEntry) = make_entry<ThresholdOp>();

}  // namespace torch_tpu::kernels::ew
