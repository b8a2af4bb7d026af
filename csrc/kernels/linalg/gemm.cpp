// Batched GEMM (gemm.h): packed, cache-blocked, register-blocked.
//
// The output of each matrix is cut into tasks of (row chunk x NC columns);
// parallel_for hands tasks to the device's cores. A task accumulates its tile
// in a float (double, integer) buffer over K in blocks of KC:
//
//   for each K block:  pack B[K block, NC cols] into NR-wide panels (L2)
//     for each MC rows of the chunk: pack A[MC rows, K block] (L2)
//       for each MR rows:   (A micro-panel stays in L1)
//         for each NR cols: micro-kernel on the MR x NR accumulator tile
//
// and finally writes C = alpha * acc + beta * S, rounding once to the output
// type. Packing converts float16 to float (there is no float16 FMA here) and
// keeps bfloat16 as (k, k+1) pairs for vdpbf16ps; it also pads the edges with
// zeros, so micro-kernels never see partial tiles. Matrices with a single row
// or column go to gemv.cpp instead.
#include "kernels/linalg/gemm.h"

#include <sys/syscall.h>
#include <unistd.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/linalg/gemm_internal.h"
#include "kernels/linalg/gemm_micro.h"
#include "kernels/common/half.h"
#include "kernels/common/scratch.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace gemm_detail {
namespace {

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
int64_t ceil_div(int64_t x, int64_t m) { return (x + m - 1) / m; }

// ---- configurations: storage type -> packed type, accumulator, blocking ----

template <typename In, typename P, typename Acc, class Micro, int KU>
struct Config {
  using in_t = In;      // element type in memory
  using pack_t = P;     // element type in the packed panels
  using acc_t = Acc;    // accumulator (and epilogue arithmetic) type
  static constexpr int kMR = Micro::kMR;
  static constexpr int kNR = Micro::kNR;
  static constexpr int kKU = KU;  // k elements per micro-kernel step (2: bf16 pairs)
  static constexpr int kKPad = KU;  // k of a packed block is padded to a multiple of this
  static constexpr bool kRowLayoutOnly = false;  // A panels always row layout
  // A transposed A (unit row stride) is packed into row layout
  // (pack_bf16_transposed_rows), else into the k layout.
  static constexpr bool kTransposedRows =
#ifdef TORCH_TPU_GEMM_AVX512_BF16
      std::is_same_v<In, BFloat16> && std::is_same_v<P, uint16_t> && KU == 2;
#else
      false;
#endif
  static void begin_task() {}  // per task, before its first micro-kernel call
  // The micro-kernel may read a row-major A in place (no packing) when a
  // block has whole panels and k a multiple of kKPad.
  static constexpr bool kDirectA = false;
  // Blocking: A block MC x KC and B block KC x NC in L2 (1 MiB per core
  // here), the A micro-panel MR x KC in L1.
  static constexpr int64_t kKC = sizeof(P) <= 2 ? 512 : 256;
  static constexpr int64_t kMC = sizeof(Acc) == 8 ? 48 : 96;
  static constexpr int64_t kNC = sizeof(Acc) == 8 ? 128 : 256;

  template <typename PU>
  static void micro(int64_t steps, const PU* ap, int64_t a_rs, int64_t a_ks, const PU* bp,
                    Acc* acc, int64_t ldacc, bool first) {
    Micro::run(steps, ap, a_rs, a_ks, bp, acc, ldacc, first);
  }
};

using F32Micro = GenericMicro<float, 6, kFloatNV>;   // 6 x 64 (avx512), 6 x 16 (avx2)
// Narrow outputs (attention's head-sized products, a weight gradient's few
// channels): taller, narrower float tiles, so a 16-column product does not
// compute 48 columns of padding. Same register budget (MR x NV + NV).
using F32MicroHalf = GenericMicro<float, 12, (kFloatNV > 1 ? kFloatNV / 2 : 1)>;  // 12 x 32 (avx512), 12 x 8
using F32MicroQuarter = GenericMicro<float, 16, (kFloatNV > 3 ? kFloatNV / 4 : 1)>;  // 16 x 16 (avx512), 16 x 8
using F64Micro = GenericMicro<double, 6, kFloatNV>;  // 6 x 32 (avx512), 6 x 8 (avx2)

template <typename U>
using IntMicro = GenericMicro<U, 6, 2>;

// Element conversions into the packed type.
template <typename In, typename P>
inline P to_packed(In x) {
  if constexpr (std::is_same_v<In, Half>) {
    return half_bits_to_float(x.bits);
  } else if constexpr (std::is_same_v<In, BFloat16>) {
    if constexpr (std::is_same_v<P, float>) {
      return bfloat16_bits_to_float(x.bits);
    } else {
      return x.bits;
    }
  } else if constexpr (std::is_integral_v<In>) {
    return static_cast<P>(x);  // same width, unsigned: the same bits
  } else {
    return x;
  }
}

// ---- per-thread workspaces -----------------------------------------------

thread_local ScratchBuffer t_pack_a, t_pack_b, t_acc;
// B packed once for all row chunks of a product (gemm_typed): at most 2 MiB.
thread_local ScratchBuffer t_pack_b_shared;

// ---- packing ---------------------------------------------------------------

#if defined(__AVX512F__)
// Transposes a 16 x 16 block of 32-bit values held as r[row] (r[i] becomes
// column i): 32-bit and 64-bit unpacks within 128-bit lanes, then two
// rounds of lane shuffles.
inline void transpose_16x16_epi32(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {  // r[4g + c], lane L: column 4L + c of rows 4g..4g+3
    r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int i = 0; i < 16; i += 8) {
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_shuffle_i32x4(r[i + j], r[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_shuffle_i32x4(r[i + j], r[i + j + 4], 0xdd);
    }
  }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_i32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_i32x4(t[j], t[j + 8], 0xdd);
  }
}
#endif

#if defined(__AVX2__) && !defined(__AVX512F__)
// Transposes an 8 x 8 block of floats held as r[row] (r[i] becomes column i).
inline void transpose_8x8_ps(__m256 r[8]) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  __m256 u[8];
  for (int i = 0; i < 8; i += 4) {  // u[i + c], lane L: column 4L + c of rows i..i+3
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x20);
    r[j + 4] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x31);
  }
}
#endif

