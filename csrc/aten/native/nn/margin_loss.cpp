// nn.MultiMarginLoss and nn.MultiLabelMarginLoss with their backwards, composed
// of tpu ops (direct: upstream's kernels are CPU/CUDA-specific loops). CPU's
// argument checks and messages; a target out of range is found with one
// counted synchronisation, as CPU (which reads the targets on the host) and
// CUDA (a device assert) both stop there. float16 and bfloat16 (CUDA's,
// not CPU's) compute in float.
//
// multi_margin: per sample, sum over classes d != y of
//   h = max(0, margin - x[y] + x[d])^p * weight[y], divided by the classes.
// multilabel_margin: the labels of a sample are target's entries before the
// first -1; per label j and non-label k, max(0, 1 - x[j] + x[k]), summed and
// divided by the classes.
#include <ATen/core/Reduction.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cumprod.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

#include "generated/ops/multi_margin_loss.h"
#include "generated/ops/multi_margin_loss_backward.h"
#include "generated/ops/multi_margin_loss_backward_grad_input.h"
#include "generated/ops/multi_margin_loss_out.h"
#include "generated/ops/multilabel_margin_loss_backward.h"
#include "generated/ops/multilabel_margin_loss_backward_grad_input.h"
#include "generated/ops/multilabel_margin_loss_forward.h"
#include "generated/ops/multilabel_margin_loss_forward_output.h"

