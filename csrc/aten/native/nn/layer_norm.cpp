// native_layer_norm / native_layer_norm_backward (direct route: ATen's CPU
// implementations call LayerNormKernel with kCPU). Checks, output dtypes
// and shapes follow layer_norm_cpu / layer_norm_backward_cpu, except that
// mean and rstd of a float16/bfloat16 input are float (FakeTensor's and
// CUDA's dtype), viewed as [*batch, 1, ..., 1].
#include <ATen/core/Tensor.h>
#include <ATen/native/cpu/mixed_data_type.h>
#include <ATen/native/layer_norm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>

#include "aten/optional_tensor.h"
#include "aten/launch.h"
#include "generated/ops/native_layer_norm.h"
#include "generated/ops/native_layer_norm_backward.h"
#include "kernels/nn/nn.h"

namespace torch_tpu::aten {
namespace {

void check_layer_norm_device(const at::Tensor& ref, const at::Tensor& t, const char* what) {
  TORCH_CHECK(!t.defined() || t.device() == ref.device(), "native_layer_norm: expected ", what,
              " on ", ref.device(), ", got ", t.device());
}

std::vector<int64_t> stat_shape(const at::Tensor& input, size_t normalized_ndim) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  for (size_t i = input.dim() - normalized_ndim; i < shape.size(); ++i) shape[i] = 1;
  return shape;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm(
    const at::Tensor& input, at::IntArrayRef normalized_shape,
    const std::optional<at::Tensor>& weight_opt, const std::optional<at::Tensor>& bias_opt,
    double eps) {
  const at::Tensor& weight = value_or_undefined(weight_opt);
  const at::Tensor& bias = value_or_undefined(bias_opt);
  const bool mixed = at::native::is_mixed_type(input, weight, bias);
  if (mixed) at::native::check_mixed_data_type(input, weight, bias);
  const auto [M, N] = at::native::_check_layer_norm_inputs(input, normalized_shape, weight, bias);
  check_layer_norm_device(input, weight, "weight");
  check_layer_norm_device(input, bias, "bias");
  TORCH_CHECK(!weight.defined() || !bias.defined() || weight.scalar_type() == bias.scalar_type(),
              "mixed dtype (CPU): expect parameter to have scalar type of Float");

  const at::Tensor X = input.contiguous();
  const at::Tensor gamma = weight.defined() ? weight.contiguous() : weight;
  const at::Tensor beta = bias.defined() ? bias.contiguous() : bias;
  at::Tensor Y = at::empty(X.sizes(), X.options());
  // float16/bfloat16 input: float statistics, as FakeTensor predicts for
  // non-CPU devices (compiled and exported graphs) and CUDA returns; CPU
  // keeps the input's dtype unless the parameters are float.
  const at::ScalarType stat = at::isReducedFloatingType(input.scalar_type())
                                  ? at::kFloat
                                  : at::native::param_scalar_type(input, mixed);
  at::Tensor mean = at::empty({M}, X.options().dtype(stat));
  at::Tensor rstd = at::empty({M}, X.options().dtype(stat));
  if (M > 0) {
    kernels::LayerNormDesc d;
    d.x = X.const_data_ptr();
    d.gamma = gamma.defined() ? gamma.const_data_ptr() : nullptr;
    d.beta = beta.defined() ? beta.const_data_ptr() : nullptr;
    d.y = Y.data_ptr();
    d.mean = mean.data_ptr();
    d.rstd = rstd.data_ptr();
    d.x_dtype = device_dtype(X.scalar_type(), "native_layer_norm");
    d.param_dtype = gamma.defined() ? device_dtype(gamma.scalar_type(), "native_layer_norm")
                    : beta.defined() ? device_dtype(beta.scalar_type(), "native_layer_norm")
                                     : d.x_dtype;
    d.stat_dtype = device_dtype(stat, "native_layer_norm");
    d.M = M;
    d.N = N;
    d.eps = eps;
    launch(input.device().index(), "native_layer_norm", d.buffers(),
           [d] { kernels::layer_norm_forward(d); });
  }
  const auto shape = stat_shape(input, normalized_shape.size());
  return {std::move(Y), mean.view(shape), rstd.view(shape)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape,
    const at::Tensor& mean, const at::Tensor& rstd, const std::optional<at::Tensor>& weight_opt,
    const std::optional<at::Tensor>& bias_opt, std::array<bool, 3> output_mask) {
  const at::Tensor& weight = value_or_undefined(weight_opt);
  const at::Tensor& bias = value_or_undefined(bias_opt);
  const auto [M, N] = at::native::_check_layer_norm_inputs(input, normalized_shape, weight, bias);
  for (const at::Tensor* t : {&grad_out, &mean, &rstd, &weight, &bias}) {
    check_layer_norm_device(input, *t, "all tensors");
  }
  TORCH_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: grad_out of shape ",
              grad_out.sizes(), " does not match input of shape ", input.sizes());
  TORCH_CHECK(grad_out.scalar_type() == input.scalar_type(),
              "native_layer_norm_backward: expected grad_out of dtype ", input.scalar_type(),
              ", got ", grad_out.scalar_type());
  TORCH_CHECK(mean.numel() == M && rstd.numel() == M && mean.scalar_type() == rstd.scalar_type(),
              "native_layer_norm_backward: mean and rstd must have ", M, " elements of one dtype");

  const at::Tensor X = input.contiguous();
  const at::Tensor dY = grad_out.contiguous();
  const at::Tensor mu = mean.contiguous();
  const at::Tensor rs = rstd.contiguous();
  const at::Tensor gamma = weight.defined() ? weight.contiguous() : weight;
  const at::Tensor beta = bias.defined() ? bias.contiguous() : bias;

  // Parameter gradients have the parameters' dtype (beta's shape is gamma's).
  const at::Tensor& param = gamma.defined() ? gamma : beta;
  const at::TensorOptions param_options =
      param.defined() ? param.options() : X.options();
  at::Tensor dX, dgamma, dbeta;
  if (output_mask[0]) dX = at::empty(X.sizes(), X.options());
  auto make_param_grad = [&](const at::Tensor& like) {
    const at::TensorOptions opts = like.defined() ? like.options() : param_options;
    return M > 0 ? at::empty(normalized_shape, opts) : at::zeros(normalized_shape, opts);
  };
  if (output_mask[1]) dgamma = make_param_grad(gamma);
  if (output_mask[2]) dbeta = make_param_grad(beta);
  if (M > 0 && (dX.defined() || dgamma.defined() || dbeta.defined())) {
    const char* name = "native_layer_norm_backward";
    kernels::LayerNormBackwardDesc d;
    d.dy = dY.const_data_ptr();
    d.x = X.const_data_ptr();
    d.mean = mu.const_data_ptr();
    d.rstd = rs.const_data_ptr();
    d.gamma = gamma.defined() ? gamma.const_data_ptr() : nullptr;
    d.dx = dX.defined() ? dX.data_ptr() : nullptr;
    d.dgamma = dgamma.defined() ? dgamma.data_ptr() : nullptr;
    d.dbeta = dbeta.defined() ? dbeta.data_ptr() : nullptr;
    d.x_dtype = device_dtype(X.scalar_type(), name);
    d.param_dtype = param.defined() ? device_dtype(param.scalar_type(), name) : d.x_dtype;
    d.stat_dtype = device_dtype(mu.scalar_type(), name);
    d.M = M;
    d.N = N;
    launch(input.device().index(), name,
           d.buffers(),
           [d] { kernels::layer_norm_backward(d); });
  }
  return {std::move(dX), std::move(dgamma), std::move(dbeta)};
}

}  // namespace torch_tpu::aten
