// native_batch_norm (+ backward) and _native_batch_norm_legit (direct route:
// ATen's CPU implementations call CPU-only kernels). Shapes, dtypes and
// layouts follow what FakeTensor predicts for a device other than CPU
// (torch._decomp's native_batch_norm_helper, CUDA's behaviour), so compiled
// and eager graphs agree: save_mean/save_invstd are float for a
// float16/bfloat16 input (the computation dtype), and in eval they are
// the running mean and 1 / sqrt(running_var + eps), not CPU's empty tensors.
// The output keeps the input's memory format (channels-last stays so).
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/native/cpu/mixed_data_type.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include "aten/optional_tensor.h"
#include "aten/launch.h"
#include "generated/ops/_native_batch_norm_legit.h"
#include "generated/ops/_native_batch_norm_legit_out.h"
#include "generated/ops/_native_batch_norm_legit_no_stats.h"
#include "generated/ops/native_batch_norm.h"
#include "generated/ops/native_batch_norm_out.h"
#include "generated/ops/native_batch_norm_backward.h"
#include "kernels/nn/nn.h"

namespace torch_tpu::aten {
namespace {

at::ScalarType computation_type(at::ScalarType t) {
  return t == at::kHalf || t == at::kBFloat16 ? at::kFloat : t;
}

void check_param(const at::Tensor& input, const at::Tensor& p, const char* what, const char* name) {
  if (!p.defined()) return;
  TORCH_CHECK(p.device() == input.device(), name, ": expected ", what, " on ", input.device(), ", got ",
              p.device());
  TORCH_CHECK(p.numel() == input.size(1), what, " should contain ", input.size(1), " elements not ",
              p.numel());
  const bool same = p.scalar_type() == input.scalar_type();
  const bool mixed = (input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16) &&
                     p.scalar_type() == at::kFloat;
  TORCH_CHECK(same || mixed, name, ": expected ", what, " to have dtype ", input.scalar_type(),
              " (or float for a float16/bfloat16 input), got ", p.scalar_type());
}

// [N, C, S] of a contiguous view of input.
void extents(const at::Tensor& x, int64_t& N, int64_t& C, int64_t& S) {
  N = x.size(0);
  C = x.size(1);
  S = 1;
  for (int64_t i = 2; i < x.dim(); ++i) S *= x.size(i);
}

// Writes the new running statistics into running_mean/var, which may be any
// layout: the kernel updates a contiguous copy, copied back when needed.
struct Running {
  at::Tensor given, work;
  explicit Running(const at::Tensor& t) : given(t), work(t.defined() ? t.contiguous() : t) {}
  void finish() {
    if (given.defined() && !work.is_same(given)) given.copy_(work);
  }
};

std::tuple<at::Tensor, at::Tensor, at::Tensor> forward(const at::Tensor& input, const at::Tensor& weight,
                                                       const at::Tensor& bias, const at::Tensor& running_mean,
                                                       const at::Tensor& running_var, bool training,
                                                       double momentum, double eps, const char* name) {
  TORCH_CHECK(input.dim() >= 2, name, ": expected an input with at least 2 dimensions, got ", input.sizes());
  for (auto [t, what] : {std::pair{&weight, "weight"}, {&bias, "bias"}, {&running_mean, "running_mean"},
                         {&running_var, "running_var"}}) {
    check_param(input, *t, what, name);
  }
  TORCH_CHECK(training || (running_mean.defined() && running_var.defined()), name,
              ": running_mean and running_var must be defined in evaluation mode");
  const at::Tensor x = input.contiguous();
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  const at::Tensor b = bias.defined() ? bias.contiguous() : bias;
  Running rm(running_mean), rv(running_var);
  int64_t N, C, S;
  extents(x, N, C, S);
  at::Tensor y = at::empty(x.sizes(), x.options());
  const at::ScalarType stat = computation_type(input.scalar_type());
  // Eval returns a copy of running_mean with its layout, as FakeTensor's
  // running_mean.to(dtype, copy=True) predicts (for a 1-d tensor that only
  // differs from [C]'s in size-1 strides); invstd is a fresh elementwise
  // result (contiguous).
  at::Tensor save_mean = training ? at::empty({C}, x.options().dtype(stat))
                                  : at::empty_like(running_mean, x.options().dtype(stat));
  at::Tensor save_invstd = at::empty({C}, x.options().dtype(stat));
  if (C > 0) {
    kernels::BatchNormDesc d;
    d.x = x.const_data_ptr();
    d.y = y.data_ptr();
    d.weight = w.defined() ? w.const_data_ptr() : nullptr;
    d.bias = b.defined() ? b.const_data_ptr() : nullptr;
    d.running_mean = rm.work.defined() ? rm.work.data_ptr() : nullptr;
    d.running_var = rv.work.defined() ? rv.work.data_ptr() : nullptr;
    d.save_mean = save_mean.data_ptr();
    d.save_invstd = save_invstd.data_ptr();
    d.x_dtype = device_dtype(x.scalar_type(), name);
    d.param_dtype = w.defined() ? device_dtype(w.scalar_type(), name)
                    : b.defined() ? device_dtype(b.scalar_type(), name) : d.x_dtype;
    d.running_dtype = rm.work.defined() ? device_dtype(rm.work.scalar_type(), name)
                      : rv.work.defined() ? device_dtype(rv.work.scalar_type(), name) : d.x_dtype;
    TORCH_CHECK(!rm.work.defined() || !rv.work.defined() || rm.work.scalar_type() == rv.work.scalar_type(), name,
                ": running_mean and running_var must have one dtype");
    d.stat_dtype = device_dtype(stat, name);
    d.N = N;
    d.C = C;
    d.S = S;
    d.training = training;
    d.momentum = momentum;
    d.eps = eps;
    launch(input.device().index(), name,
           d.buffers(),
           [d] { kernels::batch_norm_forward(d); });
    rm.finish();
    rv.finish();
  }
  const at::MemoryFormat f = input.suggest_memory_format();
  if (f != at::MemoryFormat::Contiguous) y = y.contiguous(f);
  return {std::move(y), std::move(save_mean), std::move(save_invstd)};
}

// The out= forms: the results copied into the caller's tensors, resized as
// CPU's batch_norm_cpu_out resizes them.
std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> into(const std::tuple<at::Tensor, at::Tensor, at::Tensor>& r,
                                                       at::Tensor& out, at::Tensor& save_mean,
                                                       at::Tensor& save_invstd) {
  at::Tensor* targets[] = {&out, &save_mean, &save_invstd};
  const at::Tensor results[] = {std::get<0>(r), std::get<1>(r), std::get<2>(r)};
  for (int i = 0; i < 3; ++i) {
    at::native::resize_output(*targets[i], results[i].sizes());
    targets[i]->copy_(results[i]);
  }
  return {out, save_mean, save_invstd};
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> native_batch_norm_out(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var, bool training,
    double momentum, double eps, at::Tensor& out, at::Tensor& save_mean, at::Tensor& save_invstd) {
  return into(torch_tpu::aten::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                                                 eps),
              out, save_mean, save_invstd);
}

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> native_batch_norm_legit_out(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, bool training, double momentum, double eps, at::Tensor& out,
    at::Tensor& save_mean, at::Tensor& save_invstd) {
  return into(torch_tpu::aten::native_batch_norm_legit(input, weight, bias, running_mean, running_var, training,
                                                       momentum, eps),
              out, save_mean, save_invstd);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var, bool training,
    double momentum, double eps) {
  return forward(input, value_or_undefined(weight), value_or_undefined(bias), value_or_undefined(running_mean),
                 value_or_undefined(running_var), training, momentum, eps, "native_batch_norm");
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_legit(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, bool training, double momentum, double eps) {
  return forward(input, value_or_undefined(weight), value_or_undefined(bias), running_mean, running_var, training,
                 momentum, eps, "_native_batch_norm_legit");
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_legit_no_stats(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    bool training, double momentum, double eps) {
  TORCH_CHECK(training, "_native_batch_norm_legit.no_stats: evaluation mode needs running statistics");
  return forward(input, value_or_undefined(weight), value_or_undefined(bias), at::Tensor(), at::Tensor(), training,
                 momentum, eps, "_native_batch_norm_legit");
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const std::optional<at::Tensor>& weight_opt,
    const std::optional<at::Tensor>& running_mean_opt, const std::optional<at::Tensor>& running_var_opt,
    const std::optional<at::Tensor>& save_mean_opt, const std::optional<at::Tensor>& save_invstd_opt, bool train,
    double eps, std::array<bool, 3> output_mask) {
  const char* name = "native_batch_norm_backward";
  const at::Tensor& weight = value_or_undefined(weight_opt);
  const at::Tensor& mean = value_or_undefined(train ? save_mean_opt : running_mean_opt);
  const at::Tensor& second = value_or_undefined(train ? save_invstd_opt : running_var_opt);
  TORCH_CHECK(mean.defined() && second.defined(), name, ": ",
              train ? "save_mean and save_invstd" : "running_mean and running_var", " must be defined");
  TORCH_CHECK(grad_out.sizes() == input.sizes(), name, ": grad_out of size ", grad_out.sizes(),
              " does not match input of size ", input.sizes());
  TORCH_CHECK(grad_out.scalar_type() == input.scalar_type(), name, ": grad_out has dtype ",
              grad_out.scalar_type(), ", input ", input.scalar_type());
  check_param(input, weight, "weight", name);
  for (const at::Tensor* t : {&grad_out, &mean, &second}) {
    TORCH_CHECK(t->device() == input.device(), name, ": expected all tensors on ", input.device(), ", got ",
                t->device());
  }
  TORCH_CHECK(mean.numel() == input.size(1) && second.numel() == input.size(1), name,
              ": expected statistics of ", input.size(1), " elements");
  TORCH_CHECK(mean.scalar_type() == second.scalar_type(), name, ": statistics must have one dtype");
  const at::Tensor x = input.contiguous();
  const at::Tensor dy = grad_out.contiguous();
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  const at::Tensor mu = mean.contiguous();
  const at::Tensor sd = second.contiguous();
  int64_t N, C, S;
  extents(x, N, C, S);
  // Parameter gradients in the weight's dtype (the input's without one).
  const at::TensorOptions popts = w.defined() ? w.options() : x.options();
  at::Tensor dx, dw, db;
  if (output_mask[0]) dx = at::empty(x.sizes(), x.options());
  if (output_mask[1]) dw = at::empty({C}, popts);
  if (output_mask[2]) db = at::empty({C}, popts);
  if (C > 0 && (dx.defined() || dw.defined() || db.defined())) {
    kernels::BatchNormBackwardDesc d;
    d.dy = dy.const_data_ptr();
    d.x = x.const_data_ptr();
    d.weight = w.defined() ? w.const_data_ptr() : nullptr;
    d.mean = mu.const_data_ptr();
    d.invstd_or_var = sd.const_data_ptr();
    d.dx = dx.defined() ? dx.data_ptr() : nullptr;
    d.dweight = dw.defined() ? dw.data_ptr() : nullptr;
    d.dbias = db.defined() ? db.data_ptr() : nullptr;
    d.x_dtype = device_dtype(x.scalar_type(), name);
    d.param_dtype = device_dtype(popts.dtype().toScalarType(), name);
    d.stat_dtype = device_dtype(mu.scalar_type(), name);
    d.N = N;
    d.C = C;
    d.S = S;
    d.training = train;
    d.eps = eps;
    launch(input.device().index(), name, d.buffers(),
           [d] { kernels::batch_norm_backward(d); });
  }
  const at::MemoryFormat f = input.suggest_memory_format();
  if (dx.defined() && f != at::MemoryFormat::Contiguous) dx = dx.contiguous(f);
  return {std::move(dx), std::move(dw), std::move(db)};
}

}  // namespace torch_tpu::aten
