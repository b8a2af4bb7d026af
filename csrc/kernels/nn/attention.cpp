// Fused scaled dot product attention (attention.h), built per ISA (its
// softmax passes are vector loops of vec_math's exp). Each (batch, head) is
// one work item: with at least two items per core they are split over the
// cores (each item's GEMMs then run inline on its core), otherwise they run
// one after the other with each GEMM split over the cores. Query rows go in
// blocks that keep the score block near 1M floats.
#include "kernels/common/fp_contract.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "kernels/common/scratch.h"
#include "kernels/linalg/gemm.h"
#include "kernels/nn/attention.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A work item's buffers, kept with the worker thread up to 32 MB.
thread_local ScratchBuffer t_attention(size_t{32} << 20);

// Consecutive float arrays (64-byte aligned) carved from one scratch
// allocation. carve() runs a layout twice: once counting, once carving, so
// the size and the pieces cannot disagree.
class Carver {
 public:
  explicit Carver(float* base) : base_(base) {}
  float* take(int64_t n) {
    float* p = base_ ? base_ + used_ : nullptr;
    used_ += (n + 15) / 16 * 16;
    return p;
  }
  int64_t used() const { return used_; }

 private:
  float* base_;
  int64_t used_ = 0;
};

template <typename Layout>
void carve(ScratchUse& scratch, Layout&& layout) {
  Carver count(nullptr);
  layout(count);
  Carver mem(scratch.get<float>(count.used()));
  layout(mem);
}

// Float copies of a work item's inputs when they are not float32 (null
// otherwise): K and V whole, one query block, its bias block.
struct Converted {
  float *k = nullptr, *v = nullptr, *q = nullptr, *bias = nullptr;
  void take(Carver& m, const AttentionDesc& d, int64_t rows) {
    if (d.dtype == DType::kFloat32) return;
    k = m.take(d.kv_len * d.head_dim);
    v = m.take(d.kv_len * d.value_dim);
    q = m.take(rows * d.head_dim);
    if (d.bias.data) bias = m.take(rows * d.kv_len);
  }
};

// A float matrix: element (r, c) at p[r * rs + c * cs].
struct FMat {
  const float* p;
  int64_t rs, cs;
};

int64_t offset_of(const int64_t stride[4], int64_t b, int64_t h, int64_t row) {
  return b * stride[0] + h * stride[1] + row * stride[2];
}

// rows x cols of operand o from (b, h, row0) as floats: in place for
// float32, else converted into dst ([rows][cols]).
FMat as_float(const AttentionOperand& o, DType t, int64_t b, int64_t h, int64_t row0, int64_t rows, int64_t cols,
              float* dst) {
  const int64_t off = offset_of(o.stride, b, h, row0);
  if (t == DType::kFloat32) return {static_cast<const float*>(o.data) + off, o.stride[2], o.stride[3]};
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = off + r * o.stride[2];
    if (o.stride[3] == 1) {
      nn::load_row(o.data, t, row, cols, dst + r * cols);
    } else {
      for (int64_t c = 0; c < cols; ++c) dst[r * cols + c] = nn::load_one<float>(o.data, t, row + c * o.stride[3]);
    }
  }
  return {dst, cols, 1};
}

// src ([rows][cols] floats) into dst (dtype t, strides) from (b, h, row0).
void store(const float* src, int64_t rows, int64_t cols, void* dst, DType t, const int64_t stride[4], int64_t b,
           int64_t h, int64_t row0) {
  const int64_t off = offset_of(stride, b, h, row0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = off + r * stride[2];
    if (stride[3] == 1) {
      nn::store_row(src + r * cols, cols, dst, t, row);
    } else {
      for (int64_t c = 0; c < cols; ++c) nn::store_one(src[r * cols + c], dst, t, row + c * stride[3]);
    }
  }
}

// C = alpha A B (+ S when s.p): a float GEMM on views.
void matmul(int64_t m, int64_t n, int64_t k, FMat a, FMat b, float* c, int64_t c_rs, int64_t c_cs, double alpha,
            const float* s = nullptr, int64_t s_rs = 0, int64_t s_cs = 0) {
  GemmDesc g;
  g.dtype = DType::kFloat32;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = {const_cast<float*>(a.p), a.rs, a.cs, 0};
  g.b = {const_cast<float*>(b.p), b.rs, b.cs, 0};
  g.c = {c, c_rs, c_cs, 0};
  g.alpha = alpha;
  if (s != nullptr) {
    g.s = {const_cast<float*>(s), s_rs, s_cs, 0};
    g.beta = 1;
    g.beta_zero = false;
  }
  gemm(g);
}

