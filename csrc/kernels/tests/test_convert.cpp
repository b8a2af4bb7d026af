// Element conversion (convert_element, and the vectorized array loops behind
// copy_strided) against independent references: float16/bfloat16 rounding is
// checked with a slow exact-arithmetic reference; the other rules against
// values torch 2.13 CPU produces (see the parity script in the report).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "testing/harness.h"
#include "kernels/copy/copy.h"

using namespace torch_tpu::kernels;

namespace {

struct c64 {
  float re, im;
};
struct c128 {
  double re, im;
};

template <typename To, typename From>
To cvt(DType to, DType from, From x) {
  CHECK_MSG(sizeof(From) == dtype_size(from) && sizeof(To) == dtype_size(to),
            "test bug: C++ type size does not match " << dtype_name(from) << " -> " << dtype_name(to));
  To r;
  convert_element(to, &r, from, &x);
  return r;
}

uint16_t f2h(float f) { return cvt<uint16_t>(DType::kFloat16, DType::kFloat32, f); }
float h2f(uint16_t h) { return cvt<float>(DType::kFloat32, DType::kFloat16, h); }
uint16_t f2bf(float f) { return cvt<uint16_t>(DType::kBFloat16, DType::kFloat32, f); }
float bf2f(uint16_t b) { return cvt<float>(DType::kFloat32, DType::kBFloat16, b); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// Converts a contiguous array through copy_strided (the vectorized/F16C loops).
template <typename To, typename From>
std::vector<To> convert_array(DType to, DType from, const std::vector<From>& in) {
  std::vector<To> out(in.size());
  TensorDesc s, d;
  s.data = const_cast<From*>(in.data());
  s.dtype = from;
  s.sizes = {static_cast<int64_t>(in.size())};
  s.strides = {1};
  d = s;
  d.data = out.data();
  d.dtype = to;
  copy_strided(d, s);
  return out;
}

// ---- slow exact references for the 16-bit float formats --------------------

// Exact value of a non-negative finite (or, for the all-ones exponent with a
// zero mantissa, the "next after max" 2^(emax+1)) bit pattern.
long double half_value(uint32_t h) {
  const int e = (h >> 10) & 31, m = h & 0x3FF;
  return e == 0 ? std::ldexp(static_cast<long double>(m), -24)
                : std::ldexp(static_cast<long double>(1024 + m), e - 25);
}
long double bf16_value(uint32_t b) {
  const int e = (b >> 7) & 0xFF, m = b & 0x7F;
  return e == 0 ? std::ldexp(static_cast<long double>(m), -133)
                : std::ldexp(static_cast<long double>(128 + m), e - 134);
}

// IEEE round-to-nearest-even of |f| onto a format given by its value
// function: binary-search the largest pattern <= |f|, then compare 2|f| with
// the sum of the two neighbours (exact in long double). The pattern after max
// finite is the infinity encoding, so overflow falls out of the same rule.
template <typename ValueFn>
uint16_t ref_round(float f, ValueFn value, uint32_t max_finite, uint16_t sign_bit) {
  const long double a = std::fabs(static_cast<long double>(f));
  uint32_t lo = 0, hi = max_finite;
  if (a >= value(max_finite)) {
    lo = max_finite;
  } else {
    while (lo < hi) {  // invariant: value(lo) <= a < value(hi + 1)
      const uint32_t mid = (lo + hi + 1) / 2;
      if (value(mid) <= a) lo = mid; else hi = mid - 1;
    }
  }
  uint32_t r = lo;
  const long double twice = 2 * a, sum = value(lo) + value(lo + 1);
  if (twice > sum || (twice == sum && (lo & 1))) r = lo + 1;
  return static_cast<uint16_t>(r | (std::signbit(f) ? sign_bit : 0));
}

uint16_t ref_f2h(float f) { return ref_round(f, half_value, 0x7BFF, 0x8000); }
uint16_t ref_f2bf(float f) { return ref_round(f, bf16_value, 0x7F7F, 0x8000); }

std::vector<float> hard_floats() {
  auto p2 = [](int e) { return std::ldexp(1.0f, e); };
  std::vector<float> v = {
      0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 1.0f / 3, 3.14159265f, -2.71828f, 1000.5f, 1e-3f,
      // float16 ties and near-ties around 1 (ulp 2^-10)
      1 + p2(-11), 1 + 3 * p2(-11), 1 + p2(-11) + p2(-23), 1 + p2(-11) - p2(-23), -(1 + 3 * p2(-11)),
      2049.0f, 2051.0f, 2050.0f,
      // float16 subnormals: min, max, ties, min normal and the tie below it
      p2(-24), p2(-14) - p2(-24), p2(-25), p2(-25) + p2(-40), 3 * p2(-25), 5 * p2(-25), p2(-26),
      p2(-14), p2(-14) - p2(-25), -p2(-25), -3 * p2(-25), 1.5f * p2(-24),
      // float16 overflow boundary: max 65504, ties to inf from 65520
      65504.0f, 65519.99f, 65520.0f, -65520.0f, 65536.0f, 1e5f, -1e5f,
      // bfloat16 ties around 1 (ulp 2^-7) and the overflow boundary
      1 + p2(-8), 1 + 3 * p2(-8), 1 + p2(-8) + p2(-23), from_bits(0x7F7F7FFF), from_bits(0x7F7F8000),
      from_bits(0x7F7F8001), from_bits(0x7F7E8000), from_bits(0x7F7FFFFF),
      // float extremes and float subnormals
      std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
      std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
      -std::numeric_limits<float>::denorm_min(), from_bits(0x00008000), from_bits(0x00018000),
      from_bits(0x007FFFFF), from_bits(0x807F8000),
      std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
  };
  // Plus pseudo-random bit patterns across the whole range.
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const float f = from_bits(static_cast<uint32_t>(x >> 32));
    if (!std::isnan(f)) v.push_back(f);
  }
  return v;
}

}  // namespace

