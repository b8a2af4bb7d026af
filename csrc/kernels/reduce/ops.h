// Shared pieces of the reduction op functors (kernels/reduce/engine.h has their
// contract) and the per-family entry points. Private to the kernel library.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/reduce/layout.h"

namespace torch_tpu::kernels::red {

// The value an element contributes to a real accumulation: float for
// float16/bfloat16, 0/1 for bool, the element otherwise.
template <typename T>
using RealOf = decltype(real_value(T{}));

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename T>
inline constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;

// Accumulation type of sum/prod/mean (CPU's opmath; integers in int64).
template <typename T>
struct SumAccOf {
  using type = int64_t;
};
template <> struct SumAccOf<Half> { using type = float; };
template <> struct SumAccOf<BFloat16> { using type = float; };
template <> struct SumAccOf<float> { using type = float; };
template <> struct SumAccOf<double> { using type = double; };
template <> struct SumAccOf<Complex<float>> { using type = Complex<float>; };
template <> struct SumAccOf<Complex<Half>> { using type = Complex<float>; };  // CUDA's opmath
template <> struct SumAccOf<Complex<double>> { using type = Complex<double>; };
template <> struct SumAccOf<uint64_t> { using type = uint64_t; };

// Independent accumulators of a vector loop, kBytes of them (at least 8).
// Sums use 64 bytes: two 256-bit registers (the reduce/*.cpp files prefer
// 256-bit vectors; CMakeLists.txt says why). The compare-and-select ops
// keep 256 bytes: with 16 float lanes GCC no longer vectorizes their NaN-
// propagating select and falls back to scalar code, 10x slower.
template <typename A, int kBytes = 256>
constexpr int lanes_for() {
  constexpr int n = static_cast<int>(kBytes / sizeof(A));
  return n < 8 ? 8 : n;
}

// Writes v (an accumulator value) to *p as dtype t, with convert()'s rules.
template <typename V>
inline void write_value(char* p, DType t, V v) {
  visit_dtype_or_complex32(t, [&](auto tag) {
    using O = typename decltype(tag)::type;
    const O o = convert<O>(v);
    std::memcpy(p, &o, sizeof(O));
  });
}

// ---- integers and bool through one loop per element size (issue 48) -----
// Their reductions and scans (sum, prod, xor, max/min and their indices,
// cumsum/cumprod, cummax/cummin) are exact, so an element can be read as its
// bits U widened to 64 bits, and the loops compiled per size, not per dtype,
// with the same results.
template <typename U>
struct IntBits {
  U bits;
};

struct IntWiden {
  uint64_t sign = 0;            // the dtype's sign bit (0: unsigned, bool)
  uint64_t cap = ~uint64_t{0};  // 1 for bool: any nonzero byte is true
  bool is_u64 = false;          // results are written as uint64
  // Zero-extends, caps, then sign-extends: (v ^ s) - s. The identity for
  // 8-byte elements, so int64 loops stay plain.
  template <typename U>
  uint64_t operator()(U x) const {
    if constexpr (sizeof(U) == 8) {
      return x;
    } else {
      const uint64_t v = sizeof(U) == 1 ? std::min<uint64_t>(x, cap) : uint64_t{x};  // only bool caps
      return (v ^ sign) - sign;
    }
  }
};

// Calls f(TypeTag<IntBits<U>>{}, widen) for bool and the integer dtypes and
// returns true; false for the others.
template <typename F>
bool visit_int_bits(DType t, F&& f) {
  IntWiden w;
  switch (t) {
    case DType::kBool: w.cap = 1; [[fallthrough]];
    case DType::kUInt8: f(TypeTag<IntBits<uint8_t>>{}, w); return true;
    case DType::kInt8: w.sign = 0x80; f(TypeTag<IntBits<uint8_t>>{}, w); return true;
    case DType::kUInt16: f(TypeTag<IntBits<uint16_t>>{}, w); return true;
    case DType::kInt16: w.sign = 0x8000; f(TypeTag<IntBits<uint16_t>>{}, w); return true;
    case DType::kUInt32: f(TypeTag<IntBits<uint32_t>>{}, w); return true;
    case DType::kInt32: w.sign = 0x80000000u; f(TypeTag<IntBits<uint32_t>>{}, w); return true;
    case DType::kUInt64: w.is_u64 = true; [[fallthrough]];
    case DType::kInt64: f(TypeTag<IntBits<uint64_t>>{}, w); return true;
    default: return false;
  }
}

// Family entry points (reduce.cpp dispatches on ReduceOp).
void reduce_sum_family(const ReduceDesc& d, const Layout& L);     // kSum, kProd, kMean
void reduce_minmax_family(const ReduceDesc& d, const Layout& L);  // kMax, kMin, kArgMax, kArgMin
void reduce_logical_family(const ReduceDesc& d, const Layout& L); // kAll, kAny, kXorSum
void reduce_norm_family(const ReduceDesc& d, const Layout& L);    // kNorm
void reduce_var_family(const ReduceDesc& d, const Layout& L);     // kVar

}  // namespace torch_tpu::kernels::red