#ifdef TORCH_TPU_GEMM_AVX512_BF16
// bfloat16 (k, k+1) pairs of 32 columns: lo holds columns 0-15 as 32-bit
// pairs (row k in the low half), hi columns 16-31. One vpermt2w each.
inline void interleave_bf16_rows(const uint16_t* r0, const uint16_t* r1, __mmask32 live, __m512i* lo,
                                 __m512i* hi) {
  alignas(64) static constexpr uint16_t kLo[32] = {0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
                                                   8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  alignas(64) static constexpr uint16_t kHi[32] = {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
                                                   24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
  const __m512i a = _mm512_maskz_loadu_epi16(live, r0);
  const __m512i b = r1 ? _mm512_maskz_loadu_epi16(live, r1) : _mm512_setzero_si512();
  *lo = _mm512_permutex2var_epi16(a, _mm512_load_si512(kLo), b);
  *hi = _mm512_permutex2var_epi16(a, _mm512_load_si512(kHi), b);
}

#endif

#ifdef TORCH_TPU_GEMM_AVX512_BF16
// A transposed bfloat16 A (its rows are the contiguous dimension) into row
// layout: a rows_pad x kc_pad matrix of (k, k+1) pairs (the row panels of
// any MR are consecutive rows of it). 32 rows at a time: rows k and k+1 of
// the source interleaved into pairs, 16 pairs transposed in registers, so
// each row of the block gets 16 pairs in one 64-byte store.
void pack_bf16_transposed_rows(const BFloat16* a, int64_t ks, int64_t rows, int64_t rows_pad, int64_t kcs,
                               int64_t kc_pad, uint16_t* dst) {
  if (rows < rows_pad || kcs < kc_pad) std::memset(dst, 0, rows_pad * kc_pad * sizeof(uint16_t));
  const int64_t pr = kc_pad / 2;  // row stride in pairs
  const __m512i row_offsets = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                                 _mm512_set1_epi32(static_cast<int>(pr)));
  for (int64_t g0 = 0; g0 < rows; g0 += 32) {
    const int64_t live = std::min<int64_t>(32, rows - g0);
    const BFloat16* s = a + g0;
    uint32_t* pd32 = reinterpret_cast<uint32_t*>(dst + g0 * kc_pad);
    const __mmask32 live_mask = live >= 32 ? ~__mmask32{0} : ((__mmask32{1} << live) - 1);
    const __mmask16 lo_mask = static_cast<__mmask16>(live_mask), hi_mask = static_cast<__mmask16>(live_mask >> 16);
    int64_t kk0 = 0;
    for (; kk0 + 32 <= kcs; kk0 += 32) {
      __m512i lo[16], hi[16];
      for (int j = 0; j < 16; ++j) {
        interleave_bf16_rows(reinterpret_cast<const uint16_t*>(s + (kk0 + 2 * j) * ks),
                             reinterpret_cast<const uint16_t*>(s + (kk0 + 2 * j + 1) * ks), live_mask, &lo[j], &hi[j]);
      }
      transpose_16x16_epi32(lo);
      transpose_16x16_epi32(hi);
      for (int64_t r = 0; r < std::min<int64_t>(16, live); ++r) _mm512_storeu_si512(pd32 + r * pr + kk0 / 2, lo[r]);
      for (int64_t r = 16; r < live; ++r) _mm512_storeu_si512(pd32 + r * pr + kk0 / 2, hi[r - 16]);
    }
    for (; kk0 < kcs; kk0 += 2) {
      const uint16_t* r0 = reinterpret_cast<const uint16_t*>(s + kk0 * ks);
      const uint16_t* r1 = kk0 + 1 < kcs ? reinterpret_cast<const uint16_t*>(s + (kk0 + 1) * ks) : nullptr;
      __m512i lo, hi;
      interleave_bf16_rows(r0, r1, live_mask, &lo, &hi);
      _mm512_mask_i32scatter_epi32(pd32 + kk0 / 2, lo_mask, row_offsets, lo, 4);
      _mm512_mask_i32scatter_epi32(pd32 + 16 * pr + kk0 / 2, hi_mask, row_offsets, hi, 4);
    }
  }
}
#endif

// A block rows [i0, i0+rows) x k [k0, k0+kcs) into MR-row panels, padded with
// zeros to MR rows and kc_pad (a multiple of KU) columns. Two layouts:
//   row layout (A has unit k stride):  panel[r][kk]       a_rs = kc_pad/KU, a_ks = 1
//   k layout  (otherwise):             panel[kk/KU][r][kk%KU]  a_rs = 1, a_ks = MR
// strides passed to the micro-kernel count KU-element units.
template <class C>
void pack_a(const typename C::in_t* a, int64_t rs, int64_t ks, int64_t rows, int64_t kcs,
            int64_t kc_pad, typename C::pack_t* dst, bool row_layout) {
  using P = typename C::pack_t;
  using In = typename C::in_t;
  constexpr int MR = C::kMR, KU = C::kKU;
  const int64_t panels = ceil_div(rows, MR);
#ifdef TORCH_TPU_GEMM_AVX512_BF16
  if constexpr (std::is_same_v<In, BFloat16> && std::is_same_v<P, uint16_t> && KU == 2) {
    if (row_layout && ks != 1 && rs == 1) {
      pack_bf16_transposed_rows(a, ks, rows, panels * MR, kcs, kc_pad, dst);
      return;
    }
  }
#endif
  for (int64_t q = 0; q < panels; ++q) {
    P* pd = dst + q * MR * kc_pad;
    const int64_t live = std::min<int64_t>(MR, rows - q * MR);  // real rows in this panel
    // (A transposed A in row layout is bfloat16's alone, packed above: other
    // configurations take the k layout for it.)
    if (row_layout) {
      for (int r = 0; r < MR; ++r) {
        P* d = pd + r * kc_pad;
        if (r < live) {
          const In* s = a + (q * MR + r) * rs;
          if (ks != 1) {  // a transposed A into row panels (the AMX layout)
            for (int64_t kk = 0; kk < kcs; ++kk) d[kk] = to_packed<In, P>(s[kk * ks]);
          } else if constexpr (std::is_same_v<In, P>) {
            std::memcpy(d, s, kcs * sizeof(P));
          } else {
            for (int64_t kk = 0; kk < kcs; ++kk) d[kk] = to_packed<In, P>(s[kk]);
          }
          for (int64_t kk = kcs; kk < kc_pad; ++kk) d[kk] = P{};
        } else {
          std::memset(d, 0, kc_pad * sizeof(P));
        }
      }
    } else {
      // k-major panel; for a transposed A (unit row stride) the MR values of
      // one k are adjacent in memory.
      const In* s = a + q * MR * rs;
      if constexpr (KU == 1 && std::is_same_v<In, P>) {
        if (rs == 1 && live == MR) {  // a whole panel: MR adjacent values per k, a fixed-size copy
          for (int64_t kk = 0; kk < kcs; ++kk) std::memcpy(pd + kk * MR, s + kk * ks, MR * sizeof(P));
          std::memset(pd + kcs * MR, 0, (kc_pad - kcs) * MR * sizeof(P));
          continue;
        }
      }
      for (int64_t kk = 0; kk < kc_pad; ++kk) {
        P* d = pd + (kk / KU) * MR * KU + kk % KU;
        for (int r = 0; r < MR; ++r) {
          d[r * KU] = (r < live && kk < kcs) ? to_packed<In, P>(s[r * rs + kk * ks]) : P{};
        }
      }
    }
  }
}

// B block k [k0, k0+kcs) x cols [j0, j0+cols) into NR-column panels:
// panel[kk/KU][c][kk%KU], padded with zeros to NR columns and kc_pad rows.
template <class C>
void pack_b(const typename C::in_t* b, int64_t rs, int64_t cs, int64_t kcs, int64_t kc_pad,
            int64_t cols, typename C::pack_t* dst) {
  using P = typename C::pack_t;
  using In = typename C::in_t;
  constexpr int NR = C::kNR, KU = C::kKU;
  const int64_t panels = ceil_div(cols, NR);
  for (int64_t q = 0; q < panels; ++q) {
    P* pd = dst + q * NR * kc_pad;
    const int64_t c0 = q * NR;
    const int64_t nc = std::min<int64_t>(NR, cols - c0);
    if (nc < NR || kcs < kc_pad) std::memset(pd, 0, NR * kc_pad * sizeof(P));
    if (cs == 1 || (rs != 1 && std::abs(cs) <= std::abs(rs))) {
      // Rows of B are (closer to) contiguous: copy row by row.
      int64_t kk0 = 0;
#ifdef TORCH_TPU_GEMM_AVX512_BF16
      if constexpr (std::is_same_v<In, BFloat16> && std::is_same_v<P, uint16_t> && KU == 2 && NR % 32 == 0) {
        if (cs == 1) {  // two rows at a time into (k, k+1) pairs, 32 columns per step
          for (; kk0 < kcs; kk0 += 2) {
            P* d = pd + (kk0 / 2) * NR * 2;
            for (int64_t g = 0; g < nc; g += 32) {
              const int64_t w = std::min<int64_t>(32, nc - g);
              const __mmask32 m = w >= 32 ? ~__mmask32{0} : ((__mmask32{1} << w) - 1);
              const uint16_t* r0 = reinterpret_cast<const uint16_t*>(b + kk0 * rs + c0 + g);
              const uint16_t* r1 = kk0 + 1 < kcs ? reinterpret_cast<const uint16_t*>(b + (kk0 + 1) * rs + c0 + g) : nullptr;
              __m512i lo, hi;
              interleave_bf16_rows(r0, r1, m, &lo, &hi);
              _mm512_storeu_si512(d + 2 * g, lo);
              _mm512_storeu_si512(d + 2 * g + 32, hi);
            }
          }
        }
      }
#endif
      for (int64_t kk = kk0; kk < kcs; ++kk) {
        const In* s = b + kk * rs + c0 * cs;
        P* d = pd + (kk / KU) * NR * KU + kk % KU;
        if (cs == 1) {
          if constexpr (KU == 1 && std::is_same_v<In, P>) {
            if (nc == NR) {
              std::memcpy(d, s, NR * sizeof(P));  // a whole panel row: fixed size, no library call
            } else {
              std::memcpy(d, s, nc * sizeof(P));
            }
          } else {
            for (int64_t c = 0; c < nc; ++c) d[c * KU] = to_packed<In, P>(s[c]);
          }
        } else {
          for (int64_t c = 0; c < nc; ++c) d[c * KU] = to_packed<In, P>(s[c * cs]);
        }
      }
    } else {
      // Columns of B are contiguous (B is a transposed view, as x @ W.t()
      // has): transpose in tiles of kTile k values, so the kTile panel rows
      // being written stay in L1 while every column visits them. Column by
      // column over all of K touches kcs cache lines per column, about 1 ns
      // per element: slower than the product itself when A has few rows.
      constexpr int64_t kTile = 16;  // even: a bfloat16 pair never straddles tiles
      int64_t k_start = 0;
#ifdef TORCH_TPU_GEMM_AVX512_BF16
      if constexpr (std::is_same_v<In, BFloat16> && std::is_same_v<P, uint16_t> && KU == 2 && NR % 16 == 0) {
        if (rs == 1 && cs % 2 == 0 && cs > 0 && cs <= (int64_t{1} << 27)) {  // 15 * cs / 2 fits an int32 index
          // A column's (k, k+1) pairs are adjacent 32-bit words: one gather
          // takes pair p of 16 columns, one store writes them to the panel.
          const __m512i cols16 = _mm512_mullo_epi32(
              _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
              _mm512_set1_epi32(static_cast<int>(cs / 2)));
          const uint32_t* s32 = reinterpret_cast<const uint32_t*>(b + c0 * cs);
          uint32_t* d32 = reinterpret_cast<uint32_t*>(pd);
          const int64_t pairs = kcs / 2;
          for (int64_t g = 0; g < nc; g += 16) {
            const int64_t w = std::min<int64_t>(16, nc - g);
            const __mmask16 m = static_cast<__mmask16>((1u << w) - 1);
            const uint32_t* sg = s32 + g * (cs / 2);
            int64_t p = 0;
            if (w == 16) {
              // 16 pairs of 16 columns: 16 loads, a transpose in registers,
              // 16 stores (one gather per 16 values otherwise).
              for (; p + 16 <= pairs; p += 16) {
                __m512i t[16];
                for (int c = 0; c < 16; ++c) t[c] = _mm512_loadu_si512(sg + c * (cs / 2) + p);
                transpose_16x16_epi32(t);
                for (int j = 0; j < 16; ++j) _mm512_storeu_si512(d32 + (p + j) * NR + g, t[j]);
              }
            }
            for (; p < pairs; ++p) {
              const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, cols16, sg + p, 4);
              _mm512_storeu_si512(d32 + p * NR + g, v);
            }
          }
          k_start = pairs * 2;  // an odd last k goes through the loop below
        }
      }
#endif
#if defined(__AVX512F__)
      if constexpr (KU == 1 && sizeof(In) == 4 && std::is_same_v<In, P> && NR % 16 == 0) {
        if (rs == 1) {
          // float32: 16 k of 16 columns per step, 16 loads down the columns,
          // a register transpose, 16 panel-row stores (the scalar tiles
          // below made packing cost more than the product in a weight
          // gradient's GEMM, whose B is a transposed im2col).
          const int64_t k16 = kcs / 16 * 16;
          for (int64_t g = 0; g < nc; g += 16) {
            const int64_t w = std::min<int64_t>(16, nc - g);
            const In* sg = b + (c0 + g) * cs;
            for (int64_t p = 0; p < k16; p += 16) {
              __m512i t[16];
              for (int c = 0; c < 16; ++c) {
                t[c] = c < w ? _mm512_loadu_si512(sg + c * cs + p) : _mm512_setzero_si512();
              }
              transpose_16x16_epi32(t);
              for (int j = 0; j < 16; ++j) _mm512_storeu_si512(pd + (p + j) * NR + g, t[j]);
            }
          }
          k_start = k16;
        }
      }
#elif defined(__AVX2__)
      if constexpr (KU == 1 && sizeof(In) == 4 && std::is_same_v<In, P> && NR % 8 == 0) {
        if (rs == 1) {  // as above, 8 k of 8 columns per step
          const int64_t k8 = kcs / 8 * 8;
          for (int64_t g = 0; g < nc; g += 8) {
            const int64_t w = std::min<int64_t>(8, nc - g);
            const float* sg = reinterpret_cast<const float*>(b + (c0 + g) * cs);
            float* dg = reinterpret_cast<float*>(pd) + g;
            for (int64_t p = 0; p < k8; p += 8) {
              __m256 t[8];
              for (int c = 0; c < 8; ++c) t[c] = c < w ? _mm256_loadu_ps(sg + c * cs + p) : _mm256_setzero_ps();
              transpose_8x8_ps(t);
              for (int j = 0; j < 8; ++j) _mm256_storeu_ps(dg + (p + j) * NR, t[j]);
            }
          }
          k_start = k8;
        }
      }
#endif
      for (int64_t k0 = k_start; k0 < kcs; k0 += kTile) {
        const int64_t k1 = std::min(kcs, k0 + kTile);
        for (int64_t c = 0; c < nc; ++c) {
          const In* s = b + (c0 + c) * cs;
          P* d = pd + c * KU;
          if (rs == 1 && KU == 2 && sizeof(In) == 2 && sizeof(P) == 2) {
            // bfloat16 pairs (k, k+1) are adjacent in the column: move 32 bits.
            uint32_t* d32 = reinterpret_cast<uint32_t*>(d);
            int64_t kk = k0;
            for (; kk + 1 < k1; kk += 2) {
              uint32_t v;
              std::memcpy(&v, s + kk, sizeof(v));
              d32[(kk / 2) * NR] = v;
            }
            if (kk < k1) d[(kk / 2) * NR * 2] = to_packed<In, P>(s[kk]);
          } else if (rs == 1) {
            for (int64_t kk = k0; kk < k1; ++kk) d[(kk / KU) * NR * KU + kk % KU] = to_packed<In, P>(s[kk]);
          } else {
            for (int64_t kk = k0; kk < k1; ++kk) {
              d[(kk / KU) * NR * KU + kk % KU] = to_packed<In, P>(s[kk * rs]);
            }
          }
        }
      }
    }
  }
}

