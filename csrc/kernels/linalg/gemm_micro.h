// GEMM micro-kernels: the register-blocked inner loops of gemm.cpp. Private
// to the kernel library.
//
// A micro-kernel updates one MR x NR tile of a float (or integer) accumulator:
//
//   acc[r][j] (+)= sum_p  A(r, p) * Bp[p][j]      r < MR, j < NR, p < kc
//
// Bp is a packed panel of B: kc rows of NR contiguous elements, 64-byte
// aligned. A(r, p) = ap[r * a_rs + p * a_ks] (the packed A panel, either
// row-major or p-major). acc is row-major with leading dimension ldacc, 64-byte
// aligned rows. `first` starts from zero instead of loading acc.
//
// The generic kernel is written with GCC vector extensions: in the avx512
// variant each row update is a broadcast-from-memory vfmadd231ps/pd (check
// with objdump). The bfloat16 kernel uses vdpbf16ps,
// which multiplies pairs of bfloat16 (adjacent k) and adds both products into
// float lanes: its "p" runs over k pairs, and A and B hold (k, k+1) pairs.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/common/isa.h"

#if defined(__AVX512F__) && defined(__AVX512BF16__)
#include <immintrin.h>
#define TORCH_TPU_GEMM_AVX512_BF16 1
#endif

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace gemm_detail {

// Vector registers of this ISA variant (isa.h): 32 zmm with AVX-512, 16 ymm
// with AVX2. The tiles below keep MR x NV accumulators plus NV B vectors
// and one broadcast A value in registers.
#if defined(__AVX512F__)
inline constexpr int kVecBytes = 64;
inline constexpr int kFloatNV = 4;  // 6 x 4 zmm accumulators: a 6 x 64 float tile
#else
inline constexpr int kVecBytes = 32;
inline constexpr int kFloatNV = 2;  // 6 x 2 ymm accumulators: a 6 x 16 float tile
#endif

template <typename T, int MR, int NV>
struct GenericMicro {
  typedef T V __attribute__((vector_size(kVecBytes)));
  static constexpr int kWidth = kVecBytes / static_cast<int>(sizeof(T));
  static constexpr int kMR = MR;
  static constexpr int kNR = NV * kWidth;

  static inline __attribute__((always_inline)) void run(int64_t kc, const T* __restrict ap,
                                                        int64_t a_rs, int64_t a_ks,
                                                        const T* __restrict bp, T* __restrict acc,
                                                        int64_t ldacc, bool first) {
    V c[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        c[r][v] = first ? V{} : *reinterpret_cast<const V*>(acc + r * ldacc + v * kWidth);
      }
    }
    const T* a_row[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) a_row[r] = ap + r * a_rs;
    for (int64_t p = 0; p < kc; ++p) {
      V b[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) b[v] = *reinterpret_cast<const V*>(bp + v * kWidth);
      bp += kNR;
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const T a = a_row[r][p * a_ks];
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) c[r][v] += a * b[v];
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) *reinterpret_cast<V*>(acc + r * ldacc + v * kWidth) = c[r][v];
    }
  }
};

#ifdef TORCH_TPU_GEMM_AVX512_BF16
// bfloat16 pairs: ap/bp hold uint32 (k, k+1) pairs; kp counts pairs.
struct Bf16DotMicro {
  static constexpr int kMR = 6;
  static constexpr int kNV = 4;
  static constexpr int kNR = kNV * 16;

  static inline __attribute__((always_inline)) void run(int64_t kp, const uint32_t* __restrict ap,
                                                        int64_t a_rs, int64_t a_ks,
                                                        const uint32_t* __restrict bp,
                                                        float* __restrict acc, int64_t ldacc,
                                                        bool first) {
    __m512 c[kMR][kNV];
#pragma GCC unroll 16
    for (int r = 0; r < kMR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) {
        c[r][v] = first ? _mm512_setzero_ps() : _mm512_load_ps(acc + r * ldacc + v * 16);
      }
    }
    const uint32_t* a_row[kMR];
#pragma GCC unroll 16
    for (int r = 0; r < kMR; ++r) a_row[r] = ap + r * a_rs;
    for (int64_t p = 0; p < kp; ++p) {
      __m512bh b[kNV];
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) b[v] = (__m512bh)_mm512_load_si512(bp + v * 16);
      bp += kNR;
#pragma GCC unroll 16
      for (int r = 0; r < kMR; ++r) {
        const __m512bh a = (__m512bh)_mm512_set1_epi32(static_cast<int>(a_row[r][p * a_ks]));
#pragma GCC unroll 8
        for (int v = 0; v < kNV; ++v) c[r][v] = _mm512_dpbf16_ps(c[r][v], a, b[v]);
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < kMR; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) _mm512_store_ps(acc + r * ldacc + v * 16, c[r][v]);
    }
  }
};

// AMX (Intel's matrix unit: eight 1 KiB tile registers, TDPBF16PS multiplies
// a 16 x 32 bfloat16 tile by a 32 x 16 one into a 16 x 16 float tile). One
// call updates a 32 x 32 float tile of acc: C in tiles 0-3, two A row tiles
// (4, 5), two B column tiles (6, 7); per 32 k, 4 tile products. The packed
// panels are what Bf16DotMicro reads, with k padded to 32 (kKPad): an A row
// of 16 pairs and a B row of 16 columns' pairs are each one 64-byte tile row.
// Built with target attributes (no -mamx flags for the file), so it is only
// reached when amx_usable() said yes (gemm.cpp); never inlined.
struct AmxBf16Micro {
  static constexpr int kMR = 32;
  static constexpr int kNR = 32;
  static constexpr int kKPad = 32;

  struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
    uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
  };

  // Once per GEMM task (gemm.cpp): the task's thread may have run other tile
  // code since its last one; between calls of one task nothing else runs.
  __attribute__((target("amx-tile,amx-bf16"), noinline)) static void configure() {
    static const TileConfig cfg;
    _tile_loadconfig(&cfg);
  }

  __attribute__((target("amx-tile,amx-bf16"), noinline)) static void run(
      int64_t kp, const uint32_t* ap, int64_t a_rs, int64_t /*a_ks*/, const uint32_t* bp, float* acc,
      int64_t ldacc, bool first) {
    const int64_t lc = ldacc * static_cast<int64_t>(sizeof(float));
    if (first) {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
    } else {
      _tile_loadd(0, acc, lc);
      _tile_loadd(1, acc + 16, lc);
      _tile_loadd(2, acc + 16 * ldacc, lc);
      _tile_loadd(3, acc + 16 * ldacc + 16, lc);
    }
    const int64_t la = a_rs * static_cast<int64_t>(sizeof(uint32_t));
    const int64_t lb = kNR * static_cast<int64_t>(sizeof(uint32_t));
    for (int64_t p = 0; p < kp; p += 16) {
      _tile_loadd(4, ap + p, la);
      _tile_loadd(5, ap + 16 * a_rs + p, la);
      _tile_loadd(6, bp + p * kNR, lb);
      _tile_loadd(7, bp + p * kNR + 16, lb);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, acc, lc);
    _tile_stored(1, acc + 16, lc);
    _tile_stored(2, acc + 16 * ldacc, lc);
    _tile_stored(3, acc + 16 * ldacc + 16, lc);
  }
};
#endif

}  // namespace gemm_detail
}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
