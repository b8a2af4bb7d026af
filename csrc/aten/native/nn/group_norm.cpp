// native_group_norm / native_group_norm_backward (direct route). ATen 2.13's
// shared implementation asks a non-CPU X to be contiguous while its own
// group_norm hands it X in X's suggested memory format, so a channels-last
// input fails there on every device but CPU (later ATen treats PrivateUse1
// like CPU). These follow CPU: X must be contiguous in its suggested format
// (ATen's group_norm makes it so), the output keeps that format, mean/rstd
// are [N, group] in the parameters' dtype (float for a float16/bfloat16 X
// with float weights: ATen's mixed type). The arithmetic is
// kernels/nn/group_norm.h, over a contiguous copy when X is channels-last.
#include <ATen/core/Tensor.h>
#include <ATen/native/cpu/mixed_data_type.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

#include <cmath>

#include "aten/optional_tensor.h"
#include "aten/launch.h"
#include "generated/ops/native_group_norm.h"
#include "generated/ops/native_group_norm_backward.h"
#include "kernels/nn/group_norm.h"

namespace torch_tpu::aten {
namespace {

const void* data_or_null(const at::Tensor& t) { return t.defined() ? t.const_data_ptr() : nullptr; }
void* mutable_or_null(const at::Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// ATen's check_group_norm_inputs, with its messages.
void check_inputs(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias, int64_t C,
                  int64_t num_groups) {
  TORCH_CHECK(num_groups > 0, "Expected num groups to be greater than 0, got ", num_groups);
  TORCH_CHECK(C % num_groups == 0, "Expected number of channels in input to be divisible by ",
              "num_groups, but got input of shape ", input.sizes(), " and num_groups=", num_groups);
  TORCH_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C),
              "Expected weight to be a vector of size equal to the number of channels in input, but got weight "
              "of shape ", weight.sizes(), " and input of shape ", input.sizes());
  TORCH_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C),
              "Expected bias to be a vector of size equal to the number of channels in input, but got bias of "
              "shape ", bias.sizes(), " and input of shape ", input.sizes());
  for (const at::Tensor* p : {&weight, &bias}) {
    TORCH_CHECK(!p->defined() || p->device() == input.device(), "native_group_norm: expected weight and bias on ",
                input.device(), ", got ", p->device());
  }
}

