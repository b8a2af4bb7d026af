// scaled_dot_product_attention on tpu. ATen's composite asks
// _fused_sdp_choice_stub which backend runs (the _fused_sdp_choice operator
// answers the same for torch._fused_sdp_choice): the fused kernel
// (kernels/nn/attention.h) through the "overrideable" backend where it
// applies, else ATen's math path. Everything the kernel reads is on the
// stream: one launch forward, one backward.
#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "aten/launch.h"
#include "generated/ops/_fused_sdp_choice.h"
#include "generated/ops/_scaled_dot_product_fused_attention_overrideable.h"
#include "generated/ops/_scaled_dot_product_fused_attention_overrideable_backward.h"
#include "generated/stub_kernels.h"
#include "kernels/nn/attention.h"

namespace torch_tpu::aten {
namespace {

bool fused_dtype(at::ScalarType t) { return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf; }

// What the fused kernel cannot take in query, key and value (nullptr: none):
// both the backend choice and the op's own argument checks ask it.
const char* shape_mismatch(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) {
    return "expected 4-d query, key and value (batch, heads, sequence, dim) on tpu";
  }
  if (k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type()) {
    return "expected query, key and value of one dtype";
  }
  if (k.size(0) != q.size(0) || v.size(0) != q.size(0) || k.size(1) != q.size(1) || v.size(1) != q.size(1)) {
    return "expected query, key and value with the same batch and head counts";
  }
  if (k.size(2) != v.size(2) || k.size(3) != q.size(3)) {
    return "expected key and value of one length and key of the query's head dim";
  }
  return nullptr;
}

// Whether the fused kernel runs these arguments: shape_mismatch finds
// nothing, a floating dtype it supports (no grouped-query broadcast: equal
// head counts), no dropout (its mask would need the kernel's own random
// numbers), a mask of the query's dtype (or boolean: ATen makes it additive
// first) that broadcasts to the scores.
bool fused_applies(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                   const std::optional<at::Tensor>& mask, double dropout_p) {
  if (q.is_nested() || k.is_nested() || v.is_nested()) return false;
  if (shape_mismatch(q, k, v) != nullptr || !fused_dtype(q.scalar_type()) || dropout_p != 0.0) return false;
  if (mask.has_value() && mask->defined()) {
    if (mask->scalar_type() != q.scalar_type() && mask->scalar_type() != at::kBool) return false;
    if (mask->dim() > 4) return false;
    const std::array<int64_t, 4> scores{q.size(0), q.size(1), q.size(2), k.size(2)};
    for (int64_t i = 0; i < mask->dim(); ++i) {
      const int64_t s = mask->size(mask->dim() - 1 - i);
      if (s != 1 && s != scores[3 - i]) return false;
    }
  }
  return true;
}

int64_t choose_backend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                       const std::optional<at::Tensor>& mask, double dropout_p) {
  auto& ctx = at::globalContext();
  if (ctx.userEnabledOverrideableSDP() && fused_applies(q, k, v, mask, dropout_p)) {
    return static_cast<int64_t>(at::SDPBackend::overrideable);
  }
  return static_cast<int64_t>(ctx.userEnabledMathSDP() ? at::SDPBackend::math : at::SDPBackend::error);
}

// The kernel's view of a 4-d tensor.
void copy_strides(const at::Tensor& t, int64_t (&out)[4]) {
  for (int i = 0; i < 4; ++i) out[i] = t.stride(i);
}

kernels::AttentionOperand operand(const at::Tensor& t) {
  kernels::AttentionOperand o;
  o.data = t.const_data_ptr();
  copy_strides(t, o.stride);
  return o;
}

// The output in the query's dimension order (what the meta function
// allocates: alloc_with_matching_layout in torch/_meta_registrations.py).
at::Tensor like_query(const at::Tensor& q, int64_t last) {
  if (q.size(3) == last) return at::empty_like(q);
  std::array<int64_t, 4> order{0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return q.stride(a) > q.stride(b); });
  const std::array<int64_t, 4> sizes{q.size(0), q.size(1), q.size(2), last};
  std::array<int64_t, 4> strides{};
  int64_t step = 1;
  for (int i = 3; i >= 0; --i) {
    strides[order[i]] = step;
    step *= sizes[order[i]];
  }
  return at::empty_strided(sizes, strides, q.options());
}

kernels::AttentionDesc describe(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                const at::Tensor& bias, bool is_causal, std::optional<double> scale) {
  kernels::AttentionDesc d;
  d.dtype = device_dtype(q.scalar_type(), "_scaled_dot_product_fused_attention_overrideable");
  d.batch = q.size(0);
  d.heads = q.size(1);
  d.q_len = q.size(2);
  d.kv_len = k.size(2);
  d.head_dim = q.size(3);
  d.value_dim = v.size(3);
  d.q = operand(q);
  d.k = operand(k);
  d.v = operand(v);
  if (bias.defined()) d.bias = operand(bias.expand({d.batch, d.heads, d.q_len, d.kv_len}));
  d.scale = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(d.head_dim));
  d.causal = is_causal;
  return d;
}

