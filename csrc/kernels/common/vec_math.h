// Float math functions written to vectorize: straight-line code (selects, no
// branches, no library calls, integer work through bit casts), so that GCC
// turns an elementwise loop that calls them into AVX-512 code, as CPU PyTorch
// does with its SLEEF-based Vectorized<float>. Accuracy: a few ulp over the
// whole float range (checked against double-precision references in
// csrc/kernels/tests/test_elementwise_unary.cpp); IEEE special values as libm gives
// them. Always inlined, so a loop that calls several still vectorizes.
// Torch-free; include after kernels/common/fp_contract.h (every fused
// operation here is an explicit std::fma).
//
// Algorithms (textbook, see e.g. Muller, "Elementary Functions"):
//   exp/exp2   x = n ln2 + r (Cody-Waite, |r| <= ln2/2), e^r by its Taylor
//              polynomial, times 2^n built from bits in two halves (so
//              results down to the subnormals are right);
//   expm1      the same reduction, e^r - 1 as r + r^2 P(r), recombined as
//              2 (2^(n-1) q + (2^(n-1) - 1/2)) so nothing cancels or overflows early;
//   log        x = 2^k m with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s),
//              s = f / (2 + f), f = m - 1, as f - f^2/2 + s (f^2/2 + R(s^2));
//   log1p      log(1 + x) plus the rounding error of 1 + x divided by 1 + x;
//   tanh       expm1(2|x|) / (expm1(2|x|) + 2), sign restored;
//   erf        |x| < 1: x P(x^2); 1 <= |x| < 3.85: Q(|x| - 2.5); beyond: 1
//              (least-squares fits on Chebyshev nodes: tools/fit_erf_float.py);
//   erfc       x >= 0: t e^(-x^2 + g(t)), t = 1 / (1 + x/2), g a fit of
//              ln(erfcx(x) / t) (tools/fit_erf_float.py), x^2 split exactly
//              into hi + lo; below 1/2: 1 - erf(x); below 0: 2 - erfc(-x);
//   erfinv     Giles, "Approximating the erfinv function" (GPU Computing Gems,
//              2011): a polynomial in w = -log(1 - x^2) or in sqrt(w);
//   ndtri      sqrt(2) erfinv(2p - 1) as above, w formed from min(p, 1 - p);
//              in the far tails a polynomial in 1/sqrt(-log p)
//              (tools/fit_ndtri_float.py);
//   lgamma     reflection below 0, a shift by rint(x) to lgamma(2 + d) =
//              d P(d), |d| <= 1/2, below 8 (tools/fit_lgamma_float.py),
//              Stirling's series from 8.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace vmath {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kLog2e = 1.44269504088896341f;
// ln 2 in two parts: the high part has trailing zero bits, so n * kLn2Hi is
// exact for |n| < 512.
inline constexpr float kLn2Hi = 0x1.62e4p-1f;
inline constexpr float kLn2Lo = 0x1.7f7d1cf8p-20f;
inline constexpr float kLn2 = 0.693147180559945309f;

__attribute__((always_inline)) inline float rint_f(float x) { return __builtin_rintf(x); }

// 2^n for an integral n in [-126, 127].
__attribute__((always_inline)) inline float pow2i(int32_t n) {
  return std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23);
}

// p * 2^n for an integral n in [-252, 254]: two exact scalings, then one
// rounding (into the subnormals, or to infinity).
__attribute__((always_inline)) inline float ldexp_f(float p, float n) {
  const int32_t k = static_cast<int32_t>(n);
  const int32_t k1 = k >> 1;
  return p * pow2i(k1) * pow2i(k - k1);
}

