// _fused_sgd_ (direct route): torch.optim.SGD with fused=True, one launch
// per parameter list (kernels/optim/sgd.cpp). The checks are CPU's: one grad
// per parameter, and a momentum buffer each unless momentum is 0.
#include <ATen/core/Tensor.h>

#include "aten/native/optim/optim_slots.h"
#include "generated/ops/_fused_sgd_.h"
#include "generated/ops/_fused_sgd__tensor_lr.h"

namespace torch_tpu::aten {
namespace {

void sgd_step(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers, double weight_decay,
              double momentum, const kernels::DeviceScalar* lr, const at::Tensor* lr_tensor, double dampening,
              bool nesterov, bool maximize, bool is_first_step, const std::optional<at::Tensor>& grad_scale,
              const std::optional<at::Tensor>& found_inf) {
  const char* op = "_fused_sgd_";
  const size_t n = params.size();
  const bool with_momentum = momentum != 0.0;
  optim::check_count(grads, n, "grads", op);
  optim::check_count(momentum_buffers, with_momentum ? n : 0, "momentum buffers", op);
  if (n == 0) return;
  kernels::FusedSgdDesc d;
  optim::SlotLists lists(op);
  for (size_t i = 0; i < n; ++i) {
    lists.add({params[i], grads[i], with_momentum ? momentum_buffers[i] : at::Tensor(), at::Tensor(), at::Tensor(),
               at::Tensor()});
  }
  d.c = optim::common_fields(lists, params, lr, lr_tensor, grad_scale, found_inf, maximize, op);
  d.weight_decay = weight_decay;
  d.momentum = momentum;
  d.dampening = dampening;
  d.nesterov = nesterov;
  d.is_first_step = is_first_step;
  optim::run_step(params, lists, d.c.buffers(), [d] { kernels::fused_sgd(d); }, op);
}

}  // namespace

void fused_sgd_(at::TensorList self, at::TensorList grads, at::TensorList momentum_buffer_list, double weight_decay,
                double momentum, double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
                const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  const kernels::DeviceScalar l = optim::host_lr(lr);
  sgd_step(self, grads, momentum_buffer_list, weight_decay, momentum, &l, nullptr, dampening, nesterov, maximize,
           is_first_step, grad_scale, found_inf);
}

void fused_sgd_tensor_lr(at::TensorList self, at::TensorList grads, at::TensorList momentum_buffer_list,
                         double weight_decay, double momentum, const at::Tensor& lr, double dampening, bool nesterov,
                         bool maximize, bool is_first_step, const std::optional<at::Tensor>& grad_scale,
                         const std::optional<at::Tensor>& found_inf) {
  sgd_step(self, grads, momentum_buffer_list, weight_decay, momentum, nullptr, &lr, dampening, nesterov, maximize,
           is_first_step, grad_scale, found_inf);
}

}  // namespace torch_tpu::aten
