// Helpers shared by the binary/ternary stub kernels (csrc/aten/native/elementwise/*.cpp of
// the binary family): check the compute dtype on the host, then launch.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

#include <utility>
#include <vector>

#include "aten/iterator_desc.h"
#include "kernels/elementwise/elementwise.h"

namespace torch_tpu::aten {

// A scalar of a float16/bfloat16 op that CPU reads as float (value.to<float>()),
// of a complex32 op as complex64 (CUDA),
// else converted to the compute dtype (value.to<scalar_t>()).
inline kernels::ScalarArg opmath_scalar_arg(const c10::Scalar& s, at::ScalarType compute) {
  if (compute == at::kHalf || compute == at::kBFloat16) {
    return kernels::ScalarArg::from_double(static_cast<double>(s.to<float>()));
  }
  if (compute == at::kComplexHalf) return scalar_value(s);  // the kernel takes it to complex64 (CUDA's opmath)
  return scalar_arg(s, compute);
}

}  // namespace torch_tpu::aten
