// gemm / gemv against a double-precision reference: every dtype, row- and
// column-major and strided operands, odd sizes (edge tiles), k = 0, beta = 0
// with NaN in S, S aliasing C, batches with broadcast (stride 0) operands, and
// runs inside a launched body so the work is split over the device's cores.
// `tpu_kernels_tests --bench-gemm [n]` prints GFLOP/s of n^3 products.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/linalg/gemm.h"
#include "kernels/common/half.h"
#include "runtime/runtime.h"
#include "testing/harness.h"

using namespace torch_tpu::kernels;
namespace rt = torch_tpu::runtime;

namespace {

double to_double(DType t, const void* p) {
  switch (t) {
    case DType::kFloat32: return *static_cast<const float*>(p);
    case DType::kFloat64: return *static_cast<const double*>(p);
    case DType::kFloat16: return half_bits_to_float(*static_cast<const uint16_t*>(p));
    case DType::kBFloat16: return bfloat16_bits_to_float(*static_cast<const uint16_t*>(p));
    case DType::kUInt8: return *static_cast<const uint8_t*>(p);
    case DType::kInt8: return *static_cast<const int8_t*>(p);
    case DType::kInt16: return *static_cast<const int16_t*>(p);
    case DType::kInt32: return *static_cast<const int32_t*>(p);
    case DType::kInt64: return static_cast<double>(*static_cast<const int64_t*>(p));
    default: return 0;
  }
}

void from_double(DType t, void* p, double v) {
  switch (t) {
    case DType::kFloat32: *static_cast<float*>(p) = static_cast<float>(v); break;
    case DType::kFloat64: *static_cast<double*>(p) = v; break;
    case DType::kFloat16: *static_cast<uint16_t*>(p) = float_to_half_bits(static_cast<float>(v)); break;
    case DType::kBFloat16: *static_cast<uint16_t*>(p) = float_to_bfloat16_bits(static_cast<float>(v)); break;
    case DType::kUInt8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(static_cast<int64_t>(v)); break;
    case DType::kInt8: *static_cast<int8_t*>(p) = static_cast<int8_t>(static_cast<int64_t>(v)); break;
    case DType::kInt16: *static_cast<int16_t*>(p) = static_cast<int16_t>(static_cast<int64_t>(v)); break;
    case DType::kInt32: *static_cast<int32_t*>(p) = static_cast<int32_t>(static_cast<int64_t>(v)); break;
    case DType::kInt64: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    default: break;
  }
}

bool is_int(DType t) { return t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16 && t != DType::kBFloat16; }

// A strided matrix batch in a host buffer.
struct Mat {
  DType t;
  int64_t batch, rows, cols, rs, cs, bs;
  std::vector<unsigned char> buf;
  Mat(DType t_, int64_t b, int64_t r, int64_t c, bool col_major, int64_t pad = 0, bool bcast = false)
      : t(t_), batch(b), rows(r), cols(c) {
    if (col_major) {
      rs = 1;
      cs = r + pad;
    } else {
      cs = 1;
      rs = c + pad;
    }
    const int64_t one = col_major ? (c * (r + pad)) : (r * (c + pad));
    bs = bcast ? 0 : one;
    buf.assign(dtype_size(t) * (bcast ? one : one * b) + 64, 0);
  }
  void* at(int64_t b, int64_t i, int64_t j) {
    return buf.data() + (b * bs + i * rs + j * cs) * dtype_size(t);
  }
  double get(int64_t b, int64_t i, int64_t j) { return to_double(t, at(b, i, j)); }
  void set(int64_t b, int64_t i, int64_t j, double v) { from_double(t, at(b, i, j), v); }
  MatrixView view() { return {buf.data(), rs, cs, bs}; }
  void fill(std::mt19937& g) {
    std::uniform_int_distribution<int> d(-4, 4);
    const int64_t nb = bs == 0 ? 1 : batch;
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) set(b, i, j, is_int(t) ? d(g) : d(g) * 0.25 + 0.125 * (d(g) & 1));
  }
};

// Runs gemm on the device worker (so parallel_for uses the cores).
void run_on_device(const GemmDesc& d) {
  rt::Stream s = rt::default_stream(0);
  CHECK(rt::launch(s, "gemm_test", {}, [d] { gemm(d); }) == rt::Status::kSuccess);
  CHECK(rt::stream_synchronize(s) == rt::Status::kSuccess);
}

