// Scalar helpers of the binary/ternary elementwise ops (comparisons, min/max,
// clamp, division with rounding, pow, lerp, addcmul/addcdiv), written to give
// PyTorch CPU's bits on its vectorized (AVX-512) paths and to vectorize.
// Private to the kernel library; include after kernels/common/fp_contract.h.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "kernels/elementwise/math.h"
#include "kernels/elementwise/types.h"

namespace torch_tpu::kernels::ew {

// ---- dtype groups (the compute dtypes CPU dispatches each op on) -----------

template <typename C>
inline constexpr bool kIsBool = std::is_same_v<C, Bool>;
template <typename C>
inline constexpr bool kIsWideUnsigned =
    std::is_same_v<C, uint16_t> || std::is_same_v<C, uint32_t> || std::is_same_v<C, uint64_t>;
// AT_INTEGRAL_TYPES: uint8, int8, int16, int32, int64.
template <typename C>
inline constexpr bool kIsIntegral = is_plain_int_v<C> && !kIsWideUnsigned<C>;
template <typename C>
inline constexpr bool kIsFloating = std::is_floating_point_v<C> || is_reduced_v<C>;
// AT_ALL_TYPES plus bool, float16, bfloat16 (most comparisons, min/max).
template <typename C>
inline constexpr bool kIsRealOrBool = kIsBool<C> || kIsIntegral<C> || kIsFloating<C>;

// ---- values ----------------------------------------------------------------

// x != 0, as C++'s conversion of a value of buffer type M to bool (complex:
// either part nonzero; NaN is true; float16/bfloat16 buffers: any bit but the
// sign).
template <typename M>
inline bool truthy(M x) {
  if constexpr (std::is_same_v<M, bool>) {
    return x;
  } else if constexpr (is_complex_v<M>) {
    return (x.re != 0) | (x.im != 0);
  } else if constexpr (is_reduced_v<M>) {
    return (x.bits & 0x7FFFu) != 0;
  } else {
    return x != 0;
  }
}

// x rounded to compute type C and widened back: the rounding every
// Vectorized<Half/BFloat16> operation does on CPU (identity otherwise).
template <typename C, typename T>
inline T round_to(T x) {
  if constexpr (is_reduced_v<C>) {
    return to_buffer<float>(from_buffer<C>(x));
  } else {
    return x;
  }
}

template <typename T>
inline T quiet_nan() {
  return std::numeric_limits<T>::quiet_NaN();
}

// ---- min / max as x86's maxps/minps and ATen's vec::maximum/minimum ----------

// maxps(a, b): a > b ? a : b (b when equal or unordered).
template <typename T>
inline T max_ps(T a, T b) {
  return a > b ? a : b;
}
template <typename T>
inline T min_ps(T a, T b) {
  return a < b ? a : b;
}

// at::vec::maximum/minimum: maxps/minps, NaN if either is NaN.
template <typename T>
inline T nan_maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T m = max_ps(a, b);
    return (a != a) | (b != b) ? quiet_nan<T>() : m;
  } else {
    return max_ps(a, b);
  }
}
template <typename T>
inline T nan_minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T m = min_ps(a, b);
    return (a != a) | (b != b) ? quiet_nan<T>() : m;
  } else {
    return min_ps(a, b);
  }
}

// ---- integer division (CPU raises ZeroDivisionError on the device here) ------

[[noreturn]] inline void zero_division() { throw std::runtime_error("ZeroDivisionError"); }

// a / b truncated; INT_MIN / -1 wraps (x86 would trap).
template <typename T>
inline T int_div_trunc(T a, T b) {
  if (b == 0) zero_division();
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrap_neg(a);
  }
  return static_cast<T>(a / b);
}
template <typename T>
inline T int_mod_trunc(T a, T b) {
  if (b == 0) zero_division();
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

// c10::div_floor_integer.
template <typename T>
inline T int_div_floor(T a, T b) {
  const T q = int_div_trunc(a, b);
  if constexpr (std::is_signed_v<T>) {
    const T r = int_mod_trunc(a, b);
    if ((r != 0) && ((a < 0) != (b < 0))) return wrap_sub(q, T(1));
  }
  return q;
}

// ATen's remainder: the result takes the divisor's sign.
template <typename T>
inline T int_remainder(T a, T b) {
  T r = int_mod_trunc(a, b);
  if constexpr (std::is_signed_v<T>) {
    if ((r != 0) && ((r < 0) != (b < 0))) r = wrap_add(r, b);
  }
  return r;
}

// ---- floating division with rounding --------------------------------------------

// div_floor_floating_vec (BinaryOpsKernel.cpp) with every operation rounded to
// C, as Vectorized<C> computes it (for float/double: no extra rounding).
template <typename C, typename T>
inline T float_div_floor(T a, T b) {
  const T mod = std::fmod(a, b);  // exact
  T div = round_to<C>(round_to<C>(a - mod) / b);
  const bool adjust = (mod != 0) & ((b < 0) != (mod < 0));
  div = adjust ? round_to<C>(div - T(1)) : div;
  T floordiv = std::floor(div);
  floordiv = round_to<C>(div - floordiv) > T(0.5) ? round_to<C>(floordiv + T(1)) : floordiv;
  const T basic = round_to<C>(a / b);
  floordiv = div == 0 ? std::copysign(T(0), basic) : floordiv;
  floordiv = b == 0 ? basic : floordiv;
  return floordiv;
}

// ATen's floating remainder (fmod, then the divisor's sign).
template <typename T>
inline T float_remainder(T a, T b) {
  const T mod = std::fmod(a, b);
  return (mod != 0) & ((b < 0) != (mod < 0)) ? mod + b : mod;
}

// ---- integer powers (ATen's native::powi) -------------------------------------------

template <typename T>
inline T powi_impl(T a, T b) {
  T result = 1;
  while (b) {
    if (b & 1) result = wrap_mul(result, a);
    b = static_cast<T>(b / 2);
    a = wrap_mul(a, a);
  }
  return result;
}

template <typename T>
inline T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2) ? T(-1) : T(1);
      return 0;
    }
  }
  return powi_impl(a, b);
}

// ---- complex helpers ---------------------------------------------------------------

template <typename T>
inline std::complex<T> to_std(Complex<T> x) {
  return {x.re, x.im};
}
template <typename T>
inline Complex<T> from_std(std::complex<T> x) {
  return {x.real(), x.imag()};
}

// Vectorized<complex>::reciprocal: c10::complex 1 / x, element by element.
template <typename T>
inline Complex<T> complex_reciprocal(Complex<T> x) {
  return complex_div(Complex<T>{T(1), T(0)}, x);
}

}  // namespace torch_tpu::kernels::ew
