// sgn_stub: ATen's sgn calls it for complex input only (sign_stub otherwise);
// the kernel library's Sgn op computes a / |a|.
#include <ATen/TensorIterator.h>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

void sgn_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.common_dtype();
  check_elementwise_dtype(kernels::ElementwiseOp::kSgn, compute, "sgn_stub");
  run_elementwise(iter, kernels::ElementwiseOp::kSgn, compute, "sgn_stub", {});
}

}  // namespace torch_tpu::aten
