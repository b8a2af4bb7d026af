// Unary arithmetic stubs (stub_kernels.h): the input's dtype is the compute
// dtype (abs of complex into a real output computes in complex).
#include <ATen/native/UnaryOps.h>

#include <type_traits>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

// The stubs' function pointer types, exactly.

void neg_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.input_dtype(0);
  run_elementwise(iter, ElementwiseOp::kNeg, compute, "neg_stub");
}

void abs_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.input_dtype(0);
  run_elementwise(iter, ElementwiseOp::kAbs, compute, "abs_stub");
}

void conj_physical_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.input_dtype(0);
  run_elementwise(iter, ElementwiseOp::kConj, compute, "conj_physical_stub");
}

}  // namespace torch_tpu::aten