TEST(reference_rounding_self_check) {
  // The reference itself, on values worked out by hand.
  CHECK_EQ(ref_f2h(1.0f), 0x3C00);
  CHECK_EQ(ref_f2h(65504.0f), 0x7BFF);
  CHECK_EQ(ref_f2h(65520.0f), 0x7C00);
  CHECK_EQ(ref_f2h(std::ldexp(1.0f, -24)), 0x0001);
  CHECK_EQ(ref_f2h(std::ldexp(1.0f, -25)), 0x0000);
  CHECK_EQ(ref_f2h(-std::ldexp(3.0f, -25)), 0x8002);
  CHECK_EQ(ref_f2h(1 + std::ldexp(1.0f, -11)), 0x3C00);
  CHECK_EQ(ref_f2h(1 + std::ldexp(3.0f, -11)), 0x3C02);
  CHECK_EQ(ref_f2bf(1.0f), 0x3F80);
  CHECK_EQ(ref_f2bf(std::numeric_limits<float>::max()), 0x7F80);
  CHECK_EQ(ref_f2bf(-0.0f), 0x8000);
}

TEST(float_to_half_hard_values) {
  const std::vector<float> v = hard_floats();
  const std::vector<uint16_t> arr = convert_array<uint16_t>(DType::kFloat16, DType::kFloat32, v);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t want = ref_f2h(v[i]);
    CHECK_MSG(f2h(v[i]) == want, "f=" << v[i] << " bits=0x" << std::hex << bits(v[i]) << " got 0x"
                                      << f2h(v[i]) << " want 0x" << want);
    CHECK_MSG(arr[i] == want, "array path, bits=0x" << std::hex << bits(v[i]) << " got 0x" << arr[i]);
  }
}

