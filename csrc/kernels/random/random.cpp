// Philox4x32-10 and the distributions of random.h. Element i always draws
// the block (offset / 4 + i): the value of an element does not depend on
// the chunking of parallel_for.
#include "kernels/common/fp_contract.h"  // first: vec_math.h's explicit-FMA rule
#include "kernels/random/random.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/loops.h"
#include "runtime/runtime.h"
#include "kernels/common/vec_math.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

inline void philox(uint32_t k0, uint32_t k1, uint64_t block, uint32_t out[4]) {
  uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32);
  uint32_t c2 = 0, c3 = 0;
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kW0;
    k1 += kW1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// 16 consecutive blocks at once, lane-parallel. Same bits as philox(). The
// 32x32->64-bit products are explicit vpmuludq (even and odd lanes) and
// vpmulld: left to the auto-vectorizer, whether it used vpmullq or scalar
// imul depended on -mtune (2.5x apart on an AMD EPYC).
constexpr int kLanes = 16;

// Per 32-bit lane: the high and low halves of c * m.
#if defined(__AVX512F__)
using PhiloxVec = __m512i;  // 16 lanes
constexpr int kPhiloxVecs = 1;
inline PhiloxVec philox_load(const uint32_t* p) { return _mm512_loadu_si512(p); }
inline void philox_store(uint32_t* p, PhiloxVec v) { _mm512_storeu_si512(p, v); }
inline PhiloxVec philox_set1(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
inline PhiloxVec philox_xor3(PhiloxVec a, PhiloxVec b, PhiloxVec c) {
  return _mm512_xor_si512(_mm512_xor_si512(a, b), c);
}
inline void philox_mul(PhiloxVec c, PhiloxVec m, PhiloxVec* hi, PhiloxVec* lo) {
  const __m512i even = _mm512_mul_epu32(c, m);                         // lanes 0, 2, ... as 64-bit
  const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(c, 32), m);  // lanes 1, 3, ...
  *hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  *lo = _mm512_mullo_epi32(c, m);
}
#else
using PhiloxVec = __m256i;  // 8 lanes
constexpr int kPhiloxVecs = 2;
inline PhiloxVec philox_load(const uint32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void philox_store(uint32_t* p, PhiloxVec v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
inline PhiloxVec philox_set1(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
inline PhiloxVec philox_xor3(PhiloxVec a, PhiloxVec b, PhiloxVec c) {
  return _mm256_xor_si256(_mm256_xor_si256(a, b), c);
}
inline void philox_mul(PhiloxVec c, PhiloxVec m, PhiloxVec* hi, PhiloxVec* lo) {
  const __m256i even = _mm256_mul_epu32(c, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(c, 32), m);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  *lo = _mm256_mullo_epi32(c, m);
}
#endif

inline void philox16(uint32_t k0, uint32_t k1, uint64_t block0, uint32_t (&o)[4][kLanes]) {
  uint32_t lo[kLanes], hi[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t b = block0 + static_cast<uint64_t>(l);
    lo[l] = static_cast<uint32_t>(b);
    hi[l] = static_cast<uint32_t>(b >> 32);
  }
  constexpr int kW = kLanes / kPhiloxVecs;
  const PhiloxVec m0 = philox_set1(kM0), m1 = philox_set1(kM1);
  for (int v = 0; v < kPhiloxVecs; ++v) {
    PhiloxVec c0 = philox_load(lo + v * kW), c1 = philox_load(hi + v * kW);
    PhiloxVec c2 = philox_set1(0), c3 = philox_set1(0);
    uint32_t key0 = k0, key1 = k1;
    for (int r = 0; r < 10; ++r) {
      PhiloxVec hi0, lo0, hi1, lo1;
      philox_mul(c0, m0, &hi0, &lo0);
      philox_mul(c2, m1, &hi1, &lo1);
      c0 = philox_xor3(hi1, c1, philox_set1(key0));
      c2 = philox_xor3(hi0, c3, philox_set1(key1));
      c1 = lo1;
      c3 = lo0;
      key0 += kW0;
      key1 += kW1;
    }
    philox_store(o[0] + v * kW, c0);
    philox_store(o[1] + v * kW, c1);
    philox_store(o[2] + v * kW, c2);
    philox_store(o[3] + v * kW, c3);
  }
}

struct Stream {
  uint32_t k0, k1;
  uint64_t base;
  explicit Stream(PhiloxState s) {
    if (s.replay != nullptr) s = PhiloxState{s.replay[0], s.replay[1] + s.offset};
    k0 = static_cast<uint32_t>(s.seed);
    k1 = static_cast<uint32_t>(s.seed >> 32);
    base = s.offset / 4;
  }
  void words(uint64_t i, uint32_t w[4]) const { philox(k0, k1, base + i, w); }
};

inline uint64_t bits64(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }
// U[0, 1) with 53 random bits.
inline double u53(const uint32_t w[4]) { return static_cast<double>(bits64(w[0], w[1]) >> 11) * 0x1p-53; }
// U(0, 1] with 53 random bits.
inline double u53_open0(const uint32_t w[4]) { return 1.0 - u53(w); }

// Significand bits (with the implicit one) of a floating storage type.
template <typename T>
constexpr int digits() {
  if constexpr (std::is_same_v<T, Half>) return 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return 8;
  else return std::numeric_limits<T>::digits;
}

// cos(2 pi u) for u in [0, 1), branch-free so a lane loop over it
// vectorizes: the nearest quarter turn q, then cos or sin of the rest
// a in [-pi/4, pi/4] by Taylor polynomials (truncation below 2^-29).
inline float cos_2pi_f(float u) {
  const float t = u * 4.0f;               // quarter turns, exact
  const float q = vmath::rint_f(t);
  const float a = (t - q) * 1.57079632679489662f;  // t - q is exact
  const float a2 = a * a;
  float c = std::fma(a2, 1.0f / 40320, -1.0f / 720);
  c = std::fma(c, a2, 1.0f / 24);
  c = std::fma(c, a2, -0.5f);
  c = std::fma(c, a2, 1.0f);
  float s = std::fma(a2, 1.0f / 362880, -1.0f / 5040);
  s = std::fma(s, a2, 1.0f / 120);
  s = std::fma(s, a2, -1.0f / 6);
  s = std::fma(s * a2, a, a);
  const int32_t qi = static_cast<int32_t>(q) & 3;  // cos(q pi/2 + a)
  const float v = (qi & 1) ? s : c;
  return (qi == 1 || qi == 2) ? -v : v;
}

// A standard normal from two words (Box-Muller in float, 24-bit uniforms),
// vectorizable; used by every float-or-narrower normal draw so that an
// element's value does not depend on the loop that computes it.
inline float normal_f(uint32_t w0, uint32_t w1) {
  const float u1 = static_cast<float>((w0 >> 8) + 1) * 0x1p-24f;  // (0, 1]
  const float u2 = static_cast<float>(w1 >> 8) * 0x1p-24f;        // [0, 1)
  return std::sqrt(-2.0f * vmath::log_f(u1)) * cos_2pi_f(u2);
}

template <typename T>
constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                            std::is_same_v<T, BFloat16>;

// Most distributions compute one value whatever the output dtype and only
// the store converts it (convert<T>): an int64 (bernoulli, random_(from,
// to), the full 64-bit range), a double (geometric, exponential,
// log-normal, Cauchy, and normal into double) or a float (normal into float
// and narrower: Box-Muller in float). Those values are computed by one loop
// per stage, shared by every dtype; only uniform and random_() (whose
// arithmetic depends on T) have a loop per dtype. Same expressions as
// before, in the same order: the same numbers for a seed.
enum class Stage : int8_t { kTyped, kInt64, kDouble, kFloat, kInvalid };

template <typename T>
Stage stage_of(RandomDist dist) {
  switch (dist) {
    case RandomDist::kBernoulli:
    case RandomDist::kRandomRange:
    case RandomDist::kRandomFull64:
      return Stage::kInt64;
    case RandomDist::kGeometric:
      return Stage::kDouble;
    case RandomDist::kNormal:
      if constexpr (std::is_same_v<T, double>) return Stage::kDouble;
      else if constexpr (is_float_v<T>) return Stage::kFloat;
      else return Stage::kInvalid;
    case RandomDist::kExponential:
    case RandomDist::kLogNormal:
    case RandomDist::kCauchy:
      return is_float_v<T> ? Stage::kDouble : Stage::kInvalid;
    case RandomDist::kUniform:
      return is_float_v<T> ? Stage::kTyped : Stage::kInvalid;
    case RandomDist::kRandomBits:
      return Stage::kTyped;
  }
  return Stage::kInvalid;
}

inline int64_t draw_int64(const RandomDesc& d, const uint32_t w[4]) {
  switch (d.dist) {
    case RandomDist::kBernoulli:
      return static_cast<int64_t>(u53(w) < d.a ? 1 : 0);
    case RandomDist::kRandomRange: {
      const uint64_t v = d.range >= (uint64_t{1} << 32) ? bits64(w[0], w[1]) : w[0];
      return static_cast<int64_t>(v % d.range + static_cast<uint64_t>(d.base));
    }
    default:  // kRandomFull64
      return static_cast<int64_t>(bits64(w[0], w[1]));
  }
}

inline double draw_double(const RandomDesc& d, const uint32_t w[4]) {
  switch (d.dist) {
    case RandomDist::kNormal: {  // into double
      const double r = std::sqrt(-2.0 * std::log(u53_open0(w)));
      const double theta = 2.0 * M_PI * (static_cast<double>(bits64(w[2], w[3]) >> 11) * 0x1p-53);
      return d.a + d.b * r * std::cos(theta);
    }
    case RandomDist::kExponential: {
      // U strictly inside (0, 1), so the result is finite and > 0.
      const double u = (static_cast<double>(bits64(w[0], w[1]) >> 11) + 0.5) * 0x1p-53;
      return -std::log(u) / d.a;
    }
    case RandomDist::kLogNormal: {  // in double, as CPU's at::lognormal_distribution
      const double r = std::sqrt(-2.0 * std::log(u53_open0(w)));
      const double theta = 2.0 * M_PI * (static_cast<double>(bits64(w[2], w[3]) >> 11) * 0x1p-53);
      return std::exp(d.a + d.b * r * std::cos(theta));
    }
    case RandomDist::kCauchy:
      return d.a + d.b * std::tan(M_PI * (u53(w) - 0.5));
    default: {  // kGeometric: ceil(log(U) / log(1 - p)) with U strictly inside (0, 1): >= 1.
      const double u = (static_cast<double>(bits64(w[0], w[1]) >> 11) + 0.5) * 0x1p-53;  // (0, 1)
      return std::ceil(std::log(u) / std::log1p(-d.a));
    }
  }
}

// The value of a kTyped distribution (uniform, random_()) in storage type T.
template <typename T>
T draw_typed(const RandomDesc& d, const uint32_t w[4]) {
  if (d.dist == RandomDist::kUniform) {
    if constexpr (is_float_v<T>) {
      constexpr int k = digits<T>();
      const double u = static_cast<double>(bits64(w[0], w[1]) >> (64 - k)) * std::ldexp(1.0, -k);
      const double v = d.a + (d.b - d.a) * u;
      T t = convert<T>(v);
      // Rounding to T may reach the upper bound, which uniform_ excludes.
      return static_cast<double>(real_value(t)) >= d.b && d.b > d.a ? convert<T>(d.a) : t;
    }
  }
  // kRandomBits
  const uint64_t v64 = bits64(w[0], w[1]);
  if constexpr (std::is_same_v<T, Bool>) {
    return Bool{static_cast<uint8_t>(w[0] & 1u)};
  } else if constexpr (is_float_v<T>) {
    return convert<T>(static_cast<int64_t>(v64 % ((uint64_t{1} << digits<T>()) + 1)));
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return v64;
  } else {
    using L = std::numeric_limits<T>;
    const uint64_t m = static_cast<uint64_t>(L::max()) + 1;
    const uint64_t v = sizeof(T) == 8 ? v64 : w[0];
    return static_cast<T>(v % m);
  }
}

// out[0, n) = the stage's values of the elements i0, i0 + 1, ...: 16 blocks
// at a time through philox16, the rest one by one (the same words).
template <typename V, typename Draw>
void generate(const Stream& rng, uint64_t i0, int64_t n, V* out, Draw draw) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    uint32_t o[4][kLanes];
    philox16(rng.k0, rng.k1, rng.base + i0 + static_cast<uint64_t>(k), o);
    for (int l = 0; l < kLanes; ++l) {
      const uint32_t w[4] = {o[0][l], o[1][l], o[2][l], o[3][l]};
      out[k + l] = draw(w);
    }
  }
  for (; k < n; ++k) {
    uint32_t w[4];
    rng.words(i0 + static_cast<uint64_t>(k), w);
    out[k] = draw(w);
  }
}

__attribute__((noinline)) void generate_int64(const RandomDesc& d, const Stream& rng, uint64_t i0, int64_t n,
                                              int64_t* out) {
  generate(rng, i0, n, out, [&](const uint32_t w[4]) { return draw_int64(d, w); });
}

__attribute__((noinline)) void generate_double(const RandomDesc& d, const Stream& rng, uint64_t i0, int64_t n,
                                               double* out) {
  generate(rng, i0, n, out, [&](const uint32_t w[4]) { return draw_double(d, w); });
}

// Normal into float and narrower: the lane loop vectorizes normal_f.
__attribute__((noinline)) void generate_normal_float(const RandomDesc& d, const Stream& rng, uint64_t i0,
                                                     int64_t n, float* out) {
  const float mean = static_cast<float>(d.a), sd = static_cast<float>(d.b);
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    uint32_t o[4][kLanes];
    philox16(rng.k0, rng.k1, rng.base + i0 + static_cast<uint64_t>(k), o);
    for (int l = 0; l < kLanes; ++l) out[k + l] = mean + sd * normal_f(o[0][l], o[1][l]);
  }
  for (; k < n; ++k) {
    uint32_t w[4];
    rng.words(i0 + static_cast<uint64_t>(k), w);
    out[k] = static_cast<float>(d.a) + static_cast<float>(d.b) * normal_f(w[0], w[1]);
  }
}

