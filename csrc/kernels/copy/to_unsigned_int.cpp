// copy_strided's conversions to uint8, uint16, uint32 and uint64 from every other
// dtype, in a translation unit of their own (see kernels/copy/typed.h).
#include "kernels/copy/typed.h"

namespace torch_tpu::kernels {

bool copy_to_unsigned_int(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  return copy_converting_to<uint8_t, uint16_t, uint32_t, uint64_t>(to, from, p, dst, src);
}

}  // namespace torch_tpu::kernels
