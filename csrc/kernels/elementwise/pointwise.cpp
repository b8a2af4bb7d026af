// Elementwise lerp (scalar and tensor weight), addcmul and addcdiv
// (kernels/elementwise/ops.h), with CPU's AVX-512 roundings:
//   lerp:    fma(w small ? w : w - 1, end - self, w small ? self : end),
//            |w| < 0.5 (complex: |w|^2 < 0.25; complex products unfused);
//   addcmul: fma(value * t1, t2, self) (complex and integers: unfused/wrapping);
//   addcdiv: self + (value * t1) / t2.
// float16/bfloat16 compute in float and round once; their scalar (weight,
// value) is converted to float, not rounded to the dtype, as CPU's
// value.to<float>().
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

template <typename C>
inline constexpr bool kFloatOrComplex = kIsFloating<C> || is_complex_v<C>;

// The op's scalar argument in buffer type M: float for float16/bfloat16,
// complex64 for complex32 (CUDA's opmath), else converted to C.
template <typename C, typename M>
M scalar_in_opmath(const ScalarArg& a) {
  if constexpr (is_reduced_v<C> || std::is_same_v<C, Complex<Half>>) {
    return scalar_to<M>(a);
  } else {
    return to_buffer<M>(scalar_to<C>(a));
  }
}

template <typename M>
inline M lerp(M a, M b, M w) {
  if constexpr (is_complex_v<M>) {
    using T = decltype(w.re);
    const bool small = (w.re * w.re + w.im * w.im) < T(0.25);
    const M coeff{small ? w.re : w.re - T(1), w.im};
    const M diff{b.re - a.re, b.im - a.im};
    const M p = complex_mul(coeff, diff);
    return {p.re + (small ? a.re : b.re), p.im + (small ? a.im : b.im)};
  } else {
    const bool small = std::fabs(w) < M(0.5);
    return std::fma(small ? w : w - M(1), b - a, small ? a : b);
  }
}

struct LerpScalarOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kLerpScalar;
  static constexpr const char* kName = "lerp_scalar";
  static constexpr int kInputs = 2;
  static constexpr int kArgs = 1;
  static constexpr bool kComplex32 = true;  // CUDA's: in complex64, rounded
  template <typename C>
  static constexpr bool supports = kFloatOrComplex<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M w;
    explicit Fn(const ScalarArgs& args) : w(scalar_in_opmath<C, M>(args[0])) {}
    M operator()(M a, M b) const { return lerp(a, b, w); }
  };
};

struct LerpTensorOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kLerpTensor;
  static constexpr const char* kName = "lerp_tensor";
  static constexpr int kInputs = 3;
  static constexpr bool kComplex32 = true;  // CUDA's: in complex64, rounded
  template <typename C>
  static constexpr bool supports = kFloatOrComplex<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b, M w) const { return lerp(a, b, w); }
  };
};

// addcmul: integral, floating, complex (not bool, not uint16/32/64).
struct AddcmulOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kAddcmul;
  static constexpr const char* kName = "addcmul";
  static constexpr int kInputs = 3;
  static constexpr int kArgs = 1;
  template <typename C>
  static constexpr bool supports = kIsIntegral<C> || kFloatOrComplex<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M v;
    explicit Fn(const ScalarArgs& args) : v(scalar_in_opmath<C, M>(args[0])) {}
    M operator()(M s, M t1, M t2) const {
      if constexpr (is_complex_v<M>) {
        const M p = complex_mul(complex_mul(v, t1), t2);
        return {s.re + p.re, s.im + p.im};
      } else if constexpr (std::is_floating_point_v<M>) {
        return std::fma(v * t1, t2, s);
      } else {
        return wrap_add(s, wrap_mul(wrap_mul(v, t1), t2));
      }
    }
  };
};

// addcdiv: floating and complex (ATen rejects integer inputs before this).
struct AddcdivOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kAddcdiv;
  static constexpr const char* kName = "addcdiv";
  static constexpr int kInputs = 3;
  static constexpr int kArgs = 1;
  template <typename C>
  static constexpr bool supports = kFloatOrComplex<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M v;
    explicit Fn(const ScalarArgs& args) : v(scalar_in_opmath<C, M>(args[0])) {}
    M operator()(M s, M t1, M t2) const {
      if constexpr (is_complex_v<M>) {
        const M q = complex_div(complex_mul(v, t1), t2);
        return {s.re + q.re, s.im + q.im};
      } else {
        return s + (v * t1) / t2;
      }
    }
  };
};

}  // namespace

constinit const OpEntry kLerpScalarEntry = make_entry<LerpScalarOp>();
constinit const OpEntry kLerpTensorEntry = make_entry<LerpTensorOp>();
constinit const OpEntry kAddcmulEntry = make_entry<AddcmulOp>();
constinit const OpEntry kAddcdivEntry = make_entry<AddcdivOp>();

}  // namespace torch_tpu::kernels::ew