namespace torch_tpu::aten {
namespace {

// (frames, classes) as CPU counts them: a 0-dim input is one class.
std::pair<int64_t, int64_t> margin_extents(const at::Tensor& input) {
  const int64_t nd = input.dim();
  const bool valid = (nd == 2 && input.size(1) != 0) || (nd == 1 && input.size(0) != 0) || nd == 0;
  TORCH_CHECK(valid, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.sizes());
  if (nd <= 1) return {1, nd == 0 ? 1 : input.size(0)};
  return {input.size(0), input.size(1)};
}

void margin_check_floating(const at::Tensor& input, const char* name) {
  TORCH_CHECK(at::isFloatingType(input.scalar_type()),
              "\"", name, "\" not implemented for '", c10::toString(input.scalar_type()), "'");
}

// float16/bfloat16 (CUDA's dtypes, which CPU lacks) compute in float, as
// CUDA's kernels do in their accumulate type; results round once into the
// outputs (their copy_).
at::Tensor opmath(const at::Tensor& t) {
  return t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16 ? t.to(at::kFloat) : t;
}

// The per-sample losses (frames) reduced as CPU: mean and sum accumulate in
// double for float (at::acc_type), here the tpu reduction in the input dtype.
at::Tensor margin_reduce(const at::Tensor& per_frame, int64_t reduction, bool scalar_none) {
  if (reduction == at::Reduction::Mean) return per_frame.mean();
  if (reduction == at::Reduction::Sum) return per_frame.sum();
  return scalar_none ? per_frame.reshape({}) : per_frame;
}

// ---- multi_margin ------------------------------------------------------------

struct MultiMargin {
  at::Tensor x;       // (frames, classes)
  at::Tensor target;  // (frames, 1), int64
  at::Tensor z;       // margin - x[y] + x, (frames, classes)
};

void check_long_target(const at::Tensor& target) {
  TORCH_CHECK(target.scalar_type() == at::kLong, "expected scalar type Long but found ", target.scalar_type());
}

MultiMargin multi_margin_setup(const at::Tensor& input, const at::Tensor& target, const at::Scalar& p,
                               const at::Scalar& margin, const std::optional<at::Tensor>& weight,
                               const char* name) {
  TORCH_CHECK(p.toInt() == 1 || p.toInt() == 2, "only p == 1 and p == 2 supported");
  margin_check_floating(input, name);
  const auto [frames, classes] = margin_extents(input);
  TORCH_CHECK(target.dim() <= 1 && target.numel() == frames,
              "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
              "(batch size). Expected target size [", frames, "], but got ", target.sizes(), ". Input has shape ",
              input.sizes(), ".");
  const bool has_weight = weight.has_value() && weight->defined();
  TORCH_CHECK(!has_weight || (weight->dim() <= 1 && weight->numel() == classes), "inconsistent weight size, expected ",
              classes, " but got ", has_weight ? weight->sizes() : at::IntArrayRef{});
  check_long_target(target);
  MultiMargin m;
  m.x = opmath(input).reshape({frames, classes});
  m.target = target.reshape({frames, 1});
  if (frames > 0) {
    const bool in_range = ((m.target >= 0) & (m.target < classes)).all().item<bool>();
    TORCH_CHECK(in_range, "target out of range");
  }
  const at::Tensor x_target = m.x.gather(1, m.target);
  m.z = at::rsub(x_target, margin).add(m.x);  // (margin - x[y]) + x[d], CPU's order
  return m;
}

at::Tensor weight_of_target(const std::optional<at::Tensor>& weight, const at::Tensor& target) {
  if (!weight.has_value() || !weight->defined()) return {};
  return opmath(*weight).reshape(-1).index_select(0, target.reshape(-1)).unsqueeze(1);
}

}  // namespace

at::Tensor& multi_margin_loss_out(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                                  const at::Scalar& margin, const std::optional<at::Tensor>& weight,
                                  int64_t reduction, at::Tensor& out) {
  const bool none = reduction == at::Reduction::None && target.dim() > 0;
  MultiMargin m = multi_margin_setup(self, target, p, margin, weight, "multi_margin_loss");
  const int64_t classes = m.x.size(1);
  at::Tensor h = m.z.clamp_min(0);
  if (p.toInt() == 2) h = h * h;
  if (at::Tensor w = weight_of_target(weight, m.target); w.defined()) h = h * w;
  h.scatter_(1, m.target, 0);  // d == y does not count
  const at::Tensor per_frame = h.sum(1).div_(classes);
  const at::Tensor loss = margin_reduce(per_frame, reduction, !none);
  at::native::resize_output(out, loss.sizes());
  return out.copy_(loss);
}

at::Tensor multi_margin_loss(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                             const at::Scalar& margin, const std::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor out = at::empty({0}, self.options());
  return multi_margin_loss_out(self, target, p, margin, weight, reduction, out);
}

at::Tensor& multi_margin_loss_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                                  const at::Tensor& target, const at::Scalar& p,
                                                  const at::Scalar& margin, const std::optional<at::Tensor>& weight,
                                                  int64_t reduction, at::Tensor& grad_input) {
  MultiMargin m = multi_margin_setup(self, target, p, margin, weight, "multi_margin_loss_backward");
  const int64_t frames = m.x.size(0), classes = m.x.size(1);
  const double g = reduction == at::Reduction::Mean ? 1. / (frames * classes) : 1. / classes;
  // d != y: (p == 1 ? g : 2 g z) * weight[y] where z > 0; d == y: minus their sum.
  at::Tensor h = p.toInt() == 1 ? at::where(m.z > 0, g, 0.0).to(m.x.scalar_type())
                                 : at::where(m.z > 0, m.z * (2 * g), at::zeros_like(m.z));
  if (at::Tensor w = weight_of_target(weight, m.target); w.defined()) h = h * w;
  h.scatter_(1, m.target, 0);
  h.scatter_(1, m.target, h.sum(1, /*keepdim=*/true).neg_());
  const bool per_frame = reduction == at::Reduction::None && grad_output.dim() > 0;
  h.mul_(per_frame ? grad_output.reshape({frames, 1}) : grad_output.reshape({}));
  at::native::resize_output(grad_input, self.sizes());
  return grad_input.copy_(h.reshape(self.sizes()));
}

at::Tensor multi_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                      const at::Scalar& p, const at::Scalar& margin,
                                      const std::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor grad_input = at::empty({0}, self.options());
  return multi_margin_loss_backward_grad_input(grad_output, self, target, p, margin, weight, reduction, grad_input);
}

// ---- multilabel_margin --------------------------------------------------------

