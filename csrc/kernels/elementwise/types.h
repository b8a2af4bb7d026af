// Value types of the elementwise framework. Private to the kernel library.
//
// Three types meet in an elementwise op:
//   storage type  how a dtype is stored (convert.h: Bool, Half, Complex<T>, ...)
//   compute C     the storage type of the compute dtype; inputs are converted
//                 to it first, as CPU's TensorIterator casts them
//   buffer M      what the op's arithmetic runs on: opmath_t<C> (float for
//                 Half/BFloat16, bool for Bool, C otherwise), or C itself for
//                 ops that work on the bits (neg/abs of Half)
// Blocks of M values live in Block<M>: complex values as separate re and im
// arrays, so loops over them vectorize without the compiler's fused complex
// multiply pattern (see kernels/common/fp_contract.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/common/half.h"

namespace torch_tpu::kernels::ew {

// Elements per block of the buffered path: 4 KiB for complex128, so the
// buffers of a ternary op stay in L1.
constexpr int64_t kBlock = 256;

// ---- type facts -------------------------------------------------------------

template <typename T>
inline constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename T> struct OpmathOf { using type = T; };
template <> struct OpmathOf<Half> { using type = float; };
template <> struct OpmathOf<BFloat16> { using type = float; };
template <> struct OpmathOf<Bool> { using type = bool; };
// complex32 has no arithmetic: it computes in complex64 and rounds, as CPU's
// kernels do (opmath_type<c10::complex<Half>>).
template <> struct OpmathOf<Complex<Half>> { using type = Complex<float>; };
template <typename T> using opmath_t = typename OpmathOf<T>::type;
// C itself (ops that work on the stored values, such as neg), except for
// complex32, which has no arithmetic of its own: complex64.
template <typename C>
using own_or_opmath_t = std::conditional_t<std::is_same_v<C, Complex<Half>>, opmath_t<C>, C>;

template <typename T> struct DTypeOf;
template <> struct DTypeOf<Bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::kUInt16; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::kUInt32; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::kUInt64; };
template <> struct DTypeOf<Half> { static constexpr DType value = DType::kFloat16; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::kBFloat16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<Complex<float>> { static constexpr DType value = DType::kComplex64; };
template <> struct DTypeOf<Complex<double>> { static constexpr DType value = DType::kComplex128; };
template <> struct DTypeOf<Complex<Half>> { static constexpr DType value = DType::kComplex32; };
template <typename T> inline constexpr DType dtype_of_v = DTypeOf<T>::value;

// The buffer type of compute type C: opmath, or C itself when `widen` is
// false for a reduced type (Bool always buffers as bool; complex32 always as
// complex64).
template <typename C, bool kWiden>
using buffer_t = std::conditional_t<is_reduced_v<C> && !kWiden, C, opmath_t<C>>;

// True when buffer type M of compute type C is the widened opmath (float for
// Half/BFloat16); the loaders and storers are chosen by this flag.
template <typename C, typename M>
inline constexpr bool widened_v = is_reduced_v<C> && std::is_same_v<M, float>;

// ---- storage <-> buffer -------------------------------------------------------

template <typename M, typename C>
inline M to_buffer(C x) {
  if constexpr (std::is_same_v<M, C>) {
    return x;
  } else if constexpr (std::is_same_v<C, Bool>) {
    return x.v != 0;
  } else if constexpr (std::is_same_v<C, Half>) {
    return half_bits_to_float(x.bits);
  } else if constexpr (std::is_same_v<C, Complex<Half>>) {
    return convert<M>(x);
  } else {
    static_assert(std::is_same_v<C, BFloat16> && std::is_same_v<M, float>);
    return bfloat16_bits_to_float(x.bits);
  }
}

// Rounds a buffer value to the compute type (the one rounding of a reduced op).
template <typename C, typename M>
inline C from_buffer(M x) {
  if constexpr (std::is_same_v<M, C>) {
    return x;
  } else if constexpr (std::is_same_v<C, Bool>) {
    return Bool{static_cast<uint8_t>(x)};
  } else if constexpr (std::is_same_v<C, Half>) {
    return Half{float_to_half_bits(x)};
  } else if constexpr (std::is_same_v<C, Complex<Half>>) {
    return convert<C>(x);
  } else {
    static_assert(std::is_same_v<C, BFloat16> && std::is_same_v<M, float>);
    return BFloat16{float_to_bfloat16_bits(x)};
  }
}

// A scalar argument in compute type C (then to_buffer for the op).
template <typename C>
C scalar_to(const ScalarArg& a) {
  switch (a.kind) {
    case ScalarArg::Kind::kBool: return convert<C>(Bool{static_cast<uint8_t>(a.i != 0)});
    case ScalarArg::Kind::kInt: return convert<C>(a.i);
    case ScalarArg::Kind::kDouble: return convert<C>(a.re);
    case ScalarArg::Kind::kComplex: return convert<C>(Complex<double>{a.re, a.im});
  }
  return C{};
}

// One element of dtype `src` at `p`, converted to C, then to buffer type M.
template <typename C, typename M>
M load_one(DType src, const void* p) {
  return visit_dtype_or_complex32(src, [&](auto tag) {
    using S = typename decltype(tag)::type;
    S x;
    std::memcpy(&x, p, sizeof(S));
    return to_buffer<M>(convert<C>(x));
  });
}

// ---- blocks and views -----------------------------------------------------------

template <typename M>
struct Block {
  M v[kBlock];
};
template <typename T>
struct Block<Complex<T>> {
  T re[kBlock];
  T im[kBlock];
};
// bool values are kept as bytes (0/1): GCC does not vectorize stores to bool
// arrays.
template <>
struct Block<bool> {
  uint8_t v[kBlock];
};

// Where the values of one loop operand are: a block, a single value, or (on
// the direct path) tensor memory.
template <typename M>
struct Ptrs {
  const M* p;
};
template <typename T>
struct Ptrs<Complex<T>> {
  const T* re;
  const T* im;
};
template <>
struct Ptrs<bool> {
  const uint8_t* p;
};

template <typename M>
Ptrs<M> ptrs_of(const Block<M>& b) {
  if constexpr (is_complex_v<M>) {
    return {b.re, b.im};
  } else {
    return {b.v};
  }
}

template <typename R>
struct OutPtrs {
  R* p;
};
template <typename T>
struct OutPtrs<Complex<T>> {
  T* re;
  T* im;
};
template <>
struct OutPtrs<bool> {
  uint8_t* p;
};

// Tensor memory of a non-complex result (bool: bytes).
template <typename R>
OutPtrs<R> out_ptrs_at(char* p) {
  static_assert(!is_complex_v<R>, "complex results are written through blocks");
  if constexpr (std::is_same_v<R, bool>) {
    return {reinterpret_cast<uint8_t*>(p)};
  } else {
    return {reinterpret_cast<R*>(p)};
  }
}

template <typename R>
OutPtrs<R> out_ptrs_of(Block<R>& b) {
  if constexpr (is_complex_v<R>) {
    return {b.re, b.im};
  } else {
    return {b.v};
  }
}

// The same operand, i elements further.
template <typename M>
Ptrs<M> advance(Ptrs<M> x, int64_t i) {
  if constexpr (is_complex_v<M>) {
    return {x.re + i, x.im + i};
  } else {
    return {x.p + i};
  }
}
template <typename R>
OutPtrs<R> advance(OutPtrs<R> x, int64_t i) {
  if constexpr (is_complex_v<R>) {
    return {x.re + i, x.im + i};
  } else {
    return {x.p + i};
  }
}

// Element i of an operand; kScalar: the same element for every i.
template <typename M, bool kScalar>
struct In {
  const M* p;
  explicit In(Ptrs<M> x) : p(x.p) {}
  M operator[](int64_t i) const { return kScalar ? p[0] : p[i]; }
};
template <typename T, bool kScalar>
struct In<Complex<T>, kScalar> {
  const T* re;
  const T* im;
  explicit In(Ptrs<Complex<T>> x) : re(x.re), im(x.im) {}
  Complex<T> operator[](int64_t i) const {
    return kScalar ? Complex<T>{re[0], im[0]} : Complex<T>{re[i], im[i]};
  }
};

template <bool kScalar>
struct In<bool, kScalar> {
  const uint8_t* p;
  explicit In(Ptrs<bool> x) : p(x.p) {}
  bool operator[](int64_t i) const { return (kScalar ? p[0] : p[i]) != 0; }
};

template <typename R>
struct Out {
  R* p;
  explicit Out(OutPtrs<R> x) : p(x.p) {}
  void set(int64_t i, R v) const { p[i] = v; }
};
template <typename T>
struct Out<Complex<T>> {
  T* re;
  T* im;
  explicit Out(OutPtrs<Complex<T>> x) : re(x.re), im(x.im) {}
  void set(int64_t i, Complex<T> v) const {
    re[i] = v.re;
    im[i] = v.im;
  }
};

template <>
struct Out<bool> {
  uint8_t* p;
  explicit Out(OutPtrs<bool> x) : p(x.p) {}
  void set(int64_t i, bool v) const { p[i] = v; }
};

// ---- block conversions (elementwise_io*.cpp) -------------------------------------

// Reads n elements of dtype `src` (byte stride `stride`), converts each to
// the compute dtype and then to the buffer type, into a Block.
using LoadFn = void (*)(const char* src, int64_t stride, int64_t n, void* block);
// Rounds n buffer values of a Block to the compute dtype, converts them to
// dtype `dst` and writes them with byte stride `stride`.
using StoreFn = void (*)(const void* block, char* dst, int64_t stride, int64_t n);

struct BlockIo {
  LoadFn load = nullptr;    // from dtype `other` into a compute block
  StoreFn store = nullptr;  // from a compute block to dtype `other`
};

// The loader/storer between compute dtype `compute` (buffered widened when
// `widen` and compute is float16/bfloat16) and dtype `other`.
BlockIo block_io(DType compute, DType other, bool widen);

}  // namespace torch_tpu::kernels::ew
