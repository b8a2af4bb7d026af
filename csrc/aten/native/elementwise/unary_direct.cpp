// Direct-route unary ops (ops.yaml "unary elementwise"): ATen implements
// them for CPU only, so these wrappers do what CPU's do, with tpu kernels.
//   gelu, gelu_backward: CPU's gelu_out_cpu calls GeluKernel with device CPU
//     (and may take a oneDNN path); here the generated wrappers run ATen's
//     own structured meta() (TensorIterator: broadcasting, dtypes, out=),
//     then these structured impls launch the device kernel (exact or tanh);
//   isnan: CPU computes self != self; here one predicate kernel into a bool
//     tensor laid out like self (TensorIterator's output layout). Complex:
//     either part NaN, as isnan of the (real, imag) pairs reduced with any.
#include <ATen/TensorIterator.h>
#include <ATen/native/Gelu.h>
#include <ATen/ops/any.h>
#include <ATen/ops/view_as_real.h>

#include "aten/iterator_desc.h"
#include "generated/ops/gelu.h"
#include "generated/ops/gelu_backward.h"
#include "generated/ops/isnan.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

void gelu_out(at::TensorIteratorBase& iter, const at::Tensor& /*self*/, c10::string_view approximate,
              const at::Tensor& /*out*/) {
  const bool tanh = at::native::get_gelutype_enum(approximate) == at::native::GeluType::Tanh;
  const ElementwiseOp op = tanh ? ElementwiseOp::kGeluTanh : ElementwiseOp::kGelu;
  const at::ScalarType compute = iter.common_dtype();
  run_elementwise(iter, op, compute, "GeluKernel");
}

void gelu_backward_out(at::TensorIteratorBase& iter, const at::Tensor& /*grad_output*/,
                       const at::Tensor& /*self*/, c10::string_view approximate,
                       const at::Tensor& /*grad_input*/) {
  const bool tanh = at::native::get_gelutype_enum(approximate) == at::native::GeluType::Tanh;
  const ElementwiseOp op = tanh ? ElementwiseOp::kGeluTanhBackward : ElementwiseOp::kGeluBackward;
  const at::ScalarType compute = iter.common_dtype();
  run_elementwise(iter, op, compute, "GeluBackwardKernel");
}

at::Tensor isnan(const at::Tensor& self) {
  // As ATen's unary_force_boolean_op: a bool output laid out like self.
  at::TensorIterator iter = at::TensorIteratorConfig()
                                .check_all_same_dtype(false)
                                .declare_static_dtype(at::kBool)
                                .declare_static_device(self.device())
                                .add_owned_output(at::Tensor())
                                .add_const_input(self)
                                .build();
  if (self.is_complex()) {
    // The conjugate and negative bits do not change which values are NaN;
    // view_as_real needs them resolved (without a copy for the conjugate).
    at::Tensor plain = self.is_conj() ? self.conj() : self;
    if (plain.is_neg()) plain = plain.resolve_neg();
    at::Tensor out = iter.output();
    at::any_out(out, torch_tpu::aten::isnan(at::view_as_real(plain)), -1);
    return out;
  }
  const at::ScalarType compute = self.scalar_type();
  run_elementwise(iter, ElementwiseOp::kIsNan, compute, "isnan");
  return iter.output();
}

}  // namespace torch_tpu::aten
