// elementwise: the arithmetic, case by case, with the results torch 2.13 CPU
// eager gives (contiguous inputs): integer wrap-around, bool rules, where
// operations are fused (float add with alpha, complex division) and where
// not (complex multiply), float16/bfloat16 rounding, complex special values,
// scalar arguments.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "elementwise_test_util.h"
#include "testing/harness.h"

using namespace ew_test;

namespace {

// Runs op on n = values.size() elements of dtype t (inputs a, b, contiguous,
// or b as a whole-loop scalar when b_scalar) and returns the outputs as
// complex128 pairs.
std::vector<std::pair<double, double>> run(ElementwiseOp op, DType t, const std::vector<std::pair<double, double>>& a,
                                           const std::vector<std::pair<double, double>>& b = {},
                                           std::vector<ScalarArg> args = {}, DType out_dtype = DType::kBool,
                                           bool out_same = true) {
  const int64_t n = static_cast<int64_t>(a.size());
  const DType od = out_same ? t : out_dtype;
  Buf x = dense(t, {n}), y = dense(t, {n}), out = dense(od, {n});
  for (int64_t i = 0; i < n; ++i) {
    set_value(x, i, a[i].first, a[i].second);
    if (!b.empty()) set_value(y, i, b[i].first, b[i].second);
  }
  ElementwiseDesc d;
  d.shape = {n};
  d.compute = t;
  d.operands = {out.operand(), x.operand()};
  if (elementwise_num_inputs(op) == 2) d.operands.push_back(y.operand());
  d.args = std::move(args);
  elementwise(op, d);
  std::vector<std::pair<double, double>> r;
  for (int64_t i = 0; i < n; ++i) r.push_back(get_value(out, i));
  return r;
}

std::vector<std::pair<double, double>> reals(std::initializer_list<double> v) {
  std::vector<std::pair<double, double>> r;
  for (double x : v) r.push_back({x, 0});
  return r;
}

// Repeats v to 64 elements so the vector loop (not only a tail) runs.
std::vector<std::pair<double, double>> rep(const std::vector<std::pair<double, double>>& v) {
  std::vector<std::pair<double, double>> r;
  while (r.size() < 64) r.insert(r.end(), v.begin(), v.end());
  return r;
}

bool bits_equal(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(elementwise_integers_wrap) {
  // int8: 127 + 1, -128 - 1, alpha 3: 100 + 3*50 = 250 -> -6.
  auto r = run(ElementwiseOp::kAdd, DType::kInt8, reals({127, -128, 100}), reals({1, 1, 50}),
               {ScalarArg::from_int(1)});
  CHECK_EQ(r[0].first, -128.0);
  CHECK_EQ(r[1].first, -127.0);
  r = run(ElementwiseOp::kAdd, DType::kInt8, reals({100}), reals({50}), {ScalarArg::from_int(3)});
  CHECK_EQ(r[0].first, -6.0);
  r = run(ElementwiseOp::kSub, DType::kUInt8, reals({0, 5}), reals({1, 10}), {ScalarArg::from_int(1)});
  CHECK_EQ(r[0].first, 255.0);
  CHECK_EQ(r[1].first, 251.0);
  // int64: 2^62 * 4 wraps to 0; (2^63 - 1) + 1 to -2^63.
  Buf a = dense(DType::kInt64, {2}), b = dense(DType::kInt64, {2}), o = dense(DType::kInt64, {2});
  const int64_t av[2] = {int64_t{1} << 62, std::numeric_limits<int64_t>::max()}, bv[2] = {4, 1};
  std::memcpy(a.at(0), av, sizeof av);
  std::memcpy(b.at(0), bv, sizeof bv);
  ElementwiseDesc d;
  d.shape = {2};
  d.compute = DType::kInt64;
  d.operands = {o.operand(), a.operand(), b.operand()};
  elementwise(ElementwiseOp::kMul, d);
  int64_t ov[2];
  std::memcpy(ov, o.at(0), sizeof ov);
  CHECK_EQ(ov[0], int64_t{0});
  d.args = {ScalarArg::from_int(1)};
  elementwise(ElementwiseOp::kAdd, d);
  std::memcpy(ov, o.at(0), sizeof ov);
  CHECK_EQ(ov[1], std::numeric_limits<int64_t>::min());
  // uint16 * uint16 (no signed-int promotion overflow): 65535^2 mod 2^16 = 1.
  r = run(ElementwiseOp::kMul, DType::kUInt16, reals({65535}), reals({65535}));
  CHECK_EQ(r[0].first, 1.0);
  // neg / abs of the minimum wrap to the minimum; neg of uint8 wraps.
  r = run(ElementwiseOp::kNeg, DType::kInt8, reals({-128, 5}));
  CHECK_EQ(r[0].first, -128.0);
  CHECK_EQ(r[1].first, -5.0);
  r = run(ElementwiseOp::kAbs, DType::kInt16, reals({-32768, -7}));
  CHECK_EQ(r[0].first, -32768.0);
  CHECK_EQ(r[1].first, 7.0);
  r = run(ElementwiseOp::kNeg, DType::kUInt8, reals({0, 1, 255}));
  CHECK_EQ(r[0].first, 0.0);
  CHECK_EQ(r[1].first, 255.0);
  CHECK_EQ(r[2].first, 1.0);
}

TEST(elementwise_bool_rules) {
  // add: a + alpha*b as bools (or); mul: and.
  const auto a = reals({0, 0, 1, 1}), b = reals({0, 1, 0, 1});
  auto r = run(ElementwiseOp::kAdd, DType::kBool, a, b, {ScalarArg::from_bool(true)});
  CHECK(r[0].first == 0 && r[1].first == 1 && r[2].first == 1 && r[3].first == 1);
  r = run(ElementwiseOp::kAdd, DType::kBool, a, b, {ScalarArg::from_bool(false)});
  CHECK(r[0].first == 0 && r[1].first == 0 && r[2].first == 1 && r[3].first == 1);
  r = run(ElementwiseOp::kMul, DType::kBool, a, b);
  CHECK(r[0].first == 0 && r[1].first == 0 && r[2].first == 0 && r[3].first == 1);
  // Any nonzero byte reads as true.
  Buf x = dense(DType::kBool, {1}), y = dense(DType::kBool, {1}), o = dense(DType::kBool, {1});
  *x.at(0) = 2;
  *y.at(0) = 4;
  ElementwiseDesc d;
  d.shape = {1};
  d.compute = DType::kBool;
  d.operands = {o.operand(), x.operand(), y.operand()};
  elementwise(ElementwiseOp::kMul, d);
  CHECK_EQ(static_cast<int>(*o.at(0)), 1);
}

TEST(elementwise_float_add_with_alpha_is_fused) {
  // -1 + (1 + 2^-23) * (1 - 2^-23): fused -2^-46, unfused 0 (CPU: fused).
  const double e = std::ldexp(1.0, -23);
  auto r = run(ElementwiseOp::kAdd, DType::kFloat32, rep(reals({-1})), rep(reals({1 + e})),
               {ScalarArg::from_double(1 - e)});
  CHECK_EQ(r[0].first, -std::ldexp(1.0, -46));
  CHECK_EQ(r[63].first, -std::ldexp(1.0, -46));
  // sub is a - alpha*b, fused as well.
  r = run(ElementwiseOp::kSub, DType::kFloat32, rep(reals({1})), rep(reals({1 + e})),
          {ScalarArg::from_double(1 - e)});
  CHECK_EQ(r[5].first, std::ldexp(1.0, -46));
  // alpha = 1 keeps IEEE addition, signs of zero included.
  r = run(ElementwiseOp::kAdd, DType::kFloat64, reals({-0.0, -0.0, 0.0, kInf, kInf}),
          reals({-0.0, 0.0, -0.0, -kInf, 1}), {ScalarArg::from_int(1)});
  CHECK(bits_equal(r[0].first, -0.0));
  CHECK(bits_equal(r[1].first, 0.0));
  CHECK(bits_equal(r[2].first, 0.0));
  CHECK(std::isnan(r[3].first));
  CHECK_EQ(r[4].first, kInf);
}

TEST(elementwise_float_division) {
  auto r = run(ElementwiseOp::kDiv, DType::kFloat32, reals({1, -1, 0, 1, 7}), reals({0, 0, 0, -0.0, 2}));
  CHECK_EQ(r[0].first, kInf);
  CHECK_EQ(r[1].first, -kInf);
  CHECK(std::isnan(r[2].first));
  CHECK_EQ(r[3].first, -kInf);
  CHECK_EQ(r[4].first, 3.5);
}

TEST(elementwise_half_and_bfloat16_round_once) {
  // float16: -0.11920166015625 + 0.1 * 1.412109375, alpha rounded to float16
  // (0.0999755859375), fused in float, rounded once: 0.02197265625 (rounding
  // alpha*b to float16 first would give 0.02203369140625).
  auto r = run(ElementwiseOp::kAdd, DType::kFloat16, rep(reals({-0.11920166015625})), rep(reals({1.412109375})),
               {ScalarArg::from_double(0.1)});
  CHECK_EQ(r[0].first, 0.02197265625);
  // float16 output of float16 compute into a float32 output: rounded to
  // float16 first. 1 + 2^-11 (exact in float) -> 1 in float16.
  r = run(ElementwiseOp::kAdd, DType::kFloat16, reals({1}), reals({std::ldexp(1.0, -11)}),
          {ScalarArg::from_int(1)}, DType::kFloat32, false);
  CHECK_EQ(r[0].first, 1.0);
  // bfloat16 mul: 9 * 0.1 -> 0.90234375 when 0.1 is a bfloat16 tensor.
  r = run(ElementwiseOp::kMul, DType::kBFloat16, rep(reals({9})), rep(reals({0.1})));
  CHECK_EQ(r[0].first, 0.90234375);
}

TEST(elementwise_reduced_mul_div_read_a_scalar_second_input_as_float) {
  // CPU's mul/div of float16/bfloat16 with a broadcast second input use its
  // original value as float (float16 3 * 0.1 = 0.300048828125, bfloat16 9 *
  // 0.1 = 0.8984375; 55 / 0.1 = 552); a scalar FIRST input is rounded to the
  // compute dtype like any input.
  const auto scalar_case = [](ElementwiseOp op, DType t, double a, DType bdt, double b, bool scalar_first) {
    Buf x = dense(t, {40}), o = dense(t, {40});
    for (int i = 0; i < 40; ++i) set_value(x, i, a);
    const double z[2] = {b, 0};
    unsigned char bytes[16];
    convert_element(bdt, bytes, DType::kComplex128, z);
    ElementwiseDesc d;
    d.shape = {40};
    d.compute = t;
    const ElementwiseOperand s = ElementwiseOperand::scalar(bdt, bytes);
    d.operands = scalar_first ? std::vector<ElementwiseOperand>{o.operand(), s, x.operand()}
                              : std::vector<ElementwiseOperand>{o.operand(), x.operand(), s};
    elementwise(op, d);
    return get_value(o, 39).first;
  };
  CHECK_EQ(scalar_case(ElementwiseOp::kMul, DType::kFloat16, 3, DType::kFloat64, 0.1, false), 0.300048828125);
  CHECK_EQ(scalar_case(ElementwiseOp::kMul, DType::kFloat16, 3, DType::kFloat64, 0.1, true), 0.2998046875);
  CHECK_EQ(scalar_case(ElementwiseOp::kMul, DType::kBFloat16, 9, DType::kFloat32, 0.1, false), 0.8984375);
  CHECK_EQ(scalar_case(ElementwiseOp::kDiv, DType::kBFloat16, 55, DType::kFloat64, 0.1, false), 552.0);
  CHECK_EQ(scalar_case(ElementwiseOp::kDiv, DType::kFloat16, 413, DType::kFloat64, 0.1, false), 4128.0);
  // add has no such path: the scalar is rounded to float16.
  Buf x = dense(DType::kFloat16, {8}), o = dense(DType::kFloat16, {8});
  for (int i = 0; i < 8; ++i) set_value(x, i, 0);
  const double big = 5001;  // float16(5001) = 5000
  ElementwiseDesc d;
  d.shape = {8};
  d.compute = DType::kFloat16;
  d.operands = {o.operand(), x.operand(), ElementwiseOperand::scalar(DType::kFloat64, &big)};
  d.args = {ScalarArg::from_double(0.5)};
  elementwise(ElementwiseOp::kAdd, d);
  CHECK_EQ(get_value(o, 0).first, 2500.0);
}

TEST(elementwise_half_neg_abs_keep_nan_payloads) {
  // CPU's vectorized neg/abs of float16/bfloat16 flip/clear the sign bit.
  const uint16_t in[4] = {0x7C01, 0xFFC1, 0x0000, 0x8000};
  for (DType t : {DType::kFloat16, DType::kBFloat16}) {
    Buf x = dense(t, {4}), o = dense(t, {4});
    std::memcpy(x.at(0), in, sizeof in);
    ElementwiseDesc d;
    d.shape = {4};
    d.compute = t;
    d.operands = {o.operand(), x.operand()};
    elementwise(ElementwiseOp::kNeg, d);
    uint16_t out[4];
    std::memcpy(out, o.at(0), sizeof out);
    CHECK_EQ(out[0], 0xFC01);
    CHECK_EQ(out[1], 0x7FC1);
    CHECK_EQ(out[2], 0x8000);
    CHECK_EQ(out[3], 0x0000);
    elementwise(ElementwiseOp::kAbs, d);
    std::memcpy(out, o.at(0), sizeof out);
    CHECK_EQ(out[0], 0x7C01);
    CHECK_EQ(out[1], 0x7FC1);
    CHECK_EQ(out[3], 0x0000);
  }
}

TEST(elementwise_complex_multiply_is_not_fused) {
  // (1 + 2^-12 + i)^2: real part 2^-11 unfused (CPU), 2^-11 + 2^-24 fused.
  for (DType t : {DType::kComplex64, DType::kComplex128}) {
    const double x = t == DType::kComplex64 ? 1 + std::ldexp(1.0, -12) : 1 + std::ldexp(1.0, -27);
    const double want = t == DType::kComplex64 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -26);
    auto r = run(ElementwiseOp::kMul, t, rep({{x, 1}}), rep({{x, 1}}));
    CHECK_MSG(r[0].first == want && r[63].first == want, dtype_name(t) << " " << r[0].first);
  }
}

TEST(elementwise_complex_add_multiplies_alpha_in) {
  // (1+1i) + (1+inf i) = nan+inf i on CPU (b * alpha: inf * 0 = nan).
  auto r = run(ElementwiseOp::kAdd, DType::kComplex64, rep({{1, 1}}), rep({{1, kInf}}), {ScalarArg::from_int(1)});
  CHECK(std::isnan(r[0].first));
  CHECK_EQ(r[0].second, kInf);
  // alpha 0.5 - 2i: (1+2i) + (3-1i)(0.5-2i) = (1+2i) + (-0.5-6.5i).
  r = run(ElementwiseOp::kAdd, DType::kComplex128, {{1, 2}}, {{3, -1}}, {ScalarArg::from_complex(0.5, -2)});
  CHECK_EQ(r[0].first, 0.5);
  CHECK_EQ(r[0].second, -4.5);
  // sub with alpha 1: -alpha is (-1, +0), so 0 - (0+1i)... : (-0 - 0i) - (0 + 1i)
  // = (-0, -1) + b*(-1,+0) where b = (0, 1): re = 0*-1 - 1*0 = -0 - 0 = -0;
  // -0 + -0 = -0.
  r = run(ElementwiseOp::kSub, DType::kComplex128, {{-0.0, 0}}, {{0, 1}}, {ScalarArg::from_int(1)});
  CHECK(bits_equal(r[0].first, -0.0));
  CHECK_EQ(r[0].second, -1.0);
}

TEST(elementwise_complex_division) {
  // Smith's algorithm with CPU's fused steps; zero divisor gives inf/nan.
  auto r = run(ElementwiseOp::kDiv, DType::kComplex128, {{1, 2}, {1, 1}, {0, 0}, {1, 0}},
               {{3, -4}, {0, 0}, {0, 0}, {0, 2}});
  CHECK_EQ(r[0].first, -0.2);
  CHECK_EQ(r[0].second, 0.4);
  CHECK_EQ(r[1].first, kInf);
  CHECK_EQ(r[1].second, kInf);
  CHECK(std::isnan(r[2].first) && std::isnan(r[2].second));
  CHECK_EQ(r[3].first, 0.0);
  CHECK_EQ(r[3].second, -0.5);
}

TEST(elementwise_complex_neg_and_abs) {
  // neg is 0 - x (CPU's vectorized path): -(0+0i) = +0+0i.
  auto r = run(ElementwiseOp::kNeg, DType::kComplex64, rep({{0.0, -0.0}, {1, -2}}));
  CHECK(bits_equal(r[0].first, 0.0) && bits_equal(r[0].second, 0.0));
  CHECK_EQ(r[1].first, -1.0);
  CHECK_EQ(r[1].second, 2.0);
  // abs: (|z|, +0); an infinite part wins over NaN.
  for (DType t : {DType::kComplex64, DType::kComplex128}) {
    r = run(ElementwiseOp::kAbs, t, rep({{3, -4}, {kInf, NAN}, {NAN, 1}, {1e30, 1e30}}));
    CHECK_EQ(r[0].first, 5.0);
    CHECK(bits_equal(r[0].second, 0.0));
    CHECK_EQ(r[1].first, kInf);
    CHECK(std::isnan(r[2].first));
    CHECK(r[3].first > 1.4e30 && std::isfinite(r[3].first));
  }
  // Into a real output (the complex -> real form of abs).
  r = run(ElementwiseOp::kAbs, DType::kComplex64, {{3, 4}}, {}, {}, DType::kFloat32, false);
  CHECK_EQ(r[0].first, 5.0);
}

TEST(elementwise_scalar_args_convert_to_compute_dtype) {
  // int alpha into uint8 wraps: 300 -> 44; 1 + 44*2 = 89.
  auto r = run(ElementwiseOp::kAdd, DType::kUInt8, reals({1}), reals({2}), {ScalarArg::from_int(300)});
  CHECK_EQ(r[0].first, 89.0);
  // double alpha into int32 truncates (ATen rejects it before; the kernel
  // still converts like c10).
  r = run(ElementwiseOp::kAdd, DType::kInt32, reals({1}), reals({2}), {ScalarArg::from_double(2.9)});
  CHECK_EQ(r[0].first, 5.0);
  // complex alpha into a real compute dtype takes the real part.
  r = run(ElementwiseOp::kAdd, DType::kFloat64, reals({1}), reals({2}), {ScalarArg::from_complex(3, 7)});
  CHECK_EQ(r[0].first, 7.0);
  // bool alpha.
  r = run(ElementwiseOp::kAdd, DType::kInt64, reals({1}), reals({2}), {ScalarArg::from_bool(true)});
  CHECK_EQ(r[0].first, 3.0);
}
