// The bitwise_not, logical_not and where stubs (stub_kernels.h): where
// computes in the output's dtype with a bool condition; logical_not in its
// input's dtype. The comparisons and binary logical/bitwise ops compute in
// TensorIterator's common dtype: generated from ops.yaml's `elementwise:`.
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorCompare.h>
#include <ATen/native/UnaryOps.h>

#include <type_traits>

#include "aten/native/elementwise/stub_helpers.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

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