void check_float(const at::Tensor& x, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(x.scalar_type()), "\"", name, "\" not implemented for '",
                              x.scalar_type(), "' on tpu");
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_group_norm(const at::Tensor& X,
                                                                 const std::optional<at::Tensor>& gamma_opt,
                                                                 const std::optional<at::Tensor>& beta_opt,
                                                                 int64_t N, int64_t C, int64_t HxW, int64_t group,
                                                                 double eps) {
  const char* name = "native_group_norm";
  const at::Tensor& gamma = value_or_undefined(gamma_opt);
  const at::Tensor& beta = value_or_undefined(beta_opt);
  check_inputs(X, gamma, beta, C, group);
  check_float(X, name);
  const bool mixed = at::native::is_mixed_type(X, gamma, beta);
  if (mixed) at::native::check_mixed_data_type(X, gamma, beta);
  const at::MemoryFormat format = X.suggest_memory_format();
  TORCH_CHECK(X.is_contiguous(format), "Expected X.is_contiguous(memory_format) to be true, but got false.");
  TORCH_CHECK(X.numel() == N * C * HxW, name, ": X has ", X.numel(), " elements, expected N * C * HxW = ",
              N * C * HxW);
  const auto stat_options = X.options().dtype(at::native::param_scalar_type(X, mixed));
  at::Tensor Y = at::empty_like(X, format);
  if (X.numel() == 0) {
    return {std::move(Y), at::zeros({N, group}, stat_options), at::full({N, group}, NAN, stat_options)};
  }
  at::Tensor mean = at::empty({N, group}, stat_options);
  at::Tensor rstd = at::empty({N, group}, stat_options);
  // The kernel reads and writes [N, C, HxW]: channels-last goes through copies.
  const at::Tensor x = X.contiguous();
  const at::Tensor w = gamma.defined() ? gamma.contiguous() : gamma;
  const at::Tensor b = beta.defined() ? beta.contiguous() : beta;
  at::Tensor y = Y.is_contiguous() ? Y : at::empty(Y.sizes(), Y.options());
  kernels::GroupNormDesc d;
  d.x_dtype = device_dtype(X.scalar_type(), name);
  d.param_dtype = w.defined() ? device_dtype(w.scalar_type(), name)
                  : b.defined() ? device_dtype(b.scalar_type(), name) : d.x_dtype;
  d.stat_dtype = device_dtype(mean.scalar_type(), name);
  d.x = x.const_data_ptr();
  d.gamma = data_or_null(w);
  d.beta = data_or_null(b);
  d.y = y.data_ptr();
  d.mean = mean.data_ptr();
  d.rstd = rstd.data_ptr();
  d.N = N;
  d.C = C;
  d.S = HxW;
  d.G = group;
  d.eps = eps;
  launch(X.device().index(), name, d.buffers(),
         [d] { kernels::group_norm_forward(d); });
  if (!y.is_same(Y)) Y.copy_(y);
  return {std::move(Y), std::move(mean), std::move(rstd)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_group_norm_backward(
    const at::Tensor& dY, const at::Tensor& X, const at::Tensor& mean, const at::Tensor& rstd,
    const std::optional<at::Tensor>& gamma_opt, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> mask) {
  const char* name = "native_group_norm_backward";
  const at::Tensor& gamma = value_or_undefined(gamma_opt);
  TORCH_CHECK(X.scalar_type() == dY.scalar_type(), "Expected scalar types of X and dY are same.");
  check_float(X, name);
  const bool mixed = at::native::is_mixed_type(X, mean, rstd);
  if (mixed) at::native::check_mixed_data_type(X, mean, rstd);
  for (const at::Tensor* t : {&dY, &mean, &rstd, &gamma}) {
    TORCH_CHECK(!t->defined() || t->device() == X.device(), name, ": expected all tensors on ", X.device(),
                ", got ", t->device());
  }
  const at::MemoryFormat format = X.suggest_memory_format();
  const auto dparam_options = gamma.defined() ? gamma.options() : X.options();
  at::Tensor dX = mask[0] ? at::empty_like(X, format) : at::Tensor();
  at::Tensor dgamma = mask[1] ? at::empty({C}, dparam_options) : at::Tensor();
  at::Tensor dbeta = mask[2] ? at::empty({C}, dparam_options) : at::Tensor();
  if (X.numel() == 0) {
    if (dX.defined()) dX.zero_();
    if (dgamma.defined()) dgamma.zero_();
    if (dbeta.defined()) dbeta.zero_();
    return {std::move(dX), std::move(dgamma), std::move(dbeta)};
  }
  const at::Tensor x = X.contiguous(), dy = dY.contiguous();
  const at::Tensor m = mean.contiguous(), r = rstd.contiguous();
  const at::Tensor w = gamma.defined() ? gamma.contiguous() : gamma;
  at::Tensor dx = !dX.defined() || dX.is_contiguous() ? dX : at::empty(dX.sizes(), dX.options());
  kernels::GroupNormBackwardDesc d;
  d.x_dtype = device_dtype(X.scalar_type(), name);
  d.stat_dtype = device_dtype(m.scalar_type(), name);
  d.param_dtype = device_dtype(dparam_options.dtype().toScalarType(), name);
  d.dy = dy.const_data_ptr();
  d.x = x.const_data_ptr();
  d.mean = m.const_data_ptr();
  d.rstd = r.const_data_ptr();
  d.gamma = data_or_null(w);
  d.dx = mutable_or_null(dx);
  d.dgamma = mutable_or_null(dgamma);
  d.dbeta = mutable_or_null(dbeta);
  d.N = N;
  d.C = C;
  d.S = HxW;
  d.G = group;
  launch(X.device().index(), name, d.buffers(),
         [d] { kernels::group_norm_backward(d); });
  if (dx.defined() && !dx.is_same(dX)) dX.copy_(dx);
  return {std::move(dX), std::move(dgamma), std::move(dbeta)};
}

}  // namespace torch_tpu::aten
