// torch.optim.SGD (fused=True): _fused_sgd_.
//
// Per element, in the order of PyTorch CPU's fused kernel: unscale the
// gradient (stored back), negate it (maximize), add weight_decay * param;
// with momentum, buf = grad on the first step, else momentum * buf +
// (1 - dampening) * grad, and the step direction is grad + momentum * buf
// (nesterov) or buf; param -= lr * direction.
#include "kernels/common/fp_contract.h"
#include "kernels/optim/slots.h"

namespace torch_tpu::kernels {
namespace {

using namespace optim_detail;

template <typename C>
void sgd_slot(const FusedSgdDesc& d, const OptimSlot& s, double lr_value) {
  const C wd = static_cast<C>(d.weight_decay), momentum = static_cast<C>(d.momentum);
  const C grad_coef = static_cast<C>(1 - d.dampening), lr = static_cast<C>(lr_value);
  const bool with_momentum = d.momentum != 0;
  for_blocks<C>(s, d.c.grad_scale != nullptr, [&](int64_t n, C* p, C* g, C* buf, C*, C*) {
    for (int64_t i = 0; i < n; ++i) {
      C gi = step_grad(g[i], d.c);
      if (d.weight_decay != 0) gi = gi + p[i] * wd;
      if (with_momentum) {
        buf[i] = d.is_first_step ? gi : buf[i] * momentum + gi * grad_coef;
        gi = d.nesterov ? gi + buf[i] * momentum : buf[i];
      }
      p[i] = p[i] - gi * lr;
    }
  });
}

}  // namespace

void fused_sgd(const FusedSgdDesc& d) {
  for_each_slot(d.c, [&](auto t, const OptimSlot& s, double lr) { sgd_slot<decltype(t)>(d, s, lr); });
}

}  // namespace torch_tpu::kernels
