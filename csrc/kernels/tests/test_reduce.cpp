// Reduction kernels on host buffers (outside a launched body parallel_for
// runs inline): inner, outer and full shapes against a double-precision
// reference, NaN propagation, first index on ties, empty reductions, var.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/reduce/reduce.h"
#include "testing/harness.h"

using namespace torch_tpu::kernels;

namespace {

ReduceOperand opnd(void* p, DType t, std::vector<int64_t> strides) {
  ReduceOperand o;
  o.data = p;
  o.dtype = t;
  o.strides = std::move(strides);
  return o;
}

// rows x cols float32 row-major; reduce dim `dim` (0: over rows, 1: over
// cols, -1: everything) with `op`; float results.
std::vector<float> reduce2d(ReduceOp op, const std::vector<float>& x, int64_t rows, int64_t cols, int dim,
                            double p = 2) {
  ReduceDesc d;
  d.op = op;
  d.p = p;
  d.shape = {cols, rows};  // fastest first
  d.input = opnd(const_cast<float*>(x.data()), DType::kFloat32, {4, 4 * cols});
  const int64_t n = dim == -1 ? 1 : (dim == 0 ? cols : rows);
  std::vector<float> out(n, -12345.f);
  std::vector<int64_t> os = dim == -1 ? std::vector<int64_t>{0, 0}
                            : dim == 0 ? std::vector<int64_t>{4, 0}
                                       : std::vector<int64_t>{0, 4};
  d.outputs.push_back(opnd(out.data(), DType::kFloat32, os));
  reduce(d);
  return out;
}

std::vector<float> pattern(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(0.37 * i) * 3 + 0.01 * (i % 7));
  return v;
}

bool close(double a, double b, double tol) { return std::fabs(a - b) <= tol * (1 + std::fabs(b)); }

// Full reduction of a 1-D buffer of dtype `t` (T: its storage, or a complex
// dtype's part type); the output element's bytes
// (dtype `out_t`) as a uint64 (zero-extended).
template <typename T>
uint64_t reduce_all(ReduceOp op, std::vector<T> x, DType t, DType out_t) {
  ReduceDesc d;
  d.op = op;
  const int64_t es = static_cast<int64_t>(dtype_size(t));  // complex: pairs of T
  d.shape = {static_cast<int64_t>(x.size() * sizeof(T)) / es};
  d.input = opnd(x.data(), t, {es});
  uint64_t out = 0;
  d.outputs.push_back(opnd(&out, out_t, {0}));
  reduce(d);
  return out;
}

}  // namespace

TEST(reduce_sum_shapes_match_double_reference) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {17, 130}, {300, 70}, {5, 5000}}) {
    const std::vector<float> x = pattern(rows * cols);
    for (int dim : {-1, 0, 1}) {
      const std::vector<float> got = reduce2d(ReduceOp::kSum, x, rows, cols, dim);
      for (size_t k = 0; k < got.size(); ++k) {
        double ref = 0;
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c = 0; c < cols; ++c) {
            const bool in = dim == -1 || (dim == 0 ? c == static_cast<int64_t>(k) : r == static_cast<int64_t>(k));
            if (in) ref += x[r * cols + c];
          }
        }
        CHECK_MSG(close(got[k], ref, 1e-5), "rows " << rows << " cols " << cols << " dim " << dim << " k " << k
                                                    << ": " << got[k] << " vs " << ref);
      }
    }
  }
}

TEST(reduce_sum_is_pairwise_accurate) {
  // 2^24 + many ones: a sequential float sum would stall at 2^24.
  const int64_t n = 1 << 22;
  std::vector<float> x(n, 1.0f);
  const std::vector<float> got = reduce2d(ReduceOp::kSum, x, 1, n, -1);
  CHECK_EQ(got[0], static_cast<float>(n));
  std::vector<float> col(n, 1.0f);  // the same down one column
  CHECK_EQ(reduce2d(ReduceOp::kSum, col, n, 1, 0)[0], static_cast<float>(n));
}

TEST(reduce_max_propagates_nan_and_argmax_takes_first) {
  std::vector<float> x = {1, 5, 5, 2, -1, 5};
  CHECK_EQ(reduce2d(ReduceOp::kMax, x, 1, 6, -1)[0], 5.0f);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(reduce2d(ReduceOp::kMax, x, 1, 6, -1)[0]));
  CHECK(std::isnan(reduce2d(ReduceOp::kMin, x, 1, 6, -1)[0]));

  ReduceDesc d;
  d.op = ReduceOp::kArgMax;
  d.shape = {6};
  std::vector<float> y = {1, 5, 5, 2, -1, 5};
  int64_t idx = -7;
  d.input = opnd(y.data(), DType::kFloat32, {4});
  d.outputs.push_back(opnd(&idx, DType::kInt64, {0}));
  reduce(d);
  CHECK_EQ(idx, 1);
  y[4] = std::numeric_limits<float>::quiet_NaN();
  y[5] = std::numeric_limits<float>::quiet_NaN();
  reduce(d);
  CHECK_EQ(idx, 4);
  d.op = ReduceOp::kArgMin;
  y = {3, 1, 2, 1, 1, 9};
  reduce(d);
  CHECK_EQ(idx, 1);
}

