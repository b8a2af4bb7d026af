// Layer norm over the rows of [M, N].
//
// Forward, per row: mean and variance in two passes (lane-wise sums in the
// compute type, blocks combined in double), rstd = 1 / sqrt(max(var, 0) +
// eps), y = (x * rstd - mean * rstd) * gamma + beta, as CPU orders it.
//
// Backward: dx per row from ds = sum(dy * gamma * x) and db = sum(dy *
// gamma); dgamma / dbeta are column sums over rows, taken as partial sums
// over fixed blocks of rows (so the result does not depend on the core
// count), then added block by block.
// No FMA contraction: CPU rounds x * scale + bias as two operations.
#include "kernels/common/fp_contract.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/nn/nn.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

// gamma / beta widened once (1 / 0 when absent).
template <typename C>
std::vector<C> load_param(const void* p, DType t, int64_t n, C absent) {
  std::vector<C> v(n, absent);
  if (p != nullptr) nn::load_row(p, t, 0, n, v.data());
  return v;
}

template <typename C>
void forward_typed(const LayerNormDesc& d) {
  const int64_t N = d.N;
  const std::vector<C> gamma = load_param<C>(d.gamma, d.param_dtype, N, C(1));
  const std::vector<C> beta = load_param<C>(d.beta, d.param_dtype, N, C(0));
  const bool has_gamma = d.gamma != nullptr, has_beta = d.beta != nullptr;
  const bool direct = std::is_same_v<C, float> && d.x_dtype == DType::kFloat32;
  runtime::parallel_for(0, d.M, nn::rows_grain(N), [&](int64_t b, int64_t e) {
    std::vector<C> buf(direct ? 0 : N);
    const C* g = gamma.data();
    const C* bt = beta.data();
    for (int64_t r = b; r < e; ++r) {
      const C* x;
      C* y;
      if constexpr (std::is_same_v<C, float>) {
        if (direct) {
          x = static_cast<const float*>(d.x) + r * N;
          y = static_cast<float*>(d.y) + r * N;
        } else {
          nn::load_row(d.x, d.x_dtype, r * N, N, buf.data());
          x = y = buf.data();
        }
      } else {
        nn::load_row(d.x, d.x_dtype, r * N, N, buf.data());
        x = y = buf.data();
      }
      const C mean = static_cast<C>(nn::sum_lanes<C>(N, [&](int64_t i) { return x[i]; }) / N);
      const C var = static_cast<C>(nn::sum_lanes<C>(N, [&](int64_t i) {
                                     const C t = x[i] - mean;
                                     return t * t;
                                   }) / N);
      const C rstd = C(1) / std::sqrt(std::max(var, C(0)) + static_cast<C>(d.eps));
      const C shift = -mean * rstd;
      if (has_gamma && has_beta) {
        for (int64_t i = 0; i < N; ++i) y[i] = (x[i] * rstd + shift) * g[i] + bt[i];
      } else if (has_gamma) {
        for (int64_t i = 0; i < N; ++i) y[i] = (x[i] * rstd + shift) * g[i];
      } else if (has_beta) {
        for (int64_t i = 0; i < N; ++i) y[i] = (x[i] * rstd + shift) + bt[i];
      } else {
        for (int64_t i = 0; i < N; ++i) y[i] = x[i] * rstd + shift;
      }
      if (!direct) nn::store_row(y, N, d.y, d.x_dtype, r * N);
      if (d.mean != nullptr) nn::store_one(mean, d.mean, d.stat_dtype, r);
      if (d.rstd != nullptr) nn::store_one(rstd, d.rstd, d.stat_dtype, r);
    }
  });
}