TEST(float_to_bfloat16_hard_values) {
  const std::vector<float> v = hard_floats();
  const std::vector<uint16_t> arr = convert_array<uint16_t>(DType::kBFloat16, DType::kFloat32, v);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t want = ref_f2bf(v[i]);
    CHECK_MSG(f2bf(v[i]) == want, "bits=0x" << std::hex << bits(v[i]) << " got 0x" << f2bf(v[i])
                                            << " want 0x" << want);
    CHECK_MSG(arr[i] == want, "array path, bits=0x" << std::hex << bits(v[i]) << " got 0x" << arr[i]);
  }
}

TEST(nan_to_half_and_bfloat16) {
  // float16 keeps sign and top payload bits, sets the quiet bit (x86 F16C,
  // which is what torch CPU gives); bfloat16 gives 0x7FC0 (c10::BFloat16).
  const uint32_t in[] = {0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0xFFC00000, 0xFF800001, 0x7FA00000};
  const uint16_t half_want[] = {0x7E00, 0x7E00, 0x7FFF, 0xFE00, 0xFE00, 0x7F00};
  std::vector<float> v;
  for (int i = 0; i < 6; ++i) v.push_back(from_bits(in[i]));
  for (int rep = 0; rep < 5; ++rep) v.insert(v.end(), v.begin(), v.begin() + 6);  // reach the vector loop
  const auto h = convert_array<uint16_t>(DType::kFloat16, DType::kFloat32, v);
  const auto b = convert_array<uint16_t>(DType::kBFloat16, DType::kFloat32, v);
  for (size_t i = 0; i < v.size(); ++i) {
    CHECK_EQ(h[i], half_want[i % 6]);
    CHECK_EQ(f2h(v[i]), half_want[i % 6]);
    CHECK_EQ(b[i], 0x7FC0);
    CHECK_EQ(f2bf(v[i]), 0x7FC0);
  }
}

TEST(half_all_bit_patterns_round_trip) {
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<uint16_t>(h);
  const auto arr = convert_array<float>(DType::kFloat32, DType::kFloat16, all);
  const auto back = convert_array<uint16_t>(DType::kFloat16, DType::kFloat32, arr);
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = h2f(static_cast<uint16_t>(h));
    CHECK_MSG(bits(f) == bits(arr[h]), "scalar and array half->float differ at 0x" << std::hex << h);
    const bool is_nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    if (is_nan) {
      // NaN: stays NaN with sign and payload, signalling NaNs become quiet.
      const uint32_t want = ((h & 0x8000u) << 16) | 0x7FC00000u | ((h & 0x3FFu) << 13);
      CHECK_MSG(bits(f) == want, "NaN 0x" << std::hex << h << " -> 0x" << bits(f));
      CHECK_MSG(f2h(f) == (h | 0x200), "NaN 0x" << std::hex << h);
      CHECK_MSG(back[h] == (h | 0x200), "NaN 0x" << std::hex << h);
      continue;
    }
    const long double mag = (h & 0x7C00) == 0x7C00 ? HUGE_VALL : half_value(h & 0x7FFF);
    const long double want = (h & 0x8000) ? -mag : mag;
    CHECK_MSG(static_cast<long double>(f) == want && std::signbit(f) == bool(h & 0x8000),
              "half 0x" << std::hex << h << " -> " << f);
    CHECK_MSG(f2h(f) == h, "round trip 0x" << std::hex << h << " -> 0x" << f2h(f));
    CHECK_MSG(back[h] == h, "array round trip 0x" << std::hex << h << " -> 0x" << back[h]);
  }
}