// ---- epilogue ----------------------------------------------------------------

template <class C, bool kUnit>
void store_tile(const GemmDesc& d, const typename C::acc_t* acc, int64_t ldacc,
                typename C::in_t* c, const typename C::in_t* s, int64_t rows, int64_t cols,
                bool products) {
  using Acc = typename C::acc_t;
  using In = typename C::in_t;
  // Integers: modulo 2^bits in uint64_t (no promotion to int, no overflow UB).
  using E = std::conditional_t<std::is_integral_v<Acc>, uint64_t, Acc>;
  E alpha, beta;
  if constexpr (std::is_integral_v<Acc>) {
    alpha = static_cast<E>(d.ialpha);
    beta = static_cast<E>(d.ibeta);
  } else {
    alpha = static_cast<E>(d.alpha);
    beta = static_cast<E>(d.beta);
  }
  auto out = [](E v) { return narrow_from<In>(static_cast<Acc>(v)); };
  auto in = [](In v) { return static_cast<E>(widen_to<Acc>(v)); };
  const int64_t ccs = kUnit ? 1 : d.c.col_stride;
  const int64_t scs = d.s.col_stride;
  for (int64_t i = 0; i < rows; ++i) {
    const Acc* ar = acc + i * ldacc;
    In* cr = c + i * d.c.row_stride;
    const In* sr = s + i * d.s.row_stride;
    if (!products) {
      if (d.beta_zero) {
        for (int64_t j = 0; j < cols; ++j) cr[j * ccs] = out(E{});
      } else {
        for (int64_t j = 0; j < cols; ++j) cr[j * ccs] = out(beta * in(sr[j * scs]));
      }
    } else if (d.beta_zero) {
      for (int64_t j = 0; j < cols; ++j) cr[j * ccs] = out(alpha * static_cast<E>(ar[j]));
    } else if (kUnit && scs == 1) {
      for (int64_t j = 0; j < cols; ++j) cr[j] = out(alpha * static_cast<E>(ar[j]) + beta * in(sr[j]));
    } else if (kUnit && scs == 0) {
      const E bs = beta * in(sr[0]);
      for (int64_t j = 0; j < cols; ++j) cr[j] = out(alpha * static_cast<E>(ar[j]) + bs);
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        cr[j * ccs] = out(alpha * static_cast<E>(ar[j]) + beta * in(sr[j * scs]));
      }
    }
  }
}

