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
