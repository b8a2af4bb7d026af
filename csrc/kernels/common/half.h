// float16 / bfloat16 storage types and their conversions to and from float,
// bit-exact with PyTorch CPU (c10::Half on x86, c10::BFloat16). Private to
// the kernel library.
//
// The portable functions are branch-free integer code so that loops over
// them auto-vectorize. They are defined to give the same bits as the F16C
// instructions (which torch CPU uses on x86), including NaN payloads, so the
// optional F16C fast path in the array helpers cannot change any result.
#pragma once

#include <type_traits>

#include <bit>
#include <cstdint>

#include "kernels/common/isa.h"

#if defined(__F16C__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define TORCH_TPU_HAVE_F16C 1
#endif

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h

struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// ---- float16 --------------------------------------------------------------

// Round to nearest even. Overflow (|f| >= 65520) gives inf, results below
// 2^-14 become subnormals, NaN stays NaN with the sign and the top 9 payload
// bits kept and the quiet bit set (what vcvtps2ph does). Integer-only, so the
// result does not depend on the FP rounding mode or DAZ/FTZ.
inline uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7FFFFFFFu;

  // Normal result: rebias the exponent (127 -> 15), then round the 13
  // dropped bits to nearest even; a carry correctly bumps the exponent.
  const uint32_t normal = (ax - (112u << 23) + 0xFFFu + ((ax >> 13) & 1u)) >> 13;

  // Subnormal result (|f| < 2^-14): the value in units of 2^-24 is
  // mant * 2^(e - 126); shift right by 126 - e, rounding to nearest even with
  // the same add-bias trick. Shifts are clamped to 31 (anything below 2^-25
  // rounds to zero anyway). Written this way so GCC vectorizes it.
  const uint32_t mant = (ax & 0x7FFFFFu) | 0x800000u;
  uint32_t sh = 126u - (ax >> 23);
  sh = sh < 31u ? sh : 31u;
  const uint32_t bias = ((1u << sh) >> 1) - 1u + ((mant >> sh) & 1u);
  const uint32_t sub = (mant + bias) >> sh;

  const uint32_t nan = 0x7E00u | ((ax >> 13) & 0x3FFu);
  uint32_t r = ax < 0x38800000u ? sub : normal;
  r = ax >= 0x477FF000u ? 0x7C00u : r;  // 65520 and above (incl. inf)
  r = ax > 0x7F800000u ? nan : r;
  return static_cast<uint16_t>(sign | r);
}

// Exact. Signalling NaNs come back quiet (vcvtph2ps does the same).
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = static_cast<uint32_t>(h & 0x7FFFu) << 13;  // exponent+mantissa
  const uint32_t exp = em & 0x0F800000u;

  const uint32_t normal = em + (112u << 23);                           // rebias 15 -> 127
  const uint32_t infnan = (em + (224u << 23)) | ((em & 0x7FFFFFu) ? 0x400000u : 0u);  // quiet NaNs
  // Subnormal (or zero): build 2^-14 * (1 + m/1024) and subtract 2^-14. Both
  // operands are normal floats and the difference (0 or >= 2^-24) is exact,
  // so this is independent of the rounding mode and of DAZ/FTZ.
  const float magic = std::bit_cast<float>(113u << 23);
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(em + (113u << 23)) - magic);

  uint32_t r = exp == 0x0F800000u ? infnan : normal;
  r = exp == 0 ? subnormal : r;
  return std::bit_cast<float>(sign | r);
}

// ---- bfloat16 -------------------------------------------------------------

// c10::BFloat16(float): round to nearest even on the bit pattern; every NaN
// becomes 0x7FC0 (sign dropped), as c10::detail::round_to_nearest_even does.
inline uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((x & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : rounded);
}

// Exact (the bfloat16 bits are the top half of a float; NaNs are kept as is).
inline float bfloat16_bits_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// ---- array helpers (contiguous) -------------------------------------------

inline void float_to_half_n(Half* __restrict dst, const float* __restrict src, int64_t n) {
  int64_t i = 0;
#ifdef TORCH_TPU_HAVE_F16C
  // Same bits as float_to_half_bits (tested exhaustively); several times
  // faster than the vectorized integer code.
  // The vector part's end computed once: written as i + 8 <= n, GCC warns
  // about the tail loop wherever it emits this function out of line.
  for (const int64_t end = n - n % 8; i < end; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
#endif
  for (; i < n; ++i) dst[i].bits = float_to_half_bits(src[i]);
}

inline void half_to_float_n(float* __restrict dst, const Half* __restrict src, int64_t n) {
  int64_t i = 0;
#ifdef TORCH_TPU_HAVE_F16C
  for (const int64_t end = n - n % 8; i < end; i += 8) {  // as in float_to_half_n
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i) dst[i] = half_bits_to_float(src[i].bits);
}

// x widened to the compute type Acc (float for Half/BFloat16) and a
// compute value narrowed back to T (round to nearest even). Shared by the
// kernels that accumulate reduced floats in float (gemm, gemv, embedding
// backward).
template <typename Acc, typename T>
inline Acc widen_to(T x) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_bits_to_float(x.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bfloat16_bits_to_float(x.bits);
  } else {
    return static_cast<Acc>(x);
  }
}

template <typename T, typename Acc>
inline T narrow_from(Acc x) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{float_to_half_bits(x)};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{float_to_bfloat16_bits(x)};
  } else {
    return static_cast<T>(x);
  }
}

}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
