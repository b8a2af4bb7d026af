// elementwise: layouts and dtypes. Each strided / broadcast / mixed-dtype run
// is checked against a reference built from simple parts: the inputs cast
// to the compute dtype one element at a time (convert_element, tested
// against CPU in test_convert.cpp), the op on every-other-element buffers of
// the compute dtype (so the reference takes the buffered path while
// contiguous runs take the direct one), and the result cast to the output
// dtype. The arithmetic itself is tested in test_elementwise_math.cpp and
// against CPU in test_elementwise_golden.cpp.
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "elementwise_test_util.h"
#include "runtime/runtime.h"
#include "testing/harness.h"

using namespace ew_test;

namespace {

ElementwiseDesc make_desc(ElementwiseOp op, DType compute, std::vector<int64_t> shape,
                          std::vector<ElementwiseOperand> operands, std::vector<ScalarArg> args = {}) {
  ElementwiseDesc d;
  d.shape = std::move(shape);
  d.operands = std::move(operands);
  d.compute = compute;
  d.args = std::move(args);
  return d;
}

// Like dense() but with every other element: strides doubled.
Buf spread(DType t, const std::vector<int64_t>& shape) {
  Buf b = dense(t, shape);
  for (int64_t& st : b.strides) st *= 2;
  b.bytes.resize(b.bytes.size() * 2, 0xCD);
  return b;
}

std::vector<ScalarArg> default_args(ElementwiseOp op, DType compute) {
  if (elementwise_num_args(op) == 0) return {};
  if (compute == DType::kBool) return {ScalarArg::from_bool(true)};
  if (compute == DType::kComplex64 || compute == DType::kComplex128) return {ScalarArg::from_complex(0.5, -2)};
  if (compute == DType::kFloat16 || compute == DType::kBFloat16 || compute == DType::kFloat32 ||
      compute == DType::kFloat64) {
    return {ScalarArg::from_double(0.1)};
  }
  return {ScalarArg::from_int(3)};
}

// Values every dtype holds (small integers, halves; bool: 0/1), varied by seed.
void fill_inputs(Buf& b, int seed) {
  const int64_t n = static_cast<int64_t>(b.bytes.size() / b.es());
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < n; ++i) {
    const double re = static_cast<int>(rng() % 41) - 20 + ((rng() & 1) ? 0.5 : 0.0);
    const double im = static_cast<int>(rng() % 21) - 10;
    if (b.dtype == DType::kBool) {
      set_value(b, i, rng() & 1);
    } else if (b.dtype == DType::kUInt8 || b.dtype == DType::kUInt16 || b.dtype == DType::kUInt32 ||
               b.dtype == DType::kUInt64) {
      set_value(b, i, std::fabs(re) + 1);
    } else {
      set_value(b, i, re == 0 ? 1.5 : re, im);  // no zeros: division stays finite
    }
  }
}

// Runs op on (out, ins...) over `shape` and compares every output element
// with the reference; also checks that elements outside the output view
// were not touched. Returns the number of mismatches.
int check_op(ElementwiseOp op, DType compute, const std::vector<int64_t>& shape, Buf out, std::vector<Buf> ins,
             std::vector<ScalarArg> args, int seed = 0) {
  for (size_t k = 0; k < ins.size(); ++k) fill_inputs(ins[k], seed + static_cast<int>(k));
  const Buf untouched = out;

  std::vector<ElementwiseOperand> ops{out.operand()};
  for (Buf& b : ins) ops.push_back(b.operand());
  elementwise(op, make_desc(op, compute, shape, ops, args));

  // Reference: compute-dtype copies of the inputs (every other element), the
  // op on them.
  std::vector<Buf> dense_in;
  for (const Buf& b : ins) {
    Buf d = spread(compute, shape);
    for_each_index(shape, {&d, &b}, [&](const std::vector<int64_t>& off) {
      convert_element(compute, d.at(off[0]), b.dtype, b.at(off[1]));
    });
    dense_in.push_back(std::move(d));
  }
  Buf ref = spread(compute, shape);
  std::vector<ElementwiseOperand> rops{ref.operand()};
  for (Buf& b : dense_in) rops.push_back(b.operand());
  elementwise(op, make_desc(op, compute, shape, rops, args));

  int bad = 0;
  std::vector<char> written(out.bytes.size() / out.es(), 0);
  unsigned char want[16];
  for_each_index(shape, {&out, &ref}, [&](const std::vector<int64_t>& off) {
    convert_element(out.dtype, want, compute, ref.at(off[1]));
    written[off[0]] = 1;
    if (!same_value(out.dtype, out.at(off[0]), want)) ++bad;
  });
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i] && std::memcmp(out.at(i), untouched.at(i), out.es()) != 0) ++bad;
  }
  return bad;
}

