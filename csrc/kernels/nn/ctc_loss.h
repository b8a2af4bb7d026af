// CTC loss (ctc_loss.cpp): Graves et al.'s forward-backward recursions in
// log space, one batch element per task, as ATen's CPU kernel computes them
// (the same operations in the same order, so float and double give CPU's
// bits; only calls whose result is exact anyway, exp(0) and exp(-inf), are
// skipped).
//
// Batch element b reads log_probs[t, b, c] for t < input_lengths[b] and its
// target, targets[target_offsets[b] + i * target_stride] for
// i < target_lengths[b]; the extended target l' puts the blank before,
// between and after the labels (2 * target_length + 1 states).
//   forward:  log_alpha [N, T, states] and neg_log_likelihood [N];
//             entries no path reaches (t >= input_length, s > 2 * target
//             length) are -inf, where CPU leaves them unwritten.
//   backward: grad [T, N, C] (contiguous): exp(lp) - exp(log(sum over s with
//             l'[s] = c of alpha * beta) + nll - lp), times grad_out[b]; zero for
//             t >= input_length, and for the whole element when zero_infinity
//             and its loss is +inf.
// A label outside [0, C) raises a RuntimeError at the next synchronisation
// (CPU reads out of bounds there). Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct CtcLossDesc {
  DType dtype = DType::kFloat32;         // float32 or float64: every floating tensor
  DType target_dtype = DType::kInt64;    // int64 or int32
  int64_t max_input_length = 0;          // log_probs [T, N, C]
  int64_t batch = 0, labels = 0;
  int64_t blank = 0;
  int64_t states = 1;                    // log_alpha's last size: 2 * max target length + 1
  const void* log_probs = nullptr;
  int64_t lp_stride[3] = {0, 0, 0};      // elements, (t, n, c)
  const void* targets = nullptr;
  int64_t target_stride = 1;             // elements between consecutive labels
  std::vector<int64_t> input_lengths, target_lengths, target_offsets;  // host values, [N] each
  void* log_alpha = nullptr;             // [N, T, states]: written contiguous by the forward,
  int64_t la_stride[3] = {0, 0, 1};      // read with these strides (elements) by the backward
  void* neg_log_likelihood = nullptr;    // [N], stride nll_stride
  int64_t nll_stride = 1;
  // backward only
  const void* grad_out = nullptr;        // [N], stride grad_out_stride (0 when expanded)
  int64_t grad_out_stride = 1;
  void* grad = nullptr;                  // [T, N, C] contiguous
  bool zero_infinity = false;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const {
    return {log_probs, targets, log_alpha, neg_log_likelihood, grad_out, grad};
  }
};

void ctc_loss_forward(const CtcLossDesc& d);
void ctc_loss_backward(const CtcLossDesc& d);

}  // namespace torch_tpu::kernels
