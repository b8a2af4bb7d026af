// Elementwise add, sub, mul and true division (kernels/elementwise/ops.h).
#include "kernels/common/fp_contract.h"  // first, see there
// GCC 12 reports its own _mm512_cvtps_ph/_mm512_cvtph_ps (avx512fintrin.h)
// as "maybe uninitialized" when they are inlined into the float16 loops: a
// false positive inside the compiler's header, not in this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cmath>

#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/math.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

template <typename C>
inline constexpr bool kWideUnsigned =
    std::is_same_v<C, uint16_t> || std::is_same_v<C, uint32_t> || std::is_same_v<C, uint64_t>;

// a + alpha * b in buffer type M, as ATen's ufunc add: vec::fmadd(b, alpha,
// a), which is one fused operation for float/double (and for float16/
// bfloat16, in float), a complex product plus a sum for complex (so
// (1+1i) + (1+inf i) is nan+inf i, as on CPU), and bool arithmetic for bool.
template <typename M>
inline M add_scaled(M a, M b, M alpha) {
  if constexpr (std::is_same_v<M, bool>) {
    return a | (alpha & b);  // bitwise: no branches, vectorizes
  } else if constexpr (is_complex_v<M>) {
    const M p = complex_mul(b, alpha);
    return {a.re + p.re, a.im + p.im};
  } else if constexpr (std::is_floating_point_v<M>) {
    return std::fma(b, alpha, a);
  } else {
    return wrap_add(a, wrap_mul(alpha, b));
  }
}

// add_scaled in compute type C: complex32 computes as CPU's
// c10::complex<Half> operators do, each in complex64 and rounded, so alpha * b
// rounds to complex32 before the sum.
template <typename C, typename M>
inline M add_scaled_as(M a, M b, M alpha) {
  if constexpr (std::is_same_v<C, Complex<Half>>) {
    const M p = to_buffer<M>(from_buffer<C>(complex_mul(b, alpha)));
    return {a.re + p.re, a.im + p.im};
  } else {
    return add_scaled(a, b, alpha);
  }
}

// -alpha as ATen's Scalar negation, before any conversion: complex sub with
// an integer or real alpha 1 uses (-1, +0), not -(1, 0) = (-1, -0), which
// changes signs of zero in b * alpha.
inline ScalarArg negated(const ScalarArg& a) {
  switch (a.kind) {
    case ScalarArg::Kind::kBool:
    case ScalarArg::Kind::kInt: return ScalarArg::from_int(static_cast<int64_t>(0ull - static_cast<uint64_t>(a.i)));
    case ScalarArg::Kind::kDouble: return ScalarArg::from_double(-a.re);
    case ScalarArg::Kind::kComplex: return ScalarArg::from_complex(-a.re, -a.im);
  }
  return a;
}

// CPU's add_stub: all types and complex, bool, float16, bfloat16,
// complex32; not uint16/32/64.
struct AddOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kAdd;
  static constexpr const char* kName = "add";
  static constexpr int kInputs = 2;
  static constexpr int kArgs = 1;
  static constexpr bool kComplex32 = true;
  template <typename C>
  static constexpr bool supports = !kWideUnsigned<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M alpha;  // rounded to the compute dtype first, like alpha.to<scalar_t>()
    explicit Fn(const ScalarArgs& args) : alpha(to_buffer<M>(scalar_to<C>(args[0]))) {}
    M operator()(M a, M b) const { return add_scaled_as<C>(a, b, alpha); }
  };
};

// a - alpha * b, computed as ATen does in torch 2.13: add_stub with -alpha.
struct SubOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSub;
  static constexpr const char* kName = "sub";
  static constexpr int kInputs = 2;
  static constexpr int kArgs = 1;
  static constexpr bool kComplex32 = true;
  template <typename C>
  static constexpr bool supports = !kWideUnsigned<C> && !std::is_same_v<C, Bool>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M neg_alpha;
    explicit Fn(const ScalarArgs& args) : neg_alpha(to_buffer<M>(scalar_to<C>(negated(args[0])))) {}
    M operator()(M a, M b) const { return add_scaled_as<C>(a, b, neg_alpha); }
  };
};

// CPU's mul_cpu: every dtype; bool is logical and; complex32 one product in
// complex64, rounded.
struct MulOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kMul;
  static constexpr const char* kName = "mul";
  static constexpr int kInputs = 2;
  static constexpr bool kComplex32 = true;
  static constexpr bool kScalarOtherAsOpmath = true;
  template <typename C>
  static constexpr bool supports = true;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (std::is_same_v<M, bool>) {
        return a & b;
      } else if constexpr (is_complex_v<M>) {
        return complex_mul(a, b);
      } else if constexpr (std::is_floating_point_v<M>) {
        return a * b;
      } else {
        return wrap_mul(a, b);
      }
    }
  };
};

// CPU's div_true_kernel: floating and complex (integer inputs are promoted
// to the default float dtype before the kernel).
struct DivOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kDiv;
  static constexpr const char* kName = "div";
  static constexpr int kInputs = 2;
  static constexpr bool kComplex32 = true;  // CUDA's: in complex64, rounded
  static constexpr bool kScalarOtherAsOpmath = true;
  template <typename C>
  static constexpr bool supports = std::is_floating_point_v<C> || is_reduced_v<C> || is_complex_v<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (is_complex_v<M>) {
        return complex_div(a, b);
      } else {
        return a / b;
      }
    }
  };
};

}  // namespace

constinit const OpEntry kAddEntry = make_entry<AddOp>();
constinit const OpEntry kSubEntry = make_entry<SubOp>();
constinit const OpEntry kMulEntry = make_entry<MulOp>();
constinit const OpEntry kDivEntry = make_entry<DivOp>();

}  // namespace torch_tpu::kernels::ew
