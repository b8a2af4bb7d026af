// scaled_dot_product_attention on tpu runs ATen's math path
// (_scaled_dot_product_attention_math: matmul -> bmm on the device GEMM,
// softmax, masks, dropout): ATen's scaled_dot_product_attention consults
// _fused_sdp_choice_stub only for devices that registered it, and tpu does
// not. torch._fused_sdp_choice (the operator) says so for tpu tensors.
#include <ATen/SDPBackend.h>

#include "generated/ops/_fused_sdp_choice.h"

namespace torch_tpu::aten {

int64_t _fused_sdp_choice(const at::Tensor& /*query*/, const at::Tensor& /*key*/, const at::Tensor& /*value*/,
                          const std::optional<at::Tensor>& /*attn_mask*/, double /*dropout_p*/,
                          bool /*is_causal*/, std::optional<double> /*scale*/, bool /*enable_gqa*/) {
  return static_cast<int64_t>(at::SDPBackend::math);
}

}  // namespace torch_tpu::aten