const ElementwiseOp kOps[] = {ElementwiseOp::kNeg, ElementwiseOp::kAbs, ElementwiseOp::kAdd,
                              ElementwiseOp::kSub, ElementwiseOp::kMul, ElementwiseOp::kDiv};

DType dt(int i) { return static_cast<DType>(i); }

std::vector<Buf> inputs_like(ElementwiseOp op, std::function<Buf(int)> make) {
  std::vector<Buf> v;
  for (int k = 0; k < elementwise_num_inputs(op); ++k) v.push_back(make(k));
  return v;
}

}  // namespace

TEST(elementwise_every_op_and_dtype_contiguous_with_tails) {
  for (ElementwiseOp op : kOps) {
    for (int c = 0; c < kNumDTypes; ++c) {
      if (!elementwise_supports(op, dt(c))) continue;
      for (int64_t n : {1, 7, 64, 257, 1000}) {
        const std::vector<int64_t> shape{n};
        const int bad = check_op(op, dt(c), shape, dense(dt(c), shape),
                                 inputs_like(op, [&](int) { return dense(dt(c), shape); }),
                                 default_args(op, dt(c)), static_cast<int>(n));
        CHECK_MSG(bad == 0, elementwise_op_name(op) << " " << dtype_name(dt(c)) << " n=" << n << ": " << bad);
      }
    }
  }
}

TEST(elementwise_every_op_and_dtype_strided_permuted_and_broadcast) {
  for (ElementwiseOp op : kOps) {
    for (int c = 0; c < kNumDTypes; ++c) {
      const DType t = dt(c);
      if (!elementwise_supports(op, t)) continue;
      const auto args = default_args(op, t);
      const std::string what = std::string(elementwise_op_name(op)) + " " + dtype_name(t);
      // 5 x 7 (fastest first): output transposed (column-major view of a
      // 7x5 buffer, offset 3); inputs every other element and permuted.
      const std::vector<int64_t> shape{5, 7};
      int bad = check_op(op, t, shape, make_buf(t, 40, 3, {7, 1}),
                         inputs_like(op, [&](int k) {
                           return k == 0 ? make_buf(t, 80, 1, {2, 10}) : make_buf(t, 36, 0, {7, 1});
                         }),
                         args);
      CHECK_MSG(bad == 0, what << " strided: " << bad);
      // Broadcasts: input 0 along the fastest dim (stride 0 there), input 1
      // along the outer one.
      bad = check_op(op, t, shape, dense(t, shape),
                     inputs_like(op, [&](int k) {
                       return k == 0 ? make_buf(t, 7, 0, {0, 1}) : make_buf(t, 5, 0, {1, 0});
                     }),
                     args, 11);
      CHECK_MSG(bad == 0, what << " broadcast: " << bad);
      // One input broadcast over everything (a scalar in device memory).
      bad = check_op(op, t, shape, dense(t, shape),
                     inputs_like(op, [&](int k) {
                       return k == elementwise_num_inputs(op) - 1 ? make_buf(t, 1, 0, {0, 0}) : dense(t, shape);
                     }),
                     args, 5);
      CHECK_MSG(bad == 0, what << " scalar: " << bad);
      // Three dims, a middle one that coalesces and one that does not.
      const std::vector<int64_t> shape3{3, 4, 2};
      bad = check_op(op, t, shape3, make_buf(t, 24, 0, {1, 3, 12}),
                     inputs_like(op, [&](int) { return make_buf(t, 60, 2, {2, 6, 30}); }), args, 3);
      CHECK_MSG(bad == 0, what << " 3-d: " << bad);
    }
  }
}

TEST(elementwise_mixed_operand_dtypes_convert_to_compute_and_back) {
  // Every input dtype and every output dtype against a few compute dtypes.
  const DType computes[] = {DType::kBool,    DType::kUInt8,   DType::kInt32,     DType::kInt64,
                            DType::kFloat16, DType::kBFloat16, DType::kFloat32,  DType::kFloat64,
                            DType::kComplex64, DType::kComplex128};
  for (ElementwiseOp op : {ElementwiseOp::kAdd, ElementwiseOp::kMul, ElementwiseOp::kDiv, ElementwiseOp::kNeg}) {
    for (DType c : computes) {
      if (!elementwise_supports(op, c)) continue;
      for (int o = 0; o < kNumDTypes; ++o) {
        const std::vector<int64_t> shape{37};
        // Inputs: dtypes o and (o + 5) mod 15, contiguous and strided.
        const int bad = check_op(op, c, shape, dense(dt(o), shape),
                                 inputs_like(op, [&](int k) {
                                   const DType in = dt((o + 5 * k) % kNumDTypes);
                                   return k == 0 ? dense(in, shape) : make_buf(in, 111, 0, {3});
                                 }),
                                 default_args(op, c), o);
        CHECK_MSG(bad == 0, elementwise_op_name(op) << " compute " << dtype_name(c) << " out "
                                                    << dtype_name(dt(o)) << ": " << bad);
      }
    }
  }
}

