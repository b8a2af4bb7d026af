// Fused scaled dot product attention on the device (attention.cpp): what
// scaled_dot_product_attention's "overrideable" backend runs on tpu, one
// launch forward and one backward instead of ATen's math path (matmuls,
// masks, softmax as separate ops). Per (batch, head), in blocks of query
// rows, on the device GEMM:
//   S = scale Q K^T + bias   (causal: S[i, j] = -inf for j > i, top-left)
//   P = softmax_rows(S),  O = P V,  lse = log sum_j exp S[i, j]
// backward, P recomputed from lse:
//   dV = P^T dO,  dP = dO V^T,  dS = P (dP - rowsum(dO O)),
//   dQ = scale dS K,  dK = scale dS^T Q,  dBias = dS
// A row whose every score is -inf gets O = 0 and zero gradients, as CPU.
// float32, bfloat16, float16 (computed in float, rounded once). Tensors are
// [batch, heads, seq, dim] with any element strides; bias may broadcast
// (stride 0). Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// A [batch, heads, rows, cols] operand: data and element strides.
struct AttentionOperand {
  const void* data = nullptr;
  int64_t stride[4] = {0, 0, 0, 0};
};

struct AttentionDesc {
  DType dtype = DType::kFloat32;  // of every operand but logsumexp
  int64_t batch = 0, heads = 0, q_len = 0, kv_len = 0, head_dim = 0, value_dim = 0;
  AttentionOperand q, k, v;
  AttentionOperand bias;  // data == nullptr: none
  double scale = 1.0;
  bool causal = false;
  void* out = nullptr;
  int64_t out_stride[4] = {0, 0, 0, 0};
  float* logsumexp = nullptr;  // [batch, heads, q_len], contiguous

  std::vector<const void*> buffers() const { return {q.data, k.data, v.data, bias.data, out, logsumexp}; }
};

struct AttentionBackwardDesc {
  AttentionDesc fwd;            // the forward's inputs; out and logsumexp are read
  AttentionOperand grad_out;
  // Outputs, [batch, heads, rows, cols] with these strides; null: not wanted.
  void* grad_q = nullptr;
  void* grad_k = nullptr;
  void* grad_v = nullptr;
  int64_t grad_q_stride[4] = {0, 0, 0, 0}, grad_k_stride[4] = {0, 0, 0, 0}, grad_v_stride[4] = {0, 0, 0, 0};
  // [batch, heads, q_len, kv_len] contiguous (the caller sums it to the
  // bias' broadcast shape); null: not wanted.
  void* grad_bias = nullptr;

  std::vector<const void*> buffers() const {
    std::vector<const void*> b = fwd.buffers();
    b.insert(b.end(), {grad_out.data, grad_q, grad_k, grad_v, grad_bias});
    return b;
  }
};

bool attention_supports(DType t);

// Run inside a launched body.
void attention_forward(const AttentionDesc& d);
void attention_backward(const AttentionBackwardDesc& d);

}  // namespace torch_tpu::kernels
