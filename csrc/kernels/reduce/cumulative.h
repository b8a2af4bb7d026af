// cummax / cummin (values and indices) and logcumsumexp along one dimension
// (cumulative.cpp), any strides, lines split over the device's cores; CPU's
// loops (ReduceOps.cpp, ReduceOpsKernel.cpp):
//   cummax/cummin: a later element replaces the running extreme when it is
//   >= (<=) it or NaN, unless the running one is NaN: ties and NaNs take the
//   latest index; compared as CPU compares (float16/bfloat16 as float).
//   logcumsumexp: log(exp(acc) + exp(x)) as log1p(exp(min - max)) + max in
//   CPU's accumulation type (double for float32/float64 and complex<double>
//   for complex, float for float16/bfloat16), with CPU's NaN and infinity
//   special cases, rounded to the element type once per step.
// Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

enum class CumExtreme : int8_t { kMax, kMin };

// bool, uint8, signed, floating (CPU's AT_DISPATCH_ALL_TYPES_AND3).
bool cum_extreme_supports(DType t);
void cum_extreme(CumExtreme op, const TensorDesc& values, const TensorDesc& indices, const TensorDesc& in,
                 int64_t dim);

// floating and complex.
bool logcumsumexp_supports(DType t);
void logcumsumexp(const TensorDesc& out, const TensorDesc& in, int64_t dim);

}  // namespace torch_tpu::kernels
