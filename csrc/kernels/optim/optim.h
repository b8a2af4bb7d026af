// Optimizer and gradient-scaler kernels: the fused (multi-tensor) steps of
// torch.optim's fused=True Adam, AdamW, SGD and Adagrad, and the two kernels
// of torch.amp.GradScaler. Device code: descriptors in, no torch types.
//
// One launch covers a whole parameter list, as CUDA's multi-tensor apply
// does. Everything the step depends on at run time (the step counts, a
// tensor learning rate, the grad scale and found_inf flag) is read from
// device memory inside the kernel, so the host never waits for the device.
// Elements are contiguous; float16/bfloat16/float compute in float, double
// in double, in the order of PyTorch CPU's fused kernels (results do not
// depend on the core count).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// A scalar the step reads on the device (a tensor lr, the step count), or a
// host value when `ptr` is null.
struct DeviceScalar {
  const void* ptr = nullptr;
  DType dtype = DType::kFloat32;
  double host = 0.0;
};

// One parameter of a fused step: `numel` contiguous elements of each buffer
// (state buffers the optimizer does not use are null).
struct OptimSlot {
  void* param = nullptr;
  void* grad = nullptr;        // written back unscaled when a grad scale is given
  void* state0 = nullptr;      // Adam: exp_avg; SGD: momentum buffer; Adagrad: state_sum
  void* state1 = nullptr;      // Adam: exp_avg_sq
  void* state2 = nullptr;      // Adam: max_exp_avg_sq (amsgrad)
  const void* step = nullptr;  // Adam, Adagrad: the step count (already incremented)
  DType dtype = DType::kFloat32;       // param, grad and states
  DType step_dtype = DType::kFloat32;
  int64_t numel = 0;
};

// Settings shared by every fused step: a float grad scale to divide the
// gradients by, and a float found_inf flag that skips the step when 1.
struct OptimCommon {
  std::vector<OptimSlot> slots;
  DeviceScalar lr;
  const float* grad_scale = nullptr;
  const float* found_inf = nullptr;
  bool maximize = false;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const;
};

struct FusedAdamDesc {
  OptimCommon c;
  double beta1 = 0.9, beta2 = 0.999, weight_decay = 0.0, eps = 1e-8;
  bool amsgrad = false;
  bool adamw = false;  // decoupled weight decay
};
void fused_adam(const FusedAdamDesc& d);

struct FusedSgdDesc {
  OptimCommon c;
  double weight_decay = 0.0, momentum = 0.0, dampening = 0.0;
  bool nesterov = false;
  bool is_first_step = false;  // the momentum buffer starts as the gradient
};
void fused_sgd(const FusedSgdDesc& d);

struct FusedAdagradDesc {
  OptimCommon c;
  double lr_decay = 0.0, weight_decay = 0.0, eps = 1e-10;
};
void fused_adagrad(const FusedAdagradDesc& d);

// GradScaler: every tensor is multiplied by *inv_scale in place, and
// *found_inf becomes 1 if any element was inf or NaN.
struct AmpUnscaleDesc {
  struct Slot {
    void* data = nullptr;
    DType dtype = DType::kFloat32;
    int64_t numel = 0;
  };
  std::vector<Slot> slots;
  float* found_inf = nullptr;
  const float* inv_scale = nullptr;

  std::vector<const void*> buffers() const;
};
void amp_unscale(const AmpUnscaleDesc& d);

// GradScaler.update: back off the scale after a step with found_inf, grow it
// after growth_interval successful steps in a row (if the grown scale is
// finite).
struct AmpUpdateScaleDesc {
  float* scale = nullptr;
  int32_t* growth_tracker = nullptr;
  const float* found_inf = nullptr;
  double growth_factor = 2.0, backoff_factor = 0.5;
  int64_t growth_interval = 2000;

  std::vector<const void*> buffers() const { return {scale, growth_tracker, found_inf}; }
};
void amp_update_scale(const AmpUpdateScaleDesc& d);

}  // namespace torch_tpu::kernels
