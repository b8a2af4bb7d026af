// torch.optim.Adam / AdamW (fused=True): _fused_adam_ and _fused_adamw_.
//
// Per element, in the order of PyTorch CPU's fused kernel: unscale the
// gradient (stored back), negate it (maximize), weight decay (Adam: added to
// the gradient; AdamW: the parameter shrinks by lr * weight_decay),
// exp_avg.lerp_(grad, 1 - beta1), exp_avg_sq = beta2 * exp_avg_sq +
// (1 - beta2) * grad^2, then param -= lr / bias_correction1 * exp_avg /
// (sqrt(exp_avg_sq or its running max) / sqrt(bias_correction2) + eps).
#include "kernels/common/fp_contract.h"
#include <cmath>

#include "kernels/optim/slots.h"

namespace torch_tpu::kernels {
namespace {

using namespace optim_detail;

template <typename C>
void adam_slot(const FusedAdamDesc& d, const OptimSlot& s, double lr) {
  const double step = read_step(s);
  const double bias_correction1 = 1 - std::pow(d.beta1, step);
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(d.beta2, step));
  const C step_size = static_cast<C>(lr / bias_correction1);
  const C w = static_cast<C>(1 - d.beta1), beta2 = static_cast<C>(d.beta2);
  const C sq_coef = static_cast<C>(1 - d.beta2), bc2 = static_cast<C>(bias_correction2_sqrt);
  const C eps = static_cast<C>(d.eps), wd = static_cast<C>(d.weight_decay);
  const C decay = static_cast<C>(1 - lr * d.weight_decay);
  const bool small_weight = std::abs(w) < C(0.5);
  for_blocks<C>(s, d.c.grad_scale != nullptr, [&](int64_t n, C* p, C* g, C* m, C* v, C* vmax) {
    for (int64_t i = 0; i < n; ++i) {
      C gi = step_grad(g[i], d.c);
      if (d.weight_decay != 0) {
        if (d.adamw) {
          p[i] = p[i] * decay;
        } else {
          gi = gi + p[i] * wd;
        }
      }
      // lerp toward grad from whichever end is nearer (as at::lerp)
      m[i] = small_weight ? m[i] + w * (gi - m[i]) : gi - (gi - m[i]) * (C(1) - w);
      v[i] = v[i] * beta2 + sq_coef * gi * gi;
      C denom_sq = v[i];
      if (d.amsgrad) {
        vmax[i] = std::max(vmax[i], v[i]);
        denom_sq = vmax[i];
      }
      const C denom = std::sqrt(denom_sq) / bc2 + eps;
      p[i] = p[i] - step_size * m[i] / denom;
    }
  });
}

}  // namespace

void fused_adam(const FusedAdamDesc& d) {
  for_each_slot(d.c, [&](auto t, const OptimSlot& s, double lr) { adam_slot<decltype(t)>(d, s, lr); });
}

}  // namespace torch_tpu::kernels
