// _fused_adam_ / _fused_adamw_ (direct route): torch.optim.Adam/AdamW with
// fused=True, one launch per parameter list (kernels/optim/adam.cpp). The
// checks are CPU's: one grad, exp_avg, exp_avg_sq and step per parameter,
// max_exp_avg_sqs only with amsgrad.
#include <ATen/core/Tensor.h>

#include "aten/native/optim/optim_slots.h"
#include "generated/ops/_fused_adam_.h"
#include "generated/ops/_fused_adam__tensor_lr.h"
#include "generated/ops/_fused_adamw_.h"
#include "generated/ops/_fused_adamw__tensor_lr.h"

namespace torch_tpu::aten {
namespace {

void adam_step(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
               at::TensorList max_exp_avg_sqs, at::TensorList state_steps, const kernels::DeviceScalar* lr,
               const at::Tensor* lr_tensor, double beta1, double beta2, double weight_decay, double eps,
               bool amsgrad, bool maximize, const std::optional<at::Tensor>& grad_scale,
               const std::optional<at::Tensor>& found_inf, bool adamw) {
  const char* op = adamw ? "_fused_adamw_" : "_fused_adam_";
  const size_t n = params.size();
  optim::check_count(grads, n, "grads", op);
  optim::check_count(exp_avgs, n, "exp_avgs", op);
  optim::check_count(exp_avg_sqs, n, "exp_avg_sqs", op);
  optim::check_count(max_exp_avg_sqs, amsgrad ? n : 0, "max_exp_avg_sqs", op);
  optim::check_count(state_steps, n, "state_steps", op);
  if (n == 0) return;
  kernels::FusedAdamDesc d;
  optim::SlotLists lists(op);
  for (size_t i = 0; i < n; ++i) {
    lists.add({params[i], grads[i], exp_avgs[i], exp_avg_sqs[i], amsgrad ? max_exp_avg_sqs[i] : at::Tensor(),
               state_steps[i]});
  }
  d.c = optim::common_fields(lists, params, lr, lr_tensor, grad_scale, found_inf, maximize, op);
  d.beta1 = beta1;
  d.beta2 = beta2;
  d.weight_decay = weight_decay;
  d.eps = eps;
  d.amsgrad = amsgrad;
  d.adamw = adamw;
  optim::run_step(params, lists, d.c.buffers(), [d] { kernels::fused_adam(d); }, op);
}

}  // namespace

void fused_adam_(at::TensorList self, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                 at::TensorList max_exp_avg_sqs, at::TensorList state_steps, double lr, double beta1, double beta2,
                 double weight_decay, double eps, bool amsgrad, bool maximize,
                 const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  const kernels::DeviceScalar l = optim::host_lr(lr);
  adam_step(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, &l, nullptr, beta1, beta2,
            weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, false);
}

void fused_adam_tensor_lr(at::TensorList self, at::TensorList grads, at::TensorList exp_avgs,
                          at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs, at::TensorList state_steps,
                          const at::Tensor& lr, double beta1, double beta2, double weight_decay, double eps,
                          bool amsgrad, bool maximize, const std::optional<at::Tensor>& grad_scale,
                          const std::optional<at::Tensor>& found_inf) {
  adam_step(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, nullptr, &lr, beta1, beta2,
            weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, false);
}

void fused_adamw_(at::TensorList self, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                  at::TensorList max_exp_avg_sqs, at::TensorList state_steps, double lr, double beta1, double beta2,
                  double weight_decay, double eps, bool amsgrad, bool maximize,
                  const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  const kernels::DeviceScalar l = optim::host_lr(lr);
  adam_step(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, &l, nullptr, beta1, beta2,
            weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, true);
}

void fused_adamw_tensor_lr(at::TensorList self, at::TensorList grads, at::TensorList exp_avgs,
                           at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs, at::TensorList state_steps,
                           const at::Tensor& lr, double beta1, double beta2, double weight_decay, double eps,
                           bool amsgrad, bool maximize, const std::optional<at::Tensor>& grad_scale,
                           const std::optional<at::Tensor>& found_inf) {
  adam_step(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, nullptr, &lr, beta1, beta2,
            weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, true);
}

}  // namespace torch_tpu::aten
