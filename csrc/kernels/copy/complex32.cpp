// copy_strided's conversions between complex32 and every other dtype, in a
// translation unit of their own (see kernels/copy/typed.h): complex32 is no
// case of visit_dtype, so the other groups never instantiate it.
#include "kernels/copy/typed.h"

namespace torch_tpu::kernels {

bool copy_complex32(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  if (to == DType::kComplex32) {
    visit_dtype(from, [&](auto tag) { copy_typed<Complex<Half>, typename decltype(tag)::type>(p, dst, src); });
    return true;
  }
  if (from == DType::kComplex32) {
    visit_dtype(to, [&](auto tag) { copy_typed<typename decltype(tag)::type, Complex<Half>>(p, dst, src); });
    return true;
  }
  return false;
}

}  // namespace torch_tpu::kernels
