// torch.optim.Adagrad (fused=True): _fused_adagrad_.
//
// Per element, in the order of PyTorch CPU's fused kernel: unscale the
// gradient (stored back), negate it (maximize), add weight_decay * param,
// state_sum += grad^2, param -= clr * grad / (sqrt(state_sum) + eps) with
// clr = lr / (1 + (step - 1) * lr_decay).
#include "kernels/common/fp_contract.h"
#include <cmath>

#include "kernels/optim/slots.h"

namespace torch_tpu::kernels {
namespace {

using namespace optim_detail;

template <typename C>
void adagrad_slot(const FusedAdagradDesc& d, const OptimSlot& s, double lr) {
  const double step = read_step(s);
  const C clr = static_cast<C>(lr / (1.0 + (step - 1.0) * d.lr_decay));
  const C wd = static_cast<C>(d.weight_decay), eps = static_cast<C>(d.eps);
  for_blocks<C>(s, d.c.grad_scale != nullptr, [&](int64_t n, C* p, C* g, C* sum, C*, C*) {
    for (int64_t i = 0; i < n; ++i) {
      C gi = step_grad(g[i], d.c);
      if (d.weight_decay != 0) gi = gi + p[i] * wd;
      sum[i] = sum[i] + gi * gi;
      p[i] = p[i] - clr * gi / (std::sqrt(sum[i]) + eps);
    }
  });
}

}  // namespace

void fused_adagrad(const FusedAdagradDesc& d) {
  for_each_slot(d.c, [&](auto t, const OptimSlot& s, double lr) { adagrad_slot<decltype(t)>(d, s, lr); });
}

}  // namespace torch_tpu::kernels
