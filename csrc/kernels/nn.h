// nn kernels: softmax / log_softmax (+ backward), layer norm (+ backward),
// nll_loss (+ backward). Device code: descriptors in, no torch types.
//
// Layouts are what the launchers (csrc/aten/ops_nn*.cpp) make contiguous:
// softmax sees [outer, dim, inner] and layer norm [M, N], row major. Every
// kernel splits its rows over the device cores with runtime::parallel_for,
// computes float16/bfloat16/float in float and double in double, and gives
// the same bits for any number of cores.
#pragma once

#include <cstdint>

#include "tensor_desc.h"

namespace torch_tpu::kernels {

// ---- softmax ------------------------------------------------------------------
struct SoftmaxDesc {
  const void* input = nullptr;   // [outer, dim, inner] contiguous
  void* output = nullptr;        // same shape, contiguous
  DType input_dtype = DType::kFloat32;
  DType output_dtype = DType::kFloat32;  // differs only for half_to_float
  int64_t outer = 1, dim = 1, inner = 1;
  bool log = false;              // log_softmax
};
void softmax_forward(const SoftmaxDesc& d);

// grad_input = y * (g - sum(g * y))            (softmax)
//            = g - exp(y) * sum(g)             (log_softmax, y = log-probs)
struct SoftmaxBackwardDesc {
  const void* grad_output = nullptr;  // [outer, dim, inner] contiguous
  const void* output = nullptr;       // forward result, same dtype as grad_output
  void* grad_input = nullptr;
  DType grad_dtype = DType::kFloat32;        // grad_output and output
  DType grad_input_dtype = DType::kFloat32;  // differs only for half_to_float
  int64_t outer = 1, dim = 1, inner = 1;
  bool log = false;
};
void softmax_backward(const SoftmaxBackwardDesc& d);

// ---- layer norm -------------------------------------------------------------
struct LayerNormDesc {
  const void* x = nullptr;       // [M, N] contiguous
  const void* gamma = nullptr;   // [N] or null
  const void* beta = nullptr;    // [N] or null
  void* y = nullptr;             // [M, N] contiguous, x's dtype
  void* mean = nullptr;          // [M] (may be null)
  void* rstd = nullptr;          // [M] (may be null)
  DType x_dtype = DType::kFloat32;
  DType param_dtype = DType::kFloat32;  // gamma/beta (float when x is reduced and "mixed")
  DType stat_dtype = DType::kFloat32;   // mean/rstd
  int64_t M = 0, N = 0;
  double eps = 1e-5;
};
void layer_norm_forward(const LayerNormDesc& d);

struct LayerNormBackwardDesc {
  const void* dy = nullptr;      // [M, N] contiguous, x's dtype
  const void* x = nullptr;
  const void* mean = nullptr;    // [M]
  const void* rstd = nullptr;    // [M]
  const void* gamma = nullptr;   // [N] or null
  void* dx = nullptr;            // [M, N] or null (not requested); overlaps no input
  void* dgamma = nullptr;        // [N] or null
  void* dbeta = nullptr;         // [N] or null
  DType x_dtype = DType::kFloat32;
  DType param_dtype = DType::kFloat32;
  DType stat_dtype = DType::kFloat32;
  int64_t M = 0, N = 0;
};
void layer_norm_backward(const LayerNormBackwardDesc& d);

// ---- nll_loss -----------------------------------------------------------------
// input [batch, classes, inner] (nll_loss: inner = 1, or [classes] with
// batch = 1; nll_loss2d: inner = H * W), contiguous; target [batch, inner]
// int64 or uint8, contiguous; weight [classes] contiguous or null. Reductions as at::Reduction: 0 none, 1 mean, 2 sum.
// A target outside [0, classes) that is not ignore_index throws
// ("Target 7 is out of bounds."), which the stream reports at the next sync.
struct NllLossDesc {
  const void* input = nullptr;
  const void* target = nullptr;
  const void* weight = nullptr;
  void* output = nullptr;        // [batch, inner] for none, else a scalar
  void* total_weight = nullptr;  // scalar
  DType dtype = DType::kFloat32;        // input, weight, output, total_weight
  DType target_dtype = DType::kInt64;   // kInt64 or kUInt8
  int64_t batch = 1, classes = 1, inner = 1;
  int64_t reduction = 1;
  int64_t ignore_index = -100;
};
void nll_loss_forward(const NllLossDesc& d);

// grad_input must be zero-filled by the caller (same layout as input).
struct NllLossBackwardDesc {
  const void* grad_output = nullptr;  // [batch, inner] for none, else a scalar
  const void* target = nullptr;
  const void* weight = nullptr;
  const void* total_weight = nullptr; // scalar
  void* grad_input = nullptr;         // [batch, classes, inner] contiguous, zeroed
  DType dtype = DType::kFloat32;
  DType target_dtype = DType::kInt64;
  int64_t batch = 1, classes = 1, inner = 1;
  int64_t reduction = 1;
  int64_t ignore_index = -100;
};
void nll_loss_backward(const NllLossBackwardDesc& d);

}  // namespace torch_tpu::kernels
