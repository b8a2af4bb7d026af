// torch.amp.GradScaler's kernels (direct route, kernels/optim/amp.cpp):
// _amp_foreach_non_finite_check_and_unscale_ (one launch for the gradient
// list) and _amp_update_scale_. The scale, growth tracker and found_inf flag
// stay in device memory; the checks and messages are CPU's.
#include <ATen/core/Tensor.h>

#include <utility>
#include <vector>

#include "aten/launch.h"
#include "generated/ops/_amp_foreach_non_finite_check_and_unscale_.h"
#include "generated/ops/_amp_update_scale_.h"
#include "kernels/optim/optim.h"

namespace torch_tpu::aten {

void amp_foreach_non_finite_check_and_unscale_(at::TensorList self, at::Tensor& found_inf,
                                               const at::Tensor& inv_scale) {
  TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(inv_scale.scalar_type() == at::kFloat, "inv_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  if (self.empty()) return;
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  kernels::AmpUnscaleDesc d;
  d.found_inf = found_inf.data_ptr<float>();
  d.inv_scale = inv_scale.const_data_ptr<float>();
  std::vector<std::pair<at::Tensor, at::Tensor>> write_back;  // (gradient, contiguous copy)
  for (const at::Tensor& t : self) {
    TORCH_CHECK(t.layout() == at::kStrided, "one of scaled_grads was not a strided tensor.");
    TORCH_CHECK(t.device() == found_inf.device(), op, ": expected all tensors on ", found_inf.device(),
                ", got ", t.device());
    TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), "\"", op, "\" not implemented for '",
                                t.scalar_type(), "'");
    at::Tensor x = t;
    if (!t.is_non_overlapping_and_dense()) {
      x = t.contiguous();
      write_back.emplace_back(t, x);
    }
    d.slots.push_back({x.data_ptr(), device_dtype(t.scalar_type(), op), t.numel()});
  }
  launch(found_inf.device().index(), op, d.buffers(), [d] { kernels::amp_unscale(d); });
  for (auto& [grad, copy] : write_back) grad.copy_(copy);
}

at::Tensor& amp_update_scale_(at::Tensor& self, at::Tensor& growth_tracker, const at::Tensor& found_inf,
                              double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TORCH_CHECK(self.numel() == 1, "current_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(growth_tracker.scalar_type() == at::kInt, "growth_tracker must be an int tensor.");
  TORCH_CHECK(self.scalar_type() == at::kFloat, "current_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == at::kFloat, "found_inf must be a float tensor.");
  kernels::AmpUpdateScaleDesc d;
  d.scale = self.data_ptr<float>();
  d.growth_tracker = growth_tracker.data_ptr<int32_t>();
  d.found_inf = found_inf.const_data_ptr<float>();
  d.growth_factor = scale_growth_factor;
  d.backoff_factor = scale_backoff_factor;
  d.growth_interval = growth_interval;
  launch(self.device().index(), "_amp_update_scale_", d.buffers(), [d] { kernels::amp_update_scale(d); });
  return self;
}

}  // namespace torch_tpu::aten
