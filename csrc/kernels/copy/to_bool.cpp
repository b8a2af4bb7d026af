// copy_strided's conversions to bool from every other
// dtype, in a translation unit of their own (see kernels/copy/typed.h).
#include "kernels/copy/typed.h"

namespace torch_tpu::kernels {

bool copy_to_bool(DType to, DType from, const CopyPlan& p, void* dst, const void* src) {
  return copy_converting_to<Bool>(to, from, p, dst, src);
}

}  // namespace torch_tpu::kernels
