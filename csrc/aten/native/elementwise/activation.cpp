// Activation stubs (stub_kernels.h): silu and the backward formulas of
// silu, sigmoid and tanh compute in TensorIterator's common dtype; threshold
// (and threshold_backward, which ATen runs as threshold with value 0) takes
// its scalars as CPU does: converted to the compute dtype, or to float for
// float16/bfloat16 (CPU's opmath).
#include <ATen/native/Activation.h>
#include <ATen/native/BinaryOps.h>

#include <type_traits>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;


namespace {

// The activations compute in the iterator's common dtype.
void run(at::TensorIteratorBase& iter, ElementwiseOp op, const char* name, kernels::ScalarArgs args = {}) {
  run_elementwise(iter, op, iter.common_dtype(), name, std::move(args));
}

}  // namespace

void silu_kernel(at::TensorIteratorBase& iter) { run(iter, ElementwiseOp::kSilu, "silu_stub"); }
void silu_backward_kernel(at::TensorIteratorBase& iter) {
  run(iter, ElementwiseOp::kSiluBackward, "silu_backward_stub");
}
void sigmoid_backward_kernel(at::TensorIteratorBase& iter) {
  run(iter, ElementwiseOp::kSigmoidBackward, "sigmoid_backward_stub");
}
void tanh_backward_kernel(at::TensorIteratorBase& iter) {
  run(iter, ElementwiseOp::kTanhBackward, "tanh_backward_stub");
}

void threshold_kernel(at::TensorIteratorBase& iter, const c10::Scalar& threshold, const c10::Scalar& value) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kThreshold, compute, "threshold_stub");  // before the scalars
  const at::ScalarType scalars = at::isReducedFloatingType(compute) ? at::kFloat : compute;
  run_elementwise(iter, ElementwiseOp::kThreshold, compute, "threshold_stub",
                  {scalar_arg(threshold, scalars), scalar_arg(value, scalars)});
}

}  // namespace torch_tpu::aten