void check_inputs(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& bias,
                  double dropout_p, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(dropout_p == 0.0, name, ": dropout is not implemented on tpu (dropout_p=",
                              dropout_p, "); scaled_dot_product_attention takes the math path for it");
  const char* mismatch = shape_mismatch(q, k, v);
  TORCH_CHECK(mismatch == nullptr, name, ": ", mismatch, ", got query ", q.sizes(), " ", q.scalar_type(), ", key ",
              k.sizes(), " ", k.scalar_type(), ", value ", v.sizes(), " ", v.scalar_type());
  if (bias.defined()) {
    TORCH_CHECK(bias.scalar_type() == q.scalar_type(), name, ": expected attn_bias of the query's dtype ",
                q.scalar_type(), ", got ", bias.scalar_type());
  }
}

}  // namespace

int64_t _fused_sdp_choice(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                          const std::optional<at::Tensor>& attn_mask, double dropout_p, bool /*is_causal*/,
                          std::optional<double> /*scale*/, bool /*enable_gqa*/) {
  return choose_backend(query, key, value, attn_mask, dropout_p);
}

int64_t fused_sdp_choice_kernel(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                const std::optional<at::Tensor>& attn_mask, double dropout_p, bool /*is_causal*/,
                                std::optional<double> /*scale*/, bool /*enable_gqa*/) {
  return choose_backend(query, key, value, attn_mask, dropout_p);
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt, at::Tensor, at::Tensor,
             at::Tensor>
sdpa_overrideable(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                  const ::std::optional<at::Tensor>& attn_bias, double dropout_p, bool is_causal,
                  bool /*return_debug_mask*/, ::std::optional<double> scale) {
  const char* name = "_scaled_dot_product_fused_attention_overrideable";
  const at::Tensor bias = attn_bias.has_value() ? *attn_bias : at::Tensor();
  check_inputs(query, key, value, bias, dropout_p, name);
  kernels::AttentionDesc d = describe(query, key, value, bias, is_causal, scale);
  at::Tensor out = like_query(query, d.value_dim);
  at::Tensor lse = at::empty({d.batch, d.heads, d.q_len}, query.options().dtype(at::kFloat));
  d.out = out.data_ptr();
  copy_strides(out, d.out_stride);
  d.logsumexp = lse.data_ptr<float>();
  if (out.numel() > 0) {
    launch(query.device().index(), name, d.buffers(), [d] { kernels::attention_forward(d); });
  }
  // No dropout: the Philox seed and offset are never read.
  const at::Tensor seed = at::empty({}, query.options().dtype(at::kLong));
  const at::Tensor offset = at::empty({}, query.options().dtype(at::kLong));
  return {out, lse, at::Tensor(), at::Tensor(), c10::SymInt(d.q_len), c10::SymInt(d.kv_len), seed, offset,
          at::Tensor()};
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> sdpa_overrideable_backward(
    const at::Tensor& grad_out, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const at::Tensor& attn_bias, ::std::array<bool, 4> grad_input_mask, const at::Tensor& out,
    const at::Tensor& logsumexp, const at::Tensor& /*cum_seq_q*/, const at::Tensor& /*cum_seq_k*/,
    int64_t /*max_q*/, int64_t /*max_k*/, double dropout_p, bool is_causal, const at::Tensor& /*philox_seed*/,
    const at::Tensor& /*philox_offset*/, ::std::optional<double> scale) {
  const char* name = "_scaled_dot_product_fused_attention_overrideable_backward";
  check_inputs(query, key, value, attn_bias, dropout_p, name);
  TORCH_CHECK(grad_out.sizes() == out.sizes() && grad_out.scalar_type() == query.scalar_type(), name,
              ": expected grad_out of the output's shape and the query's dtype");
  TORCH_CHECK(logsumexp.scalar_type() == at::kFloat && logsumexp.is_contiguous(), name,
              ": expected the forward's float32 logsumexp");
  kernels::AttentionBackwardDesc bd;
  bd.fwd = describe(query, key, value, attn_bias, is_causal, scale);
  const kernels::AttentionDesc& d = bd.fwd;
  bd.fwd.out = const_cast<void*>(out.const_data_ptr());
  copy_strides(out, bd.fwd.out_stride);
  bd.fwd.logsumexp = const_cast<float*>(logsumexp.const_data_ptr<float>());
  bd.grad_out = operand(grad_out);
  // q, k and v always (what the meta function returns), the bias' when asked.
  at::Tensor grad_q = at::empty_like(query), grad_k = at::empty_like(key), grad_v = at::empty_like(value);
  bd.grad_q = grad_q.data_ptr();
  bd.grad_k = grad_k.data_ptr();
  bd.grad_v = grad_v.data_ptr();
  copy_strides(grad_q, bd.grad_q_stride);
  copy_strides(grad_k, bd.grad_k_stride);
  copy_strides(grad_v, bd.grad_v_stride);
  at::Tensor grad_scores;
  if (attn_bias.defined() && grad_input_mask[3]) {
    grad_scores = at::empty({d.batch, d.heads, d.q_len, d.kv_len}, query.options());
    bd.grad_bias = grad_scores.data_ptr();
  }
  if (d.batch * d.heads > 0) {
    launch(query.device().index(), name, bd.buffers(), [bd] { kernels::attention_backward(bd); });
  }
  at::Tensor grad_bias;
  if (grad_scores.defined()) grad_bias = grad_scores.sum_to_size(attn_bias.sizes()).contiguous();
  return {grad_q, grad_k, grad_v, grad_bias};
}

}  // namespace torch_tpu::aten
