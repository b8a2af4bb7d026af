// Unary math stubs that need more than the iterator: rounding to decimals
// and the float classification predicates (which compute in their input's
// dtype and write bool). The plain ones (exp, sin, floor, ...) are generated
// from ops.yaml's `elementwise:` (csrc/generated/elementwise_kernels.cpp).
#include <ATen/native/TensorCompare.h>
#include <ATen/native/UnaryOps.h>

#include <type_traits>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

void round_decimals_kernel(at::TensorIteratorBase& iter, int64_t decimals) {
  run_elementwise(iter, ElementwiseOp::kRoundDecimals, iter.common_dtype(), "round_decimals_stub",
                  {kernels::ScalarArg::from_int(decimals)});
}

// The predicates' iterators have a static bool output dtype: the input's
// dtype is the compute dtype.

void isposinf_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kIsPosInf, iter.input_dtype(0), "isposinf_stub");
}

void isneginf_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kIsNegInf, iter.input_dtype(0), "isneginf_stub");
}

}  // namespace torch_tpu::aten
