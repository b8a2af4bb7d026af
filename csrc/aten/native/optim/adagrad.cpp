// _fused_adagrad_ (direct route): torch.optim.Adagrad with fused=True, one
// launch per parameter list (kernels/optim/adagrad.cpp). The checks are
// CPU's: one grad, state_sum and step per parameter.
#include <ATen/core/Tensor.h>

#include "aten/native/optim/optim_slots.h"
#include "generated/ops/_fused_adagrad_.h"
#include "generated/ops/_fused_adagrad__tensor_lr.h"

namespace torch_tpu::aten {
namespace {

void adagrad_step(at::TensorList params, at::TensorList grads, at::TensorList state_sums, at::TensorList state_steps,
                  const kernels::DeviceScalar* lr, const at::Tensor* lr_tensor, double lr_decay,
                  double weight_decay, double eps, bool maximize, const std::optional<at::Tensor>& grad_scale,
                  const std::optional<at::Tensor>& found_inf) {
  const char* op = "_fused_adagrad_";
  const size_t n = params.size();
  optim::check_count(grads, n, "grads", op);
  optim::check_count(state_sums, n, "state_sums", op);
  optim::check_count(state_steps, n, "state_steps", op);
  if (n == 0) return;
  kernels::FusedAdagradDesc d;
  optim::SlotLists lists(op);
  for (size_t i = 0; i < n; ++i) {
    lists.add({params[i], grads[i], state_sums[i], at::Tensor(), at::Tensor(), state_steps[i]});
  }
  d.c = optim::common_fields(lists, params, lr, lr_tensor, grad_scale, found_inf, maximize, op);
  d.lr_decay = lr_decay;
  d.weight_decay = weight_decay;
  d.eps = eps;
  optim::run_step(params, lists, d.c.buffers(), [d] { kernels::fused_adagrad(d); }, op);
}

}  // namespace

void fused_adagrad_(at::TensorList self, at::TensorList grads, at::TensorList state_sums, at::TensorList state_steps,
                    double lr, double lr_decay, double weight_decay, double eps, bool maximize,
                    const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  const kernels::DeviceScalar l = optim::host_lr(lr);
  adagrad_step(self, grads, state_sums, state_steps, &l, nullptr, lr_decay, weight_decay, eps, maximize, grad_scale,
               found_inf);
}

void fused_adagrad_tensor_lr(at::TensorList self, at::TensorList grads, at::TensorList state_sums,
                             at::TensorList state_steps, const at::Tensor& lr, double lr_decay, double weight_decay,
                             double eps, bool maximize, const std::optional<at::Tensor>& grad_scale,
                             const std::optional<at::Tensor>& found_inf) {
  adagrad_step(self, grads, state_sums, state_steps, nullptr, &lr, lr_decay, weight_decay, eps, maximize, grad_scale,
               found_inf);
}

}  // namespace torch_tpu::aten