TEST(bfloat16_all_bit_patterns_round_trip) {
  std::vector<uint16_t> all(65536);
  for (uint32_t b = 0; b < 65536; ++b) all[b] = static_cast<uint16_t>(b);
  const auto arr = convert_array<float>(DType::kFloat32, DType::kBFloat16, all);
  const auto back = convert_array<uint16_t>(DType::kBFloat16, DType::kFloat32, arr);
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf2f(static_cast<uint16_t>(b));
    CHECK_MSG(bits(f) == (b << 16), "bf16 0x" << std::hex << b);  // exact, NaNs unchanged
    CHECK_MSG(bits(arr[b]) == (b << 16), "array bf16 0x" << std::hex << b);
    const bool is_nan = (b & 0x7F80) == 0x7F80 && (b & 0x7F);
    const uint16_t want = is_nan ? 0x7FC0 : static_cast<uint16_t>(b);
    CHECK_MSG(f2bf(f) == want, "round trip 0x" << std::hex << b << " -> 0x" << f2bf(f));
    CHECK_MSG(back[b] == want, "array round trip 0x" << std::hex << b << " -> 0x" << back[b]);
  }
}

TEST(wider_types_to_16_bit_floats_go_through_float) {
  // c10::Half / c10::BFloat16 only convert from float: double rounds twice.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);  // just above a half tie
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kFloat64, d)), 0x3C00);   // torch: 1.0
  const double e = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  CHECK_EQ((cvt<uint16_t>(DType::kBFloat16, DType::kFloat64, e)), 0x3F80);  // torch: 1.0
  // int32 2^24 + 2^16 + 1 -> float 2^24 + 2^16 (a bfloat16 tie) -> 2^24.
  CHECK_EQ((cvt<uint16_t>(DType::kBFloat16, DType::kInt32, int32_t(16842753))), 0x4B80);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kInt32, int32_t(65519))), 0x7BFF);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kInt32, int32_t(65520))), 0x7C00);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kInt64, int64_t(-1) << 40)), 0xFC00);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kUInt8, uint8_t(255))), 0x5BF8);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kBool, uint8_t(1))), 0x3C00);
  CHECK_EQ((cvt<uint16_t>(DType::kBFloat16, DType::kFloat16, uint16_t(0x3C01))), 0x3F80);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kBFloat16, uint16_t(0x3F81))), 0x3C08);
  const c128 z{65504.0, 7.0};
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kComplex128, z)), 0x7BFF);
}

TEST(to_bool) {
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat32, 0.0f)), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat32, -0.0f)), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat32, 0.1f)), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat32, std::nanf(""))), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat64, 1e-300)), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat16, uint16_t(0x8000))), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat16, uint16_t(0x0001))), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kFloat16, uint16_t(0x7E00))), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kBFloat16, uint16_t(0x8000))), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kInt64, int64_t(1) << 40)), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kInt8, int8_t(-1))), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kUInt8, uint8_t(0))), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kComplex64, c64{0.0f, 0.0f})), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kComplex64, c64{0.0f, 2.0f})), 1);  // imag counts
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kComplex128, c128{-0.0, 0.0})), 0);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kComplex128, c128{0.0, NAN})), 1);
  // A bool byte other than 0/1 reads as true.
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kBool, uint8_t(2))), 1.0f);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kBool, uint8_t(1))), 1);
  CHECK_EQ((cvt<uint8_t>(DType::kBool, DType::kBool, uint8_t(1))), 1);
}

TEST(complex_to_real_takes_real_part) {
  const c64 z{3.75f, -2.0f};
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kComplex64, z)), 3.75f);
  CHECK_EQ((cvt<double>(DType::kFloat64, DType::kComplex64, z)), 3.75);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kComplex64, z)), 3);
  CHECK_EQ((cvt<uint8_t>(DType::kUInt8, DType::kComplex64, c64{-1.5f, 9.0f})), 255);
  CHECK_EQ((cvt<uint16_t>(DType::kFloat16, DType::kComplex64, z)), 0x4380);
  const c128 w{-7.5, 1e300};
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kComplex128, w)), -7);
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kComplex128, w)), -7.5f);
}