// p[k * stride] = convert<T>(v[k]); straight into p when V is T and dense.
template <typename T, typename V, typename Gen>
void store_stage(T* p, int64_t stride, int64_t n, Gen gen) {
  if constexpr (std::is_same_v<T, V>) {
    if (stride == 1) return gen(p, n);
  }
  constexpr int64_t kChunk = 256;
  V buf[kChunk];
  for (int64_t k = 0; k < n; k += kChunk) {
    const int64_t m = std::min(kChunk, n - k);
    gen(buf, m, k);
    for (int64_t j = 0; j < m; ++j) p[(k + j) * stride] = convert<T>(buf[j]);
  }
}

template <typename T>
void random_typed(const RandomDesc& d) {
  const Stage stage = stage_of<T>(d.dist);
  if (stage == Stage::kInvalid) throw std::invalid_argument("random: distribution not defined for this dtype");
  TensorDesc o = d.out;
  coalesce_dims({&o});
  Layout<1> L;
  L.sizes = o.sizes;
  L.strides = {o.strides};
  const Stream rng(d.rng);
  T* base = static_cast<T*>(o.data);
  runtime::parallel_for(0, L.numel(), 16384, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for_each_row(L, begin, end, [&](const std::array<int64_t, 1>& off, int64_t n) {
      const int64_t stride = L.strides[0].back();
      T* p = base + off[0];
      const uint64_t i0 = static_cast<uint64_t>(i);
      i += n;
      // gen(out, m[, k]): the values of elements i0 + k ... into out.
      switch (stage) {
        case Stage::kInt64:
          return store_stage<T, int64_t>(p, stride, n, [&](int64_t* out, int64_t m, int64_t k = 0) {
            generate_int64(d, rng, i0 + static_cast<uint64_t>(k), m, out);
          });
        case Stage::kDouble:
          return store_stage<T, double>(p, stride, n, [&](double* out, int64_t m, int64_t k = 0) {
            generate_double(d, rng, i0 + static_cast<uint64_t>(k), m, out);
          });
        case Stage::kFloat:
          return store_stage<T, float>(p, stride, n, [&](float* out, int64_t m, int64_t k = 0) {
            generate_normal_float(d, rng, i0 + static_cast<uint64_t>(k), m, out);
          });
        default:
          break;
      }
      int64_t k = 0;
      if (stride == 1) {
        for (; k + kLanes <= n; k += kLanes) {
          uint32_t w16[4][kLanes];
          philox16(rng.k0, rng.k1, rng.base + i0 + static_cast<uint64_t>(k), w16);
          for (int l = 0; l < kLanes; ++l) {
            const uint32_t w[4] = {w16[0][l], w16[1][l], w16[2][l], w16[3][l]};
            p[k + l] = draw_typed<T>(d, w);
          }
        }
      }
      for (; k < n; ++k) {
        uint32_t w[4];
        rng.words(i0 + static_cast<uint64_t>(k), w);
        p[k * stride] = draw_typed<T>(d, w);
      }
    });
  });
}

