// Binary arithmetic stubs (stub_kernels.h): TensorIterator's common dtype is
// the compute dtype; dtype and alpha errors are raised here, on the host,
// before the empty-tensor shortcut, as CPU raises them.
#include <ATen/native/BinaryOps.h>

#include <type_traits>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

// The stubs' function pointer types, exactly.

void add_kernel(at::TensorIteratorBase& iter, const c10::Scalar& alpha) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(ElementwiseOp::kAdd, compute, "add_stub");  // before converting alpha
  run_elementwise(iter, ElementwiseOp::kAdd, compute, "add_stub", {scalar_arg(alpha, compute)});
}

}  // namespace torch_tpu::aten
