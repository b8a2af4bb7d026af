// Device kernels for shape ops and range factories: triangular masks
// (tril/triu), arange, linspace, logspace, nonzero. cat is copy_strided (copy.h) per
// input. Torch-free; they run inside a launched body.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// out = tril(self, k) (lower) or triu(self, k) over the last two dims; out and
// self have equal sizes and dtype (out may be self: in place). Elements
// outside the triangle become zero.
void triangle(const TensorDesc& out, const TensorDesc& self, int64_t k, bool lower);

// A range argument: integral dtypes use i, floating ones d (the
// accumulation type CPU uses: double for float32/float64, float for
// float16/bfloat16 - the caller converts with PyTorch's rules).
struct RangeScalar {
  int64_t i = 0;
  double d = 0;
};

// out[i] = start + step * i (computed in the accumulation type, then
// converted). out is 1-D, any stride; real dtypes only.
void arange(const TensorDesc& out, RangeScalar start, RangeScalar step);

// CPU's linspace: step = (end - start) / (n - 1); the first half counts up
// from start, the second down from end. Floating dtypes compute in their own
// type (float16/bfloat16 in float), integral ones in double, complex ones
// part by part in the part's type (c10::complex's arithmetic with a real
// divisor and index is part by part). The *_im parts are used by complex
// dtypes only.
void linspace(const TensorDesc& out, double start, double end, int64_t steps, double start_im, double end_im);

// CPU's logspace for steps >= 2 into a contiguous 1-D out. Real dtypes:
// start and end are the element type's values of the arguments and step is
// double(end - start) / (steps - 1) in the element type's arithmetic (the
// caller computes them as CPU does); out[i] = base^(start + step i) for the
// first half, base^(end - step (steps - 1 - i)) for the second, in double,
// converted to the element type. Complex dtypes compute everything in the
// element type from the arguments' parts (start/end and *_im).
struct LogspaceArgs {
  double start = 0, end = 0, step = 0, base = 10;
  double start_im = 0, end_im = 0;
  int64_t steps = 0;
};
void logspace(const TensorDesc& out, const LogspaceArgs& args);

// Nonzero elements of self (row-major order). nonzero_count writes their
// number to *count (device memory, int64). nonzero_write fills out
// ([count, ndim] int64, any strides) with their coordinates.
void nonzero_count(const TensorDesc& self, int64_t* count);
void nonzero_write(const TensorDesc& out, const TensorDesc& self);
// nonzero_static: the first out.sizes[0] coordinates; rows beyond the last
// nonzero element get `fill`. No count leaves the device.
void nonzero_static_write(const TensorDesc& out, const TensorDesc& self, int64_t fill);

}  // namespace torch_tpu::kernels
