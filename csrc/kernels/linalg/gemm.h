// Matrix products on the device: batched GEMM and GEMV.
//
//   C[b] = alpha * A[b] @ B[b] + beta * S[b]        A: m x k, B: k x n, C, S: m x n
//
// Every operand is a strided view (element strides; any may be 0 except C's).
// S is the "self" of addmm/baddbmm; it may be C itself (in place), and it is
// not read at all when beta_zero (so NaN/inf in it never propagate, like
// CPU). Float types accumulate in float (float16, bfloat16, float32) or
// double (float64) and round once when storing; integer types compute modulo
// 2^bits like CPU's integer gemm. C must not overlap A, B, or S except that S
// may be exactly C (same pointer and strides): the caller guarantees it.
// Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct MatrixView {
  void* data = nullptr;
  int64_t row_stride = 0;    // between rows (the first matrix dimension)
  int64_t col_stride = 0;    // between columns
  int64_t batch_stride = 0;  // between matrices of a batch
};

struct GemmDesc {
  DType dtype = DType::kFloat32;  // all operands have it
  int64_t batch = 1, m = 0, n = 0, k = 0;
  MatrixView a, b, c, s;
  // Scalars as the accumulation type sees them: float types use alpha/beta
  // (already rounded to float for float32 and narrower), integer types
  // ialpha/ibeta.
  double alpha = 1, beta = 0;
  int64_t ialpha = 1, ibeta = 0;
  bool beta_zero = true;
  // Complex dtypes only: the imaginary parts of alpha and beta, and whether
  // A or B is read conjugated (a tensor with PyTorch's conj bit: mm, bmm and
  // dot take them as they are, and vdot conjugates its first operand).
  double alpha_imag = 0, beta_imag = 0;
  bool conj_a = false, conj_b = false;

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {a.data, b.data, c.data, s.data}; }
};

// Dtypes gemm supports: float16, bfloat16, float32, float64, the signed
// integer types plus uint8, and complex64/complex128 (complex_gemm.cpp: the
// device BLAS).
bool gemm_supports(DType t);

// Runs on the calling device worker (inside a launched body), split over the
// device's cores. Throws std::invalid_argument for unsupported dtypes.
void gemm(const GemmDesc& d);

// Which micro-kernel family serves a dtype ("avx512-vector", "amx-bf16",
// "blas-zgemm", ...): for tests and benchmarks.
const char* gemm_kernel_name(DType t);

}  // namespace torch_tpu::kernels
