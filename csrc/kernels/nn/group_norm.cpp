// Group norm (group_norm.h). Forward: the (n, g) blocks split over the
// cores, each one contiguous run of D * S values. Backward: ds/db per
// (n, c) first, then dx per (n, g) and dgamma/dbeta per channel.
#include <cmath>
#include <vector>

#include "kernels/nn/group_norm.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename C>
void forward_typed(const GroupNormDesc& d) {
  const int64_t D = d.C / d.G, len = D * d.S;
  runtime::parallel_for(0, d.N * d.G, nn::rows_grain(len), [&](int64_t b, int64_t e) {
    std::vector<C> row(len);
    for (int64_t ng = b; ng < e; ++ng) {
      const int64_t g = ng % d.G, base = ng * len;
      nn::load_row(d.x, d.x_dtype, base, len, row.data());
      const double mean = nn::sum_lanes<C>(len, [&](int64_t i) { return row[i]; }) / len;
      const C m = static_cast<C>(mean);
      const double var = nn::sum_lanes<C>(len, [&](int64_t i) { const C v = row[i] - m; return v * v; }) / len;
      const double rstd = 1.0 / std::sqrt(std::max(var, 0.0) + d.eps);
      nn::store_one(mean, d.mean, d.stat_dtype, ng);
      nn::store_one(rstd, d.rstd, d.stat_dtype, ng);
      for (int64_t j = 0; j < D; ++j) {
        const int64_t c = g * D + j;
        const double w = d.gamma ? nn::load_one<double>(d.gamma, d.param_dtype, c) : 1.0;
        const double bias = d.beta ? nn::load_one<double>(d.beta, d.param_dtype, c) : 0.0;
        const C scale = static_cast<C>(rstd * w);
        const C shift = static_cast<C>(bias - mean * rstd * w);
        C* v = row.data() + j * d.S;
        for (int64_t s = 0; s < d.S; ++s) v[s] = v[s] * scale + shift;
      }
      nn::store_row(row.data(), len, d.y, d.x_dtype, base);
    }
  });
}

template <typename C>
void backward_typed(const GroupNormBackwardDesc& d) {
  const int64_t N = d.N, C_ = d.C, S = d.S, G = d.G, D = C_ / G;
  std::vector<double> ds(N * C_), db(N * C_);
  runtime::parallel_for(0, N * C_, nn::rows_grain(2 * S), [&](int64_t b, int64_t e) {
    std::vector<C> x(S), dy(S);
    for (int64_t nc = b; nc < e; ++nc) {
      nn::load_row(d.x, d.x_dtype, nc * S, S, x.data());
      nn::load_row(d.dy, d.x_dtype, nc * S, S, dy.data());
      ds[nc] = nn::sum_lanes<C>(S, [&](int64_t i) { return dy[i] * x[i]; });
      db[nc] = nn::sum_lanes<C>(S, [&](int64_t i) { return dy[i]; });
    }
  });
  auto gamma = [&](int64_t c) { return d.gamma ? nn::load_one<double>(d.gamma, d.param_dtype, c) : 1.0; };
  auto stat = [&](const void* p, int64_t ng) { return nn::load_one<double>(p, d.stat_dtype, ng); };
  if (d.dx != nullptr) {
    const double inv_count = 1.0 / static_cast<double>(D * S);
    runtime::parallel_for(0, N * G, nn::rows_grain(2 * D * S), [&](int64_t b, int64_t e) {
      std::vector<C> x(S), dy(S);
      for (int64_t ng = b; ng < e; ++ng) {
        const int64_t n = ng / G, g = ng % G;
        const double mean = stat(d.mean, ng), rstd = stat(d.rstd, ng);
        double ds_g = 0, db_g = 0;
        for (int64_t j = 0; j < D; ++j) {
          const int64_t c = g * D + j;
          ds_g += ds[n * C_ + c] * gamma(c);
          db_g += db[n * C_ + c] * gamma(c);
        }
        const double c2 = (db_g * mean - ds_g) * rstd * rstd * rstd * inv_count;
        const double c3 = -c2 * mean - db_g * rstd * inv_count;
        for (int64_t j = 0; j < D; ++j) {
          const int64_t c = g * D + j, at = (n * C_ + c) * S;
          nn::load_row(d.x, d.x_dtype, at, S, x.data());
          nn::load_row(d.dy, d.x_dtype, at, S, dy.data());
          const C c1 = static_cast<C>(rstd * gamma(c)), k2 = static_cast<C>(c2), k3 = static_cast<C>(c3);
          for (int64_t s = 0; s < S; ++s) x[s] = c1 * dy[s] + k2 * x[s] + k3;
          nn::store_row(x.data(), S, d.dx, d.x_dtype, at);
        }
      }
    });
  }
  for (int64_t c = 0; c < C_; ++c) {
    double dg = 0, dbias = 0;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t ng = n * G + c / D;
      dg += (ds[n * C_ + c] - db[n * C_ + c] * stat(d.mean, ng)) * stat(d.rstd, ng);
      dbias += db[n * C_ + c];
    }
    if (d.dgamma != nullptr) nn::store_one(dg, d.dgamma, d.param_dtype, c);
    if (d.dbeta != nullptr) nn::store_one(dbias, d.dbeta, d.param_dtype, c);
  }
}

}  // namespace

void group_norm_forward(const GroupNormDesc& d) {
  nn::with_compute_type(d.x_dtype, [&](auto c) { forward_typed<decltype(c)>(d); });
}

void group_norm_backward(const GroupNormBackwardDesc& d) {
  nn::with_compute_type(d.x_dtype, [&](auto c) { backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