void check_layout(const TensorDesc& t, const char* what) {
  if (t.sizes.size() != t.strides.size()) throw std::invalid_argument(std::string(what) + ": bad descriptor");
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(philox_block)(uint64_t seed, uint64_t block, uint32_t out[4]) {
  philox(static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), block, out);
}

void TORCH_TPU_ISA_ENTRY(random_fill)(const RandomDesc& d) {
  check_layout(d.out, "random");
  if (d.out.numel() == 0) return;
  visit_dtype(d.out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw std::invalid_argument("random: complex outputs are not supported");
    } else {
      random_typed<T>(d);
    }
  });
}

void TORCH_TPU_ISA_ENTRY(bernoulli_tensor)(const TensorDesc& out, const TensorDesc& p,
                                           PhiloxState state) {
  check_layout(out, "bernoulli");
  if (out.numel() == 0) return;
  TensorDesc o = out, q = p;
  coalesce_dims({&o, &q});
  Layout<2> L;
  L.sizes = o.sizes;
  L.strides = {o.strides, q.strides};
  const Stream rng(state);
  // The output is 0 or 1 in out's dtype: its two element values, stored as
  // bits (one loop per element size, not per dtype pair); p is read as a
  // double through a switch on its (float) dtype.
  alignas(16) unsigned char zero[16] = {}, one[16] = {};
  visit_dtype(out.dtype, [&](auto otag) {
    using T = typename decltype(otag)::type;
    if constexpr (is_complex_v<T>) {
      throw std::invalid_argument("bernoulli: unsupported dtypes");
    } else {
      const T z = convert<T>(static_cast<int64_t>(0)), u = convert<T>(static_cast<int64_t>(1));
      std::memcpy(zero, &z, sizeof(T));
      std::memcpy(one, &u, sizeof(T));
    }
  });
  const DType pt = p.dtype;
  if (pt != DType::kFloat16 && pt != DType::kBFloat16 && pt != DType::kFloat32 && pt != DType::kFloat64) {
    throw std::invalid_argument("bernoulli: unsupported dtypes");
  }
  const void* pb = q.data;
  // p[j * sp], j < m, as double into prob (one plain loop per p dtype).
  auto load_probs = [pt, pb](int64_t off, int64_t sp, int64_t m, double* prob) {
    switch (pt) {
      case DType::kFloat16: {
        const Half* x = static_cast<const Half*>(pb) + off;
        for (int64_t j = 0; j < m; ++j) prob[j] = static_cast<double>(real_value(x[j * sp]));
        break;
      }
      case DType::kBFloat16: {
        const BFloat16* x = static_cast<const BFloat16*>(pb) + off;
        for (int64_t j = 0; j < m; ++j) prob[j] = static_cast<double>(real_value(x[j * sp]));
        break;
      }
      case DType::kFloat32: {
        const float* x = static_cast<const float*>(pb) + off;
        for (int64_t j = 0; j < m; ++j) prob[j] = static_cast<double>(x[j * sp]);
        break;
      }
      default: {
        const double* x = static_cast<const double*>(pb) + off;
        for (int64_t j = 0; j < m; ++j) prob[j] = x[j * sp];
        break;
      }
    }
  };
  // out and p of one floating dtype (torch.bernoulli(p)): the typed loop,
  // which the compiler vectorizes whole (philox included).
  if (out.dtype == pt) {
    bool done = false;
    visit_dtype(pt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_float_v<T>) {
        T* ob = static_cast<T*>(o.data);
        const T* pb = static_cast<const T*>(q.data);
        runtime::parallel_for(0, L.numel(), 16384, [&](int64_t begin, int64_t end) {
          int64_t i = begin;
          for_each_row(L, begin, end, [&](const std::array<int64_t, 2>& off, int64_t n) {
            const int64_t so = L.strides[0].back(), sp = L.strides[1].back();
            for (int64_t k = 0; k < n; ++k, ++i) {
              uint32_t w[4];
              rng.words(static_cast<uint64_t>(i), w);
              const double prob = static_cast<double>(real_value(pb[off[1] + k * sp]));
              ob[off[0] + k * so] = convert<T>(static_cast<int64_t>(u53(w) < prob ? 1 : 0));
            }
          });
        });
        done = true;
      }
    });
    if (done) return;
  }
  visit_element_size(dtype_size(out.dtype), [&](auto stag) {
    using S = typename decltype(stag)::type;
    S s0, s1;
    std::memcpy(&s0, zero, sizeof(S));
    std::memcpy(&s1, one, sizeof(S));
    S* ob = static_cast<S*>(o.data);
    runtime::parallel_for(0, L.numel(), 16384, [&](int64_t begin, int64_t end) {
      int64_t i = begin;
      for_each_row(L, begin, end, [&](const std::array<int64_t, 2>& off, int64_t n) {
        const int64_t so = L.strides[0].back(), sp = L.strides[1].back();
        constexpr int64_t kChunk = 256;
        double prob[kChunk];
        for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
          const int64_t m = std::min(kChunk, n - k0);
          load_probs(off[1] + k0 * sp, sp, m, prob);
          S* op = ob + off[0] + k0 * so;
          for (int64_t k = 0; k < m; ++k, ++i) {
            uint32_t w[4];
            rng.words(static_cast<uint64_t>(i), w);
            op[k * so] = u53(w) < prob[k] ? s1 : s0;
          }
        }
      });
    });
  });
}

