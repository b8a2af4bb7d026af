// copy_strided's conversions to float16 and bfloat16 from every other
// dtype, in a translation unit of their own (see kernels/copy/typed.h).
#include "kernels/copy/typed.h"

namespace torch_tpu::kernels {

bool copy_to_float16(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  return copy_converting_to<Half, BFloat16>(to, from, p, dst, src);
}

}  // namespace torch_tpu::kernels
