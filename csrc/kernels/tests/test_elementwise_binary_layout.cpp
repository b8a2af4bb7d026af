// elementwise, the binary family's ops (comparisons, min/max, clamp, where,
// division with rounding, pow, lerp, addcmul, ...): every op and compute
// dtype over contiguous runs with tails, strided, permuted and broadcast
// operands, and outputs of another dtype, against a reference that runs the
// same op on every-other-element buffers (the buffered path) and converts the
// result element by element. Ops returning bool (comparisons, logical ops)
// produce their reference in bool. Values against CPU are tested in
// tests/test_binary_kernels.py.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "elementwise_test_util.h"
#include "testing/harness.h"

using namespace ew_test;

namespace {

const ElementwiseOp kBinaryOps[] = {
    ElementwiseOp::kDivTrunc,   ElementwiseOp::kDivFloor,     ElementwiseOp::kRemainder,
    ElementwiseOp::kFmod,       ElementwiseOp::kMaximum,      ElementwiseOp::kMinimum,
    ElementwiseOp::kFmax,       ElementwiseOp::kFmin,         ElementwiseOp::kClamp,
    ElementwiseOp::kClampScalar, ElementwiseOp::kClampMinScalar, ElementwiseOp::kClampMaxScalar,
    ElementwiseOp::kWhere,      ElementwiseOp::kEq,           ElementwiseOp::kNe,
    ElementwiseOp::kLt,         ElementwiseOp::kLe,           ElementwiseOp::kGt,
    ElementwiseOp::kGe,         ElementwiseOp::kLogicalAnd,   ElementwiseOp::kLogicalOr,
    ElementwiseOp::kLogicalXor, ElementwiseOp::kLogicalNot,   ElementwiseOp::kBitwiseAnd,
    ElementwiseOp::kBitwiseOr,  ElementwiseOp::kBitwiseXor,   ElementwiseOp::kBitwiseNot,
    ElementwiseOp::kLshift,     ElementwiseOp::kRshift,       ElementwiseOp::kPow,
    ElementwiseOp::kPowScalar,  ElementwiseOp::kAtan2,        ElementwiseOp::kHypot,
    ElementwiseOp::kLerpScalar, ElementwiseOp::kLerpTensor,   ElementwiseOp::kAddcmul,
    ElementwiseOp::kAddcdiv};

bool returns_bool(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kEq: case ElementwiseOp::kNe: case ElementwiseOp::kLt: case ElementwiseOp::kLe:
    case ElementwiseOp::kGt: case ElementwiseOp::kGe: case ElementwiseOp::kLogicalAnd:
    case ElementwiseOp::kLogicalOr: case ElementwiseOp::kLogicalXor: case ElementwiseOp::kLogicalNot:
      return true;
    default:
      return false;
  }
}

std::vector<ScalarArg> args_for(ElementwiseOp op, DType c) {
  const bool is_float = c == DType::kFloat16 || c == DType::kBFloat16 || c == DType::kFloat32 ||
                        c == DType::kFloat64 || c == DType::kComplex64 || c == DType::kComplex128;
  switch (op) {
    case ElementwiseOp::kClampScalar: return {ScalarArg::from_int(-3), ScalarArg::from_int(4)};
    case ElementwiseOp::kClampMinScalar: return {ScalarArg::from_int(-2)};
    case ElementwiseOp::kClampMaxScalar: return {ScalarArg::from_int(5)};
    case ElementwiseOp::kPowScalar: return {is_float ? ScalarArg::from_double(2.5) : ScalarArg::from_int(3)};
    case ElementwiseOp::kLerpScalar: return {ScalarArg::from_double(0.75)};
    case ElementwiseOp::kAddcmul: case ElementwiseOp::kAddcdiv:
      return {is_float ? ScalarArg::from_double(0.5) : ScalarArg::from_int(3)};
    default: return {};
  }
}

Buf spread(DType t, const std::vector<int64_t>& shape) {
  Buf b = dense(t, shape);
  for (int64_t& st : b.strides) st *= 2;
  b.bytes.resize(b.bytes.size() * 2, 0xCD);
  return b;
}

