// copy_strided's conversions to float32, float64, complex64 and complex128 from every other
// dtype, in a translation unit of their own (see kernels/copy/typed.h).
#include "kernels/copy/typed.h"

namespace torch_tpu::kernels {

bool copy_to_float_or_complex(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  return copy_converting_to<float, double, Complex<float>, Complex<double>>(to, from, p, dst, src);
}

}  // namespace torch_tpu::kernels
