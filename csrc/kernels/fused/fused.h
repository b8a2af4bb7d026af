// Fused kernels behind the custom operators (torch.ops.tpu.*, declared in
// ops.yaml): RMSNorm (+ backward), rotary position embedding, bias + GELU.
// Device code: descriptors in, no torch types.
//
// Layouts are what the launchers (csrc/aten/native/fused/custom_ops.cpp) make them: the
// normalized / rotated / biased dimension is the last one, rows are
// contiguous [rows, n]. Rows split over the device cores with
// runtime::parallel_for; float16/bfloat16/float compute in float, double in
// double, and results do not depend on the core count.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// y = x * rstd * weight, rstd = 1 / sqrt(mean(x^2) + eps) over each row.
struct RmsNormDesc {
  const void* x = nullptr;        // [rows, n] contiguous
  const void* weight = nullptr;   // [n] or null (1)
  void* y = nullptr;              // [rows, n] contiguous, x's dtype
  DType dtype = DType::kFloat32;  // x, weight and y
  int64_t rows = 0, n = 0;
  double eps = 1e-6;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {x, weight, y}; }
};
void rms_norm_forward(const RmsNormDesc& d);

// With u = dy * weight: dx = rstd * u - x * rstd^3 * mean(u * x) per row;
// dweight = sum over rows of dy * x * rstd (fixed row blocks, so the sum
// does not depend on the core count).
struct RmsNormBackwardDesc {
  const void* dy = nullptr;       // [rows, n] contiguous
  const void* x = nullptr;        // [rows, n] contiguous
  const void* weight = nullptr;   // [n] or null
  void* dx = nullptr;             // [rows, n] or null (not wanted)
  void* dweight = nullptr;        // [n] or null (not wanted)
  DType dtype = DType::kFloat32;
  int64_t rows = 0, n = 0;
  double eps = 1e-6;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {dy, x, weight, dx, dweight}; }
};
void rms_norm_backward(const RmsNormBackwardDesc& d);

// y = x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1) for the
// halves x1, x2 of each row (the "rotate half" convention of GPT-NeoX and
// Llama). cos and sin give one row of n values per x row through
// `table_row` (broadcast over heads, batch...): row r of x uses row
// table_row[r] of cos/sin. x and y may be the same memory (in place).
struct RotaryDesc {
  const void* x = nullptr;        // [rows, n] contiguous, n even
  const void* cos = nullptr;      // [table_rows, n] contiguous
  const void* sin = nullptr;      // [table_rows, n] contiguous
  const int64_t* table_row = nullptr;  // [rows]: which cos/sin row each x row uses
  void* y = nullptr;              // [rows, n] contiguous (may be x)
  DType dtype = DType::kFloat32;  // x, cos, sin and y
  int64_t rows = 0, n = 0;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {x, cos, sin, table_row, y}; }
};
void rotary_embedding(const RotaryDesc& d);

// y = gelu(x + bias) (exact or tanh approximation), bias broadcast over rows.
struct BiasGeluDesc {
  const void* x = nullptr;        // [rows, n] contiguous
  const void* bias = nullptr;     // [n] contiguous
  void* y = nullptr;              // [rows, n] contiguous
  DType dtype = DType::kFloat32;
  int64_t rows = 0, n = 0;
  bool tanh = false;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {x, bias, y}; }
};
void bias_gelu(const BiasGeluDesc& d);

}  // namespace torch_tpu::kernels