template <typename C>
void backward_typed(const LayerNormBackwardDesc& d) {
  const int64_t M = d.M, N = d.N;
  const std::vector<C> gamma = load_param<C>(d.gamma, d.param_dtype, N, C(1));
  const bool want_params = d.dgamma != nullptr || d.dbeta != nullptr;
  // Fixed row blocks for the column sums: at most 256 blocks, at least 16 rows.
  const int64_t block_rows = std::max<int64_t>(16, (M + 255) / 256);
  const int64_t blocks = (M + block_rows - 1) / block_rows;
  std::vector<C> pg(want_params ? blocks * N : 0), pb(want_params ? blocks * N : 0);

  // Rows already in the compute type (float32 with C = float, float64 with
  // C = double) are read and written in place; others go through buffers.
  constexpr DType kComputeDtype = std::is_same_v<C, float> ? DType::kFloat32 : DType::kFloat64;
  const bool direct = d.x_dtype == kComputeDtype;
  runtime::parallel_for(0, blocks, std::max<int64_t>(1, nn::rows_grain(N) / block_rows), [&](int64_t bb, int64_t be) {
    std::vector<C> dy_buf(direct ? 0 : N), x_buf(direct ? 0 : N), dx_buf(direct ? 0 : N);
    const C* __restrict g = gamma.data();
    for (int64_t blk = bb; blk < be; ++blk) {
      C* sg = want_params ? pg.data() + blk * N : nullptr;
      C* sb = want_params ? pb.data() + blk * N : nullptr;
      if (want_params) std::fill(sg, sg + N, C(0)), std::fill(sb, sb + N, C(0));
      const int64_t r_end = std::min(M, (blk + 1) * block_rows);
      for (int64_t r = blk * block_rows; r < r_end; ++r) {
        const C* __restrict dy;
        const C* __restrict x;
        C* __restrict dx;
        if (direct) {
          dy = static_cast<const C*>(d.dy) + r * N;
          x = static_cast<const C*>(d.x) + r * N;
          dx = d.dx == nullptr ? nullptr : static_cast<C*>(d.dx) + r * N;
        } else {
          nn::load_row(d.dy, d.x_dtype, r * N, N, dy_buf.data());
          nn::load_row(d.x, d.x_dtype, r * N, N, x_buf.data());
          dy = dy_buf.data();
          x = x_buf.data();
          dx = dx_buf.data();
        }
        const C mean = nn::load_one<C>(d.mean, d.stat_dtype, r);
        const C rstd = nn::load_one<C>(d.rstd, d.stat_dtype, r);
        if (want_params) {
          for (int64_t i = 0; i < N; ++i) {
            sg[i] += dy[i] * (x[i] - mean) * rstd;
            sb[i] += dy[i];
          }
        }
        if (d.dx == nullptr) continue;
        const auto [ds_sum, db_sum] = nn::sum2_lanes<C>(
            N, [&](int64_t i) { return dy[i] * g[i] * x[i]; }, [&](int64_t i) { return dy[i] * g[i]; });
        const C ds = static_cast<C>(ds_sum);
        const C db = static_cast<C>(db_sum);
        const C scale = C(1) / static_cast<C>(N);
        const C bcoef = (db * mean - ds) * rstd * rstd * rstd * scale;
        const C ccoef = -bcoef * mean - db * rstd * scale;
        for (int64_t i = 0; i < N; ++i) dx[i] = rstd * dy[i] * g[i] + bcoef * x[i] + ccoef;
        if (!direct) nn::store_row(dx, N, d.dx, d.x_dtype, r * N);
      }
    }
  });
  if (!want_params) return;
  // Column sums of the block partials, in double, split over columns.
  runtime::parallel_for(0, N, 1024, [&](int64_t cb, int64_t ce) {
    std::vector<double> sg(ce - cb, 0.0), sb(ce - cb, 0.0);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const C* rg = pg.data() + blk * N;
      const C* rb = pb.data() + blk * N;
      for (int64_t i = cb; i < ce; ++i) {
        sg[i - cb] += rg[i];
        sb[i - cb] += rb[i];
      }
    }
    std::vector<C> out(ce - cb);
    if (d.dgamma != nullptr) {
      for (int64_t i = cb; i < ce; ++i) out[i - cb] = static_cast<C>(sg[i - cb]);
      nn::store_row(out.data(), ce - cb, d.dgamma, d.param_dtype, cb);
    }
    if (d.dbeta != nullptr) {
      for (int64_t i = cb; i < ce; ++i) out[i - cb] = static_cast<C>(sb[i - cb]);
      nn::store_row(out.data(), ce - cb, d.dbeta, d.param_dtype, cb);
    }
  });
}

void check(DType x, DType p, DType s, const char* what) {
  if (!nn::is_nn_float(x) || !nn::is_nn_float(p) || !nn::is_nn_float(s)) {
    throw std::invalid_argument(std::string(what) + ": unsupported dtype");
  }
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(layer_norm_forward)(const LayerNormDesc& d) {
  check(d.x_dtype, d.param_dtype, d.stat_dtype, "layer_norm");
  if (d.M == 0) return;
  nn::with_compute_type(d.x_dtype, [&](auto c) { forward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(layer_norm_backward)(const LayerNormBackwardDesc& d) {
  check(d.x_dtype, d.param_dtype, d.stat_dtype, "layer_norm_backward");
  if (d.M == 0) return;
  nn::with_compute_type(d.x_dtype, [&](auto c) { backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
