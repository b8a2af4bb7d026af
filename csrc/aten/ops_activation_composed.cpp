// Activations whose ATen kernels need elementwise operators the device does
// not have yet, composed from ones it has (direct route): the CPU formula,
// evaluated by device kernels. hardtanh_backward:
// min < x < max ? grad : 0 (CPU's vectorized form: NaN gets 0); leaky_relu: x > 0 ? x : x * slope;
// leaky_relu_backward: x > 0 ? grad : grad * slope. Values equal CPU's: each
// is one select over one rounded product, as CPU computes it.
#include <ATen/core/Tensor.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/logical_and.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceGuard.h>

#include "generated/aten_ops.h"

namespace torch_tpu::aten {
namespace {

at::Tensor zero_like_scalar(const at::Tensor& t) { return at::scalar_tensor(0, t.options()); }

void check_float(const at::Tensor& t, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), "\"", name, "\" not implemented for '",
                              t.scalar_type(), "' on tpu");
}

}  // namespace

at::Tensor hardtanh_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Scalar& min_val,
                             const at::Scalar& max_val) {
  check_float(self, "hardtanh_backward");
  TORCH_CHECK(grad_output.device() == self.device(), "hardtanh_backward: expected all tensors on ", self.device());
  c10::DeviceGuard guard(self.device());
  const at::Tensor inside = at::logical_and(at::gt(self, min_val), at::lt(self, max_val));
  return at::where(inside, grad_output, zero_like_scalar(grad_output));
}

at::Tensor leaky_relu(const at::Tensor& self, const at::Scalar& negative_slope) {
  check_float(self, "leaky_relu");
  c10::DeviceGuard guard(self.device());
  return at::where(at::gt(self, 0), self, at::mul(self, negative_slope));
}

at::Tensor leaky_relu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               const at::Scalar& negative_slope, bool self_is_result) {
  check_float(self, "leaky_relu_backward");
  TORCH_CHECK(!self_is_result || negative_slope.to<double>() >= 0.0,
              "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
              "This is caused by calling in-place forward function with a negative slope, "
              "please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if "
              "you do require supporting in-place leakRelu backward calculation with negative slope");
  TORCH_CHECK(grad_output.device() == self.device(), "leaky_relu_backward: expected all tensors on ", self.device());
  c10::DeviceGuard guard(self.device());
  return at::where(at::gt(self, 0), grad_output, at::mul(grad_output, negative_slope));
}

}  // namespace torch_tpu::aten
