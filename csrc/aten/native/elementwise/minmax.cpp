// clamp with scalar bounds (stub_kernels.h), converted to TensorIterator's
// common dtype as CPU converts them (min.to<scalar_t>(), with its overflow
// errors). maximum/minimum/fmax/fmin and tensor clamp are generated from
// ops.yaml's `elementwise:`.
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorCompare.h>

#include <type_traits>

#include "aten/native/elementwise/stub_helpers.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

void clamp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& min, const c10::Scalar& max) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kClampScalar, compute, "clamp_scalar_stub");  // before the scalars
  run_elementwise(iter, ElementwiseOp::kClampScalar, compute, "clamp_scalar_stub",
                  {scalar_arg(min, compute), scalar_arg(max, compute)});
}

void clamp_min_scalar_kernel(at::TensorIteratorBase& iter, c10::Scalar min) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kClampMinScalar, compute, "clamp_min_scalar_stub");  // before the scalars
  run_elementwise(iter, ElementwiseOp::kClampMinScalar, compute, "clamp_min_scalar_stub",
                  {scalar_arg(min, compute)});
}

void clamp_max_scalar_kernel(at::TensorIteratorBase& iter, c10::Scalar max) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kClampMaxScalar, compute, "clamp_max_scalar_stub");  // before the scalars
  run_elementwise(iter, ElementwiseOp::kClampMaxScalar, compute, "clamp_max_scalar_stub",
                  {scalar_arg(max, compute)});
}

}  // namespace torch_tpu::aten