// ---- the driver ----------------------------------------------------------------

// B of every matrix and K block, packed up front for gemm_typed's row
// chunks to share: the block of (matrix bi, K block kb) starts at
// (bi * n_kb + kb) * n_panels * NR * kc_stride, and its panel q at
// q * NR * kc_pad within it (kc_pad: that block's padded k, as pack_b lays
// panels out). Runs once per product, so it is kept out of the task loop.
template <class C>
__attribute__((noinline)) typename C::pack_t* pack_b_shared(const GemmDesc& d, int64_t n_kb, int64_t n_panels,
                                                            int64_t kc_stride) {
  using P = typename C::pack_t;
  using In = typename C::in_t;
  constexpr int NR = C::kNR, KPAD = C::kKPad;
  constexpr int64_t KC = C::kKC;
  const int64_t block_elems = n_panels * NR * kc_stride;
  P* shared = t_pack_b_shared.get<P>(d.batch * n_kb * block_elems);
  const In* B = static_cast<const In*>(d.b.data);
  // Small B (a linear layer's weight) packs inline: a second round of the
  // cores costs more than packing it.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / (NR * kc_stride));
  runtime::parallel_for(0, d.batch * n_kb * n_panels, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t it = b0; it < b1; ++it) {
      const int64_t q = it % n_panels, kb = (it / n_panels) % n_kb, bi = it / (n_panels * n_kb);
      const int64_t pc = kb * KC, kcs = std::min(KC, d.k - pc), kc_pad = round_up(kcs, KPAD);
      const int64_t c0 = q * NR;
      pack_b<C>(B + bi * d.b.batch_stride + pc * d.b.row_stride + c0 * d.b.col_stride, d.b.row_stride,
                d.b.col_stride, kcs, kc_pad, std::min<int64_t>(NR, d.n - c0),
                shared + (bi * n_kb + kb) * block_elems + q * NR * kc_pad);
    }
  });
  return shared;
}

