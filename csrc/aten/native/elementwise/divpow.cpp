// pow with a scalar exponent (stub_kernels.h). Division with rounding,
// remainder, fmod, pow, atan2 and hypot in TensorIterator's common dtype
// are generated from ops.yaml's `elementwise:`.
#include <ATen/native/BinaryOps.h>
#include <ATen/native/Pow.h>

#include <type_traits>

#include "aten/native/elementwise/stub_helpers.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

// The kernel picks CPU's special cases from the exponent's exact value; CPU
// converts it to an integral/float16/bfloat16 compute dtype first, with its
// overflow errors, so convert here too (and discard) to raise them.
void pow_tensor_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& exp) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kPowScalar, compute, "pow_tensor_scalar_stub");  // before the scalar
  if (at::isIntegralType(compute, /*includeBool=*/false) || compute == at::kHalf || compute == at::kBFloat16) {
    (void)scalar_arg(exp, compute);
  }
  // the exponent exactly as given: the kernel special-cases some values
  run_elementwise(iter, ElementwiseOp::kPowScalar, compute, "pow_tensor_scalar_stub", {scalar_value(exp)});
}

}  // namespace torch_tpu::aten