void TORCH_TPU_ISA_ENTRY(dropout_forward)(const DropoutDesc& d) {
  if (d.n == 0) return;
  const Stream rng(d.rng);
  visit_dtype(d.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_float_v<T>) {
      throw std::invalid_argument("dropout: floating dtypes only");
    } else {
      const T* x = static_cast<const T*>(d.input);
      T* y = static_cast<T*>(d.output);
      // Keep when U < keep: a 32-bit uniform is plenty here (CPU's bernoulli
      // for float p uses a float comparison too).
      const double keep = d.keep, scale = d.scale;
      runtime::parallel_for(0, d.n, 16384, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          uint32_t w[4];
          rng.words(static_cast<uint64_t>(i), w);
          const bool m = u53(w) < keep;
          d.mask[i] = m;
          using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
          // input * mask * scale, rounded like CPU's two multiplications.
          const C v = static_cast<C>(real_value(x[i])) * static_cast<C>(m ? 1 : 0);
          y[i] = convert<T>(static_cast<C>(real_value(convert<T>(v))) * static_cast<C>(scale));
        }
      });
    }
  });
}

void TORCH_TPU_ISA_ENTRY(randperm)(void* out, DType dtype, int64_t n, PhiloxState state) {
  if (n == 0) return;
  // Fisher-Yates from the top; step i uses block i. Sequential, so the
  // result is independent of the core count by construction.
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), int64_t{0});
  const Stream rng(state);
  for (int64_t i = n - 1; i > 0; --i) {
    uint32_t w[4];
    rng.words(static_cast<uint64_t>(i), w);
    const uint64_t j = bits64(w[0], w[1]) % static_cast<uint64_t>(i + 1);
    std::swap(perm[i], perm[j]);
  }
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T> || std::is_same_v<T, Bool>) {
      throw std::invalid_argument("randperm: unsupported dtype");
    } else {
      T* o = static_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = convert<T>(perm[i]);
    }
  });
}