TEST(reduce_argmax_long_rows_and_columns_first_index) {
  const int64_t rows = 50, cols = 3000;
  std::vector<float> x(rows * cols, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    x[r * cols + (r * 37) % cols] = 7;
    x[r * cols + (r * 37 + 1000) % cols] = 7;
  }
  ReduceDesc d;
  d.op = ReduceOp::kArgMax;
  d.shape = {cols, rows};
  d.input = opnd(x.data(), DType::kFloat32, {4, 4 * cols});
  std::vector<int64_t> idx(rows, -1);
  d.outputs.push_back(opnd(idx.data(), DType::kInt64, {0, 8}));
  reduce(d);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t a = (r * 37) % cols, b = (r * 37 + 1000) % cols;
    CHECK_EQ(idx[r], a < b ? a : b);
  }
}

TEST(reduce_empty_gives_identity) {
  float in = 0;
  ReduceDesc d;
  d.shape = {0, 3};
  d.input = opnd(&in, DType::kFloat32, {4, 0});
  std::vector<float> out(3, 9);
  d.outputs.push_back(opnd(out.data(), DType::kFloat32, {0, 4}));
  d.op = ReduceOp::kSum;
  reduce(d);
  CHECK_EQ(out[2], 0.0f);
  d.op = ReduceOp::kProd;
  reduce(d);
  CHECK_EQ(out[1], 1.0f);
  d.op = ReduceOp::kMean;
  reduce(d);
  CHECK(std::isnan(out[0]));
}

TEST(reduce_var_and_norms) {
  const std::vector<float> x = pattern(1000);
  double mean = 0;
  for (float v : x) mean += v;
  mean /= 1000;
  double m2 = 0, l1 = 0, l2 = 0, l3 = 0, linf = 0;
  for (float v : x) {
    m2 += (v - mean) * (v - mean);
    l1 += std::fabs(v);
    l2 += double(v) * v;
    l3 += std::pow(std::fabs(v), 3.0);
    linf = std::max(linf, double(std::fabs(v)));
  }
  CHECK(close(reduce2d(ReduceOp::kVar, x, 1, 1000, -1)[0], m2 / 999, 1e-6));
  CHECK(close(reduce2d(ReduceOp::kNorm, x, 1, 1000, -1, 2)[0], std::sqrt(l2), 1e-6));
  CHECK(close(reduce2d(ReduceOp::kNorm, x, 1, 1000, -1, 1)[0], l1, 1e-6));
  CHECK(close(reduce2d(ReduceOp::kNorm, x, 1, 1000, -1, 3)[0], std::cbrt(l3), 1e-5));
  CHECK(close(reduce2d(ReduceOp::kNorm, x, 1, 1000, -1, INFINITY)[0], linf, 0));
  CHECK(close(reduce2d(ReduceOp::kNorm, x, 10, 100, 0, 0)[1], 10, 0));  // column 0 holds x[0] == 0
}