// c[0] x^(N-1) + c[1] x^(N-2) + ... + c[N-1] by Horner's rule, one fma per
// step, the coefficients from the highest power down (as tools/fit_*.py print
// them). Fully unrolled into the same fmas, in the same order, as the steps
// it replaces (same results), so the op's loops still vectorize: checked
// with -fopt-info-vec on special_vec.cpp (AVX-512: 270 loops vectorized,
// 262 with the steps written out).
template <size_t N>
__attribute__((always_inline)) inline float horner(float x, const float (&c)[N]) {
  float p = c[0];
#pragma GCC unroll 16
  for (size_t i = 1; i < N; ++i) p = std::fma(p, x, c[i]);
  return p;
}

// e^r for |r| <= ln2/2 + a little: Taylor to degree 7 (truncation < 0.1 ulp).
__attribute__((always_inline)) inline float exp_poly(float r) {
  float p = horner(r, {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f});
  p = std::fma(p, r * r, r);  // r + r^2 P(r): e^r - 1
  return p + 1.0f;
}

// (e^r - 1 - r) / r^2 for |r| <= ln2/2: Taylor to degree 6.
__attribute__((always_inline)) inline float expm1_poly(float r) {
  float p = horner(r, {1.0f / 40320, 1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6});
  return std::fma(p, r, 0.5f);
}

// x clamped to [lo, hi], NaN to lo: the reductions below convert a multiple
// of x to int32, which a NaN would make undefined behaviour (found by UBSan);
// each function returns the NaN itself at its end.
__attribute__((always_inline)) inline float clamp_nan_low(float x, float lo, float hi) {
  return x > hi ? hi : (x >= lo ? x : lo);
}

__attribute__((always_inline)) inline float exp_f(float x) {
  const float xc = clamp_nan_low(x, -104.0f, 89.0f);
  const float n = rint_f(xc * kLog2e);
  float r = std::fma(-n, kLn2Hi, xc);
  r = std::fma(-n, kLn2Lo, r);
  const float y = ldexp_f(exp_poly(r), n);
  return x != x ? x : y;
}

__attribute__((always_inline)) inline float exp2_f(float x) {
  const float xc = clamp_nan_low(x, -151.0f, 129.0f);
  const float n = rint_f(xc);
  const float r = (xc - n) * kLn2;  // xc - n is exact
  const float y = ldexp_f(exp_poly(r), n);
  return x != x ? x : y;
}

__attribute__((always_inline)) inline float expm1_f(float x) {
  const float xc = clamp_nan_low(x, -30.0f, 88.8f);  // expm1(-30) rounds to -1
  const float n = rint_f(xc * kLog2e);
  float r = std::fma(-n, kLn2Hi, xc);
  r = std::fma(-n, kLn2Lo, r);
  const float q = std::fma(r * r, expm1_poly(r), r);  // e^r - 1
  const float t = pow2i(static_cast<int32_t>(n) - 1);  // 2^(n-1), n in [-43, 129]
  float y = std::fma(t, q, t - 0.5f) * 2.0f;
  y = x > 88.7228394f ? kInf : y;
  y = std::fabs(x) < 0x1p-25f ? x : y;  // keeps -0 and tiny values exact
  return x != x ? x : y;
}

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1].
__attribute__((always_inline)) inline float log1p_reduced(float f) {
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float hfsq = 0.5f * f * f;
  float R = 2.0f / 9;
  R = std::fma(R, z, 2.0f / 7);
  R = std::fma(R, z, 2.0f / 5);
  R = std::fma(R, z, 2.0f / 3);
  R *= z;
  return f - (hfsq - s * (hfsq + R));
}

// x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), for finite x > 0
// (subnormals included).
__attribute__((always_inline)) inline void log_reduce(float x, float& k, float& f) {
  const bool sub = x < 0x1p-126f;
  const float xs = x * (sub ? 0x1p23f : 1.0f);
  uint32_t ix = std::bit_cast<uint32_t>(xs);
  ix += 0x3f800000u - 0x3f3504f3u;
  const int32_t e = static_cast<int32_t>(ix >> 23) - 127 - (sub ? 23 : 0);
  ix = (ix & 0x007fffffu) + 0x3f3504f3u;
  k = static_cast<float>(e);
  f = std::bit_cast<float>(ix) - 1.0f;
}

