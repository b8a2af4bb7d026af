// The training batch norm that torch.export / torch.compile graphs and
// nn.BatchNorm under functionalization call (_batch_norm_with_update and its
// backward, batch_norm_backward): as CUDA's non-cuDNN path, native_batch_norm
// in training mode (updating the running statistics) with an empty reserve,
// and native_batch_norm_backward.
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/native_batch_norm.h>
#include <ATen/ops/native_batch_norm_backward.h>

#include "generated/ops/_batch_norm_with_update.h"
#include "generated/ops/_batch_norm_with_update_out.h"
#include "generated/ops/batch_norm_backward.h"

namespace torch_tpu::aten {

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> _batch_norm_with_update(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, double momentum, double eps) {
  auto [out, save_mean, save_invstd] =
      at::native_batch_norm(input, weight, bias, running_mean, running_var, /*training=*/true, momentum, eps);
  return {out, save_mean, save_invstd, at::empty({0}, input.options().dtype(at::kByte))};
}

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&> _batch_norm_with_update_out(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, double momentum, double eps, at::Tensor& out,
    at::Tensor& save_mean, at::Tensor& save_invstd, at::Tensor& reserve) {
  auto [o, m, s, r] = torch_tpu::aten::_batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps);
  const std::pair<at::Tensor*, const at::Tensor*> results[] = {{&out, &o}, {&save_mean, &m}, {&save_invstd, &s},
                                                               {&reserve, &r}};
  for (const auto& [dst, src] : results) {
    at::native::resize_output(*dst, src->sizes());
    dst->copy_(*src);
  }
  return {out, save_mean, save_invstd, reserve};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& weight,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean, const std::optional<at::Tensor>& save_var, bool update, double eps,
    std::array<bool, 3> output_mask, const at::Tensor& /*reserve*/) {
  return at::native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_var,
                                        update, eps, output_mask);
}

}  // namespace torch_tpu::aten
