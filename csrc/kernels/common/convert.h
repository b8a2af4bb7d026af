// Element storage types for the 16 DTypes and the scalar conversion between
// any two of them, following c10::convert (static_cast_with_inter_type) as
// compiled for x86 CPU. Private to the kernel library.
//
// Rules (each checked against torch CPU, see tests and the parity script):
//   - to bool: x != 0; complex: real != 0 || imag != 0; NaN is true.
//   - complex -> non-complex: take the real part, then convert it.
//   - real -> complex: (convert(x), +0).
//   - float16/bfloat16 <-> anything: through float, exactly as c10::Half and
//     c10::BFloat16 only convert from/to float. So double -> half rounds
//     twice (double -> float -> half), like c10; int64 -> half goes through
//     float too.
//   - integer <-> integer: modular (two's complement wrap).
//   - floating -> integer truncates toward zero. Out of range is undefined in
//     C++; we reproduce what x86 (and so torch CPU) gives instead of leaving
//     it undefined:
//       int32 / int64: cvtt "integer indefinite" (INT_MIN) for NaN/overflow;
//       int8, int16, uint16: through int32, then wrap;
//       uint8: through int64, then wrap (c10's explicit special case);
//       uint32 / uint64: x >= 2^31 (2^63) converts x - 2^31 (2^63) and sets
//       the top bit, else converts signed (what GCC emits; -1.0 -> all ones);
//       float16 -> uint32 goes through int64 (torch's result for inf/NaN).
//   - complex32 (Complex<Half>) <-> complex and bool: through complex64, as
//     c10::complex<Half> only converts from/to complex<float>: its parts
//     widen exactly, and a value becomes complex32 as complex64 first, each
//     part then rounded to half (so int64 and double round twice, as c10);
//     complex32 -> real: its real part, converted as float16 is.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/common/half.h"

namespace torch_tpu::kernels {

// bool is stored as one byte; any nonzero byte reads as true.
struct Bool {
  uint8_t v;
};

template <typename T>
struct Complex {
  T re, im;
};

template <typename T> inline constexpr bool is_complex_v = false;
template <typename T> inline constexpr bool is_complex_v<Complex<T>> = true;

template <typename T>
inline constexpr bool is_plain_int_v = std::is_integral_v<T>;  // int8..uint64 (Bool is a struct)

// ---- reading a source element as a real number --------------------------

// The value a source element contributes to a non-complex destination:
// integers stay integers, float16/bfloat16 widen to float, complex gives its
// real part (c10's maybe_real).
inline uint8_t real_value(Bool x) { return x.v != 0; }
inline float real_value(Half x) { return half_bits_to_float(x.bits); }
inline float real_value(BFloat16 x) { return bfloat16_bits_to_float(x.bits); }
template <typename T>
inline T real_value(Complex<T> x) { return x.re; }
template <typename T>
  requires std::is_arithmetic_v<T>
inline T real_value(T x) { return x; }

// ---- floating -> integer, with x86 results for out-of-range values ---------

template <typename F>
inline int32_t trunc_to_i32(F x) {
  // NaN fails both tests. (For double, x in (-2^31-1, -2^31) is treated as
  // out of range: its truncation is INT_MIN anyway, so the result agrees.)
  const bool ok = x >= F(-2147483648.0) && x < F(2147483648.0);
  const int32_t r = static_cast<int32_t>(ok ? x : F(0));  // never converts an out-of-range value
  return ok ? r : std::numeric_limits<int32_t>::min();
}

template <typename F>
inline int64_t trunc_to_i64(F x) {
  const bool ok = x >= F(-9223372036854775808.0) && x < F(9223372036854775808.0);
  const int64_t r = static_cast<int64_t>(ok ? x : F(0));
  return ok ? r : std::numeric_limits<int64_t>::min();
}

template <typename I, typename F>
inline I float_to_int(F x) {
  if constexpr (std::is_same_v<I, int32_t>) {
    return trunc_to_i32(x);
  } else if constexpr (std::is_same_v<I, int64_t>) {
    return trunc_to_i64(x);
  } else if constexpr (std::is_same_v<I, uint8_t>) {
    return static_cast<uint8_t>(trunc_to_i64(x));
  } else if constexpr (std::is_same_v<I, uint32_t>) {
    const bool big = x >= F(2147483648.0);
    const uint32_t r = static_cast<uint32_t>(trunc_to_i32(big ? x - F(2147483648.0) : x));
    return big ? (r ^ 0x80000000u) : r;
  } else if constexpr (std::is_same_v<I, uint64_t>) {
    const bool big = x >= F(9223372036854775808.0);
    const uint64_t r = static_cast<uint64_t>(trunc_to_i64(big ? x - F(9223372036854775808.0) : x));
    return big ? (r ^ 0x8000000000000000ull) : r;
  } else {  // int8, int16, uint16
    return static_cast<I>(trunc_to_i32(x));
  }
}

// ---- convert --------------------------------------------------------------

template <typename To, typename From>
inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<From, Complex<Half>>) {
    if constexpr (std::is_same_v<To, Bool> || is_complex_v<To>) {
      return convert<To>(Complex<float>{half_bits_to_float(x.re.bits), half_bits_to_float(x.im.bits)});
    } else {
      return convert<To>(x.re);  // c10: the real part, a Half, converted as a Half is
    }
  } else if constexpr (std::is_same_v<To, Complex<Half>>) {
    const Complex<float> c = convert<Complex<float>>(x);
    return To{Half{float_to_half_bits(c.re)}, Half{float_to_half_bits(c.im)}};
  } else if constexpr (std::is_same_v<To, Bool>) {
    if constexpr (is_complex_v<From>) {
      return Bool{static_cast<uint8_t>(x.re != 0 || x.im != 0)};
    } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
      return Bool{static_cast<uint8_t>((x.bits & 0x7FFFu) != 0)};  // == (float(x) != 0)
    } else {
      return Bool{static_cast<uint8_t>(real_value(x) != 0)};
    }
  } else if constexpr (is_complex_v<To>) {
    using T = decltype(To{}.re);
    if constexpr (is_complex_v<From>) {
      return To{static_cast<T>(x.re), static_cast<T>(x.im)};
    } else {
      return To{static_cast<T>(real_value(x)), T(0)};
    }
  } else {
    const auto v = real_value(x);
    using V = decltype(v);
    if constexpr (std::is_same_v<To, Half>) {
      return Half{float_to_half_bits(static_cast<float>(v))};
    } else if constexpr (std::is_same_v<To, BFloat16>) {
      return BFloat16{float_to_bfloat16_bits(static_cast<float>(v))};
    } else if constexpr (std::is_floating_point_v<To>) {
      return static_cast<To>(v);
    } else if constexpr (std::is_same_v<From, Half> && std::is_same_v<To, uint32_t>) {
      // torch CPU converts float16 -> uint32 through int64 (so -inf and NaN
      // give 0); for finite float16 values both routes agree.
      return static_cast<uint32_t>(trunc_to_i64(v));
    } else if constexpr (std::is_floating_point_v<V>) {
      return float_to_int<To>(v);
    } else {
      return static_cast<To>(v);  // integer -> integer wraps
    }
  }
}

}  // namespace torch_tpu::kernels
