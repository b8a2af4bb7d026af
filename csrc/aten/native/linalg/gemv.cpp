// Products with vectors on tpu: addmv (what mv reaches), dot and vdot,
// through the device GEMM (its matrix-vector path, kernels/linalg/gemv.cpp,
// for real dtypes; the device BLAS for complex ones).
// CPU's implementations call CPU BLAS: direct routes with CPU's checks.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/dot.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/scalar_tensor.h>

#include "aten/native/linalg/launch.h"
#include "generated/ops/addmv.h"
#include "generated/ops/dot.h"
#include "generated/ops/vdot.h"

namespace torch_tpu::aten {
namespace {

void addmv_impl(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& result) {
  TORCH_CHECK(result.scalar_type() == mat.scalar_type() && mat.scalar_type() == vec.scalar_type(),
              "addmv input tensors must have the same dtype, but got ", result.scalar_type(), ", ",
              mat.scalar_type(), ", and ", vec.scalar_type());
  if (mat.numel() == 0) {
    // As CPU: zeros, or self * beta in self's shape (a 1-element self stays 1 element).
    if (beta.toComplexDouble() == 0.0) {
      const_cast<at::Tensor&>(result).zero_();
    } else {
      at::mul_out(const_cast<at::Tensor&>(result), self,
                  at::scalar_tensor(beta, at::TensorOptions().dtype(self.scalar_type())));
    }
    return;
  }
  auto self_ = at::expand_size(self, {mat.size(0)});
  matmul::run_gemv("addmv", result, mat, vec, &*self_, alpha, beta);
}


}  // namespace

// The precheck of dot and vdot (ops.yaml): CPU's checks, made before it looks
// for a kernel of the dtype (vdot of real tensors is dot, on CPU too).
void dot_check(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(),
              "D and ", other.dim(), "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(),
              "dot : expected both vectors to have same dtype, but found ", self.scalar_type(),
              " and ", other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [",
              self.numel(), "] and src [", other.numel(),
              "] to have the same number of elements, but got ", self.numel(), " and ",
              other.numel(), " elements respectively");
}

void addmv_out(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const at::Scalar& beta,
               const at::Scalar& alpha, const at::Tensor& out) {
  addmv_impl(self, mat, vec, beta, alpha, out);
}

at::Tensor dot(const at::Tensor& self, const at::Tensor& tensor) {
  at::Tensor result = at::empty({}, self.options());
  matmul::run_gemm("dot", result.view({1, 1}), self.unsqueeze(0), tensor.unsqueeze(1), nullptr, 1,
                   0, /*batched=*/false);
  return result;
}

// vdot is dot with self conjugated: a conj-bit view the complex GEMM reads
// as it is (real dtypes: conj() is self, and vdot is dot, as on CPU).
at::Tensor vdot(const at::Tensor& self, const at::Tensor& other) {
  return at::dot(self.conj(), other);
}

}  // namespace torch_tpu::aten
