// Shared by the fused optimizer glue (adam.cpp, sgd.cpp, adagrad.cpp): the
// argument checks of PyTorch's fused kernels and the kernels' slot lists.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <optional>
#include <vector>

#include "kernels/optim/optim.h"

namespace torch_tpu::aten::optim {

// The tensors of one parameter, in the slot order param, grad, state0..2
// (undefined: absent), plus its step count.
struct SlotTensors {
  at::Tensor param, grad, state0, state1, state2, step;
};

// Builds the kernels' slots. Tensors whose elements do not line up with the
// parameter's (another layout, or not dense) run through contiguous copies,
// which finish() writes back after the launch.
class SlotLists {
 public:
  explicit SlotLists(const char* op) : op_(op) {}
  void add(const SlotTensors& t);
  const std::vector<kernels::OptimSlot>& slots() const { return slots_; }
  void finish();

 private:
  at::Tensor linear(const at::Tensor& t, const at::Tensor& param);
  const char* op_;
  c10::Device first_device_{c10::kCPU};
  std::vector<kernels::OptimSlot> slots_;
  std::vector<std::pair<at::Tensor, at::Tensor>> write_back_;  // (original, copy)
};

// Checks a list's length against the parameters' (RuntimeError, as CPU).
void check_count(at::TensorList list, size_t n, const char* what, const char* op);

// grad_scale / found_inf: one-element float32 tensors on the parameters'
// device; null when absent.
const float* scaler_ptr(const std::optional<at::Tensor>& t, const at::Tensor& param, const char* what,
                        const char* op);

// A tensor learning rate: read on the device when it lives there, else its
// host value.
kernels::DeviceScalar tensor_lr(const at::Tensor& lr, const at::Tensor& param, const char* op);
kernels::DeviceScalar host_lr(double lr);

// The part of every fused step's descriptor that is not the optimizer's
// own: the slots, the learning rate (`lr` on the host, else `lr_tensor`),
// the GradScaler's tensors and maximize.
kernels::OptimCommon common_fields(const SlotLists& lists, at::TensorList params, const kernels::DeviceScalar* lr,
                                   const at::Tensor* lr_tensor, const std::optional<at::Tensor>& grad_scale,
                                   const std::optional<at::Tensor>& found_inf, bool maximize, const char* op);

// Enqueues `run` on the parameters' device with the slots (nothing for an
// empty list), then writes back the copies.
void run_step(at::TensorList params, SlotLists& lists, const std::vector<const void*>& buffers,
              std::function<void()> run, const char* op);

}  // namespace torch_tpu::aten::optim
