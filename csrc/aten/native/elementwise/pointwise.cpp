// lerp, addcmul and addcdiv stubs (stub_kernels.h), computed in
// TensorIterator's common dtype; float16/bfloat16 take the weight/value as
// float, like CPU.
#include <ATen/native/Lerp.h>
#include <ATen/native/PointwiseOps.h>

#include <type_traits>

#include "aten/native/elementwise/stub_helpers.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

namespace {

void run_with_scalar(at::TensorIteratorBase& iter, ElementwiseOp op, const c10::Scalar& s, const char* name) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(op, compute, name);  // before converting the scalar
  run_elementwise(iter, op, compute, name, {opmath_scalar_arg(s, compute)});
}

}  // namespace

void lerp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& weight) {
  run_with_scalar(iter, ElementwiseOp::kLerpScalar, weight, "lerp_kernel_scalar_weight");
}
void addcmul_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value) {
  run_with_scalar(iter, ElementwiseOp::kAddcmul, value, "addcmul_stub");
}
void addcdiv_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value) {
  run_with_scalar(iter, ElementwiseOp::kAddcdiv, value, "addcdiv_stub");
}

}  // namespace torch_tpu::aten
