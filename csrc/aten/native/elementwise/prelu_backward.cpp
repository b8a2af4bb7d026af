// prelu_backward_stub: ATen's _prelu_kernel_backward (shared by CPU and CUDA)
// hands over one iterator with two outputs (grad_input, grad_weight) over
// (self, weight, grad). The device's elementwise loop writes one output, so
// each gradient is its own launch over the same, already broadcast, operands.
#include <ATen/TensorIterator.h>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {
namespace {

void run_one_output(const at::TensorIteratorBase& iter, int output, kernels::ElementwiseOp op, const char* name) {
  at::TensorIterator one = at::TensorIteratorConfig()
                               .add_output(iter.output(output))
                               .add_const_input(iter.input(0))
                               .add_const_input(iter.input(1))
                               .add_const_input(iter.input(2))
                               .build();
  run_elementwise(one, op, iter.common_dtype(), name);
}

}  // namespace

void prelu_backward_kernel(at::TensorIterator& iter) {
  TORCH_INTERNAL_ASSERT(iter.noutputs() == 2 && iter.ninputs() == 3, "prelu_backward_stub: unexpected iterator");
  run_one_output(iter, 0, kernels::ElementwiseOp::kPreluBackwardInput, "prelu_backward_stub");
  run_one_output(iter, 1, kernels::ElementwiseOp::kPreluBackwardWeight, "prelu_backward_stub");
}

}  // namespace torch_tpu::aten
