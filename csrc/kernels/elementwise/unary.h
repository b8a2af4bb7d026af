// Shared pieces of the unary elementwise ops (elementwise_unary_*.cpp,
// kernels/elementwise/activation.cpp). Private to the kernel library; include after
// kernels/common/fp_contract.h.
#pragma once

#include <type_traits>
#include <vector>

#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {

// float16, bfloat16, float32, float64: what CPU's floating-point kernels
// dispatch on (AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, ...)).
template <typename C>
inline constexpr bool kFloatingCompute =
    std::is_same_v<C, float> || std::is_same_v<C, double> || is_reduced_v<C>;

// Whether Impl also computes complex64/complex128: it says so with
// `static constexpr bool kComplex = true` and has f(Complex<float>),
// f(Complex<double>).
template <typename Impl>
inline constexpr bool kHasComplex = requires { requires Impl::kComplex; };

// An op of one floating input computed in opmath (float for float16/
// bfloat16, rounded once): Impl has kOp, kName and f(float), f(double)
// (and the complex ones, see kHasComplex).
template <typename Impl>
struct FloatUnaryOp : OpTraits {
  static constexpr ElementwiseOp kOp = Impl::kOp;
  static constexpr const char* kName = Impl::kName;
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C> || (is_complex_v<C> && kHasComplex<Impl>);

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    __attribute__((always_inline)) M operator()(M a) const { return Impl::f(a); }
  };
};

// The same for two floating inputs (grad, x), as the backward ops.
template <typename Impl>
struct FloatBinaryOp : OpTraits {
  static constexpr ElementwiseOp kOp = Impl::kOp;
  static constexpr const char* kName = Impl::kName;
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C> || (is_complex_v<C> && kHasComplex<Impl>);

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    __attribute__((always_inline)) M operator()(M a, M b) const { return Impl::f(a, b); }
  };
};

}  // namespace torch_tpu::kernels::ew
