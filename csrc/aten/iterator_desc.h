// From a TensorIterator (as ATen's DispatchStubs hand it to a PrivateUse1
// kernel) to the device's elementwise kernel: descriptor, checks, launch.
// Runs on the host; reads no device memory.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

#include <vector>

#include "aten/launch.h"
#include "kernels/elementwise/elementwise.h"

namespace torch_tpu::aten {

// The kernel descriptor of `iter`: its shape and, per operand (outputs
// first), device pointer, dtype and byte strides. A CPU scalar operand (a
// Python number or CPU 0-dim tensor, iter.is_cpu_scalar) is read here, on
// the host, and travels by value; any other operand must be on tpu.
// `compute` is the op's compute dtype; `op` names it in errors. complex32
// operands: as for describe (launch.h), when the kernel takes them.
kernels::ElementwiseDesc describe_iterator(const at::TensorIteratorBase& iter, at::ScalarType compute,
                                           const char* op, Complex32 complex32 = Complex32::kRejected);

// A scalar argument of an op computing in `compute`: s.to<compute>() with
// PyTorch's own overflow errors (as CPU's kernels convert alpha), packed
// so the kernel's conversion back to `compute` is exact.
kernels::ScalarArg scalar_arg(const c10::Scalar& s, at::ScalarType compute);

// A scalar argument as it is, for a kernel op that converts it itself (the
// generated stub kernels: CPU's kernels convert each scalar their own way,
// to the compute dtype or to its opmath type): a Scalar keeps its kind
// (bool, integer, double, complex) and value.
kernels::ScalarArg scalar_value(const c10::Scalar& s);
inline kernels::ScalarArg scalar_value(double v) { return kernels::ScalarArg::from_double(v); }
inline kernels::ScalarArg scalar_value(int64_t v) { return kernels::ScalarArg::from_int(v); }
inline kernels::ScalarArg scalar_value(bool v) { return kernels::ScalarArg::from_bool(v); }

// NotImplementedError `"<name>" not implemented for '<dtype>' on tpu` unless
// the device implements `op` in compute dtype `compute` (the dtypes CPU
// implements).
void check_elementwise_dtype(kernels::ElementwiseOp op, at::ScalarType compute, const char* name);

// What every elementwise stub kernel does: NotImplementedError unless the
// device implements `op` in `compute` (check_elementwise_dtype; complex32
// only for the ops that opt in), then `op`
// over `iter` on the current stream of the iterator's device (nothing for an
// empty iterator). `args`: the op's scalars, already in their kernel form.
void run_elementwise(const at::TensorIteratorBase& iter, kernels::ElementwiseOp op, at::ScalarType compute,
                     const char* name, kernels::ScalarArgs args = {});

}  // namespace torch_tpu::aten