template <class C>
void gemm_typed(const GemmDesc& d) {
  using In = typename C::in_t;
  using P = typename C::pack_t;
  using Acc = typename C::acc_t;
  constexpr int MR = C::kMR, NR = C::kNR, KU = C::kKU, KPAD = C::kKPad;
  constexpr int64_t KC = C::kKC, MC = C::kMC, NC = C::kNC;
  static_assert(MC % MR == 0 && NC % NR == 0 && KC % KPAD == 0 && KPAD % KU == 0);
  using PU = std::conditional_t<KU == 2, uint32_t, P>;  // micro-kernel step unit

  const int64_t m = d.m, n = d.n, k = d.k, batch = d.batch;
  if (m == 0 || n == 0 || batch == 0) return;

  // Tasks: batch x row chunks x column blocks; at least 4 per core when the
  // problem allows it, row chunks of at most 8 MC. Every task packs its own
  // panels of A and B: a row split re-packs B, a column split re-packs A.
  // With at most MC rows (a convolution's weight gradient: few output
  // channels, long k) A is the small operand, so the columns split first.
  const int64_t want = 4 * std::max(1, runtime::current_core_count());
  int64_t nc_block = NC;
  while (m <= MC && batch * ceil_div(n, nc_block) < want && nc_block > NR) {
    nc_block = round_up(ceil_div(nc_block, 2), NR);
  }
  const int64_t n_jc = ceil_div(n, nc_block);
  // A row split re-packs B per chunk: with few rows (B the large operand)
  // only as far as one task per core.
  const int64_t want_rows = m <= MC ? std::max(1, runtime::current_core_count()) : want;
  int64_t chunk = std::min(round_up(m, MR), 8 * MC);
  while (batch * n_jc * ceil_div(m, chunk) < want_rows && chunk > MR) {
    chunk = round_up(ceil_div(chunk, 2), MR);
  }
  // Equal chunks (balanced tasks).
  const int64_t n_ic = ceil_div(m, chunk);
  chunk = round_up(ceil_div(m, n_ic), MR);
  const int64_t tasks = batch * n_ic * n_jc;

  const In* A = static_cast<const In*>(d.a.data);
  const In* B = static_cast<const In*>(d.b.data);
  In* Cp = static_cast<In*>(d.c.data);
  const In* S = static_cast<const In*>(d.s.data);
  // Row-major panels: for a row-major A, and for a transposed bfloat16 A
  // where pack_bf16_transposed_rows moves 16 pairs per store (the k layout
  // went element by element: a quarter of a weight gradient's time).
  const bool a_rows = C::kRowLayoutOnly || d.a.col_stride == 1 || (C::kTransposedRows && d.a.row_stride == 1);
  const bool c_unit = d.c.col_stride == 1;

  // Row chunks of a column block all read the same panels of B: with more
  // than one chunk, B is packed once, up front, its panels spread over the
  // cores, instead of once per task, when packing is more than a row copy
  // (a transpose or a conversion). With few rows per chunk that repeated
  // packing cost as much as the product (x @ W.t() of 256 x 64 x 192, the
  // GPT example's linear layers, packed its B 8 times). A row-major B of the
  // packed type keeps per-task copies: they are cheap, and fresh in the
  // task's own cache, where a shared B may sit in another core's (AMD
  // EPYC: 5-10% slower shared). So does a B past 2 MiB of panels (1024^3:
  // 3-7% slower shared).
  const int64_t n_kb = ceil_div(k, KC), n_panels = ceil_div(n, NR);
  const int64_t kc_stride = std::min(KC, round_up(k, KPAD));  // the most k a K block has
  const int64_t block_elems = n_panels * NR * kc_stride;      // one (matrix, K block)'s panels
  const int64_t shared_elems = batch * n_kb * block_elems;
  const bool row_copy = KU == 1 && std::is_same_v<In, P> && d.b.col_stride == 1;
  const bool shared_b = n_ic > 1 && k > 0 && !row_copy &&
                        shared_elems * static_cast<int64_t>(sizeof(P)) <= (int64_t{2} << 20);
  P* shared = shared_b ? pack_b_shared<C>(d, n_kb, n_panels, kc_stride) : nullptr;

  auto task = [&](int64_t t) {
    const int64_t bi = t / (n_ic * n_jc);
    const int64_t ic = (t / n_jc) % n_ic;
    const int64_t jc = t % n_jc;
    const int64_t i0 = ic * chunk, rows = std::min(chunk, m - i0);
    const int64_t j0 = jc * nc_block, cols = std::min(nc_block, n - j0);
    const int64_t rows_pad = round_up(rows, MR), ldacc = round_up(cols, NR);
    const In* Ab = A + bi * d.a.batch_stride + i0 * d.a.row_stride;
    const In* Bb = B + bi * d.b.batch_stride + j0 * d.b.col_stride;

    C::begin_task();
    Acc* acc = t_acc.get<Acc>(rows_pad * ldacc);
    P* own_b = shared_b ? nullptr : t_pack_b.get<P>(ldacc * KC);
    P* ap = t_pack_a.get<P>(MC * KC);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kcs = std::min(KC, k - pc), kc_pad = round_up(kcs, KPAD);
      P* bp = own_b;
      if (shared_b) {  // this column block's panels: panel j0 / NR of the block
        bp = shared + (bi * n_kb + pc / KC) * block_elems + j0 * kc_pad;
      } else {
        pack_b<C>(Bb + pc * d.b.row_stride, d.b.row_stride, d.b.col_stride, kcs, kc_pad, cols, bp);
      }
      for (int64_t ib = 0; ib < rows; ib += MC) {
        const int64_t rb = std::min(MC, rows - ib);
        const bool direct = C::kDirectA && d.a.col_stride == 1 && kcs == kc_pad && rb % MR == 0 &&
                            d.a.row_stride % KU == 0;
        if (!direct) {
          pack_a<C>(Ab + ib * d.a.row_stride + pc * d.a.col_stride, d.a.row_stride, d.a.col_stride,
                    rb, kcs, kc_pad, ap, a_rows);
        }
        const int64_t a_rs = direct ? d.a.row_stride / KU : (a_rows ? kc_pad / KU : 1);
        const int64_t a_ks = a_rows ? 1 : MR;
        for (int64_t ir = 0; ir < rb; ir += MR) {
          const PU* apan = direct ? reinterpret_cast<const PU*>(Ab + (ib + ir) * d.a.row_stride + pc)
                                  : reinterpret_cast<const PU*>(ap + ir * kc_pad);
          for (int64_t jr = 0; jr < cols; jr += NR) {
            C::micro(kc_pad / KU, apan, a_rs, a_ks, reinterpret_cast<const PU*>(bp + jr * kc_pad),
                     acc + (ib + ir) * ldacc + jr, ldacc, pc == 0);
          }
        }
      }
    }
    In* Ct = Cp + bi * d.c.batch_stride + i0 * d.c.row_stride + j0 * d.c.col_stride;
    const In* St = d.beta_zero ? Ct : S + bi * d.s.batch_stride + i0 * d.s.row_stride + j0 * d.s.col_stride;
    if (c_unit) {
      store_tile<C, true>(d, acc, ldacc, Ct, St, rows, cols, k > 0);
    } else {
      store_tile<C, false>(d, acc, ldacc, Ct, St, rows, cols, k > 0);
    }
  };
  runtime::parallel_for(0, tasks, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) task(t);
  });
}

