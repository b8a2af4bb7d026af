// Convolution on the device, 1d/2d/3d, regular and transposed, by lowering:
// im2col + GEMM one way, GEMM + col2im the other (conv.cpp).
//
// A convolution relates an "image" side, whose windows are gathered, and a
// "flat" side with one value per window position. A regular convolution's
// image is its input and its flat side its output; a transposed one's image
// is its output and its flat side its input. Both keep their weight as
// [flat channels, image channels / groups, *kernel], so with the roles named
// that way three primitives serve every forward and backward pass:
//
//   lower:        flat[n, g] = W[g] @ im2col(image[n, g])  (+ bias)
//   raise:        image[n, g] = col2im(W[g]^T @ flat[n, g]) (+ bias)
//   weight_grad:  dW[g] = sum_n flat[n, g] @ im2col(image[n, g])^T
//
// regular forward = lower(input), its grad_input = raise(grad_output);
// transposed forward = raise(input), its grad_input = lower(grad_output);
// grad_weight = weight_grad(flat = grad_output, image = input) for regular,
// (flat = input, image = grad_output) for transposed.
//
// All tensors are contiguous [batch, channels, *spatial] in one of float16,
// bfloat16, float32, float64; lower also takes uint8, int8, int16, int32 and
// int64, raise int64 only (CPU's integer convolutions: forward only, exact
// modulo 2^bits; CPU transposes int64 only). Runs inside a launched body;
// GEMMs accumulate in float (double for float64) and round once per output
// element, col2im and weight_grad accumulate in the compute type across
// windows and images.
// Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct ConvGeometry {
  // Spatial sizes padded to three dimensions (unused leading ones are 1,
  // with kernel 1, stride 1, padding 0, dilation 1).
  int64_t image[3] = {1, 1, 1};
  int64_t flat[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
};

struct ConvDesc {
  DType dtype = DType::kFloat32;
  int64_t batch = 1;
  int64_t groups = 1;
  int64_t image_channels = 1;  // all groups
  int64_t flat_channels = 1;   // all groups
  ConvGeometry geo;
};

bool conv_supports(DType t);

// flat = lower(image); bias [flat_channels] or null.
void conv_lower(const ConvDesc& d, const void* image, const void* weight, const void* bias, void* flat);
// image = raise(flat); bias [image_channels] or null.
void conv_raise(const ConvDesc& d, const void* flat, const void* weight, const void* bias, void* image);
// grad_weight = weight_grad(flat, image) (overwritten).
void conv_weight_grad(const ConvDesc& d, const void* flat, const void* image, void* grad_weight);
// image = col2im(col) alone (the col2im op, F.fold): col [batch,
// image_channels * kernel volume, flat positions], im2col's layout; groups 1.
// Also complex64/complex128 (the backward of a complex im2col).
void conv_col2im(const ConvDesc& d, const void* col, void* image);
// col = im2col(image) alone (the im2col op, F.unfold), its inverse layout;
// moves element bits, so any dtype (bool to complex128).
void conv_im2col(const ConvDesc& d, const void* image, void* col);
// grad_bias[c] = sum of grad[n, c, ...] over batch and spatial positions.
void conv_bias_grad(DType t, const void* grad, int64_t batch, int64_t channels, int64_t spatial,
                    void* grad_bias);

}  // namespace torch_tpu::kernels