void TORCH_TPU_ISA_ENTRY(multinomial)(const MultinomialDesc& d) {
  const int64_t C = d.categories;
  const int64_t per_row = C + d.samples;  // blocks per row: one per category, one per sample
  const Stream rng(d.rng);
  visit_dtype(d.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_float_v<T>) {
      throw std::invalid_argument("multinomial: floating dtypes only");
    } else {
      const T* probs = static_cast<const T*>(d.probs);
      runtime::parallel_for(0, d.rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, C)),
                            [&](int64_t rb, int64_t re) {
        std::vector<double> buf(C);
        std::vector<int64_t> idx(C);
        for (int64_t r = rb; r < re; ++r) {
          double sum = 0;
          for (int64_t c = 0; c < C; ++c) {
            const double p = static_cast<double>(real_value(probs[r * C + c]));
            if (!(p >= 0) || std::isinf(p)) {
              throw std::invalid_argument("probability tensor contains either `inf`, `nan` or element < 0");
            }
            buf[c] = p;
            sum += p;
          }
          if (!(sum > 0)) {
            throw std::invalid_argument("invalid multinomial distribution (sum of probabilities <= 0)");
          }
          int64_t* out = d.out + r * d.samples;
          const uint64_t row0 = static_cast<uint64_t>(r * per_row);
          if (d.replacement) {
            // Inverse CDF: cumulative sums, then a binary search per sample.
            std::vector<double> cdf(C);
            double acc = 0;
            for (int64_t c = 0; c < C; ++c) cdf[c] = (acc += buf[c] / sum);
            for (int64_t s = 0; s < d.samples; ++s) {
              uint32_t w[4];
              rng.words(row0 + C + s, w);
              const double u = u53(w) * acc;
              int64_t k = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
              k = std::min(k, C - 1);
              while (k > 0 && buf[k] == 0) --k;  // never pick a zero-probability category
              out[s] = k;
            }
          } else {
            // Exponential races: the category with the largest p / E
            // (E ~ Exp(1)) comes first, and so on (sampling without
            // replacement in proportion to p).
            for (int64_t c = 0; c < C; ++c) {
              uint32_t w[4];
              rng.words(row0 + c, w);
              const double u = (static_cast<double>(bits64(w[0], w[1]) >> 11) + 0.5) * 0x1p-53;
              buf[c] = buf[c] > 0 ? buf[c] / -std::log(u) : -1.0;
            }
            std::iota(idx.begin(), idx.end(), int64_t{0});
            std::partial_sort(idx.begin(), idx.begin() + d.samples, idx.end(),
                              [&](int64_t a, int64_t b) { return buf[a] > buf[b] || (buf[a] == buf[b] && a < b); });
            for (int64_t s = 0; s < d.samples; ++s) out[s] = idx[s];
          }
        }
      });
    }
  });
}

}  // namespace torch_tpu::kernels