// The special values of log, log2 and log10 on top of the finite result y.
__attribute__((always_inline)) inline float log_specials(float x, float y) {
  y = x == 0.0f ? -kInf : y;
  y = x < 0.0f ? kNaN : y;
  y = x == kInf ? kInf : y;
  return x != x ? x : y;
}

__attribute__((always_inline)) inline float log_f(float x) {
  float k, f;
  log_reduce(x, k, f);
  const float y = std::fma(k, kLn2Hi, std::fma(k, kLn2Lo, log1p_reduced(f)));
  return log_specials(x, y);
}

__attribute__((always_inline)) inline float log2_f(float x) {
  float k, f;
  log_reduce(x, k, f);
  const float l = log1p_reduced(f);
  // l / ln2 with log2(e) in two parts, then + k (exact for f = 0).
  const float y = k + std::fma(l, kLog2e, l * 1.925963033e-8f);
  return log_specials(x, y);
}

__attribute__((always_inline)) inline float log10_f(float x) {
  constexpr float kLog10eHi = 0.434294481903251828f;
  constexpr float kLog10eLo = -1.010305006e-8f;  // log10(e) - kLog10eHi
  constexpr float kLog10_2Hi = 0x1.344p-2f;  // trailing zeros: k * hi exact
  constexpr float kLog10_2Lo = 0x1.3509f8p-18f;
  float k, f;
  log_reduce(x, k, f);
  const float l = log1p_reduced(f);
  const float y = std::fma(k, kLog10_2Hi, std::fma(k, kLog10_2Lo, std::fma(l, kLog10eHi, l * kLog10eLo)));
  return log_specials(x, y);
}

__attribute__((always_inline)) inline float log1p_f(float x) {
  const float u = 1.0f + x;
  // log(u) + (x - (u - 1)) / u: the rounding error of 1 + x, to first order.
  float k, f;
  const float uc = (u > 0.0f) & (u < kInf) ? u : 1.0f;
  log_reduce(uc, k, f);
  const float lu = std::fma(k, kLn2Hi, std::fma(k, kLn2Lo, log1p_reduced(f)));
  float y = lu + (x - (u - 1.0f)) / uc;
  y = u == 0.0f ? -kInf : y;
  y = u < 0.0f ? kNaN : y;
  y = x == kInf ? kInf : y;
  y = std::fabs(x) < 0x1p-24f ? x : y;  // keeps -0 and tiny values exact
  return x != x ? x : y;
}

__attribute__((always_inline)) inline float tanh_f(float x) {
  const float a = std::fabs(x);
  const float ac = a < 9.5f ? a : 9.5f;  // tanh(9.5) rounds to 1
  const float e = expm1_f(2.0f * ac);
  float y = e / (e + 2.0f);
  y = a < 0x1p-13f ? a : y;  // tanh(a) = a - a^3/3 rounds to a
  y = std::copysign(y, x);
  return x != x ? x : y;
}

__attribute__((always_inline)) inline float sigmoid_f(float x) { return 1.0f / (1.0f + exp_f(-x)); }

// erf(a) for 0 <= a < 1: a P(a^2), relative error ~1.5e-7.
__attribute__((always_inline)) inline float erf_small(float a) {
  const float z = a * a;
  float p = horner(z, {7.89820988e-05f, -0.000802435388f, 0.00519005349f, -0.0268548094f, 0.112836123f,
      -0.376126289f, 1.12837923f});
  return a * p;
}

__attribute__((always_inline)) inline float erf_f(float x) {
  const float a = std::fabs(x);
  const float small = erf_small(a);
  // 1 <= |x| < 3.85: Q(|x| - 2.5), absolute error ~9e-8.
  const float t = (a < 3.85f ? a : 3.85f) - 2.5f;
  float q = horner(t, {-8.70944041e-06f, 2.14060092e-05f, 5.9413811e-05f, -0.000280871929f, 0.000291999429f,
      0.000574202684f, -0.00282375421f, 0.00610002549f, -0.0086127799f, 0.00835432485f, -0.00544707011f,
      0.00217797933f, 0.999593079f});
  float y = a < 1.0f ? small : (q < 1.0f ? q : 1.0f);
  y = a >= 3.85f ? 1.0f : y;
  y = std::copysign(y, x);
  return x != x ? x : y;
}

