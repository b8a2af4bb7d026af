// Element arithmetic for the accumulating indexing kernels (scatter_add,
// scatter_reduce, index_put with accumulate): each step loads both elements
// in a compute type, combines them and stores in the element type, as CPU's
// kernels do element by element (float16/bfloat16: in float, rounded on
// every store). Private to the kernel library.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/common/convert.h"
#include "kernels/index/index.h"

namespace torch_tpu::kernels {

template <typename T>
struct Arith {
  // ints, float, double
  using C = T;
  static C load(T x) { return x; }
  static T store(C x) { return x; }
};
template <>
struct Arith<Half> {
  using C = float;
  static C load(Half x) { return half_bits_to_float(x.bits); }
  static Half store(C x) { return Half{float_to_half_bits(x)}; }
};
template <>
struct Arith<BFloat16> {
  using C = float;
  static C load(BFloat16 x) { return bfloat16_bits_to_float(x.bits); }
  static BFloat16 store(C x) { return BFloat16{float_to_bfloat16_bits(x)}; }
};
template <>
struct Arith<Bool> {
  using C = bool;
  static C load(Bool x) { return x.v != 0; }
  static Bool store(C x) { return Bool{static_cast<uint8_t>(x)}; }
};
template <typename R>
struct Arith<Complex<R>> {
  using C = Complex<R>;
  static C load(C x) { return x; }
  static C store(C x) { return x; }
};
// complex32: c10::complex<Half>'s += adds in complex64 and rounds.
template <>
struct Arith<Complex<Half>> {
  using C = Complex<float>;
  static C load(Complex<Half> x) { return convert<C>(x); }
  static Complex<Half> store(C x) { return convert<Complex<Half>>(x); }
};

template <typename C>
inline C add_c(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a || b;
  } else if constexpr (is_complex_v<C>) {
    return C{a.re + b.re, a.im + b.im};
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;  // wraps like CPU instead of overflowing
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename C>
inline C mul_c(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a && b;
  } else if constexpr (is_complex_v<C>) {
    return C{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
    return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename C>
inline bool is_nan_c(C x) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

// CPU's amax/amin steps: a NaN source wins; otherwise std::max/std::min
// (which keep a NaN already in self).
template <typename C>
inline C max_c(C self, C src) {
  return is_nan_c(src) ? src : ((self < src) ? src : self);
}
template <typename C>
inline C min_c(C self, C src) {
  return is_nan_c(src) ? src : ((src < self) ? src : self);
}

template <ScatterOp Op, typename T>
inline void combine(T* self, T src) {
  using A = Arith<T>;
  if constexpr (Op == ScatterOp::kAssign) {
    *self = src;
  } else if constexpr (Op == ScatterOp::kAdd) {
    *self = A::store(add_c(A::load(*self), A::load(src)));
  } else if constexpr (Op == ScatterOp::kMul) {
    *self = A::store(mul_c(A::load(*self), A::load(src)));
  } else if constexpr (is_complex_v<T>) {
    throw std::invalid_argument("amax/amin on complex");
  } else if constexpr (Op == ScatterOp::kMax) {
    *self = A::store(max_c(A::load(*self), A::load(src)));
  } else {
    *self = A::store(min_c(A::load(*self), A::load(src)));
  }
}

}  // namespace torch_tpu::kernels