// Bool and the integers are reduced as 64-bit keys per element size
// (reduce/ops.h IntBits), min as max of reversed keys, all as not-any: the
// widths, signs, uint64's top bit and non-canonical bool bytes each reach
// a distinct path.
TEST(reduce_integer_widths_and_bool_bytes) {
  const uint64_t top = uint64_t{1} << 63;
  CHECK_EQ(reduce_all<int8_t>(ReduceOp::kMax, {5, -128, 127, -3, 127}, DType::kInt8, DType::kInt8), 127u);
  CHECK_EQ(reduce_all<int8_t>(ReduceOp::kMin, {5, -128, 127, -128}, DType::kInt8, DType::kInt8), 0x80u);
  CHECK_EQ(reduce_all<int8_t>(ReduceOp::kArgMax, {5, -128, 127, -3, 127}, DType::kInt8, DType::kInt64), 2u);
  CHECK_EQ(reduce_all<int8_t>(ReduceOp::kArgMin, {5, -128, 127, -128}, DType::kInt8, DType::kInt64), 1u);
  CHECK_EQ(reduce_all<int8_t>(ReduceOp::kSum, {100, 100}, DType::kInt8, DType::kInt8), 200u);  // wraps to -56
  CHECK_EQ(reduce_all<int8_t>(ReduceOp::kXorSum, {-1}, DType::kInt8, DType::kUInt64), ~uint64_t{0});
  CHECK_EQ(reduce_all<uint16_t>(ReduceOp::kMax, {65535, 0, 65535}, DType::kUInt16, DType::kUInt16), 65535u);
  CHECK_EQ(reduce_all<uint16_t>(ReduceOp::kArgMin, {65535, 0, 0}, DType::kUInt16, DType::kInt64), 1u);
  CHECK_EQ(reduce_all<int16_t>(ReduceOp::kMin, {-1, 1}, DType::kInt16, DType::kInt16), 0xFFFFu);
  CHECK_EQ(reduce_all<uint64_t>(ReduceOp::kMax, {1, top + 5, top, 7}, DType::kUInt64, DType::kUInt64), top + 5);
  CHECK_EQ(reduce_all<uint64_t>(ReduceOp::kArgMin, {top, 9, 1, 1}, DType::kUInt64, DType::kInt64), 2u);
  CHECK_EQ(reduce_all<int64_t>(ReduceOp::kMin, {-5, INT64_MIN, 3}, DType::kInt64, DType::kInt64),
           static_cast<uint64_t>(INT64_MIN));
  CHECK_EQ(reduce_all<uint64_t>(ReduceOp::kProd, {top + 1, 3}, DType::kUInt64, DType::kUInt64), top + 3);
  // bool bytes 2 and 1 are both true: the first one is the argmax
  const std::vector<uint8_t> b = {0, 2, 1, 0};
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kArgMax, b, DType::kBool, DType::kInt64), 1u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kMax, b, DType::kBool, DType::kBool), 1u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kXorSum, b, DType::kBool, DType::kUInt64), 0u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kAll, {2, 4}, DType::kBool, DType::kBool), 1u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kAll, b, DType::kBool, DType::kBool), 0u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kAny, b, DType::kBool, DType::kBool), 1u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kAny, {}, DType::kBool, DType::kBool), 0u);
  CHECK_EQ(reduce_all<uint8_t>(ReduceOp::kAll, {}, DType::kBool, DType::kBool), 1u);
}

// all/any test an element's bits under a mask: -0.0 is zero, NaN is not,
// a complex number is nonzero if either part is.
TEST(reduce_all_any_float_bits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_EQ(reduce_all<float>(ReduceOp::kAny, {-0.0f, 0.0f}, DType::kFloat32, DType::kBool), 0u);
  CHECK_EQ(reduce_all<float>(ReduceOp::kAll, {nan, -1e-45f}, DType::kFloat32, DType::kBool), 1u);
  CHECK_EQ(reduce_all<uint16_t>(ReduceOp::kAny, {0x8000, 0x8000}, DType::kBFloat16, DType::kBool), 0u);
  CHECK_EQ(reduce_all<uint16_t>(ReduceOp::kAll, {0x8001, 0x3C00}, DType::kFloat16, DType::kBool), 1u);
  CHECK_EQ(reduce_all<double>(ReduceOp::kAny, {-0.0, -0.0}, DType::kFloat64, DType::kBool), 0u);
  // complex64 pairs: (0, -0) is zero, (-0, 1) is not
  CHECK_EQ(reduce_all<float>(ReduceOp::kAny, {0.0f, -0.0f}, DType::kComplex64, DType::kBool), 0u);
  CHECK_EQ(reduce_all<float>(ReduceOp::kAll, {-0.0f, 1.0f, 2.0f, 0.0f}, DType::kComplex64, DType::kBool), 1u);
  CHECK_EQ(reduce_all<double>(ReduceOp::kAll, {0.0, 0.0, 2.0, 0.0}, DType::kComplex128, DType::kBool), 0u);
  CHECK_EQ(reduce_all<double>(ReduceOp::kAny, {-0.0, -0.0, 0.0, 3.0}, DType::kComplex128, DType::kBool), 1u);
}

TEST(scan_cumsum_strided) {
  std::vector<int32_t> in = {1, 2, 3, 4, 5, 6};  // 2 x 3
  std::vector<int32_t> out(6, 0);
  TensorDesc i, o;
  i.data = in.data();
  o.data = out.data();
  i.dtype = o.dtype = DType::kInt32;
  i.sizes = o.sizes = {2, 3};
  i.strides = o.strides = {3, 1};
  scan(ScanOp::kCumSum, o, i, 0);
  CHECK_EQ(out[3], 5);
  CHECK_EQ(out[5], 9);
  scan(ScanOp::kCumProd, o, i, 1);
  CHECK_EQ(out[2], 6);
  CHECK_EQ(out[5], 120);
}
