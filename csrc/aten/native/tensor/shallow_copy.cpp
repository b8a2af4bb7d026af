// _has_compatible_shallow_copy_type: may a tensor take over another's
// TensorImpl contents (`param.data = other`)? nn.Module._apply asks it before
// keeping each Parameter object across .to("tpu"), .cpu(), .half() and
// to_empty(); without a yes, every Parameter is replaced by a new one, and
// weights tied by object identity (an LM head and its embedding) come apart
// silently. c10's TensorImpl::has_compatible_shallow_copy_type lists only
// the in-tree dense backends and tells PrivateUse1 backends to register this
// operator. tpu tensors are plain dense TensorImpls like CPU's, so a strided
// CPU or tpu tensor can take over another's; anything else keeps c10's answer.
#include <ATen/core/Tensor.h>

#include "generated/ops/_has_compatible_shallow_copy_type.h"

namespace torch_tpu::aten {
namespace {

bool dense_host_or_tpu(const at::Tensor& t) {
  const auto keys = t.key_set();
  const bool plain = t.layout() == at::kStrided && !t.is_quantized() && !t.is_nested() &&
                     !keys.has(c10::DispatchKey::ZeroTensor);
  return plain && (t.is_cpu() || t.device().type() == c10::DeviceType::PrivateUse1);
}

}  // namespace

bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  if (dense_host_or_tpu(self) && dense_host_or_tpu(from)) return true;
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

}  // namespace torch_tpu::aten