TEST(real_to_complex_and_complex_to_complex) {
  const c64 a = cvt<c64>(DType::kComplex64, DType::kInt32, int32_t(-5));
  CHECK_EQ(a.re, -5.0f);
  CHECK(a.im == 0.0f && !std::signbit(a.im));
  const c64 b = cvt<c64>(DType::kComplex64, DType::kFloat64, 1e300);
  CHECK(std::isinf(b.re) && b.im == 0.0f);
  const c128 c = cvt<c128>(DType::kComplex128, DType::kFloat16, uint16_t(0x7BFF));
  CHECK_EQ(c.re, 65504.0);
  const c128 d = cvt<c128>(DType::kComplex128, DType::kUInt64, ~uint64_t(0));
  CHECK_EQ(d.re, 18446744073709551616.0);
  const c64 e = cvt<c64>(DType::kComplex64, DType::kInt64, int64_t(16777217));  // single rounding
  CHECK_EQ(e.re, 16777216.0f);
  const c64 f = cvt<c64>(DType::kComplex64, DType::kComplex128, c128{1e300, 0.1});
  CHECK(std::isinf(f.re) && f.im == 0.1f);
  const c128 g = cvt<c128>(DType::kComplex128, DType::kComplex64, c64{0.1f, -2.0f});
  CHECK(g.re == double(0.1f) && g.im == -2.0);
  const c64 h = cvt<c64>(DType::kComplex64, DType::kBool, uint8_t(1));
  CHECK(h.re == 1.0f && h.im == 0.0f);
}

TEST(floating_to_uint8_goes_through_int64) {
  // Values torch CPU gives (negative values wrap).
  const float in[] = {300.f, -300.f, -1.5f, -2.5f, -1.0f, 1e10f, 255.9f, 256.f};
  const uint8_t want[] = {44, 212, 255, 254, 255, 0, 255, 0};
  for (int i = 0; i < 8; ++i) {
    CHECK_EQ((cvt<uint8_t>(DType::kUInt8, DType::kFloat32, in[i])), want[i]);
    CHECK_EQ((cvt<uint8_t>(DType::kUInt8, DType::kFloat64, double(in[i]))), want[i]);
  }
  CHECK_EQ((cvt<uint8_t>(DType::kUInt8, DType::kFloat16, uint16_t(0xBC00))), 255);  // -1.0
  CHECK_EQ((cvt<uint8_t>(DType::kUInt8, DType::kBFloat16, uint16_t(0xC396))), 212);  // -300
}

TEST(floating_to_other_integers) {
  const float nan = std::nanf("");
  const int32_t imin = std::numeric_limits<int32_t>::min();
  const int64_t lmin = std::numeric_limits<int64_t>::min();
  // Truncation toward zero in range.
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kFloat32, -2.9f)), -2);
  CHECK_EQ((cvt<int8_t>(DType::kInt8, DType::kFloat32, 127.9f)), 127);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kFloat32, -2147483648.0f)), imin);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kFloat64, 2147483647.9)), 2147483647);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kFloat32, from_bits(0x5EFFFFFF))), 9223371487098961920LL);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kFloat64, -9223372036854775808.0)), lmin);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kFloat32, 1.8e19f)), 18000000404716257280ull);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kFloat64, 1.8e19)), 18000000000000000000ull);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kFloat32, 9223372036854775808.0f)), 9223372036854775808ull);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat32, 3e9f)), 3000000000u);
  CHECK_EQ((cvt<uint16_t>(DType::kUInt16, DType::kFloat32, 65535.5f)), 65535);
  // Out of range: what x86 / torch CPU give.
  CHECK_EQ((cvt<int8_t>(DType::kInt8, DType::kFloat32, 300.f)), 44);
  CHECK_EQ((cvt<int8_t>(DType::kInt8, DType::kFloat32, nan)), 0);
  CHECK_EQ((cvt<int16_t>(DType::kInt16, DType::kFloat32, 70000.f)), 4464);
  CHECK_EQ((cvt<int16_t>(DType::kInt16, DType::kFloat32, 3e9f)), 0);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kFloat32, 1e10f)), imin);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kFloat32, nan)), imin);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kFloat64, -3e9)), imin);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kFloat32, nan)), lmin);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kFloat64, 1e20)), lmin);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kFloat16, uint16_t(0x7C00))), lmin);  // inf
  CHECK_EQ((cvt<uint16_t>(DType::kUInt16, DType::kFloat32, -300.f)), 65236);
  CHECK_EQ((cvt<uint16_t>(DType::kUInt16, DType::kFloat32, 70000.f)), 4464);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat32, -1.f)), 4294967295u);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat32, -300.f)), 4294966996u);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat32, 1e10f)), 0u);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat32, -1e10f)), 2147483648u);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat64, double(nan))), 2147483648u);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kFloat32, -300.f)), 18446744073709551316ull);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kFloat64, double(nan))), 9223372036854775808ull);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kFloat32, 1e20f)), 0ull);
  // float16 -> uint32 goes through int64 in torch: -inf and NaN give 0.
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat16, uint16_t(0xFC00))), 0u);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat16, uint16_t(0x7E00))), 0u);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kFloat16, uint16_t(0xDCB0))), 4294966996u);  // -300
}