int check_case(DType t, int64_t batch, int64_t m, int64_t n, int64_t k, bool a_cm, bool b_cm, bool c_cm,
               double alpha, double beta, int s_mode /*0 separate, 1 alias C, 2 row broadcast*/,
               bool a_bcast = false) {
  std::mt19937 g(static_cast<unsigned>(m * 131 + n * 17 + k * 7 + batch));
  Mat A(t, batch, m, k, a_cm, 3, a_bcast), B(t, batch, k, n, b_cm, 1), C(t, batch, m, n, c_cm, 2);
  Mat S(t, batch, m, n, false, 0);
  A.fill(g);
  B.fill(g);
  C.fill(g);
  S.fill(g);
  GemmDesc d;
  d.dtype = t;
  d.batch = batch, d.m = m, d.n = n, d.k = k;
  d.a = A.view(), d.b = B.view(), d.c = C.view();
  if (s_mode == 0) d.s = S.view();
  if (s_mode == 1) d.s = C.view();
  if (s_mode == 2) d.s = {S.buf.data(), 0, 1, 0};  // one bias row for every row
  d.alpha = alpha, d.beta = beta;
  d.ialpha = static_cast<int64_t>(alpha), d.ibeta = static_cast<int64_t>(beta);
  d.beta_zero = beta == 0;
  if (d.beta_zero && s_mode != 1 && !is_int(t)) {  // NaN in S must not propagate
    from_double(t, S.buf.data(), std::numeric_limits<double>::quiet_NaN());
  }
  // Reference, before C is overwritten.
  std::vector<double> ref(batch * m * n);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += A.get(b, i, p) * B.get(b, p, j);
        double sv = s_mode == 1 ? C.get(b, i, j) : s_mode == 2 ? S.get(0, 0, j) : S.get(b, i, j);
        double r = (k > 0 ? alpha * acc : 0) + (beta != 0 ? beta * sv : 0);
        if (is_int(t)) {  // wrap like the dtype
          Mat tmp(t, 1, 1, 1, false);
          tmp.set(0, 0, 0, r);
          r = tmp.get(0, 0, 0);
        }
        ref[(b * m + i) * n + j] = r;
      }
  run_on_device(d);
  const double tol = t == DType::kBFloat16 ? 1e-2 : t == DType::kFloat16 ? 2e-3 : t == DType::kFloat32 ? 1e-5 : 0;
  int bad = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double want = ref[(b * m + i) * n + j], got = C.get(b, i, j);
        if (!(std::fabs(got - want) <= tol * (1 + std::fabs(want)))) {
          if (bad++ < 3) {
            CHECK_MSG(false, std::string(dtype_name(t)) + " b" + std::to_string(batch) + " " + std::to_string(m) +
                                 "x" + std::to_string(n) + "x" + std::to_string(k) + " at (" + std::to_string(b) +
                                 "," + std::to_string(i) + "," + std::to_string(j) + "): got " +
                                 std::to_string(got) + " want " + std::to_string(want));
          }
        }
      }
  return bad;
}

const DType kAll[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kUInt8,
                      DType::kInt8,    DType::kInt16,   DType::kInt32,   DType::kInt64};

}  // namespace

TEST(gemm_layouts_and_edges) {
  for (DType t : kAll) {
    for (int layout = 0; layout < 8; ++layout) {
      const bool a_cm = layout & 1, b_cm = layout & 2, c_cm = layout & 4;
      check_case(t, 1, 13, 70, 9, a_cm, b_cm, c_cm, 1, 0, 0);
      check_case(t, 1, 23, 131, 300, a_cm, b_cm, c_cm, 2, 1, 0);  // two k blocks
      check_case(t, 1, 45, 37, 70, a_cm, b_cm, c_cm, 1, 0, 0);    // rows past one 32-row packing group
    }
  }
}