namespace {

struct MultiLabel {
  at::Tensor x;          // (frames, classes)
  at::Tensor is_target;  // (frames, classes), x's dtype, 0/1
  at::Tensor counts;     // (frames, classes): how often each class is listed as a label
  at::Tensor active;     // (frames, classes, classes): label j, non-label k, 1 - x[j] + x[k] > 0
  at::Tensor z;          // (frames, classes, classes): 1 - x[j] + x[k]
};

MultiLabel multilabel_setup(const at::Tensor& input, const at::Tensor& target, const char* name) {
  margin_check_floating(input, name);
  const auto [frames, classes] = margin_extents(input);
  const char* arg = "argument #2 'target'";
  const bool consistent = input.dim() <= 1 ? target.dim() <= 1 && target.numel() == classes
                                           : target.dim() == 2 && target.size(0) == frames && target.size(1) == classes;
  TORCH_CHECK(consistent, "inconsistent target size: ", target.sizes(), " for input of size: ", input.sizes());
  check_long_target(target);
  MultiLabel m;
  m.x = opmath(input).reshape({frames, classes});
  const at::Tensor t = target.reshape({frames, classes});
  if (t.numel() > 0) {  // an empty batch has no targets to check (min() of nothing raises)
    TORCH_CHECK(t.min().item<int64_t>() >= -1, arg, " is out of range");
    TORCH_CHECK(t.max().item<int64_t>() < classes, arg, " is out of range");
  }
  // Labels: the entries before the first -1 of each row.
  const at::Tensor listed = at::cumprod(t >= 0, 1).to(m.x.scalar_type());
  m.counts = at::zeros({frames, classes}, m.x.options()).scatter_add_(1, t.clamp_min(0), listed);
  m.is_target = (m.counts > 0).to(m.x.scalar_type());
  m.z = at::rsub(m.x.unsqueeze(2), 1).add(m.x.unsqueeze(1));  // (1 - x[j]) + x[k]
  m.active = (m.z > 0).logical_and_(m.is_target.unsqueeze(1) == 0).to(m.x.scalar_type());
  return m;
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&> multilabel_margin_loss_forward_output(const at::Tensor& self,
                                                                           const at::Tensor& target,
                                                                           int64_t reduction, at::Tensor& output,
                                                                           at::Tensor& is_target) {
  MultiLabel m = multilabel_setup(self, target, "multilabel_margin_loss_forward");
  const int64_t classes = m.x.size(1);
  // Each label j counts once per listing: sum_j counts[j] * sum_k active * z.
  const at::Tensor per_label = (m.z * m.active).sum(2);
  const at::Tensor per_frame = (per_label * m.counts).sum(1).div_(classes);
  const at::Tensor loss = margin_reduce(per_frame, reduction, target.dim() <= 1);
  at::native::resize_output(output, loss.sizes());
  output.copy_(loss);
  at::native::resize_output(is_target, target.sizes());
  is_target.copy_(m.is_target.reshape(target.sizes()));
  return {output, is_target};
}

std::tuple<at::Tensor, at::Tensor> multilabel_margin_loss_forward(const at::Tensor& self, const at::Tensor& target,
                                                                  int64_t reduction) {
  at::Tensor output = at::empty({0}, self.options());
  at::Tensor is_target = at::empty({0}, self.options());
  multilabel_margin_loss_forward_output(self, target, reduction, output, is_target);
  return {output, is_target};
}

at::Tensor& multilabel_margin_loss_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                                       const at::Tensor& target, int64_t reduction,
                                                       const at::Tensor& /*is_target: recomputed*/,
                                                       at::Tensor& grad_input) {
  MultiLabel m = multilabel_setup(self, target, "multilabel_margin_loss_backward");
  const int64_t frames = m.x.size(0), classes = m.x.size(1);
  const double g = reduction == at::Reduction::Mean ? 1. / (frames * classes) : 1. / classes;
  // Each active (j, k), counted per listing of j: -g to x[j], +g to x[k].
  const at::Tensor weighted = m.active * m.counts.unsqueeze(2);
  at::Tensor grad = weighted.sum(1).sub_(weighted.sum(2)).mul_(g);
  const bool per_frame = reduction == at::Reduction::None && grad_output.dim() > 0;
  grad.mul_(per_frame ? grad_output.reshape({frames, 1}) : grad_output.reshape({}));
  at::native::resize_output(grad_input, self.sizes());
  return grad_input.copy_(grad.reshape(self.sizes()));
}

at::Tensor multilabel_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                           const at::Tensor& target, int64_t reduction,
                                           const at::Tensor& is_target) {
  at::Tensor grad_input = at::zeros_like(self, at::MemoryFormat::Contiguous);
  return multilabel_margin_loss_backward_grad_input(grad_output, self, target, reduction, is_target, grad_input);
}

}  // namespace torch_tpu::aten
