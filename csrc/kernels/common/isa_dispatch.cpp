// The public entries of the kernel files compiled per ISA (CMake's
// TPU_KERNEL_AVX512_SOURCES; see isa.h): each picks the variant for
// runtime::cpu_isa(). Baseline only. gemm has its own (gemm_dispatch.cpp),
// elementwise ops pick theirs in the op table (elementwise.cpp).
#include "kernels/nn/conv.h"
#include "kernels/fft/fft.h"
#include "kernels/nn/attention.h"
#include "kernels/fused/fused.h"
#include "kernels/common/isa.h"
#include "kernels/nn/nn.h"
#include "kernels/nn/rnn.h"
#include "kernels/nn/rows.h"
#include "kernels/random/random.h"
#include "kernels/sort/sort.h"

namespace torch_tpu::kernels {

TORCH_TPU_ISA_DISPATCH_AVX512(void, bias_gelu, (const BiasGeluDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, rms_norm_forward, (const RmsNormDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, rms_norm_backward, (const RmsNormBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, softmax_forward, (const SoftmaxDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, softmax_backward, (const SoftmaxBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, layer_norm_forward, (const LayerNormDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, layer_norm_backward, (const LayerNormBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, batch_norm_forward, (const BatchNormDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, batch_norm_backward, (const BatchNormBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, lstm_cell_forward, (const RnnCellDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, lstm_cell_backward, (const RnnCellBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, gru_cell_forward, (const RnnCellDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, gru_cell_backward, (const RnnCellBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, lstm_layer_forward, (const RnnLayerDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, lstm_layer_backward, (const RnnLayerBackwardDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, gru_layer_forward, (const RnnLayerDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, gru_layer_backward, (const RnnLayerBackwardDesc& d), (d))

bool sort_supports(DType t) { return t != DType::kComplex64 && t != DType::kComplex128; }
TORCH_TPU_ISA_DISPATCH_AVX512(void, sort_rows,
                              (DType t, void* values, int64_t* indices, int64_t rows, int64_t n,
                               bool descending, bool stable),
                              (t, values, indices, rows, n, descending, stable))
TORCH_TPU_ISA_DISPATCH_AVX512(void, topk_rows,
                              (DType t, const void* src, void* values, int64_t* indices,
                               int64_t rows, int64_t n, int64_t k, bool largest, bool sorted),
                              (t, src, values, indices, rows, n, k, largest, sorted))

bool conv_supports(DType t) { return nn::is_nn_float(t); }
TORCH_TPU_ISA_DISPATCH_AVX512(void, conv_lower,
                              (const ConvDesc& d, const void* image, const void* weight,
                               const void* bias, void* flat),
                              (d, image, weight, bias, flat))
TORCH_TPU_ISA_DISPATCH_AVX512(void, conv_raise,
                              (const ConvDesc& d, const void* flat, const void* weight,
                               const void* bias, void* image),
                              (d, flat, weight, bias, image))
TORCH_TPU_ISA_DISPATCH_AVX512(void, conv_weight_grad,
                              (const ConvDesc& d, const void* flat, const void* image,
                               void* grad_weight),
                              (d, flat, image, grad_weight))
TORCH_TPU_ISA_DISPATCH_AVX512(void, conv_col2im, (const ConvDesc& d, const void* col, void* image),
                              (d, col, image))
TORCH_TPU_ISA_DISPATCH_AVX512(void, conv_im2col, (const ConvDesc& d, const void* image, void* col),
                              (d, image, col))
TORCH_TPU_ISA_DISPATCH_AVX512(void, conv_bias_grad,
                              (DType t, const void* grad, int64_t batch, int64_t channels,
                               int64_t spatial, void* grad_bias),
                              (t, grad, batch, channels, spatial, grad_bias))

TORCH_TPU_ISA_DISPATCH_AVX512(void, philox_block, (uint64_t seed, uint64_t block, uint32_t out[4]),
                              (seed, block, out))
TORCH_TPU_ISA_DISPATCH_AVX512(void, random_fill, (const RandomDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, bernoulli_tensor,
                              (const TensorDesc& out, const TensorDesc& p, PhiloxState rng),
                              (out, p, rng))
TORCH_TPU_ISA_DISPATCH_AVX512(void, dropout_forward, (const DropoutDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, randperm, (void* out, DType dtype, int64_t n, PhiloxState rng),
                              (out, dtype, n, rng))
TORCH_TPU_ISA_DISPATCH_AVX512(void, multinomial, (const MultinomialDesc& d), (d))

TORCH_TPU_ISA_DISPATCH_AVX512(void, fft_r2c_axis,
                              (DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner,
                               double scale),
                              (t, in, out, outer, n, inner, scale))
TORCH_TPU_ISA_DISPATCH_AVX512(void, fft_c2c_axis,
                              (DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner,
                               bool forward, double scale),
                              (t, in, out, outer, n, inner, forward, scale))
TORCH_TPU_ISA_DISPATCH_AVX512(void, fft_c2r_axis,
                              (DType t, const void* in, int64_t m, void* out, int64_t outer, int64_t n,
                               int64_t inner, double scale),
                              (t, in, m, out, outer, n, inner, scale))

bool attention_supports(DType t) {
  return t == DType::kFloat32 || t == DType::kBFloat16 || t == DType::kFloat16;
}
TORCH_TPU_ISA_DISPATCH_AVX512(void, attention_forward, (const AttentionDesc& d), (d))
TORCH_TPU_ISA_DISPATCH_AVX512(void, attention_backward, (const AttentionBackwardDesc& d), (d))

}  // namespace torch_tpu::kernels
