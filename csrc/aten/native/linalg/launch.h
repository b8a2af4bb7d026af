// Shared by the matrix-product wrappers (native/linalg/gemm.cpp, gemv.cpp): device checks as
// torchgen emits them for CPU/CUDA, alpha/beta conversion as CPU's gemm does
// it, and the launcher of the device GEMM.
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <utility>

namespace torch_tpu::aten::matmul {

// result = alpha * a @ b + beta * self (self == nullptr: beta ignored).
// a, b and result are matrices (batched: 3-D with one batch size; result
// already has the output shape). self has result's shape (expanded views
// welcome) or is result itself. Handles empty shapes, k == 0, beta == 0 (self
// never read), and results overlapping the inputs (computed into a temporary).
void run_gemm(const char* op, const at::Tensor& result, const at::Tensor& a, const at::Tensor& b,
              const at::Tensor* self, const at::Scalar& alpha, const at::Scalar& beta,
              bool batched);

// The same with a vector: result (m) = alpha * mat (m x k) @ vec (k) + beta * self (m).
void run_gemv(const char* op, const at::Tensor& result, const at::Tensor& mat,
              const at::Tensor& vec, const at::Tensor* self, const at::Scalar& alpha,
              const at::Scalar& beta);

}  // namespace torch_tpu::aten::matmul
