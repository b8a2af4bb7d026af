// Unary arithmetic stubs (stub_kernels.h): the input's dtype is the compute
// dtype (abs of complex into a real output computes in complex).
#include <ATen/native/UnaryOps.h>

#include <type_traits>

#include "aten/iterator_desc.h"
#include "aten/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

// The stubs' function pointer types, exactly.
static_assert(std::is_same_v<decltype(&neg_kernel), at::native::unary_fn>);
static_assert(std::is_same_v<decltype(&abs_kernel), at::native::unary_fn>);
static_assert(std::is_same_v<decltype(&conj_physical_kernel), at::native::unary_fn>);

void neg_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.input_dtype(0);
  check_elementwise_dtype(ElementwiseOp::kNeg, compute, "neg_stub");
  launch_elementwise(iter, ElementwiseOp::kNeg, compute, {}, "neg_stub");
}

void abs_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.input_dtype(0);
  check_elementwise_dtype(ElementwiseOp::kAbs, compute, "abs_stub");
  launch_elementwise(iter, ElementwiseOp::kAbs, compute, {}, "abs_stub");
}

void conj_physical_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.input_dtype(0);
  check_elementwise_dtype(ElementwiseOp::kConj, compute, "conj_physical_stub");
  launch_elementwise(iter, ElementwiseOp::kConj, compute, {}, "conj_physical_stub");
}

}  // namespace torch_tpu::aten