// Relative error ~3e-7 down to float's smallest subnormal results (x ~ 10);
// 0 from 10.1 on, 2 at -inf. Below |x| = 1/2, 1 -+ erf(|x|) (exact near 0).
__attribute__((always_inline)) inline float erfc_f(float x) {
  const float a = std::fabs(x);
  const float ac = a < 10.1f ? a : 10.1f;  // erfc(10.1) < the smallest subnormal
  const float t = 1.0f / std::fma(0.5f, ac, 1.0f);
  const float s = t - 0.58f;
  float g = horner(s, {-0.144046664f, 0.149554059f, 0.138198599f, -0.248747185f, -0.0469303392f,
      0.296201706f, -0.0396199562f, -0.406902254f, 0.0947632268f, 1.36811888f, -0.563156784f});
  const float hi = ac * ac;
  const float lo = std::fma(ac, ac, -hi);  // x^2 = hi + lo exactly: e^-x^2 stays accurate up to x^2 ~ 100
  float y = t * exp_f(-hi) * exp_f(g - lo);  // erfc(|x|)
  y = a >= 10.1f ? 0.0f : y;
  y = a < 0.5f ? 1.0f - erf_small(a) : y;
  y = x < 0.0f ? 2.0f - y : y;
  return x != x ? x : y;
}

// sin(pi r) / (pi r) for |r| <= 1/2, in u = r^2: Taylor's
// sum_k (-pi^2 u)^k / (2k + 1)! to k = 6 (truncation < 5e-10).
__attribute__((always_inline)) inline float sinpi_ratio(float u) {
  constexpr double a = 9.8696044010893586;  // pi^2
  float p = horner(u, {static_cast<float>(a * a * a * a * a * a / 6227020800.0),
      static_cast<float>(-a * a * a * a * a / 39916800.0), static_cast<float>(a * a * a * a / 362880.0),
      static_cast<float>(-a * a * a / 5040.0), static_cast<float>(a * a / 120.0),
      static_cast<float>(-a / 6.0)});
  return std::fma(p, u, 1.0f);
}

// Giles' erfinv(y) / y as a function of w = -log(1 - y^2).
__attribute__((always_inline)) inline float erfinv_ratio(float w) {
  const float a = w - 2.5f;  // w < 5: |y| < 0.9966
  float p = horner(a, {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f,
      -0.00125372503f, -0.00417768164f, 0.246640727f, 1.50140941f});
  const float b = std::sqrt(w) - 3.0f;  // the tails, up to 1 - |y| = 2^-24
  float q = horner(b, {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
      -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f});
  return w < 5.0f ? p : q;
}

// Relative error ~3e-7 (CPU's erfinv, Newton-refined: ~6e-8). NaN outside
// [-1, 1], +-inf at +-1, -0 kept.
__attribute__((always_inline)) inline float erfinv_f(float y) {
  const float x = erfinv_ratio(-log_f((1.0f - y) * (1.0f + y))) * y;
  const float ay = std::fabs(y);
  const float r = ay == 1.0f ? std::copysign(kInf, y) : x;
  return ay > 1.0f ? kNaN : r;  // NaN: x is NaN already
}

