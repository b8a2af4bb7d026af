// The fast path of nn.TransformerEncoderLayer and nn.MultiheadAttention in
// eval mode (no grad): _transformer_encoder_layer_fwd and
// _native_multi_head_attention run ATen's own device-generic compositions
// (ops.yaml); the two CPU-only kernels these call are composed here of tpu
// ops, as CPU computes them:
//   _transform_bias_rescale_qkv  qkv + bias split into q, k, v heads, q
//                                scaled by 1/sqrt(head_dim) (in op math)
//   _masked_softmax              softmax over the unmasked entries (True =
//                                masked out: 0), a fully masked row NaN
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/_softmax.h>
#include <ATen/ops/empty.h>

#include <cmath>
#include <limits>

#include "generated/ops/_masked_softmax.h"
#include "generated/ops/_transform_bias_rescale_qkv.h"

namespace torch_tpu::aten {

std::tuple<at::Tensor, at::Tensor, at::Tensor> transform_bias_rescale_qkv(const at::Tensor& qkv,
                                                                          const at::Tensor& qkv_bias,
                                                                          int64_t num_head) {
  // CPU's checks, in its words (transform_bias_rescale_qkv_cpu)
  const int64_t B = qkv.size(0), T = qkv.size(1), three_d = qkv.size(2);
  constexpr const char* kImprove =
      " to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement "
      "request to PyTorch.)";
  TORCH_CHECK(three_d % 3 == 0, "Expected _3D % 3 == 0", kImprove);
  const int64_t D = three_d / 3;
  TORCH_CHECK(D % num_head == 0, "Expected D % num_head == 0", kImprove);
  const int64_t head_dim = D / num_head;
  // CPU's arithmetic: in the op math type (float for float16/bfloat16),
  // q = (x + b) * (1 / sqrt(head_dim)), k and v = x + b, rounded to the dtype once.
  const at::ScalarType opmath = at::toOpMathType(qkv.scalar_type());
  double scale = 0;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, qkv.scalar_type(), "transform_bias_rescale_qkv", [&] {
    using opmath_t = at::opmath_type<scalar_t>;
    scale = static_cast<double>(static_cast<opmath_t>(1.0 / std::sqrt(static_cast<opmath_t>(head_dim))));
  });
  // [B, T, 3, heads, head_dim] -> [3, B, heads, T, head_dim], one buffer as CPU's
  const at::Tensor biased = qkv.to(opmath).add(qkv_bias.to(opmath)).view({B, T, 3, num_head, head_dim})
                                .permute({2, 0, 3, 1, 4});
  at::Tensor q_k_v = at::empty({3, B, num_head, T, head_dim}, qkv.options());
  q_k_v.select(0, 0).copy_(biased.select(0, 0).mul(scale));
  q_k_v.narrow(0, 1, 2).copy_(biased.narrow(0, 1, 2));
  const auto parts = q_k_v.view({3 * B, num_head, T, head_dim}).split(B, 0);
  return {parts[0], parts[1], parts[2]};
}

at::Tensor masked_softmax(const at::Tensor& self, const at::Tensor& mask_in, std::optional<int64_t> dim_in,
                          std::optional<int64_t> mask_type_in) {
  // CPU's checks and mask shapes (masked_softmax_cpu)
  TORCH_CHECK(mask_in.scalar_type() == at::kBool, "Mask should be a boolean tensor");
  std::optional<int64_t> type = mask_type_in;
  if (mask_in.dim() != 2 || self.dim() != 4) type = 2;
  TORCH_CHECK(type.has_value(), "Mask Type should be defined");
  const int64_t mask_type = *type;
  at::Tensor mask = mask_in;
  if (mask_type == 2) {
    TORCH_CHECK(self.sizes() == mask.sizes(), "For mask_type == 2 mask shape should match input shape");
  } else if (mask_type == 1) {
    TORCH_CHECK(self.sizes()[0] == mask.sizes()[0] && self.sizes()[2] == mask.sizes()[1],
                "For mask_type == 1 mask shape should be (B, L)");
    mask = mask.view({self.size(0), 1, 1, self.size(2)});
  } else if (mask_type == 0) {
    TORCH_CHECK(mask.dim() == 2 && self.sizes()[2] == mask.sizes()[0] && self.sizes()[2] == mask.sizes()[1],
                "For mask_type == 0 mask shape should be (L, L)");
    mask = mask.view({1, 1, self.size(2), self.size(2)});
  } else {
    TORCH_CHECK(false, "Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 (default_mask)");
  }
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "masked_softmax", [] {});
  const int64_t dim = at::maybe_wrap_dim(dim_in.value_or(self.dim() - 1), self.dim());
  mask = mask.expand(self.sizes());
  // Masked entries come out 0, and a fully masked row NaN (-inf - -inf), as CPU's.
  const at::Tensor filled = self.masked_fill(mask, -std::numeric_limits<double>::infinity());
  return at::_softmax(filled, dim, /*half_to_float=*/false);
}

}  // namespace torch_tpu::aten
