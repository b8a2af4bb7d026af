// The unary elementwise family: the float approximations of vec_math.h
// against double-precision libm over a sweep of all float bit patterns
// (specials included), and the bool results of the predicates (isnan,
// isposinf, isneginf) through every loop path: direct (float, float16),
// buffered (strided input, non-bool output dtype).
#include "kernels/common/fp_contract.h"  // vec_math.h's fused operations are explicit

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "elementwise_test_util.h"
#include "kernels/common/vec_math.h"
#include "testing/harness.h"

using namespace ew_test;
namespace vm = torch_tpu::kernels::vmath;

namespace {

// |got - ref| in units in the last place of float at ref (subnormal ulp
// below 2^-126); 0 when both are the same special value, 1e9 on mismatch.
double ulps(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : 1e9;
  const float rf = static_cast<float>(ref);
  if (std::isinf(rf)) return got == rf ? 0 : (std::isinf(got) ? 1e9 : (std::fabs(ref) > 3.4e38 ? 1 : 1e9));
  const double a = std::fabs(ref);
  const double u = a < 0x1p-126 ? 0x1p-149 : std::ldexp(1.0, std::ilogb(static_cast<float>(a)) - 23);
  return std::fabs(static_cast<double>(got) - ref) / u;
}

template <typename F, typename R>
void sweep(const char* name, F f, R ref, double max_ulps) {
  double worst = 0;
  float worst_x = 0;
  // Every 997th bit pattern (both signs, all exponents), plus specials.
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                           -std::numeric_limits<float>::max()};
  for (uint64_t b = 0; b < (1ull << 32); b += 997) {
    float x;
    const uint32_t bits = static_cast<uint32_t>(b);
    std::memcpy(&x, &bits, 4);
    xs.push_back(x);
  }
  for (float x : xs) {
    const double e = ulps(f(x), ref(static_cast<double>(x)));
    if (e > worst || (std::isnan(e))) {
      worst = e;
      worst_x = x;
    }
  }
  CHECK_MSG(worst <= max_ulps, std::string(name) + ": " + std::to_string(worst) + " ulp at x = " +
                                   std::to_string(worst_x));
}

}  // namespace

TEST(vec_math_exp_family_within_a_few_ulp) {
  sweep("exp", vm::exp_f, [](double x) { return std::exp(x); }, 2);
  sweep("exp2", vm::exp2_f, [](double x) { return std::exp2(x); }, 2);
  sweep("expm1", vm::expm1_f, [](double x) { return std::expm1(x); }, 2);
}

TEST(vec_math_log_family_within_a_few_ulp) {
  sweep("log", vm::log_f, [](double x) { return std::log(x); }, 2);
  sweep("log2", vm::log2_f, [](double x) { return std::log2(x); }, 2);
  sweep("log10", vm::log10_f, [](double x) { return std::log10(x); }, 2);
  sweep("log1p", vm::log1p_f, [](double x) { return std::log1p(x); }, 2);
}

TEST(vec_math_tanh_erf_erfc_within_a_few_ulp) {
  sweep("tanh", vm::tanh_f, [](double x) { return std::tanh(x); }, 3);
  sweep("erf", vm::erf_f, [](double x) { return std::erf(x); }, 3);
  sweep("erfc", vm::erfc_f, [](double x) { return std::erfc(x); }, 6);
}

namespace {

// Every 997th float bit pattern of both signs, as sweep() visits them.
template <typename F>
void for_sweep(F f) {
  for (uint64_t b = 0; b < (1ull << 32); b += 997) {
    float x;
    const uint32_t bits = static_cast<uint32_t>(b);
    std::memcpy(&x, &bits, 4);
    f(x);
  }
}

}  // namespace

