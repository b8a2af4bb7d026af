// The backwards of cdist and pdist (cdist_backward_stub, pdist_backward_stub),
// composed of tpu ops. Per pair (i, j), diff = x1[i] - x2[j] and
// d = dist[i, j]; x1[i]'s gradient is the sum over j of grad[i, j] times
// CPU's per-norm derivative (DistanceOpsKernel.cpp): 0 for p = 0, sign(diff)
// for p = 1, diff / d for p = 2, sign(diff) * [|diff| == d] for p = inf,
// sign(diff) |diff|^(p-1) / d^(p-1) below 2 (0 where diff = 0 and p < 1),
// diff |diff|^(p-2) / d^(p-1) above; every pair with d = 0 contributes 0.
// p = 2, the default, needs no pairwise differences: sum_j g_ij (x1_i - x2_j)
// is x1_i * sum_j g_ij - (g @ x2)_i, two launches of size n*r; the other
// norms materialise the (B, n, r, m) differences.
#include <ATen/ops/abs.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/sign.h>
#include <ATen/ops/triu_indices.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

#include <cmath>

#include "generated/stub_kernels.h"

namespace torch_tpu::aten {
namespace {

// grad, dist: (B, n, r); x1: (B, n, m); x2: (B, r, m) -> (B, n, m).
at::Tensor distance_grad(const at::Tensor& grad, const at::Tensor& x1, const at::Tensor& x2, double p,
                         const at::Tensor& dist) {
  if (p == 0.0 || grad.numel() == 0 || x1.numel() == 0) return at::zeros(x1.sizes(), x1.options());
  const at::Tensor zero = at::zeros({}, x1.options());
  if (p == 2.0) {
    const at::Tensor g = at::where(dist == 0, zero, grad / dist);
    return x1 * g.sum(-1, /*keepdim=*/true) - at::bmm(g, x2);
  }
  const at::Tensor diff = x1.unsqueeze(2) - x2.unsqueeze(1);
  const at::Tensor g = grad.unsqueeze(-1), d = dist.unsqueeze(-1);
  at::Tensor term;
  if (p == 1.0) {
    term = at::sign(diff) * g;
  } else if (std::isinf(p)) {
    term = g * at::sign(diff) * (at::abs(diff) == d).to(x1.scalar_type());
  } else if (p < 2.0) {
    term = at::where(d == 0, zero, at::sign(diff) * at::abs(diff).pow(p - 1) * g / d.pow(p - 1));
    if (p < 1.0) term = at::where(diff == 0, zero, term);
  } else {
    term = at::where(d == 0, zero, diff * at::abs(diff).pow(p - 2) * g / d.pow(p - 1));
  }
  return term.sum(2);
}

}  // namespace

// ATen's _cdist_backward has expanded the batch dims, contiguous, but not
// flattened them: grad and cdist (..., n, r), x1 (..., n, m), x2 (..., r, m);
// result (B, n, m) with B their product, unwritten.
void cdist_backward_kernel(at::Tensor& result, const at::Tensor& grad, const at::Tensor& x1, const at::Tensor& x2,
                           const double p, const at::Tensor& cdist) {
  const int64_t n = x1.size(-2), m = x1.size(-1), r = x2.size(-2);
  result.copy_(distance_grad(grad.reshape({-1, n, r}), x1.reshape({-1, n, m}), x2.reshape({-1, r, m}), p,
                             cdist.reshape({-1, n, r})));
}

// pdist's pairs i < j in row-major order: the symmetric (n, n) matrices of
// gradients and distances (zero diagonal) make it cdist's backward of self
// against itself, where each pair reaches both of its points.
void pdist_backward_kernel(at::Tensor& result, const at::Tensor& grad, const at::Tensor& self, const double p,
                           const at::Tensor& pdist) {
  const int64_t n = self.size(0);
  if (n <= 1 || grad.numel() == 0) {
    result.zero_();
    return;
  }
  const at::Tensor pairs = at::triu_indices(n, n, 1, self.options().dtype(at::kLong));
  const at::Tensor i = pairs.select(0, 0), j = pairs.select(0, 1);
  auto symmetric = [&](const at::Tensor& condensed) {
    at::Tensor full = at::zeros({n, n}, self.options());
    full.index_put_({i, j}, condensed);
    full.index_put_({j, i}, condensed);
    return full.unsqueeze(0);
  };
  const at::Tensor x = self.unsqueeze(0);
  result.copy_(distance_grad(symmetric(grad), x, x, p, symmetric(pdist)).squeeze(0));
}

}  // namespace torch_tpu::aten
