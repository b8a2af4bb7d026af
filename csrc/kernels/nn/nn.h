// nn kernels: softmax / log_softmax (+ backward), layer norm (+ backward),
// nll_loss (+ backward), batch norm (+ backward), pooling (+ backward). Device code: descriptors in, no torch types.
//
// Layouts are what the launchers (csrc/aten/native/nn/) make contiguous:
// softmax sees [outer, dim, inner] and layer norm [M, N], row major. Every
// kernel splits its rows over the device cores with runtime::parallel_for,
// computes float16/bfloat16/float in float and double in double, and gives
// the same bits for any number of cores.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// ---- softmax ------------------------------------------------------------------
struct SoftmaxDesc {
  const void* input = nullptr;   // [outer, dim, inner] contiguous
  void* output = nullptr;        // same shape, contiguous
  DType input_dtype = DType::kFloat32;
  DType output_dtype = DType::kFloat32;  // differs only for half_to_float
  int64_t outer = 1, dim = 1, inner = 1;
  bool log = false;              // log_softmax

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {input, output}; }
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

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {grad_output, output, grad_input}; }
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

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {x, gamma, beta, y, mean, rstd}; }
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

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {dy, x, mean, rstd, gamma, dx, dgamma, dbeta}; }
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

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {input, target, weight, output, total_weight}; }
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

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {grad_output, target, weight, total_weight, grad_input}; }
};
void nll_loss_backward(const NllLossBackwardDesc& d);

// ---- batch norm -------------------------------------------------------------
// x [N, C, S] contiguous (S = the spatial sizes' product); statistics per
// channel over N * S values, in double. weight/bias [C] (param_dtype) or
// null; running_mean/var [C] (running_dtype) or null.
struct BatchNormDesc {
  const void* x = nullptr;
  void* y = nullptr;              // like x
  const void* weight = nullptr;
  const void* bias = nullptr;
  void* running_mean = nullptr;   // training: updated with momentum; eval: read
  void* running_var = nullptr;
  void* save_mean = nullptr;      // [C] stat_dtype: the mean used
  void* save_invstd = nullptr;    // [C] stat_dtype: 1 / sqrt(var + eps) used
  DType x_dtype = DType::kFloat32;
  DType param_dtype = DType::kFloat32;
  DType running_dtype = DType::kFloat32;
  DType stat_dtype = DType::kFloat32;
  int64_t N = 0, C = 0, S = 0;
  bool training = true;
  double momentum = 0.1, eps = 1e-5;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {x, y, weight, bias, running_mean, running_var, save_mean, save_invstd}; }
};
void batch_norm_forward(const BatchNormDesc& d);

// training: mean/invstd are the forward's save_mean/save_invstd (stat_dtype);
// eval: running_mean/running_var (stat_dtype names their dtype), invstd
// recomputed with eps.
struct BatchNormBackwardDesc {
  const void* dy = nullptr;       // [N, C, S] contiguous, x's dtype
  const void* x = nullptr;
  const void* weight = nullptr;   // [C] or null
  const void* mean = nullptr;
  const void* invstd_or_var = nullptr;
  void* dx = nullptr;             // null when not requested
  void* dweight = nullptr;
  void* dbias = nullptr;
  DType x_dtype = DType::kFloat32;
  DType param_dtype = DType::kFloat32;  // weight, dweight, dbias
  DType stat_dtype = DType::kFloat32;   // mean, invstd_or_var
  int64_t N = 0, C = 0, S = 0;
  bool training = true;
  double eps = 1e-5;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {dy, x, weight, mean, invstd_or_var, dx, dweight, dbias}; }
};
void batch_norm_backward(const BatchNormBackwardDesc& d);

// ---- pooling ------------------------------------------------------------------
// planes [P, *in] contiguous (P = batch * channels), spatial sizes padded to
// three dimensions (leading unused ones 1, with kernel 1, stride 1, padding
// 0). Windows per dimension, output index o:
//   max:      taps o*stride - padding + j*dilation, j < kernel, inside [0, in)
//   avg:      [o*stride - padding, + kernel) clipped to [0, in); the divisor
//             is divisor_override, or the window size before clipping to the
//             input (but after clipping to in + padding) with
//             count_include_pad, else the clipped size
//   adaptive: [floor(o * in / out), ceil((o + 1) * in / out)), averaged or,
//             for adaptive max, the maximum (with indices, as max)
enum class PoolKind : int8_t { kMax, kAvg, kAdaptiveAvg, kAdaptiveMax };

struct PoolDesc {
  PoolKind kind = PoolKind::kMax;
  DType dtype = DType::kFloat32;
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, padding[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0: none
};

// y [P, *out]; max and adaptive max also write indices [P, *out] (int64, the flat position
// in the plane of the maximum: the last NaN, else the first maximum, as CPU).
void pool_forward(const PoolDesc& d, const void* x, void* y, int64_t* indices);
// grad_input [P, *in] = the adjoint of pool_forward applied to grad_output.
void pool_backward(const PoolDesc& d, const void* grad_output, const int64_t* indices, void* grad_input);

}  // namespace torch_tpu::kernels
