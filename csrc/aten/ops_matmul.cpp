// Matrix products on tpu: mm, addmm, bmm, baddbmm (functional, in-place and
// out=), all through the device GEMM (kernels/gemm.h).
//
// ATen's CPU implementations (addmm_impl_cpu_, bmm_out_cpu) call CPU BLAS, so
// these are direct routes. ATen's structured meta() functions are
// device-generic: they check shapes and dtypes with PyTorch's messages and
// compute (or resize) the output, through the same output wrappers the stub
// route uses (structured_wrappers.h). What follows meta() mirrors the CPU
// impl: addmm expands self to the result's shape; beta == 0 ignores self (NaN
// included); k == 0 gives beta * self. The GEMM reads any strides (transposed
// or sliced views need no copies) and takes self as a separate operand, so the
// bias of nn.Linear is never materialised into the output first.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/addmm_meta.h>
#include <ATen/ops/baddbmm_meta.h>
#include <ATen/ops/bmm_meta.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mm_meta.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "aten/matmul_launch.h"
#include "aten/structured_wrappers.h"
#include "generated/aten_ops.h"

namespace torch_tpu::aten {
namespace {

using structured::Functional;
using structured::Inplace;
using structured::Out;

// --- mm -----------------------------------------------------------------------

void mm_impl(const at::Tensor& self, const at::Tensor& mat2, const at::Tensor& result) {
  TORCH_CHECK(self.scalar_type() == mat2.scalar_type(),
              "expected m1 and m2 to have the same dtype, but got: ", self.dtype(), " != ",
              mat2.dtype());
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
  TORCH_CHECK(self.scalar_type() == mat2.scalar_type(), "expected scalar type ",
              self.scalar_type(), " but found ", mat2.scalar_type());
  matmul::run_gemm("bmm", result, self, mat2, nullptr, 1, 0, /*batched=*/true);
}

// ATen's baddbmm meta() already copied self into the result when beta != 0.
void baddbmm_impl(const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                  const at::Scalar& alpha, const at::Tensor& result) {
  TORCH_CHECK(batch1.scalar_type() == batch2.scalar_type(), "expected scalar type ",
              batch1.scalar_type(), " but found ", batch2.scalar_type());
  matmul::run_gemm("baddbmm", result, batch1, batch2, &result, alpha, beta, /*batched=*/true);
}

}  // namespace

at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  matmul::check_devices("mm", {{self, "self"}, {mat2, "mat2"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Functional<at::meta::structured_mm> op;
  op.meta(self, mat2);
  mm_impl(self, mat2, op.output(0));
  return std::move(op.outputs_[0]);
}

at::Tensor& mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  matmul::check_devices("mm_out", {{self, "self"}, {mat2, "mat2"}, {out, "out"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Out<at::meta::structured_mm> op(out);
  op.meta(self, mat2);
  mm_impl(self, mat2, op.output(0));
  op.finish();
  return out;
}

at::Tensor addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                 const at::Scalar& beta, const at::Scalar& alpha) {
  matmul::check_devices("addmm", {{self, "self"}, {mat1, "mat1"}, {mat2, "mat2"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Functional<at::meta::structured_addmm> op;
  op.meta(self, mat1, mat2, beta, alpha);
  addmm_impl(self, mat1, mat2, beta, alpha, op.output(0));
  return std::move(op.outputs_[0]);
}

at::Tensor& addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                      const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  matmul::check_devices("addmm_out", {{self, "self"}, {mat1, "mat1"}, {mat2, "mat2"}, {out, "out"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Out<at::meta::structured_addmm> op(out);
  op.meta(self, mat1, mat2, beta, alpha);
  addmm_impl(self, mat1, mat2, beta, alpha, op.output(0));
  op.finish();
  return out;
}

at::Tensor& addmm_(at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                   const at::Scalar& beta, const at::Scalar& alpha) {
  matmul::check_devices("addmm_", {{self, "self"}, {mat1, "mat1"}, {mat2, "mat2"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Inplace<at::meta::structured_addmm> op(self);
  op.meta(self, mat1, mat2, beta, alpha);
  addmm_impl(self, mat1, mat2, beta, alpha, op.output(0));
  op.finish();
  return self;
}

at::Tensor bmm(const at::Tensor& self, const at::Tensor& mat2) {
  matmul::check_devices("bmm", {{self, "self"}, {mat2, "mat2"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Functional<at::meta::structured_bmm> op;
  op.meta(self, mat2);
  bmm_impl(self, mat2, op.output(0));
  return std::move(op.outputs_[0]);
}

at::Tensor& bmm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  matmul::check_devices("bmm_out", {{self, "self"}, {mat2, "mat2"}, {out, "out"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Out<at::meta::structured_bmm> op(out);
  op.meta(self, mat2);
  bmm_impl(self, mat2, op.output(0));
  op.finish();
  return out;
}

at::Tensor baddbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                   const at::Scalar& beta, const at::Scalar& alpha) {
  matmul::check_devices("baddbmm", {{self, "self"}, {batch1, "batch1"}, {batch2, "batch2"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Functional<at::meta::structured_baddbmm> op;
  op.meta(self, batch1, batch2, beta, alpha);
  baddbmm_impl(batch1, batch2, beta, alpha, op.output(0));
  return std::move(op.outputs_[0]);
}

at::Tensor& baddbmm_out(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                        const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  matmul::check_devices("baddbmm_out",
                        {{self, "self"}, {batch1, "batch1"}, {batch2, "batch2"}, {out, "out"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Out<at::meta::structured_baddbmm> op(out);
  op.meta(self, batch1, batch2, beta, alpha);
  baddbmm_impl(batch1, batch2, beta, alpha, op.output(0));
  op.finish();
  return out;
}

at::Tensor& baddbmm_(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                     const at::Scalar& beta, const at::Scalar& alpha) {
  matmul::check_devices("baddbmm_", {{self, "self"}, {batch1, "batch1"}, {batch2, "batch2"}});
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  Inplace<at::meta::structured_baddbmm> op(self);
  op.meta(self, batch1, batch2, beta, alpha);
  baddbmm_impl(batch1, batch2, beta, alpha, op.output(0));
  op.finish();
  return self;
}

}  // namespace torch_tpu::aten
