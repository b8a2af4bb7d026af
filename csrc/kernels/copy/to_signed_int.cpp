// copy_strided's conversions to int8, int16, int32 and int64 from every other
// dtype, in a translation unit of their own (see kernels/copy/typed.h).
#include "kernels/copy/typed.h"

namespace torch_tpu::kernels {

bool copy_to_signed_int(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  return copy_converting_to<int8_t, int16_t, int32_t, int64_t>(to, from, p, dst, src);
}

}  // namespace torch_tpu::kernels