// Query rows per block: the score block near 1M floats. Causal attention
// takes at most an eighth of the queries (at least 32 rows) per block: a
// block's products stop at its last row's keys, so smaller blocks skip
// more of the masked half (8 blocks compute 56% of the full products).
int64_t block_rows(const AttentionDesc& d) {
  int64_t r = std::max<int64_t>(1, std::min<int64_t>(d.q_len, (int64_t{1} << 20) / std::max<int64_t>(1, d.kv_len)));
  if (d.causal) r = std::min(r, std::max<int64_t>(32, (d.q_len + 7) / 8));
  return r;
}

// The keys a block of query rows [i0, i0 + rows) attends to: [0, end).
int64_t keys_of_block(const AttentionDesc& d, int64_t i0, int64_t rows) {
  return d.causal ? std::min(i0 + rows, d.kv_len) : d.kv_len;
}

// Columns row i may attend to: all, or j <= i (causal, top-left aligned as
// ATen's math path's tril mask).
inline int64_t attended(const AttentionDesc& d, int64_t i) {
  return d.causal ? std::min(i + 1, d.kv_len) : d.kv_len;
}

// S[rows][0, nkb) = scale Q K^T + bias for query rows [i0, i0 + rows) and
// the block's keys (S's rows are kv_len apart).
void scores(const AttentionDesc& d, int64_t b, int64_t h, int64_t i0, int64_t rows, int64_t nkb, FMat q, FMat k,
            float* s, float* bias_buf) {
  if (d.bias.data == nullptr) {
    matmul(rows, nkb, d.head_dim, q, {k.p, k.cs, k.rs}, s, d.kv_len, 1, d.scale);
    return;
  }
  const FMat bias = as_float(d.bias, d.dtype, b, h, i0, rows, d.kv_len, bias_buf);
  matmul(rows, nkb, d.head_dim, q, {k.p, k.cs, k.rs}, s, d.kv_len, 1, d.scale, bias.p, bias.rs, bias.cs);
}

void forward_item(const AttentionDesc& d, int64_t b, int64_t h) {
  const int64_t nk = d.kv_len, D = d.head_dim, Dv = d.value_dim;
  const int64_t R = block_rows(d);
  const bool f32 = d.dtype == DType::kFloat32;
  ScratchUse scratch(t_attention);
  Converted in;
  float *obuf, *s;
  carve(scratch, [&](Carver& m) {
    in.take(m, d, R);
    obuf = f32 ? nullptr : m.take(R * Dv);
    s = m.take(R * nk);
  });
  const FMat k = as_float(d.k, d.dtype, b, h, 0, nk, D, in.k);
  const FMat v = as_float(d.v, d.dtype, b, h, 0, nk, Dv, in.v);
  float* lse = d.logsumexp + (b * d.heads + h) * d.q_len;
  for (int64_t i0 = 0; i0 < d.q_len; i0 += R) {
    const int64_t rows = std::min(R, d.q_len - i0), nkb = keys_of_block(d, i0, rows);
    scores(d, b, h, i0, rows, nkb, as_float(d.q, d.dtype, b, h, i0, rows, D, in.q), k, s, in.bias);
    for (int64_t r = 0; r < rows; ++r) {
      float* row = s + r * nk;
      const int64_t n = attended(d, i0 + r);
      const float m = nn::max_lanes(row, n);  // lane-wise: the reductions stay vector loops
      if (m == -kInf) {  // every score masked: O = 0 (lse +inf: P recomputes as 0)
        std::fill(row, row + nkb, 0.0f);
        lse[i0 + r] = kInf;
        continue;
      }
      for (int64_t j = 0; j < n; ++j) row[j] = nn::exp_c<float>(row[j] - m);
      const float sum = static_cast<float>(nn::sum_lanes<float>(n, [&](int64_t j) { return row[j]; }));
      const float inv = 1.0f / sum;
      for (int64_t j = 0; j < n; ++j) row[j] *= inv;
      std::fill(row + n, row + nkb, 0.0f);
      lse[i0 + r] = m + std::log(sum);
    }
    // O = P V, straight into out for float32.
    if (f32) {
      float* out = static_cast<float*>(d.out) + offset_of(d.out_stride, b, h, i0);
      matmul(rows, Dv, nkb, {s, nk, 1}, v, out, d.out_stride[2], d.out_stride[3], 1.0);
    } else {
      matmul(rows, Dv, nkb, {s, nk, 1}, v, obuf, Dv, 1, 1.0);
      store(obuf, rows, Dv, d.out, d.dtype, d.out_stride, b, h, i0);
    }
  }
}