// float32 A needs no conversion: with unit k stride it is read in place.
template <class Micro>
struct F32ConfigOf : Config<float, float, float, Micro, 1> {
  static constexpr bool kDirectA = true;
};
using F32Config = F32ConfigOf<F32Micro>;

// The float32 tile that computes the least padding: the output rounded up to
// whole tiles, weighted by each tile's time per product on large products
// (tpu_kernels_tests --bench-gemm 1024 with each tile forced, AMD EPYC:
// 6 x 64 201-212 GFLOP/s, 12 x 32 193-200, 16 x 16 97-102). So 16 x 16
// serves 16-column products only, 12 x 32 up to 32 columns and other
// badly padded widths.
void gemm_f32(const GemmDesc& d) {
  auto cost = [&](int mr, int nr, double slower) {
    return static_cast<double>(round_up(d.m, mr)) * static_cast<double>(round_up(d.n, nr)) * slower;
  };
  const double wide = cost(F32Micro::kMR, F32Micro::kNR, 1.0);
  const double half = cost(F32MicroHalf::kMR, F32MicroHalf::kNR, 1.05);
  const double quarter = cost(F32MicroQuarter::kMR, F32MicroQuarter::kNR, 2.0);
  if (wide <= half && wide <= quarter) return gemm_typed<F32Config>(d);
  if (half <= quarter) return gemm_typed<F32ConfigOf<F32MicroHalf>>(d);
  return gemm_typed<F32ConfigOf<F32MicroQuarter>>(d);
}
using F16Config = Config<Half, float, float, F32Micro, 1>;
using F64Config = Config<double, double, double, F64Micro, 1>;
#ifdef TORCH_TPU_GEMM_AVX512_BF16
using BF16Config = Config<BFloat16, uint16_t, float, Bf16DotMicro, 2>;
struct AmxBf16Config : Config<BFloat16, uint16_t, float, AmxBf16Micro, 2> {
  static constexpr int kKPad = AmxBf16Micro::kKPad;
  static constexpr bool kRowLayoutOnly = true;  // tile rows are rows of A
  static constexpr int64_t kMC = 128;
  static void begin_task() { AmxBf16Micro::configure(); }
  // Tile loads take any row stride: a row-major A is read where it lies.
  static constexpr bool kDirectA = true;
};

