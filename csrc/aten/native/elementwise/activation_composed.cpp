// Activations whose ATen kernels need elementwise operators the device does
// not have yet, composed from ones it has (direct route): the CPU formula,
// evaluated by device kernels. hardtanh_backward:
// min < x < max ? grad : 0 (CPU's vectorized form: NaN gets 0); leaky_relu: x > 0 ? x : x * slope;
// leaky_relu_backward: x > 0 ? grad : grad * slope. Values equal CPU's: each
// is one select over one rounded product, as CPU computes it.
// elu: x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale (NaN takes
// the second branch, as on CPU), and its
// backward, in float for float16/bfloat16 inputs (CPU's opmath) and rounded
// once to the input's dtype.
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/expm1.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/le.h>
#include <ATen/ops/logical_and.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>

#include "generated/ops/elu.h"
#include "generated/ops/elu_backward.h"
#include "generated/ops/hardtanh_backward.h"
#include "generated/ops/leaky_relu.h"
#include "generated/ops/leaky_relu_backward.h"

namespace torch_tpu::aten {
namespace {

at::Tensor zero_like_scalar(const at::Tensor& t) { return at::scalar_tensor(0, t.options()); }

void check_float(const at::Tensor& t, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), "\"", name, "\" not implemented for '",
                              t.scalar_type(), "' on tpu");
}

// Float for float16/bfloat16 (CPU's opmath type), the tensor itself otherwise.
at::Tensor opmath(const at::Tensor& t) {
  return t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16 ? t.to(at::kFloat) : t;
}

}  // namespace

at::Tensor elu(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale,
               const at::Scalar& input_scale) {
  check_float(self, "elu");
  const at::Tensor x = opmath(self);
  const double negcoef = alpha.to<double>() * scale.to<double>();
  const at::Tensor neg = at::mul(at::expm1(at::mul(x, input_scale)), negcoef);
  return at::where(at::le(x, 0), neg, at::mul(x, scale)).to(self.scalar_type());
}

at::Tensor elu_backward(const at::Tensor& grad_output, const at::Scalar& alpha, const at::Scalar& scale,
                        const at::Scalar& input_scale, bool is_result, const at::Tensor& self_or_result) {
  check_float(self_or_result, "elu_backward");
  TORCH_CHECK(!is_result || alpha.to<double>() >= 0.0,
              "In-place elu backward calculation is triggered with a negative slope which is not supported. "
              "This is caused by calling in-place forward function with a negative slope, "
              "please call out-of-place version instead.");
  TORCH_CHECK(grad_output.device() == self_or_result.device(), "elu_backward: expected all tensors on ",
              self_or_result.device());
  const at::Tensor a = opmath(self_or_result), g = opmath(grad_output);
  const double negcoef = alpha.to<double>() * scale.to<double>();
  const double negiptcoef = input_scale.to<double>();
  // CPU: a <= 0 ? g * negiptcoef * (a + negcoef)           (a the result)
  //             : g * negiptcoef * negcoef * exp(a * negiptcoef)   (a the input)
  //      else g * scale.
  const at::Tensor neg = is_result ? at::mul(at::mul(g, negiptcoef), at::add(a, negcoef))
                                   : at::mul(at::mul(g, negiptcoef * negcoef), at::exp(at::mul(a, negiptcoef)));
  // A NaN in self_or_result: CPU's vectorized float/double kernel takes the
  // first branch (a > 0 fails), its float16/bfloat16 one the second.
  const bool reduced = self_or_result.scalar_type() == at::kHalf || self_or_result.scalar_type() == at::kBFloat16;
  if (reduced) return at::where(at::le(a, 0), neg, at::mul(g, scale)).to(grad_output.scalar_type());
  return at::where(at::gt(a, 0), at::mul(g, scale), neg).to(grad_output.scalar_type());
}

at::Tensor hardtanh_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Scalar& min_val,
                             const at::Scalar& max_val) {
  check_float(self, "hardtanh_backward");
  TORCH_CHECK(grad_output.device() == self.device(), "hardtanh_backward: expected all tensors on ", self.device());
  const at::Tensor inside = at::logical_and(at::gt(self, min_val), at::lt(self, max_val));
  return at::where(inside, grad_output, zero_like_scalar(grad_output));
}

at::Tensor leaky_relu(const at::Tensor& self, const at::Scalar& negative_slope) {
  check_float(self, "leaky_relu");
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
  return at::where(at::gt(self, 0), grad_output, at::mul(grad_output, negative_slope));
}

}  // namespace torch_tpu::aten
