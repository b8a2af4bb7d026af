#include "aten/native/optim/optim_slots.h"

#include <ATen/ops/empty_like.h>

#include "aten/launch.h"

namespace torch_tpu::aten::optim {

void check_count(at::TensorList list, size_t n, const char* what, const char* op) {
  TORCH_CHECK(list.size() == n, op, ": expected ", n, " ", what, " (one per parameter), got ", list.size());
}

at::Tensor SlotLists::linear(const at::Tensor& t, const at::Tensor& param) {
  if (!t.defined()) return t;
  TORCH_CHECK(t.device() == param.device(), op_, ": expected all tensors on ", param.device(), ", got ",
              t.device());
  TORCH_CHECK(t.scalar_type() == param.scalar_type(), op_, ": expected the dtype of the parameter (",
              param.scalar_type(), "), got ", t.scalar_type());
  TORCH_CHECK(t.sizes() == param.sizes(), op_, ": expected the size of the parameter ", param.sizes(),
              ", got ", t.sizes());
  // Element i of one is element i of the other when both are contiguous or
  // share the same dense strides.
  const bool lines_up = (t.is_contiguous() && param.is_contiguous()) ||
                        (t.is_non_overlapping_and_dense() && t.strides() == param.strides());
  if (lines_up) return t;
  at::Tensor copy = at::empty_like(param);  // param is dense: its strides
  copy.copy_(t);
  write_back_.emplace_back(t, copy);
  return copy;
}

void SlotLists::add(const SlotTensors& in) {
  const at::Tensor& p = in.param;
  // One launch runs the whole list on one device (the tensor_lr overloads skip the wrapper's check).
  TORCH_CHECK(slots_.empty() || p.device() == first_device_, op_, ": expected all tensors on ", first_device_,
              ", got ", p.device());
  first_device_ = p.device();
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(p.scalar_type()), "\"", op_, "\" not implemented for '",
                              p.scalar_type(), "'");
  at::Tensor param = p;
  if (!p.is_non_overlapping_and_dense()) {
    param = p.contiguous();
    write_back_.emplace_back(p, param);
  }
  kernels::OptimSlot s;
  s.dtype = device_dtype(p.scalar_type(), op_);
  s.numel = p.numel();
  s.param = param.data_ptr();
  auto ptr = [&](const at::Tensor& t) -> void* {
    const at::Tensor l = linear(t, param);
    return l.defined() ? l.data_ptr() : nullptr;
  };
  s.grad = ptr(in.grad);
  s.state0 = ptr(in.state0);
  s.state1 = ptr(in.state1);
  s.state2 = ptr(in.state2);
  if (in.step.defined()) {
    TORCH_CHECK(in.step.device() == p.device() && in.step.numel() == 1 &&
                    at::isFloatingType(in.step.scalar_type()),
                op_, ": expected each state_step to be a one-element floating-point tensor on ", p.device(),
                ", got ", in.step.scalar_type(), " on ", in.step.device(), " with ", in.step.numel(), " elements");
    s.step = in.step.const_data_ptr();
    s.step_dtype = device_dtype(in.step.scalar_type(), op_);
  }
  slots_.push_back(s);
}

void SlotLists::finish() {
  for (auto& [original, copy] : write_back_) original.copy_(copy);
  write_back_.clear();
}

const float* scaler_ptr(const std::optional<at::Tensor>& t, const at::Tensor& param, const char* what,
                        const char* op) {
  if (!t.has_value() || !t->defined()) return nullptr;
  TORCH_CHECK(t->device() == param.device(), op, ": expected ", what, " on ", param.device(), ", got ",
              t->device());
  TORCH_CHECK(t->scalar_type() == at::kFloat && t->numel() == 1, op, ": expected ", what,
              " to be a one-element float32 tensor, got ", t->scalar_type(), " with ", t->numel(), " elements");
  return t->const_data_ptr<float>();
}

kernels::DeviceScalar tensor_lr(const at::Tensor& lr, const at::Tensor& param, const char* op) {
  TORCH_CHECK(lr.numel() == 1, op, ": expected a one-element lr tensor, got ", lr.numel(), " elements");
  kernels::DeviceScalar s;
  if (lr.device().is_cpu()) {
    s.host = lr.item<double>();
    return s;
  }
  TORCH_CHECK(lr.device() == param.device(), op, ": expected lr on the CPU or on ", param.device(), ", got ",
              lr.device());
  TORCH_CHECK(at::isFloatingType(lr.scalar_type()), op, ": expected a floating-point lr tensor, got ",
              lr.scalar_type());
  s.ptr = lr.const_data_ptr();
  s.dtype = device_dtype(lr.scalar_type(), op);
  return s;
}

kernels::DeviceScalar host_lr(double lr) {
  kernels::DeviceScalar s;
  s.host = lr;
  return s;
}

void run_step(at::TensorList params, SlotLists& lists, const std::vector<const void*>& buffers,
              std::function<void()> run, const char* op) {
  if (params.empty()) return;
  launch(params[0].device().index(), op, buffers, [run = std::move(run)] { run(); });
  lists.finish();
}

kernels::OptimCommon common_fields(const SlotLists& lists, at::TensorList params, const kernels::DeviceScalar* lr,
                                   const at::Tensor* lr_tensor, const std::optional<at::Tensor>& grad_scale,
                                   const std::optional<at::Tensor>& found_inf, bool maximize, const char* op) {
  kernels::OptimCommon c;
  c.slots = lists.slots();
  c.lr = lr ? *lr : tensor_lr(*lr_tensor, params[0], op);
  c.grad_scale = scaler_ptr(grad_scale, params[0], "grad_scale", op);
  c.found_inf = scaler_ptr(found_inf, params[0], "found_inf", op);
  c.maximize = maximize;
  return c;
}

}  // namespace torch_tpu::aten::optim
