// Batch norm over the channels of [N, C, S] (nn.h).
//
// Forward, per channel (the channels split over the cores): training takes
// the mean and the biased variance of its N * S values in two passes
// (lane-wise sums in the compute type, blocks combined in double) and moves
// the running statistics by momentum, the variance unbiased (n / (n - 1)),
// as ATen's batch_norm_cpu_update_stats; eval reads them. Then
// y = x * alpha + beta with alpha = invstd * weight and
// beta = bias - mean * alpha, CPU's batch_norm_cpu_transform_input.
//
// Backward, per channel: sum(dy) and sum(dy * (x - mean)) in one pass, then
// dx = (dy - mean(dy) - (x - mean) * invstd^2 * mean(dy * (x - mean)))
//      * invstd * weight          (training; eval: dy * invstd * weight),
// dweight = sum(dy * (x - mean)) * invstd, dbias = sum(dy).
#include "kernels/common/fp_contract.h"
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/nn/nn.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

template <typename C>
void forward_typed(const BatchNormDesc& d) {
  const int64_t N = d.N, C_ = d.C, S = d.S;
  const double count = static_cast<double>(N * S);
  runtime::parallel_for(0, C_, 1, [&](int64_t b, int64_t e) {
    std::vector<C> row(S);
    for (int64_t c = b; c < e; ++c) {
      double mean = 0, invstd = 0;
      if (d.training) {
        double sum = 0;
        for (int64_t n = 0; n < N; ++n) {
          nn::load_row(d.x, d.x_dtype, (n * C_ + c) * S, S, row.data());
          sum += nn::sum_lanes<C>(S, [&](int64_t i) { return row[i]; });
        }
        mean = count > 0 ? sum / count : 0.0;
        const C m = static_cast<C>(mean);
        double sq = 0;
        for (int64_t n = 0; n < N; ++n) {
          nn::load_row(d.x, d.x_dtype, (n * C_ + c) * S, S, row.data());
          sq += nn::sum_lanes<C>(S, [&](int64_t i) { const C v = row[i] - m; return v * v; });
        }
        const double var = count > 0 ? sq / count : 0.0;
        invstd = 1.0 / std::sqrt(var + d.eps);
        if (d.running_mean != nullptr) {
          const double rm = nn::load_one<double>(d.running_mean, d.running_dtype, c);
          nn::store_one((1 - d.momentum) * rm + d.momentum * mean, d.running_mean, d.running_dtype, c);
        }
        if (d.running_var != nullptr) {
          const double unbiased = count > 1 ? sq / (count - 1) : std::numeric_limits<double>::infinity();
          const double rv = nn::load_one<double>(d.running_var, d.running_dtype, c);
          nn::store_one((1 - d.momentum) * rv + d.momentum * unbiased, d.running_var, d.running_dtype, c);
        }
      } else {
        mean = nn::load_one<double>(d.running_mean, d.running_dtype, c);
        invstd = 1.0 / std::sqrt(nn::load_one<double>(d.running_var, d.running_dtype, c) + d.eps);
      }
      if (d.save_mean != nullptr) nn::store_one(mean, d.save_mean, d.stat_dtype, c);
      if (d.save_invstd != nullptr) nn::store_one(invstd, d.save_invstd, d.stat_dtype, c);
      const double w = d.weight ? nn::load_one<double>(d.weight, d.param_dtype, c) : 1.0;
      const double bias = d.bias ? nn::load_one<double>(d.bias, d.param_dtype, c) : 0.0;
      const C alpha = static_cast<C>(invstd * w);
      const C beta = static_cast<C>(bias - mean * invstd * w);
      for (int64_t n = 0; n < N; ++n) {
        nn::load_row(d.x, d.x_dtype, (n * C_ + c) * S, S, row.data());
        for (int64_t i = 0; i < S; ++i) row[i] = row[i] * alpha + beta;
        nn::store_row(row.data(), S, d.y, d.x_dtype, (n * C_ + c) * S);
      }
    }
  });
}

template <typename C>
void backward_typed(const BatchNormBackwardDesc& d) {
  const int64_t N = d.N, C_ = d.C, S = d.S;
  const double count = static_cast<double>(N * S);
  runtime::parallel_for(0, C_, 1, [&](int64_t b, int64_t e) {
    std::vector<C> xr(S), gr(S);
    for (int64_t c = b; c < e; ++c) {
      const double mean = nn::load_one<double>(d.mean, d.stat_dtype, c);
      const double second = nn::load_one<double>(d.invstd_or_var, d.stat_dtype, c);
      const double invstd = d.training ? second : 1.0 / std::sqrt(second + d.eps);
      const double w = d.weight ? nn::load_one<double>(d.weight, d.param_dtype, c) : 1.0;
      const C m = static_cast<C>(mean);
      double sum_dy = 0, dot = 0;
      for (int64_t n = 0; n < N; ++n) {
        nn::load_row(d.x, d.x_dtype, (n * C_ + c) * S, S, xr.data());
        nn::load_row(d.dy, d.x_dtype, (n * C_ + c) * S, S, gr.data());
        const auto [s, p] = nn::sum2_lanes<C>(
            S, [&](int64_t i) { return gr[i]; }, [&](int64_t i) { return gr[i] * (xr[i] - m); });
        sum_dy += s;
        dot += p;
      }
      if (d.dweight != nullptr) nn::store_one(dot * invstd, d.dweight, d.param_dtype, c);
      if (d.dbias != nullptr) nn::store_one(sum_dy, d.dbias, d.param_dtype, c);
      if (d.dx == nullptr) continue;
      const C scale = static_cast<C>(invstd * w);
      // training: dx = (dy - mean_dy - (x - mean) * k) * scale
      const C mean_dy = d.training && count > 0 ? static_cast<C>(sum_dy / count) : C(0);
      const C k = d.training && count > 0 ? static_cast<C>(dot / count * invstd * invstd) : C(0);
      for (int64_t n = 0; n < N; ++n) {
        nn::load_row(d.dy, d.x_dtype, (n * C_ + c) * S, S, gr.data());
        if (d.training) {
          nn::load_row(d.x, d.x_dtype, (n * C_ + c) * S, S, xr.data());
          for (int64_t i = 0; i < S; ++i) gr[i] = (gr[i] - mean_dy - (xr[i] - m) * k) * scale;
        } else {
          for (int64_t i = 0; i < S; ++i) gr[i] = gr[i] * scale;
        }
        nn::store_row(gr.data(), S, d.dx, d.x_dtype, (n * C_ + c) * S);
      }
    }
  });
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(batch_norm_forward)(const BatchNormDesc& d) {
  if (!nn::is_nn_float(d.x_dtype)) throw std::invalid_argument("batch_norm: unsupported dtype");
  nn::with_compute_type(d.x_dtype, [&](auto c) { forward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(batch_norm_backward)(const BatchNormBackwardDesc& d) {
  if (!nn::is_nn_float(d.x_dtype)) throw std::invalid_argument("batch_norm_backward: unsupported dtype");
  nn::with_compute_type(d.x_dtype, [&](auto c) { backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