TEST(integers_wrap_and_int_to_float_rounds_to_nearest_even) {
  CHECK_EQ((cvt<uint8_t>(DType::kUInt8, DType::kInt8, int8_t(-1))), 255);
  CHECK_EQ((cvt<int8_t>(DType::kInt8, DType::kUInt8, uint8_t(200))), -56);
  CHECK_EQ((cvt<int32_t>(DType::kInt32, DType::kInt64, (int64_t(1) << 40) + 5)), 5);
  CHECK_EQ((cvt<int64_t>(DType::kInt64, DType::kUInt64, ~uint64_t(0))), -1);
  CHECK_EQ((cvt<uint64_t>(DType::kUInt64, DType::kInt32, int32_t(-1))), ~uint64_t(0));
  CHECK_EQ((cvt<uint16_t>(DType::kUInt16, DType::kInt16, int16_t(-2))), 65534);
  CHECK_EQ((cvt<uint32_t>(DType::kUInt32, DType::kInt64, int64_t(-1))), 4294967295u);
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kInt32, int32_t(16777217))), 16777216.0f);
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kInt32, int32_t(16777219))), 16777220.0f);
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kUInt64, ~uint64_t(0))), 18446744073709551616.0f);
  CHECK_EQ((cvt<double>(DType::kFloat64, DType::kInt64, int64_t(9007199254740993))), 9007199254740992.0);
  CHECK_EQ((cvt<double>(DType::kFloat64, DType::kInt64, std::numeric_limits<int64_t>::min())), -9223372036854775808.0);
  CHECK_EQ((cvt<double>(DType::kFloat64, DType::kUInt64, uint64_t(1) << 63)), 9223372036854775808.0);
}

TEST(float_double) {
  CHECK(std::isinf(cvt<float>(DType::kFloat32, DType::kFloat64, 1e39)));
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kFloat64, 1e-46)), 0.0f);
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kFloat64, 1.0 + std::ldexp(1.0, -24))), 1.0f);  // tie -> even
  CHECK_EQ((cvt<float>(DType::kFloat32, DType::kFloat64, 1.0 + std::ldexp(3.0, -24))), 1.0f + std::ldexp(1.0f, -22));
  CHECK_EQ((cvt<double>(DType::kFloat64, DType::kFloat32, 0.1f)), double(0.1f));
  CHECK(std::isnan(cvt<double>(DType::kFloat64, DType::kFloat32, std::nanf(""))));
  CHECK(std::signbit(cvt<double>(DType::kFloat64, DType::kFloat32, -0.0f)));
}
