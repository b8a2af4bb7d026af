// nan_to_num_stub: the replacements are optional doubles, which a generated
// kernel cannot pass; here they get the dtype's defaults (0, the largest and
// the lowest finite value, as CPU's kernel), converted to the compute dtype
// the way CPU converts them (`static_cast<scalar_t>`), then the kernel runs.
// A complex input runs as its real and imaginary parts.
#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/ops/view_as_real.h>

#include <limits>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

void nan_to_num_kernel(at::TensorIteratorBase& iter, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  const at::ScalarType compute = iter.common_dtype();
  if (at::isComplexType(compute)) {
    // As CPU: the real and imaginary parts separately, with their real
    // dtype's defaults. nan_to_num is a same-dtype unary op, so the operands
    // are the output and the input, viewed as pairs of reals.
    TORCH_INTERNAL_ASSERT(iter.ntensors() == 2 && iter.dtype(0) == compute && iter.dtype(1) == compute);
    at::Tensor out = at::view_as_real(iter.tensor(0));
    auto parts = at::TensorIterator::unary_op(out, at::view_as_real(iter.tensor(1)));
    nan_to_num_kernel(parts, nan, posinf, neginf);
    return;
  }
  check_elementwise_dtype(kernels::ElementwiseOp::kNanToNum, compute, "nan_to_num_stub");
  kernels::ScalarArgs args;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, compute, "nan_to_num_tpu", [&] {
    const auto value = [](double v) { return kernels::ScalarArg::from_double(static_cast<double>(static_cast<scalar_t>(v))); };
    args = {value(nan.value_or(0.0)),
            value(posinf.value_or(static_cast<double>(std::numeric_limits<scalar_t>::max()))),
            value(neginf.value_or(static_cast<double>(std::numeric_limits<scalar_t>::lowest())))};
  });
  run_elementwise(iter, kernels::ElementwiseOp::kNanToNum, compute, "nan_to_num_stub", std::move(args));
}

}  // namespace torch_tpu::aten