void backward_item(const AttentionBackwardDesc& bd, int64_t b, int64_t h) {
  const AttentionDesc& d = bd.fwd;
  const int64_t nk = d.kv_len, D = d.head_dim, Dv = d.value_dim;
  const int64_t R = block_rows(d);
  const bool f32 = d.dtype == DType::kFloat32;
  ScratchUse scratch(t_attention);
  Converted in;
  float *dobuf, *obuf, *dk, *dv, *p, *ds, *dq, *di;
  carve(scratch, [&](Carver& m) {
    in.take(m, d, R);
    dobuf = f32 ? nullptr : m.take(R * Dv);
    obuf = f32 ? nullptr : m.take(R * Dv);
    dk = m.take(nk * D);
    dv = m.take(nk * Dv);
    p = m.take(R * nk);
    ds = m.take(R * nk);
    dq = m.take(R * D);
    di = m.take(R);
  });
  const FMat k = as_float(d.k, d.dtype, b, h, 0, nk, D, in.k);
  const FMat v = as_float(d.v, d.dtype, b, h, 0, nk, Dv, in.v);
  const float* lse = d.logsumexp + (b * d.heads + h) * d.q_len;
  std::fill(dk, dk + nk * D, 0.0f);
  std::fill(dv, dv + nk * Dv, 0.0f);
  const AttentionOperand out{d.out, {d.out_stride[0], d.out_stride[1], d.out_stride[2], d.out_stride[3]}};
  for (int64_t i0 = 0; i0 < d.q_len; i0 += R) {
    const int64_t rows = std::min(R, d.q_len - i0), nkb = keys_of_block(d, i0, rows);
    const FMat q = as_float(d.q, d.dtype, b, h, i0, rows, D, in.q);
    const FMat dout = as_float(bd.grad_out, d.dtype, b, h, i0, rows, Dv, dobuf);
    const FMat o = as_float(out, d.dtype, b, h, i0, rows, Dv, obuf);
    scores(d, b, h, i0, rows, nkb, q, k, p, in.bias);
    for (int64_t r = 0; r < rows; ++r) {  // P = exp(S - lse), masked entries 0
      float* row = p + r * nk;
      const int64_t n = lse[i0 + r] == kInf ? 0 : attended(d, i0 + r);
      const float l = lse[i0 + r];
      for (int64_t j = 0; j < n; ++j) row[j] = nn::exp_c<float>(row[j] - l);
      std::fill(row + n, row + nkb, 0.0f);
      float dot = 0;
      for (int64_t c = 0; c < Dv; ++c) dot += dout.p[r * dout.rs + c * dout.cs] * o.p[r * o.rs + c * o.cs];
      di[r] = dot;
    }
    // dV += P^T dO; dP = dO V^T; dS = P (dP - rowsum(dO O)).
    matmul(nkb, Dv, rows, {p, 1, nk}, dout, dv, Dv, 1, 1.0, dv, Dv, 1);
    matmul(rows, nkb, Dv, dout, {v.p, v.cs, v.rs}, ds, nk, 1, 1.0);
    for (int64_t r = 0; r < rows; ++r) {
      float* dsr = ds + r * nk;
      const float* pr = p + r * nk;
      for (int64_t j = 0; j < nkb; ++j) dsr[j] = pr[j] * (dsr[j] - di[r]);
      std::fill(dsr + nkb, dsr + nk, 0.0f);  // keys past the block's: masked, no gradient
    }
    if (bd.grad_bias) {
      const int64_t first = ((b * d.heads + h) * d.q_len + i0) * nk;
      for (int64_t r = 0; r < rows; ++r) nn::store_row(ds + r * nk, nk, bd.grad_bias, d.dtype, first + r * nk);
    }
    if (bd.grad_q) {
      matmul(rows, D, nkb, {ds, nk, 1}, k, dq, D, 1, d.scale);
      store(dq, rows, D, bd.grad_q, d.dtype, bd.grad_q_stride, b, h, i0);
    }
    matmul(nkb, D, rows, {ds, 1, nk}, q, dk, D, 1, d.scale, dk, D, 1);  // dK += scale dS^T Q
  }
  if (bd.grad_k) store(dk, nk, D, bd.grad_k, d.dtype, bd.grad_k_stride, b, h, 0);
  if (bd.grad_v) store(dv, nk, Dv, bd.grad_v, d.dtype, bd.grad_v_stride, b, h, 0);
}

// Runs item(b, h) for every (batch, head).
template <typename F>
void over_items(const AttentionDesc& d, F&& item) {
  const int64_t items = d.batch * d.heads;
  if (items == 0) return;
  if (items >= 2 * runtime::current_core_count()) {
    runtime::parallel_for(0, items, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) item(i / d.heads, i % d.heads);
    });
  } else {
    for (int64_t i = 0; i < items; ++i) item(i / d.heads, i % d.heads);
  }
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(attention_forward)(const AttentionDesc& d) {
  if (!attention_supports(d.dtype)) throw std::invalid_argument("attention: float32, bfloat16 or float16 only");
  over_items(d, [&](int64_t b, int64_t h) { forward_item(d, b, h); });
}

void TORCH_TPU_ISA_ENTRY(attention_backward)(const AttentionBackwardDesc& bd) {
  if (!attention_supports(bd.fwd.dtype)) throw std::invalid_argument("attention: float32, bfloat16 or float16 only");
  over_items(bd.fwd, [&](int64_t b, int64_t h) { backward_item(bd, b, h); });
}

}  // namespace torch_tpu::kernels