// Small nonzero values every dtype holds (no integer division by zero).
void fill(Buf& b, int seed) {
  const int64_t n = static_cast<int64_t>(b.bytes.size() / b.es());
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < n; ++i) {
    const double re = static_cast<int>(rng() % 15) - 7 + ((rng() & 1) ? 0.5 : 0.0);
    const double im = static_cast<int>(rng() % 9) - 4;
    if (b.dtype == DType::kBool) {
      set_value(b, i, rng() & 1);
    } else if (b.dtype == DType::kUInt8 || b.dtype == DType::kUInt16 || b.dtype == DType::kUInt32 ||
               b.dtype == DType::kUInt64) {
      set_value(b, i, std::fabs(re) + 1);
    } else {
      set_value(b, i, std::fabs(re) < 1 ? 1.5 : re, im);  // integers: never 0
    }
  }
}

int check_op(ElementwiseOp op, DType compute, const std::vector<int64_t>& shape, Buf out, std::vector<Buf> ins,
             int seed) {
  for (size_t k = 0; k < ins.size(); ++k) fill(ins[k], seed + static_cast<int>(k));
  const Buf untouched = out;
  ElementwiseDesc d;
  d.shape = shape;
  d.compute = compute;
  d.args = args_for(op, compute);
  d.operands = {out.operand()};
  for (Buf& b : ins) d.operands.push_back(b.operand());
  elementwise(op, d);

  const DType rdt = returns_bool(op) ? DType::kBool : compute;
  std::vector<Buf> dense_in;
  for (const Buf& b : ins) {
    Buf x = spread(compute, shape);
    for_each_index(shape, {&x, &b}, [&](const std::vector<int64_t>& off) {
      convert_element(compute, x.at(off[0]), b.dtype, b.at(off[1]));
    });
    dense_in.push_back(std::move(x));
  }
  Buf ref = spread(rdt, shape);
  d.operands = {ref.operand()};
  for (Buf& b : dense_in) d.operands.push_back(b.operand());
  elementwise(op, d);

  int bad = 0;
  std::vector<char> written(out.bytes.size() / out.es(), 0);
  unsigned char want[16];
  for_each_index(shape, {&out, &ref}, [&](const std::vector<int64_t>& off) {
    convert_element(out.dtype, want, rdt, ref.at(off[1]));
    written[off[0]] = 1;
    if (!same_value(out.dtype, out.at(off[0]), want)) ++bad;
  });
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i] && std::memcmp(out.at(i), untouched.at(i), out.es()) != 0) ++bad;
  }
  return bad;
}

DType dt(int i) { return static_cast<DType>(i); }

std::vector<Buf> inputs(ElementwiseOp op, const std::function<Buf(int)>& make) {
  std::vector<Buf> v;
  for (int k = 0; k < elementwise_num_inputs(op); ++k) v.push_back(make(k));
  return v;
}

}  // namespace

TEST(elementwise_binary_family_layouts_and_tails) {
  for (ElementwiseOp op : kBinaryOps) {
    for (int c = 0; c < kNumDTypes; ++c) {
      const DType t = dt(c);
      if (!elementwise_supports(op, t)) continue;
      const DType rt = returns_bool(op) ? DType::kBool : t;
      const std::string what = std::string(elementwise_op_name(op)) + " " + dtype_name(t);
      for (int64_t n : {1, 31, 64, 300}) {
        const std::vector<int64_t> shape{n};
        const int bad = check_op(op, t, shape, dense(rt, shape), inputs(op, [&](int) { return dense(t, shape); }),
                                 static_cast<int>(n));
        CHECK_MSG(bad == 0, what << " n=" << n << ": " << bad);
      }
      const std::vector<int64_t> shape{5, 7};
      int bad = check_op(op, t, shape, make_buf(rt, 40, 3, {7, 1}), inputs(op, [&](int k) {
                           return k == 0 ? make_buf(t, 80, 1, {2, 10}) : make_buf(t, 36, 0, {7, 1});
                         }), 7);
      CHECK_MSG(bad == 0, what << " strided: " << bad);
      bad = check_op(op, t, shape, dense(rt, shape), inputs(op, [&](int k) {
                       return k == 0 ? make_buf(t, 7, 0, {0, 1}) : k == 1 ? make_buf(t, 5, 0, {1, 0})
                                                                         : make_buf(t, 1, 0, {0, 0});
                     }), 11);
      CHECK_MSG(bad == 0, what << " broadcast: " << bad);
      // Output of another dtype (float64 / int32), inputs of mixed dtypes.
      const DType other_out = t == DType::kFloat64 ? DType::kInt32 : DType::kFloat64;
      bad = check_op(op, t, {37}, dense(other_out, {37}), inputs(op, [&](int k) {
                       return dense(k == 1 && t != DType::kBool ? DType::kInt8 : t, {37});
                     }), 13);
      CHECK_MSG(bad == 0, what << " mixed dtypes: " << bad);
    }
  }
}
