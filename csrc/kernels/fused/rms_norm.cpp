// RMSNorm over the rows of [rows, n] (tpu::rms_norm, tpu::rms_norm_backward).
//
// Forward, per row: ms = mean(x^2) (lane-wise sums in the compute type,
// blocks combined in double, as layer norm), rstd = 1 / sqrt(ms + eps),
// y = x * rstd * weight.
// Backward, per row: u = dy * weight, dx = rstd * u - x * rstd^3 * mean(u * x);
// dweight = column sums of dy * x * rstd over fixed blocks of rows, added
// block by block (the same bits for any core count).
#include "kernels/common/fp_contract.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/fused/fused.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

template <typename C>
std::vector<C> load_weight(const void* w, DType t, int64_t n) {
  std::vector<C> v(n, C(1));
  if (w != nullptr) nn::load_row(w, t, 0, n, v.data());
  return v;
}

template <typename C>
C row_rstd(const C* x, int64_t n, double eps) {
  const double ms = nn::sum_lanes<C>(n, [&](int64_t i) { return x[i] * x[i]; }) / static_cast<double>(n);
  return static_cast<C>(1.0 / std::sqrt(ms + eps));
}

template <typename C>
void forward_typed(const RmsNormDesc& d) {
  const int64_t n = d.n;
  const std::vector<C> weight = load_weight<C>(d.weight, d.dtype, n);
  runtime::parallel_for(0, d.rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<C> buf(n);
    const C* __restrict w = weight.data();
    for (int64_t r = b; r < e; ++r) {
      nn::load_row(d.x, d.dtype, r * n, n, buf.data());
      C* __restrict x = buf.data();
      const C rstd = row_rstd(x, n, d.eps);
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] * rstd * w[i];
      nn::store_row(x, n, d.y, d.dtype, r * n);
    }
  });
}

template <typename C>
void backward_typed(const RmsNormBackwardDesc& d) {
  const int64_t rows = d.rows, n = d.n;
  const std::vector<C> weight = load_weight<C>(d.weight, d.dtype, n);
  const bool want_dw = d.dweight != nullptr;
  const int64_t block_rows = std::max<int64_t>(16, (rows + 255) / 256);
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  std::vector<C> partial(want_dw ? blocks * n : 0);
  runtime::parallel_for(0, blocks, std::max<int64_t>(1, nn::rows_grain(n) / block_rows),
                        [&](int64_t bb, int64_t be) {
    std::vector<C> dy(n), x(n), dx(n);
    const C* __restrict w = weight.data();
    for (int64_t blk = bb; blk < be; ++blk) {
      C* __restrict pw = want_dw ? partial.data() + blk * n : nullptr;
      if (want_dw) std::fill(pw, pw + n, C(0));
      const int64_t r_end = std::min(rows, (blk + 1) * block_rows);
      for (int64_t r = blk * block_rows; r < r_end; ++r) {
        nn::load_row(d.dy, d.dtype, r * n, n, dy.data());
        nn::load_row(d.x, d.dtype, r * n, n, x.data());
        const C rstd = row_rstd(x.data(), n, d.eps);
        if (want_dw) {
          for (int64_t i = 0; i < n; ++i) pw[i] += dy[i] * x[i] * rstd;
        }
        if (d.dx == nullptr) continue;
        const double ux = nn::sum_lanes<C>(n, [&](int64_t i) { return dy[i] * w[i] * x[i]; });
        const C coef = static_cast<C>(ux / static_cast<double>(n)) * rstd * rstd * rstd;
        for (int64_t i = 0; i < n; ++i) dx[i] = rstd * dy[i] * w[i] - x[i] * coef;
        nn::store_row(dx.data(), n, d.dx, d.dtype, r * n);
      }
    }
  });
  if (!want_dw) return;
  std::vector<C> total(n, C(0));
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const C* p = partial.data() + blk * n;
    for (int64_t i = 0; i < n; ++i) total[i] += p[i];
  }
  nn::store_row(total.data(), n, d.dweight, d.dtype, 0);
}

void check_dtype(DType t, const char* name) {
  if (!nn::is_nn_float(t)) throw std::invalid_argument(std::string(name) + ": unsupported dtype");
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(rms_norm_forward)(const RmsNormDesc& d) {
  check_dtype(d.dtype, "rms_norm");
  if (d.rows * d.n == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { forward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(rms_norm_backward)(const RmsNormBackwardDesc& d) {
  check_dtype(d.dtype, "rms_norm_backward");
  if (d.n == 0) return;
  if (d.rows == 0) {  // no rows: dweight is a sum over nothing
    if (d.dweight != nullptr) {
      const std::vector<double> zeros(d.n, 0.0);
      nn::store_row(zeros.data(), d.n, d.dweight, d.dtype, 0);
    }
    return;
  }
  nn::with_compute_type(d.dtype, [&](auto c) { backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
