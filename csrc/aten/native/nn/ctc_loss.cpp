// _ctc_loss and _ctc_loss_backward, with int[] and Tensor lengths (direct
// route): ATen's kernels are CPU/CUDA loops, so these check the arguments as
// CPU does (its order, messages and error types, before any device work) and
// launch kernels/nn/ctc_loss.h. nn.CTCLoss / F.ctc_loss reach the int[]
// overloads: ATen's ctc_loss copies Tensor lengths to the host itself.
#include <ATen/TensorUtils.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>

#include <algorithm>
#include <vector>

#include "aten/launch.h"
#include "generated/ops/_ctc_loss.h"
#include "generated/ops/_ctc_loss_Tensor.h"
#include "generated/ops/_ctc_loss_backward.h"
#include "generated/ops/_ctc_loss_backward_Tensor.h"
#include "kernels/nn/ctc_loss.h"

namespace torch_tpu::aten {
namespace {

// What the checks establish about the targets.
struct CtcTargets {
  int64_t max_target_length = 0;
  int64_t label_stride = 1;             // elements between consecutive labels
  std::vector<int64_t> offsets;         // where each batch element's labels start
};

constexpr const char* kCtcCheckedFrom = "ctc_loss_allocate_outputs";

// ATen's ctc_loss_allocate_outputs checks (CPU's forward), in its order: first
// those that need no lengths ...
void ctc_check_tensors(const at::Tensor& log_probs, const at::Tensor& targets, int64_t blank) {
  TORCH_CHECK(log_probs.numel() > 0, "log_probs tensor must not be empty");
  const at::TensorArg log_probs_arg(log_probs, "log_probs", 1);
  const at::TensorArg targets_arg(targets, "targets", 2);
  at::checkScalarType(kCtcCheckedFrom, targets_arg, targets.scalar_type() == at::kLong ? at::kLong : at::kInt);
  at::checkDim(kCtcCheckedFrom, log_probs_arg, 3);
  at::checkDimRange(kCtcCheckedFrom, targets_arg, 1, 3);
  TORCH_CHECK((0 <= blank) && (blank < log_probs.size(2)), "blank must be in label range");
}

// ... then the lengths against the tensors.
CtcTargets ctc_check_arguments(const at::Tensor& log_probs, const at::Tensor& targets,
                               at::IntArrayRef input_lengths, at::IntArrayRef target_lengths, int64_t blank) {
  ctc_check_tensors(log_probs, targets, blank);
  const at::CheckedFrom c = kCtcCheckedFrom;
  const at::TensorArg targets_arg(targets, "targets", 2);
  const int64_t batch_size = log_probs.size(1);
  TORCH_CHECK(static_cast<int64_t>(input_lengths.size()) == batch_size, "input_lengths must be of size batch_size");
  TORCH_CHECK(static_cast<int64_t>(target_lengths.size()) == batch_size, "target_lengths must be of size batch_size");
  CtcTargets tg;
  tg.offsets.resize(batch_size);
  int64_t pos = 0;
  for (int64_t b = 0; b < batch_size; ++b) {
    TORCH_CHECK(target_lengths[b] >= 0, "Expected target_lengths to have value at least ", 0, ", but got value ",
                target_lengths[b], " (while checking arguments for ", c, ")");
    // Concatenated targets start at label `pos` counted in elements, not
    // strides: CPU's (and CUDA's) offsets, which a strided 1-D targets
    // tensor reads accordingly.
    tg.offsets[b] = targets.dim() == 1 ? pos : b * targets.stride(0);
    pos += target_lengths[b];
    tg.max_target_length = std::max(tg.max_target_length, target_lengths[b]);
  }
  if (targets.dim() == 1) {  // concatenated targets
    tg.label_stride = targets.stride(0);
    at::checkSize(c, targets_arg, 0, pos);
  } else {  // [batch, max target length]
    tg.label_stride = targets.stride(1);
    at::checkSize(c, targets_arg, 0, batch_size);
    TORCH_CHECK(targets.size(1) >= tg.max_target_length, "Expected tensor to have size at least ",
                tg.max_target_length, " at dimension 1, but got size ", targets.size(1), " for ", targets_arg,
                " (while checking arguments for ", c, ")");
  }
  const int64_t max_input_length = log_probs.size(0);
  for (int64_t b = 0; b < batch_size; ++b) {
    TORCH_CHECK(input_lengths[b] >= 0, "Expected input_lengths to have value at least ", 0, ", but got value ",
                input_lengths[b], " (while checking arguments for ", c, ")");
    TORCH_CHECK(input_lengths[b] <= max_input_length, "Expected input_lengths to have value at most ",
                max_input_length, ", but got value ", input_lengths[b], " (while checking arguments for ", c, ")");
  }
  return tg;
}

// The descriptor fields both directions share.
kernels::CtcLossDesc ctc_describe(const at::Tensor& log_probs, const at::Tensor& targets,
                                  at::IntArrayRef input_lengths, at::IntArrayRef target_lengths, int64_t blank,
                                  CtcTargets tg, const char* name) {
  kernels::CtcLossDesc d;
  d.dtype = device_dtype(log_probs.scalar_type(), name);
  d.target_dtype = targets.scalar_type() == at::kLong ? kernels::DType::kInt64 : kernels::DType::kInt32;
  d.max_input_length = log_probs.size(0);
  d.batch = log_probs.size(1);
  d.labels = log_probs.size(2);
  d.blank = blank;
  d.states = 2 * tg.max_target_length + 1;
  d.log_probs = log_probs.const_data_ptr();
  for (int i = 0; i < 3; ++i) d.lp_stride[i] = log_probs.stride(i);
  d.targets = targets.const_data_ptr();
  d.target_stride = tg.label_stride;
  d.input_lengths = input_lengths.vec();
  d.target_lengths = target_lengths.vec();
  d.target_offsets = std::move(tg.offsets);
  return d;
}

std::tuple<at::Tensor, at::Tensor> ctc_forward(const at::Tensor& log_probs, const at::Tensor& targets,
                                               at::IntArrayRef input_lengths, at::IntArrayRef target_lengths,
                                               int64_t blank) {
  CtcTargets tg = ctc_check_arguments(log_probs, targets, input_lengths, target_lengths, blank);
  const int64_t batch_size = log_probs.size(1);
  at::Tensor log_alpha =
      at::empty({batch_size, log_probs.size(0), 2 * tg.max_target_length + 1}, log_probs.options());
  at::Tensor neg_log_likelihood = at::empty({batch_size}, log_probs.options());
  kernels::CtcLossDesc d =
      ctc_describe(log_probs, targets, input_lengths, target_lengths, blank, std::move(tg), "_ctc_loss");
  d.log_alpha = log_alpha.data_ptr();
  for (int i = 0; i < 3; ++i) d.la_stride[i] = log_alpha.stride(i);
  d.neg_log_likelihood = neg_log_likelihood.data_ptr();
  d.nll_stride = neg_log_likelihood.stride(0);
  launch_validating(log_probs.device().index(), "_ctc_loss", d.buffers(), [d] { kernels::ctc_loss_forward(d); });
  return {std::move(neg_log_likelihood), std::move(log_alpha)};
}

// How CPU's backward refuses a tensor it reads through a TensorAccessor:
// the dimension count first, then the element type.
void ctc_check_accessor(const at::Tensor& t, int64_t dims, at::ScalarType type) {
  TORCH_CHECK(t.dim() == dims, "TensorAccessor expected ", dims, " dims but tensor has ", t.dim());
  TORCH_CHECK(t.scalar_type() == type, "expected scalar type ", type, " but found ", t.scalar_type());
}

// CPU's backward checks what its accessors check, in its order, and nothing
// more; returns the (not yet written) gradient, [T, N, C] contiguous as CPU's.
at::Tensor ctc_backward_prepare(const at::Tensor& grad, const at::Tensor& log_probs, const at::Tensor& targets,
                                const at::Tensor& neg_log_likelihood, const at::Tensor& log_alpha) {
  const int64_t max_input_length = log_probs.size(0);
  const int64_t batch_size = log_probs.size(1);
  const int64_t num_labels = log_probs.size(2);
  (void)log_probs.permute({1, 0, 2});  // more than 3 dims: permute's own error, as on CPU
  const at::ScalarType type = log_probs.scalar_type();
  ctc_check_accessor(log_alpha, 3, type);
  const at::ScalarType target_type = targets.scalar_type() == at::kLong ? at::kLong : at::kInt;
  TORCH_CHECK(targets.scalar_type() == target_type, "expected scalar type ", target_type, " but found ",
              targets.scalar_type());
  ctc_check_accessor(grad, 1, type);
  if (batch_size > 0) ctc_check_accessor(neg_log_likelihood, 1, type);
  return at::empty({max_input_length, batch_size, num_labels}, log_probs.options());
}

at::Tensor ctc_backward(at::Tensor grad_input, const at::Tensor& grad, const at::Tensor& log_probs,
                        const at::Tensor& targets, at::IntArrayRef input_lengths, at::IntArrayRef target_lengths,
                        const at::Tensor& neg_log_likelihood, const at::Tensor& log_alpha, int64_t blank,
                        bool zero_infinity) {
  if (grad_input.numel() == 0) return grad_input;
  // CPU trusts the rest to the forward and reads out of bounds otherwise:
  // tpu repeats the forward's checks and refuses tensors too small.
  CtcTargets tg = ctc_check_arguments(log_probs, targets, input_lengths, target_lengths, blank);
  const int64_t batch_size = log_probs.size(1);
  const int64_t longest_input = *std::max_element(input_lengths.begin(), input_lengths.end());
  TORCH_CHECK(grad.size(0) >= batch_size && neg_log_likelihood.size(0) >= batch_size,
              "ctc_loss_backward: expected grad and neg_log_likelihood of at least ", batch_size,
              " elements (the batch size), got ", grad.sizes(), " and ", neg_log_likelihood.sizes());
  TORCH_CHECK(log_alpha.size(0) >= batch_size && log_alpha.size(1) >= longest_input &&
                  log_alpha.size(2) >= 2 * tg.max_target_length + 1,
              "ctc_loss_backward: expected log_alpha of at least [", batch_size, ", ", longest_input, ", ",
              2 * tg.max_target_length + 1, "] (the forward's), got ", log_alpha.sizes());
  kernels::CtcLossDesc d = ctc_describe(log_probs, targets, input_lengths, target_lengths, blank, std::move(tg),
                                        "_ctc_loss_backward");
  d.log_alpha = const_cast<void*>(log_alpha.const_data_ptr());  // read only
  for (int i = 0; i < 3; ++i) d.la_stride[i] = log_alpha.stride(i);
  d.neg_log_likelihood = const_cast<void*>(neg_log_likelihood.const_data_ptr());  // read only
  d.nll_stride = neg_log_likelihood.stride(0);
  d.grad_out = grad.const_data_ptr();
  d.grad_out_stride = grad.stride(0);
  d.grad = grad_input.data_ptr();
  d.zero_infinity = zero_infinity;
  launch_validating(log_probs.device().index(), "_ctc_loss_backward", d.buffers(), [d] { kernels::ctc_loss_backward(d); });
  return grad_input;
}

void ctc_check_integral_lengths(const at::Tensor& input_lengths, const at::Tensor& target_lengths) {
  TORCH_CHECK(at::isIntegralType(input_lengths.scalar_type(), /*includeBool=*/false), "input_lengths must be integral");
  TORCH_CHECK(at::isIntegralType(target_lengths.scalar_type(), /*includeBool=*/false),
              "target_lengths must be integral");
}

// The Tensor overloads read the lengths on the host, as CPU's do (which copy
// them there): both in one device-to-host copy, one counted synchronisation
// ("copy_d2h"), the price of sizing log_alpha and checking the lengths. The
// callers refuse what they can without the lengths before that copy.
std::vector<int64_t> ctc_read_lengths(const at::Tensor& input_lengths, const at::Tensor& target_lengths) {
  const at::Tensor both =
      at::cat({input_lengths.reshape(-1).to(at::kLong), target_lengths.reshape(-1).to(at::kLong)}).cpu();
  const int64_t* p = both.const_data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + both.numel());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> _ctc_loss(const at::Tensor& log_probs, const at::Tensor& targets,
                                             at::IntArrayRef input_lengths, at::IntArrayRef target_lengths,
                                             int64_t blank, bool zero_infinity) {
  (void)zero_infinity;  // the forward's loss does not depend on it (ctc_loss applies it)
  return ctc_forward(log_probs, targets, input_lengths, target_lengths, blank);
}

std::tuple<at::Tensor, at::Tensor> _ctc_loss_Tensor(const at::Tensor& log_probs, const at::Tensor& targets,
                                                    const at::Tensor& input_lengths,
                                                    const at::Tensor& target_lengths, int64_t blank,
                                                    bool zero_infinity) {
  (void)zero_infinity;
  ctc_check_integral_lengths(input_lengths, target_lengths);
  ctc_check_tensors(log_probs, targets, blank);
  const std::vector<int64_t> lengths = ctc_read_lengths(input_lengths, target_lengths);
  const at::IntArrayRef all(lengths);
  const int64_t n = input_lengths.numel();
  return ctc_forward(log_probs, targets, all.slice(0, n), all.slice(n), blank);
}

at::Tensor _ctc_loss_backward(const at::Tensor& grad, const at::Tensor& log_probs, const at::Tensor& targets,
                              at::IntArrayRef input_lengths, at::IntArrayRef target_lengths,
                              const at::Tensor& neg_log_likelihood, const at::Tensor& log_alpha, int64_t blank,
                              bool zero_infinity) {
  at::Tensor grad_input = ctc_backward_prepare(grad, log_probs, targets, neg_log_likelihood, log_alpha);
  return ctc_backward(std::move(grad_input), grad, log_probs, targets, input_lengths, target_lengths,
                      neg_log_likelihood, log_alpha, blank, zero_infinity);
}

at::Tensor _ctc_loss_backward_Tensor(const at::Tensor& grad, const at::Tensor& log_probs, const at::Tensor& targets,
                                     const at::Tensor& input_lengths, const at::Tensor& target_lengths,
                                     const at::Tensor& neg_log_likelihood, const at::Tensor& log_alpha,
                                     int64_t blank, bool zero_infinity) {
  ctc_check_integral_lengths(input_lengths, target_lengths);
  at::Tensor grad_input = ctc_backward_prepare(grad, log_probs, targets, neg_log_likelihood, log_alpha);
  if (grad_input.numel() == 0) return grad_input;
  ctc_check_tensors(log_probs, targets, blank);
  const std::vector<int64_t> lengths = ctc_read_lengths(input_lengths, target_lengths);
  const at::IntArrayRef all(lengths);
  const int64_t n = input_lengths.numel();
  return ctc_backward(std::move(grad_input), grad, log_probs, targets, all.slice(0, n), all.slice(n),
                      neg_log_likelihood, log_alpha, blank, zero_infinity);
}

}  // namespace torch_tpu::aten