TEST(elementwise_by_value_operand_is_a_scalar_in_its_own_dtype) {
  // float32 tensor + int64 host scalar 3 (alpha 2): 1.5 + 2*3.
  Buf a = dense(DType::kFloat32, {10});
  Buf out = dense(DType::kFloat32, {10});
  for (int i = 0; i < 10; ++i) set_value(a, i, 1.5 + i);
  const int64_t three = 3;
  ElementwiseDesc d;
  d.shape = {10};
  d.compute = DType::kFloat32;
  d.operands = {out.operand(), a.operand(), ElementwiseOperand::scalar(DType::kInt64, &three)};
  d.args = {ScalarArg::from_int(2)};
  elementwise(ElementwiseOp::kAdd, d);
  for (int i = 0; i < 10; ++i) CHECK_EQ(get_value(out, i).first, 7.5 + i);

  // A by-value first input converts straight from its dtype: int64 -> float32
  // rounds once (through double it would round twice and give 2^60).
  const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  d.operands = {out.operand(), ElementwiseOperand::scalar(DType::kInt64, &big), a.operand()};
  d.args = {ScalarArg::from_int(0)};
  elementwise(ElementwiseOp::kAdd, d);
  const float want = static_cast<float>(big);
  for (int i = 0; i < 10; ++i) CHECK_EQ(static_cast<float>(get_value(out, i).first), want);
}

TEST(elementwise_in_place_output_aliases_an_input) {
  for (int c = 0; c < kNumDTypes; ++c) {
    const DType t = dt(c);
    if (!elementwise_supports(ElementwiseOp::kMul, t)) continue;
    const std::vector<int64_t> shape{300};
    Buf a = dense(t, shape), b = dense(t, shape);
    fill_inputs(a, 1);
    fill_inputs(b, 2);
    Buf expect = dense(t, shape);
    ElementwiseDesc d;
    d.shape = shape;
    d.compute = t;
    d.operands = {expect.operand(), a.operand(), b.operand()};
    elementwise(ElementwiseOp::kMul, d);
    d.operands = {a.operand(), a.operand(), b.operand()};  // a *= b
    elementwise(ElementwiseOp::kMul, d);
    CHECK_MSG(a.bytes == expect.bytes, "in-place mul " << dtype_name(t));
  }
}

TEST(elementwise_zero_size_and_zero_dim) {
  Buf out = dense(DType::kFloat32, {1}), a = dense(DType::kFloat32, {1});
  set_value(a, 0, -2.5);
  ElementwiseDesc d;
  d.shape = {};  // 0-dim: one element
  d.compute = DType::kFloat32;
  d.operands = {ElementwiseOperand::tensor(out.at(0), DType::kFloat32, {}),
                ElementwiseOperand::tensor(a.at(0), DType::kFloat32, {})};
  elementwise(ElementwiseOp::kAbs, d);
  CHECK_EQ(get_value(out, 0).first, 2.5);

  d.shape = {4, 0};  // empty: nothing runs, null pointers allowed
  d.operands = {ElementwiseOperand::tensor(nullptr, DType::kFloat32, {4, 16}),
                ElementwiseOperand::tensor(nullptr, DType::kFloat32, {4, 16})};
  elementwise(ElementwiseOp::kNeg, d);
}