TEST(gemm_alpha_beta_alias_bias) {
  for (DType t : kAll) {
    check_case(t, 1, 20, 33, 17, false, false, false, 1, 1, 1);   // in place (addmm_)
    check_case(t, 1, 20, 33, 17, false, true, false, 1, 1, 2);    // Linear: x @ W^T + bias
    check_case(t, 1, 20, 33, 17, false, false, false, 3, 2, 0);
    check_case(t, 1, 7, 5, 0, false, false, false, 2, 3, 0);      // k = 0: beta * S
    check_case(t, 1, 7, 5, 0, false, false, false, 2, 0, 0);      // k = 0, beta = 0: zeros
  }
  check_case(DType::kFloat32, 1, 8, 9, 10, false, false, false, 1, 0, 0);  // NaN in S ignored
}

TEST(gemm_batched_and_vectors) {
  for (DType t : kAll) {
    check_case(t, 5, 9, 12, 16, false, true, false, 1, 0, 0);
    check_case(t, 4, 9, 12, 16, true, false, false, 1, 1, 0, /*a_bcast=*/true);
    check_case(t, 3, 33, 1, 40, false, false, false, 1, 0, 0);   // gemv (n == 1)
    check_case(t, 3, 33, 1, 40, true, false, false, 2, 1, 0);
    check_case(t, 2, 1, 45, 40, false, false, false, 1, 0, 0);   // m == 1
    check_case(t, 2, 1, 45, 40, false, true, false, 1, 1, 0);
    check_case(t, 1, 1, 1, 50000, false, false, false, 1, 0, 0);  // dot, split over k
  }
}

TEST(gemm_narrow_float_tiles) {
  // float32 picks a narrower, taller tile when that computes less padding
  // (gemm.cpp, gemm_f32): attention's 16- and 32-column products, a
  // convolution's weight gradient (few rows, long k, B a transposed
  // im2col: the vectorized transpose when packing, with a k remainder) and
  // its forward (images batched, the weight shared).
  check_case(DType::kFloat32, 3, 32, 16, 40, false, true, false, 1, 0, 0);
  check_case(DType::kFloat32, 2, 36, 32, 64, false, true, false, 1, 1, 0);
  check_case(DType::kFloat32, 2, 37, 18, 33, true, false, true, 1, 0, 0);
  check_case(DType::kFloat32, 1, 16, 144, 1100, false, true, false, 1, 0, 0);
  check_case(DType::kFloat32, 4, 16, 256, 144, false, false, false, 1, 0, 0, /*a_bcast=*/true);
}

TEST(gemm_large_float) {
  // Several row chunks, column blocks and k blocks.
  check_case(DType::kFloat32, 1, 200, 520, 300, false, false, false, 1, 0, 0);
  check_case(DType::kBFloat16, 1, 100, 300, 601, false, true, false, 1, 0, 0);
  check_case(DType::kFloat64, 2, 100, 140, 270, true, false, true, 1, 1, 0);
}

TEST_MODE(bench_gemm, "--bench-gemm", "[n] gemm GFLOP/s of n x n x n products on a stream") {
  const int64_t n = argc > 0 ? std::atoll(argv[0]) : 1024;
  rt::DeviceProperties props;
  rt::get_device_properties(0, &props);
  std::printf("gemm %lld^3, %d cores per device (best of 5)\n", static_cast<long long>(n), props.core_count);
  for (DType t : {DType::kFloat32, DType::kBFloat16, DType::kFloat16, DType::kFloat64}) {
    for (int bt = 0; bt < 2; ++bt) {
      Mat A(t, 1, n, n, false), B(t, 1, n, n, bt == 1), C(t, 1, n, n, false);
      GemmDesc d;
      d.dtype = t;
      d.m = d.n = d.k = n;
      d.a = A.view(), d.b = B.view(), d.c = C.view(), d.s = C.view();
      rt::Stream s = rt::default_stream(0);
      double best = 1e30, best_cpu = 1e30;
      for (int r = 0; r < 6; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        rt::launch(s, "gemm_bench", {}, [d] { gemm(d); });
        rt::stream_synchronize(s);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
        if (r > 0) best = std::min(best, sec), best_cpu = std::min(best_cpu, cpu);
      }
      // Process CPU time is less sensitive to other load on a shared machine.
      std::printf("  %-9s %s  %8.3f ms wall  %8.3f ms cpu  %7.1f GFLOP/s  (%s)\n", dtype_name(t),
                  bt ? "A @ B^T" : "A @ B  ", best * 1e3, best_cpu * 1e3, 2.0 * n * n * n / best * 1e-9,
                  gemm_kernel_name(t));
    }
  }
  return 0;
}
