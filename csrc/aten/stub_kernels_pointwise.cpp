// lerp, addcmul and addcdiv stubs (stub_kernels.h), computed in
// TensorIterator's common dtype; float16/bfloat16 take the weight/value as
// float, like CPU.
#include <ATen/native/Lerp.h>
#include <ATen/native/PointwiseOps.h>

#include <type_traits>

#include "aten/elementwise_stub_helpers.h"
#include "aten/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

static_assert(std::is_same_v<decltype(&lerp_scalar_kernel), at::native::lerp_fn_scalar>);
static_assert(std::is_same_v<decltype(&lerp_tensor_kernel), at::native::lerp_fn_tensor>);
static_assert(std::is_same_v<decltype(&addcmul_kernel), at::native::structured_pointwise_fn>);

namespace {

void run_with_scalar(at::TensorIteratorBase& iter, ElementwiseOp op, const c10::Scalar& s, const char* name) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(op, compute, name);
  run_elementwise(iter, op, compute, name, {opmath_scalar_arg(s, compute)});
}

}  // namespace

void lerp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& weight) {
  run_with_scalar(iter, ElementwiseOp::kLerpScalar, weight, "lerp_kernel_scalar_weight");
}
void lerp_tensor_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kLerpTensor, iter.common_dtype(), "lerp_kernel_tensor_weight");
}
void addcmul_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value) {
  run_with_scalar(iter, ElementwiseOp::kAddcmul, value, "addcmul_stub");
}
void addcdiv_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value) {
  run_with_scalar(iter, ElementwiseOp::kAddcdiv, value, "addcdiv_stub");
}

}  // namespace torch_tpu::aten