// AMX needs the CPU's tiles and the kernel's permission to use their state
// (Linux >= 5.16: arch_prctl ARCH_REQ_XCOMP_PERM), asked once per process.
// TORCH_TPU_AMX=0 turns it off (the AVX512-BF16 kernel then runs).
bool amx_usable() {
  static const bool usable = [] {
    const char* env = std::getenv("TORCH_TPU_AMX");
    if (env != nullptr && std::string(env) == "0") return false;
    const runtime::CpuFeatures& f = runtime::cpu_features();
    if (!f.amx_tile || !f.amx_bf16) return false;
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return usable;
}
#else
using BF16Config = Config<BFloat16, float, float, F32Micro, 1>;
#endif
template <typename S, typename U>
using IntConfig = Config<S, U, U, IntMicro<U>, 1>;

// Column-major C: compute C^T = B^T A^T so the output rows are contiguous.
GemmDesc oriented(const GemmDesc& d) {
  if (d.c.col_stride == 1 || d.c.row_stride != 1) return d;
  GemmDesc t = d;
  std::swap(t.m, t.n);
  t.a = {d.b.data, d.b.col_stride, d.b.row_stride, d.b.batch_stride};
  t.b = {d.a.data, d.a.col_stride, d.a.row_stride, d.a.batch_stride};
  t.c = {d.c.data, d.c.col_stride, d.c.row_stride, d.c.batch_stride};
  t.s = {d.s.data, d.s.col_stride, d.s.row_stride, d.s.batch_stride};
  return t;
}

}  // namespace

