// Matrix products on tpu: mm, addmm, bmm, baddbmm (functional, in-place and
// out=), all through the device GEMM (kernels/linalg/gemm.h).
//
// ATen's CPU implementations (addmm_impl_cpu_, bmm_out_cpu) call CPU BLAS, so
// these are direct routes with structured impls: the generated wrappers run
// ATen's device-generic structured meta(), which checks shapes and dtypes
// with PyTorch's messages and computes (or resizes) the output, and set the
// device checks and guard. What follows meta() mirrors the CPU impl: addmm expands self to the result's shape; beta == 0 ignores self (NaN
// included); k == 0 gives beta * self. The GEMM reads any strides (transposed
// or sliced views need no copies) and takes self as a separate operand, so the
// bias of nn.Linear is never materialised into the output first.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/relu.h>

#include "aten/native/linalg/launch.h"
#include "generated/ops/_addmm_activation.h"
#include "generated/ops/addmm.h"
#include "generated/ops/baddbmm.h"
#include "generated/ops/bmm.h"
#include "generated/ops/mm.h"

namespace torch_tpu::aten {
namespace {

// --- mm -----------------------------------------------------------------------

void mm_impl(const at::Tensor& self, const at::Tensor& mat2, const at::Tensor& result) {
  matmul::run_gemm("mm", result, self, mat2, nullptr, 1, 0, /*batched=*/false);
}

// --- addmm ----------------------------------------------------------------------

void addmm_impl(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& result) {
  auto b_self = at::expand_size(self, {mat1.sizes()[0], mat2.sizes()[1]}, "addmm_out");
  TORCH_CHECK(mat1.dtype() == mat2.dtype(), "expected m1 and m2 to have the same dtype, but got: ",
              mat1.dtype(), " != ", mat2.dtype());
  const auto self_sizes = b_self->sizes();
  TORCH_CHECK(self_sizes[0] == mat1.sizes()[0] && self_sizes[1] == mat2.sizes()[1],
              "input shape is incompatible with matrix multiplication (", mat1.sizes()[0], "x",
              mat1.sizes()[1], " @ ", mat2.sizes()[0], "x", mat2.sizes()[1], " != ", self_sizes[0],
              "x", self_sizes[1], ")");
  matmul::run_gemm("addmm", result, mat1, mat2, &*b_self, alpha, beta, /*batched=*/false);
}

// --- bmm / baddbmm -------------------------------------------------------------------

void bmm_impl(const at::Tensor& self, const at::Tensor& mat2, const at::Tensor& result) {
  if (result.numel() == 0) return;
  matmul::run_gemm("bmm", result, self, mat2, nullptr, 1, 0, /*batched=*/true);
}

// ATen's baddbmm meta() already copied self into the result when beta != 0.
void baddbmm_impl(const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                  const at::Scalar& alpha, const at::Tensor& result) {
  if (result.numel() == 0) return;
  matmul::run_gemm("baddbmm", result, batch1, batch2, &result, alpha, beta, /*batched=*/true);
}

}  // namespace

// The prechecks (ops.yaml): CPU's same-dtype checks, which it makes before it
// looks for a kernel of the dtype, so mm(float, bool) raises CPU's
// RuntimeError here too, not the generated NotImplementedError for bool.
void mm_same_dtype(const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.scalar_type() == mat2.scalar_type(),
              "expected m1 and m2 to have the same dtype, but got: ", self.dtype(), " != ",
              mat2.dtype());
}

void bmm_same_dtype(const at::Tensor& batch1, const at::Tensor& batch2) {
  // CPU's bmm_out_or_baddbmm_ returns an empty result before it compares
  // (meta() has checked the shapes, so these sizes are the result's).
  if (batch1.size(0) * batch1.size(1) * batch2.size(2) == 0) return;
  TORCH_CHECK(batch1.scalar_type() == batch2.scalar_type(), "expected scalar type ",
              batch1.scalar_type(), " but found ", batch2.scalar_type());
}

void mm_out(const at::Tensor& self, const at::Tensor& mat2, const at::Tensor& out) {
  mm_impl(self, mat2, out);
}

void addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
               const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& out) {
  addmm_impl(self, mat1, mat2, beta, alpha, out);
}

// _addmm_activation, as CPU's addmm_activation_out_cpu: addmm, then ReLU or
// the exact GELU in place (CUDA's cuBLASLt epilogue uses the tanh form).
void addmm_activation_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                          const at::Scalar& beta, const at::Scalar& alpha, bool use_gelu, const at::Tensor& out) {
  addmm_impl(self, mat1, mat2, beta, alpha, out);
  at::Tensor& result = const_cast<at::Tensor&>(out);
  if (use_gelu) {
    at::gelu_(result);
  } else {
    at::relu_(result);
  }
}

void bmm_out(const at::Tensor& self, const at::Tensor& mat2, const at::Tensor& out) {
  bmm_impl(self, mat2, out);
}

void baddbmm_out(const at::Tensor& /*self*/, const at::Tensor& batch1, const at::Tensor& batch2,
                 const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& out) {
  baddbmm_impl(batch1, batch2, beta, alpha, out);
}

}  // namespace torch_tpu::aten