// Near its zeros (1, 2, and beside the poles below -2) lgamma is a
// difference of larger terms (log|t sin(pi x)| and lgamma(-x) below 0), so
// the bound there is in ulps of those terms' size, not of the result.
TEST(vec_math_lgamma_within_a_few_ulp_of_its_terms) {
  double worst = 0;
  float worst_x = 0;
  for_sweep([&](float x) {
    const double ref = std::lgamma(static_cast<double>(x));
    const float got = vm::lgamma_f(x);
    if (!std::isfinite(ref) || x >= 4.0371103e36f) {
      // NaN, poles, +-inf; CPU's float lgamma overflows from 4.0371103e36
      CHECK_MSG((std::isnan(ref) && std::isnan(got)) || got == std::numeric_limits<float>::infinity(),
                "lgamma special value at x = " + std::to_string(x));
      return;
    }
    const double ax = std::fabs(static_cast<double>(x));
    const double scale = std::fabs(ref) + (x < 0 ? std::fabs(std::lgamma(ax)) + 1 : 0.5);
    const double e = std::fabs(got - ref) / (scale * 0x1p-23);
    if (e > worst) {
      worst = e;
      worst_x = x;
    }
  });
  CHECK_MSG(worst <= 4, "lgamma: " + std::to_string(worst) + " ulp at x = " + std::to_string(worst_x));
  CHECK_EQ(vm::lgamma_f(1.0f), 0.0f);
  CHECK_EQ(vm::lgamma_f(2.0f), 0.0f);
  CHECK_EQ(vm::lgamma_f(0.0f), std::numeric_limits<float>::infinity());
  CHECK_EQ(vm::lgamma_f(-0.0f), std::numeric_limits<float>::infinity());
  CHECK_EQ(vm::lgamma_f(-3.0f), std::numeric_limits<float>::infinity());
  CHECK_EQ(vm::lgamma_f(-std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  CHECK(std::isfinite(vm::lgamma_f(4.037e36f)));
  CHECK_EQ(vm::lgamma_f(4.0371103e36f), std::numeric_limits<float>::infinity());
}

// The reference: one Newton step in double from the result, on erf(x) = y.
TEST(vec_math_erfinv_within_a_few_ulp) {
  double worst = 0;
  float worst_x = 0;
  for_sweep([&](float y) {
    const float got = vm::erfinv_f(y);
    if (!(std::fabs(y) < 1.0f)) {
      const bool ok = std::fabs(y) == 1.0f ? got == std::copysign(std::numeric_limits<float>::infinity(), y)
                                          : std::isnan(got);
      CHECK_MSG(ok, "erfinv special value at y = " + std::to_string(y));
      return;
    }
    const double x = got;
    const double ref = x - (std::erf(x) - y) / (1.1283791670955126 * std::exp(-x * x));
    const double e = ulps(got, ref);
    if (e > worst) {
      worst = e;
      worst_x = y;
    }
  });
  CHECK_MSG(worst <= 6, "erfinv: " + std::to_string(worst) + " ulp at y = " + std::to_string(worst_x));
  CHECK(std::signbit(vm::erfinv_f(-0.0f)) && vm::erfinv_f(-0.0f) == 0.0f);
  CHECK_EQ(vm::erfc_f(0.0f), 1.0f);
  CHECK_EQ(vm::erfc_f(-std::numeric_limits<float>::infinity()), 2.0f);
  CHECK_EQ(vm::erfc_f(std::numeric_limits<float>::infinity()), 0.0f);
  CHECK_EQ(vm::erfc_f(11.0f), 0.0f);
}

// The reference: one Newton step in double from the result, on Phi(x) = p.
TEST(vec_math_ndtri_within_a_few_ulp) {
  double worst = 0;
  float worst_x = 0;
  for_sweep([&](float p) {
    const float got = vm::ndtri_f(p);
    if (!(p > 0.0f && p < 1.0f)) {
      const float inf = std::numeric_limits<float>::infinity();
      const bool ok = p == 0.0f ? got == -inf : (p == 1.0f ? got == inf : std::isnan(got));
      CHECK_MSG(ok, "ndtri special value at p = " + std::to_string(p));
      return;
    }
    const double x = got;
    const double pdf = std::exp(-0.5 * x * x) * 0.3989422804014327;
    const double ref = x - (0.5 * std::erfc(-x * 0.7071067811865476) - p) / pdf;
    const double e = ulps(got, ref);
    if (e > worst) {
      worst = e;
      worst_x = p;
    }
  });
  CHECK_MSG(worst <= 5, "ndtri: " + std::to_string(worst) + " ulp at p = " + std::to_string(worst_x));
  CHECK_EQ(vm::ndtri_f(0.5f), 0.0f);
}

TEST(vec_math_keeps_signed_zeros_and_exact_points) {
  CHECK(std::signbit(vm::expm1_f(-0.0f)) && vm::expm1_f(-0.0f) == 0.0f);
  CHECK(std::signbit(vm::log1p_f(-0.0f)));
  CHECK(std::signbit(vm::tanh_f(-0.0f)));
  CHECK(std::signbit(vm::erf_f(-0.0f)));
  CHECK_EQ(vm::exp_f(0.0f), 1.0f);
  CHECK_EQ(vm::exp2_f(10.0f), 1024.0f);
  CHECK_EQ(vm::log_f(1.0f), 0.0f);
  CHECK_EQ(vm::log2_f(0x1p-140f), -140.0f);
  CHECK_EQ(vm::log_f(0.0f), -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(vm::log_f(-1.0f)));
  CHECK_EQ(vm::log1p_f(-1.0f), -std::numeric_limits<float>::infinity());
  CHECK_EQ(vm::tanh_f(-100.0f), -1.0f);
  CHECK_EQ(vm::erf_f(5.0f), 1.0f);
  CHECK_EQ(vm::exp_f(-200.0f), 0.0f);
  CHECK_EQ(vm::exp_f(100.0f), std::numeric_limits<float>::infinity());
}

namespace {

// Runs a predicate over `vals` of dtype t into an output of dtype od, input
// with element stride `stride`; returns the outputs as doubles.
std::vector<double> predicate(ElementwiseOp op, DType t, DType od, const std::vector<double>& vals, int64_t stride) {
  const int64_t n = static_cast<int64_t>(vals.size());
  Buf x = make_buf(t, n * stride, 0, {stride});
  Buf out = dense(od, {n});
  for (int64_t i = 0; i < n; ++i) set_value(x, i * stride, vals[i]);
  ElementwiseDesc d;
  d.shape = {n};
  d.compute = t;
  d.operands = {out.operand(), x.operand()};
  elementwise(op, d);
  std::vector<double> r;
  for (int64_t i = 0; i < n; ++i) r.push_back(get_value(out, i).first);
  return r;
}

}  // namespace

TEST(elementwise_predicates_write_bool_on_every_path) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> vals;
  for (int i = 0; i < 100; ++i) vals.push_back(i % 5 == 0 ? -inf : (i % 5 == 1 ? inf : (i % 5 == 2 ? nan : i - 50.0)));
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    for (DType od : {DType::kBool, DType::kFloat32, DType::kInt64}) {
      for (int64_t stride : {1, 3}) {
        const auto neg = predicate(ElementwiseOp::kIsNegInf, t, od, vals, stride);
        const auto pos = predicate(ElementwiseOp::kIsPosInf, t, od, vals, stride);
        const auto isn = predicate(ElementwiseOp::kIsNan, t, od, vals, stride);
        for (size_t i = 0; i < vals.size(); ++i) {
          CHECK_EQ(neg[i], vals[i] == -inf ? 1.0 : 0.0);
          CHECK_EQ(pos[i], vals[i] == inf ? 1.0 : 0.0);
          CHECK_EQ(isn[i], std::isnan(vals[i]) ? 1.0 : 0.0);
        }
      }
    }
  }
  // Integer inputs: never NaN or infinite.
  const auto ints = predicate(ElementwiseOp::kIsNan, DType::kInt32, DType::kBool, {1, 2, 3}, 1);
  for (double v : ints) CHECK_EQ(v, 0.0);
}