void run(const GemmDesc& desc) {
  if (desc.m < 0 || desc.n < 0 || desc.k < 0 || desc.batch < 0) {
    throw std::invalid_argument("gemm: negative size");
  }
  if (desc.m == 0 || desc.n == 0 || desc.batch == 0) return;
  const GemmDesc d = oriented(desc);
  if (d.n == 1 || d.m == 1) {
    gemv_for_gemm(d);
    return;
  }
  switch (d.dtype) {
    case DType::kFloat32: return gemm_f32(d);
    case DType::kFloat64: return gemm_typed<F64Config>(d);
    case DType::kFloat16: return gemm_typed<F16Config>(d);
#ifdef TORCH_TPU_GEMM_AVX512_BF16
    case DType::kBFloat16: return amx_usable() ? gemm_typed<AmxBf16Config>(d) : gemm_typed<BF16Config>(d);
#else
    case DType::kBFloat16: return gemm_typed<BF16Config>(d);
#endif
    case DType::kUInt8: return gemm_typed<IntConfig<uint8_t, uint8_t>>(d);
    case DType::kInt8: return gemm_typed<IntConfig<int8_t, uint8_t>>(d);
    case DType::kInt16: return gemm_typed<IntConfig<int16_t, uint16_t>>(d);
    case DType::kInt32: return gemm_typed<IntConfig<int32_t, uint32_t>>(d);
    case DType::kInt64: return gemm_typed<IntConfig<int64_t, uint64_t>>(d);
    default:
      throw std::invalid_argument(std::string("gemm: unsupported dtype ") + dtype_name(d.dtype));
  }
}

const char* kernel_name(DType t) {
  switch (t) {
    case DType::kBFloat16:
#ifdef TORCH_TPU_GEMM_AVX512_BF16
      return amx_usable() ? "amx-bf16" : "avx512-bf16-dot";
#else
      return "float-converted";
#endif
    case DType::kFloat16:
      return "float-converted";
    default:
#ifdef __AVX512F__
      return "avx512-vector";
#else
      return "avx2-vector";
#endif
  }
}

}  // namespace gemm_detail
}  // namespace TORCH_TPU_ISA

// This variant's entries (see gemm_dispatch.cpp).
void TORCH_TPU_ISA_ENTRY(real_gemm)(const GemmDesc& d) { gemm_detail::run(d); }
const char* TORCH_TPU_ISA_ENTRY(real_gemm_kernel_name)(DType t) { return gemm_detail::kernel_name(t); }

}  // namespace torch_tpu::kernels
