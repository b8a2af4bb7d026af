// frexp_stub: two outputs (mantissa in the input's dtype, exponent int32)
// over one input, which the generated one-output kernels cannot express:
// the iterator's descriptor is split into two one-output descriptors over
// the same input, and one launch runs the mantissa op, then the exponent op
// (kernels/elementwise/nextafter_gcd_igamma_frexp.cpp). ATen's frexp_out has
// checked the dtypes (floating input, mantissa of its dtype, int32 exponent).
#include <ATen/TensorIterator.h>

#include <utility>
#include <vector>

#include "aten/iterator_desc.h"
#include "aten/launch.h"
#include "generated/ops/frexp_Tensor_out.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

// The precheck (ops.yaml): ATen's frexp_out refuses a non-floating input
// with its own message before any kernel is looked for.
void frexp_floating(const at::Tensor& self) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes");
}

void frexp_kernel(at::TensorIteratorBase& iter) {
  const at::ScalarType compute = iter.dtype(0);  // the mantissa's, = the input's
  check_elementwise_dtype(kernels::ElementwiseOp::kFrexpMantissa, compute, "frexp_stub");
  if (iter.numel() == 0) return;
  const kernels::ElementwiseDesc d = describe_iterator(iter, compute, "frexp_stub");
  kernels::ElementwiseDesc mantissa = d, exponent = d;
  mantissa.noutputs = exponent.noutputs = 1;
  mantissa.operands = {d.operands[0], d.operands[2]};
  exponent.operands = {d.operands[1], d.operands[2]};
  std::vector<const void*> buffers;
  for (const kernels::ElementwiseOperand& o : d.operands) {
    if (!o.by_value) buffers.push_back(o.data);
  }
  launch(iter.device(0).index(), "frexp", std::move(buffers),
         [mantissa = std::move(mantissa), exponent = std::move(exponent)] {
           kernels::elementwise(kernels::ElementwiseOp::kFrexpMantissa, mantissa);
           kernels::elementwise(kernels::ElementwiseOp::kFrexpExponent, exponent);
         });
}

}  // namespace torch_tpu::aten
