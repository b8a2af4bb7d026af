// Device kernels for data movement inside device memory: strided copy with
// dtype conversion, and fill. They run inside a launched body on a stream
// worker (see runtime::launch) and use runtime::parallel_for for the cores.
#pragma once

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// dst[i] = convert<dst.dtype>(src[i]) for every index i of the common shape.
// dst and src have equal sizes; any strides; any pair of dtypes. Conversion
// follows PyTorch CPU semantics (c10::convert / static_cast_with_inter_type):
//   - to bool: x != 0 (complex: real != 0 || imag != 0);
//   - complex -> real: the real part;
//   - floating -> uint8: through int64 (negative values wrap like CPU);
//   - float16/bfloat16: round to nearest even, NaN stays NaN.
// dst must not partially overlap src (the caller guarantees this).
void copy_strided(const TensorDesc& dst, const TensorDesc& src);

// Writes the element `value` (dtype_size(dst.dtype) bytes, already in
// dst.dtype) to every element of dst.
void fill(const TensorDesc& dst, const void* value);

// Converts one element between dtypes (host or device; used by tests and by
// the scalar path).
void convert_element(DType to, void* dst, DType from, const void* src);

}  // namespace torch_tpu::kernels