// Phi^-1(p), Phi the standard normal CDF: sqrt(2) erfinv(2p - 1), with
// q = min(p, 1 - p) (1 - p is exact above 1/2) and w = -log(4 q (1 - q))
// formed from q. Below q = 1e-7, past Giles' range: r P(1/r), r = sqrt(-log q)
// = sqrt(w + log 4) (tools/fit_ndtri_float.py), down to the smallest
// subnormal. Relative error ~3e-7; NaN outside [0, 1], -inf at 0, inf at 1.
__attribute__((always_inline)) inline float ndtri_f(float p) {
  const bool upper = p > 0.5f;
  const float q = upper ? 1.0f - p : p;
  const float w = -log_f(4.0f * q * (1.0f - q));
  float x = 1.41421356f * erfinv_ratio(w) * (2.0f * q - 1.0f);  // 2q - 1 exact from q = 1/4
  const float r = std::sqrt(w + 1.38629436f);
  const float s = 1.0f / r - 0.17f;
  float t = horner(s, {15.4229345f, -5.37960482f, 2.00653291f, -1.18022585f, 1.18273556f, 0.624918103f,
      -1.35136259f});
  x = q < 1e-7f ? t * r : x;
  x = q == 0.0f ? -kInf : x;
  x = upper ? -x : x;
  return (p >= 0.0f) & (p <= 1.0f) ? x : kNaN;  // NaN too
}

// log|Gamma(x)|, a few ulp except near its zeros (1, 2, and between the poles
// below -2), where the error is ~1e-7 absolute (CPU's SLEEF lgammaf: 1 ulp).
// x < 0: Gamma(x) Gamma(1 - x) = pi / sin(pi x), so with t = x - rint(x)
// (exact), lgamma(x) = -log(|t| sinpi_ratio(t^2)) - lgamma(1 - x), and
// below -1 lgamma(1 - x) = log(-x) + lgamma(-x) (-x is exact, 1 - x is
// not); inf at the poles (t = 0: every x below -2^23), at -inf and at +-0.
__attribute__((always_inline)) inline float lgamma_f(float x) {
  const bool neg = x < 0.0f;
  const float w = neg ? (x > -1.0f ? 1.0f - x : -x) : x;
  // w < 8: w = n + d, n = rint(w), d exact. Gamma(w) is Gamma(2 + d) times
  // (2 + d) ... (n - 1 + d) for n >= 2, divided by w for n = 1 and by
  // w (w + 1) for n = 0 (d = w).
  const bool small = w < 8.0f;
  const float ws = small ? w : 1.0f;
  const float n = rint_f(ws);
  const float d = ws - n;
  float prod = 1.0f;
  for (int k = 2; k < 8; ++k) prod *= n > static_cast<float>(k) ? static_cast<float>(k) + d : 1.0f;
  const float div = n == 0.0f ? ws * (ws + 1.0f) : ws;
  const float l = log_f(small ? (n >= 2.0f ? prod : div) : w);  // one log for both branches
  // lgamma(2 + d) / d on [-1/2, 1/2] (tools/fit_lgamma_float.py)
  float p = horner(d, {0.000120733741f, -0.000253787672f, 0.000502431649f, -0.00118587469f, 0.00289156171f,
      -0.00738617172f, 0.0205807462f, -0.06735228f, 0.322467029f, 0.422784328f});
  const float lo = std::fma(d, p, n >= 2.0f ? l : -l);
  // Stirling: (w - 1/2)(log w - 1) (no early overflow) + (log(2 pi) - 1) / 2
  // + 1/(12 w) - 1/(360 w^3) + 1/(1260 w^5).
  const float r = 1.0f / w, r2 = r * r;
  const float series = r * (1.0f / 12 - r2 * (1.0f / 360 - r2 * (1.0f / 1260)));
  const float hi = std::fma(w - 0.5f, l - 1.0f, 0.418938533f + series);
  float y = small ? lo : hi;
  const float t = x - rint_f(x);
  const float yneg = -log_f(std::fabs(t) * sinpi_ratio(t * t) * (x > -1.0f ? 1.0f : w)) - y;
  y = neg ? yneg : y;
  y = neg & ((t == 0.0f) | (x == -kInf)) ? kInf : y;
  // CPU (SLEEF's vectorized lgammaf) overflows from here, not at 4.085e36
  return x >= 0x1.84c274p+121f ? kInf : y;
}

}  // namespace vmath
}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
