// Comparison, logical, bitwise and where stubs (stub_kernels.h). Comparisons
// and logical ops compute in TensorIterator's common dtype and write bool (or
// the out= tensor's dtype); where computes in the output's dtype with a bool
// condition; logical_not in its input's dtype.
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorCompare.h>
#include <ATen/native/UnaryOps.h>

#include <type_traits>

#include "aten/native/elementwise/stub_helpers.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;


#define TPU_COMMON_DTYPE_KERNEL(fn, Iter, op, name) \
  void fn(Iter& iter) { run_elementwise(iter, op, iter.common_dtype(), name); }

TPU_COMMON_DTYPE_KERNEL(eq_kernel, at::TensorIteratorBase, ElementwiseOp::kEq, "eq_stub")
TPU_COMMON_DTYPE_KERNEL(ne_kernel, at::TensorIteratorBase, ElementwiseOp::kNe, "ne_stub")
TPU_COMMON_DTYPE_KERNEL(lt_kernel, at::TensorIteratorBase, ElementwiseOp::kLt, "lt_stub")
TPU_COMMON_DTYPE_KERNEL(le_kernel, at::TensorIteratorBase, ElementwiseOp::kLe, "le_stub")
TPU_COMMON_DTYPE_KERNEL(gt_kernel, at::TensorIteratorBase, ElementwiseOp::kGt, "gt_stub")
TPU_COMMON_DTYPE_KERNEL(ge_kernel, at::TensorIteratorBase, ElementwiseOp::kGe, "ge_stub")
TPU_COMMON_DTYPE_KERNEL(logical_and_kernel, at::TensorIterator, ElementwiseOp::kLogicalAnd, "logical_and_stub")
TPU_COMMON_DTYPE_KERNEL(logical_or_kernel, at::TensorIterator, ElementwiseOp::kLogicalOr, "logical_or_stub")
TPU_COMMON_DTYPE_KERNEL(logical_xor_kernel, at::TensorIterator, ElementwiseOp::kLogicalXor, "logical_xor_stub")
TPU_COMMON_DTYPE_KERNEL(bitwise_and_kernel, at::TensorIteratorBase, ElementwiseOp::kBitwiseAnd, "bitwise_and_stub")
TPU_COMMON_DTYPE_KERNEL(bitwise_or_kernel, at::TensorIteratorBase, ElementwiseOp::kBitwiseOr, "bitwise_or_stub")
TPU_COMMON_DTYPE_KERNEL(bitwise_xor_kernel, at::TensorIteratorBase, ElementwiseOp::kBitwiseXor, "bitwise_xor_stub")
TPU_COMMON_DTYPE_KERNEL(lshift_kernel, at::TensorIteratorBase, ElementwiseOp::kLshift, "lshift_stub")
TPU_COMMON_DTYPE_KERNEL(rshift_kernel, at::TensorIteratorBase, ElementwiseOp::kRshift, "rshift_stub")

#undef TPU_COMMON_DTYPE_KERNEL

void bitwise_not_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kBitwiseNot, iter.dtype(), "bitwise_not_stub");
}

void logical_not_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kLogicalNot, iter.dtype(1), "logical_not_stub");
}

void where_kernel(at::TensorIterator& iter) {
  run_elementwise(iter, ElementwiseOp::kWhere, iter.dtype(), "where_kernel");
}

}  // namespace torch_tpu::aten