// Large loops run on a stream, where parallel_for splits them over the
// device's cores; chunk edges must not matter.
TEST(elementwise_large_loops_split_across_cores) {
  namespace rt = torch_tpu::runtime;
  const int64_t n = (int64_t{1} << 22) + 12345;  // not a multiple of any chunk
  std::vector<float> a(n), b(n), out(n, -1.f);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) * 0.25f;
    b[i] = static_cast<float>(i % 77) - 30.f;
  }
  ElementwiseDesc d;
  d.shape = {n};
  d.compute = DType::kFloat32;
  d.operands = {ElementwiseOperand::tensor(out.data(), DType::kFloat32, {4}),
                ElementwiseOperand::tensor(a.data(), DType::kFloat32, {4}),
                ElementwiseOperand::tensor(b.data(), DType::kFloat32, {4})};
  d.args = {ScalarArg::from_double(0.5)};
  rt::Stream s = rt::default_stream(0);
  int cores = 0;
  CHECK(rt::launch(s, "test_add", {}, [&] {
          cores = rt::current_core_count();
          elementwise(ElementwiseOp::kAdd, d);
        }) == rt::Status::kSuccess);
  CHECK(rt::stream_synchronize(s) == rt::Status::kSuccess);
  CHECK(cores >= 1);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += out[i] != std::fma(b[i], 0.5f, a[i]);
  CHECK_EQ(bad, 0);

  // Strided float16 (buffered path) with an outer broadcast, 2-D.
  const int64_t rows = 1500, cols = 999;
  Buf x = make_buf(DType::kFloat16, rows * cols * 2, 0, {2, cols * 2});
  Buf y = make_buf(DType::kFloat16, cols, 0, {1, 0});
  fill_inputs(x, 4);
  fill_inputs(y, 5);
  Buf o = dense(DType::kFloat16, {cols, rows});
  Buf ref = dense(DType::kFloat16, {cols, rows});
  ElementwiseDesc h;
  h.shape = {cols, rows};
  h.compute = DType::kFloat16;
  h.operands = {o.operand(), x.operand(), y.operand()};
  CHECK(rt::launch(s, "test_mul", {}, [&] { elementwise(ElementwiseOp::kMul, h); }) == rt::Status::kSuccess);
  CHECK(rt::stream_synchronize(s) == rt::Status::kSuccess);
  h.operands[0] = ref.operand();
  elementwise(ElementwiseOp::kMul, h);  // inline on this thread: one chunk
  CHECK(o.bytes == ref.bytes);
}

TEST(elementwise_malformed_descriptors_throw) {
  Buf out = dense(DType::kFloat32, {4}), a = dense(DType::kFloat32, {4});
  ElementwiseDesc d;
  d.shape = {4};
  d.compute = DType::kFloat32;
  d.operands = {out.operand(), a.operand()};
  CHECK_THROWS(elementwise(ElementwiseOp::kAdd, d));  // missing input and alpha
  d.operands = {out.operand(), a.operand(), a.operand()};
  CHECK_THROWS(elementwise(ElementwiseOp::kAdd, d));  // missing alpha
  d.args = {ScalarArg::from_int(1)};
  elementwise(ElementwiseOp::kAdd, d);  // now fine
  d.operands[2].strides = {4, 4};
  CHECK_THROWS(elementwise(ElementwiseOp::kAdd, d));  // strides per dim
  d.operands = {ElementwiseOperand::scalar(DType::kFloat32, out.at(0)), a.operand(), a.operand()};
  CHECK_THROWS(elementwise(ElementwiseOp::kAdd, d));  // by-value output
  d.operands = {out.operand(), a.operand(), a.operand()};
  d.compute = DType::kUInt32;
  CHECK_THROWS(elementwise(ElementwiseOp::kAdd, d));  // CPU has no uint32 add
  try {
    elementwise(ElementwiseOp::kAdd, d);
  } catch (const std::invalid_argument& e) {
    CHECK_CONTAINS(e.what(), "uint32");
  }
  CHECK_THROWS(elementwise(static_cast<ElementwiseOp>(99), d));
}

TEST(elementwise_supported_dtypes_match_cpu) {
  // From torch 2.13 CPU: add/sub lack uint16/32/64 (sub also bool, rejected
  // by ATen first); mul has all; div (true) floating and complex; neg/abs
  // lack bool and uint16/32/64, except abs of bool, which tpu takes as CUDA
  // does (the identity). complex32: add, sub, mul, neg, abs, and div as CUDA.
  const auto set = [](ElementwiseOp op) {
    std::string s;
    for (int c = 0; c < kNumDTypes; ++c) s += elementwise_supports(op, dt(c)) ? '1' : '0';
    return s;
  };
  // Order: bool u8 i8 i16 i32 i64 u16 u32 u64 f16 bf16 f32 f64 c64 c128 c32
  CHECK_EQ(set(ElementwiseOp::kAdd), std::string("1111110001111111"));
  CHECK_EQ(set(ElementwiseOp::kSub), std::string("0111110001111111"));
  CHECK_EQ(set(ElementwiseOp::kMul), std::string("1111111111111111"));
  CHECK_EQ(set(ElementwiseOp::kDiv), std::string("0000000001111111"));  // complex32: CUDA's
  CHECK_EQ(set(ElementwiseOp::kNeg), std::string("0111110001111111"));
  CHECK_EQ(set(ElementwiseOp::kAbs), std::string("1111110001111111"));
}
