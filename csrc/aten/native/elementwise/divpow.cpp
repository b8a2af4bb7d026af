// Division with rounding, remainder, fmod, pow, atan2 and hypot stubs
// (stub_kernels.h), computed in TensorIterator's common dtype.
#include <ATen/native/BinaryOps.h>
#include <ATen/native/Pow.h>

#include <type_traits>

#include "aten/native/elementwise/stub_helpers.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;


void div_trunc_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kDivTrunc, iter.common_dtype(), "div_trunc_stub");
}
void div_floor_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kDivFloor, iter.common_dtype(), "div_floor_stub");
}
void remainder_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kRemainder, iter.common_dtype(), "remainder_stub");
}
void fmod_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kFmod, iter.common_dtype(), "fmod_stub");
}
void atan2_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kAtan2, iter.common_dtype(), "atan2_stub");
}
void hypot_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kHypot, iter.common_dtype(), "hypot_stub");
}
void pow_tensor_tensor_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kPow, iter.common_dtype(), "pow_tensor_tensor_stub");
}

// The kernel picks CPU's special cases from the exponent's exact value; CPU
// converts it to an integral/float16/bfloat16 compute dtype first, with its
// overflow errors, so convert here too (and discard) to raise them.
void pow_tensor_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& exp) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kPowScalar, compute, "pow_tensor_scalar_stub");  // before the scalar
  if (at::isIntegralType(compute, /*includeBool=*/false) || compute == at::kHalf || compute == at::kBFloat16) {
    (void)scalar_arg(exp, compute);
  }
  run_elementwise(iter, ElementwiseOp::kPowScalar, compute, "pow_tensor_scalar_stub", {raw_scalar_arg(exp)});
}

}  // namespace torch_tpu::aten
