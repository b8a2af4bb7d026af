// LSTM and GRU cells and layer recurrences (rnn.h). Layers: per time step one GEMM
// (kernels::gemm, split over the device cores) and one pass of gate
// arithmetic over the batch rows, in the compute type (float; double for
// float64). Carried gradients stay in the compute type between steps.
#include "kernels/common/fp_contract.h"
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "kernels/common/vec_math.h"
#include "kernels/linalg/gemm.h"
#include "kernels/nn/rnn.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

// Float through vec_math.h's vectorizing functions, double through libm.
// The gate loops carry `#pragma GCC ivdep`: their rows are separate
// buffers, but GCC cannot prove the gate slices (x + k * H) independent
// and otherwise leaves them scalar (5x slower).
__attribute__((always_inline)) inline float sigmoid_of(float x) { return vmath::sigmoid_f(x); }
__attribute__((always_inline)) inline double sigmoid_of(double x) { return 1.0 / (1.0 + std::exp(-x)); }
__attribute__((always_inline)) inline float tanh_of(float x) { return vmath::tanh_f(x); }
__attribute__((always_inline)) inline double tanh_of(double x) { return std::tanh(x); }

// The LSTM gate arithmetic of one batch row: pre-activations x + y (4H,
// gates i, f, g, o), c_prev -> activated gates ws (4H), c, h. One pointer
// per gate: GCC vectorizes unit-stride streams, not x[k * H + j].
template <typename C>
__attribute__((always_inline)) inline void lstm_gates_forward(int64_t H, const C* x, const C* y, const C* c_prev,
                                                              C* ws, C* c, C* h) {
  const C* __restrict xi = x;
  const C* __restrict xf = x + H;
  const C* __restrict xg = x + 2 * H;
  const C* __restrict xo = x + 3 * H;
  const C* __restrict yi = y;
  const C* __restrict yf = y + H;
  const C* __restrict yg = y + 2 * H;
  const C* __restrict yo = y + 3 * H;
  const C* __restrict cp = c_prev;
  C* __restrict wi = ws;
  C* __restrict wf = ws + H;
  C* __restrict wg = ws + 2 * H;
  C* __restrict wo = ws + 3 * H;
  C* __restrict co = c;
  C* __restrict ho = h;
#pragma GCC ivdep
  for (int64_t j = 0; j < H; ++j) {
    const C i = sigmoid_of(xi[j] + yi[j]);
    const C f = sigmoid_of(xf[j] + yf[j]);
    const C g = tanh_of(xg[j] + yg[j]);
    const C o = sigmoid_of(xo[j] + yo[j]);
    wi[j] = i;
    wf[j] = f;
    wg[j] = g;
    wo[j] = o;
    const C cn = f * cp[j] + i * g;
    co[j] = cn;
    ho[j] = o * tanh_of(cn);
  }
}

// Its backward for one row: from the activated gates w (i, f, g, o), c_t,
// c_prev and the gradients reaching h_t (dh, plus dh2 when not null) and
// c_t (dc; may be null: zero), the pre-activation gradients dgates (4H)
// and dc_prev = dc_t * f. dc_prev may be dc (same index read, then written).
template <typename C>
__attribute__((always_inline)) inline void lstm_gates_backward(int64_t H, const C* w, const C* c, const C* c_prev,
                                                               const C* dh, const C* dh2, const C* dc,
                                                               C* dgates, C* dc_prev) {
#pragma GCC ivdep
  for (int64_t j = 0; j < H; ++j) {
    const C i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j];
    const C tc = tanh_of(c[j]);
    const C dht = dh2 != nullptr ? dh[j] + dh2[j] : dh[j];
    const C dct = (dc != nullptr ? dc[j] : C(0)) + dht * o * (C(1) - tc * tc);
    dgates[j] = dct * g * i * (C(1) - i);
    dgates[H + j] = dct * c_prev[j] * f * (C(1) - f);
    dgates[2 * H + j] = dct * i * (C(1) - g * g);
    dgates[3 * H + j] = dht * tc * o * (C(1) - o);
    dc_prev[j] = dct * f;
  }
}

// The GRU gate arithmetic of one batch row: pre-activations x (input
// side) and y (hidden side, biases included; 3H each, gates r, z, n) and
// h_prev -> r, z, n, hn (the hidden side's n chunk) each into its own slice
// (hx_out, when not null, gets a copy of h_prev: the cell's workspace
// keeps it) and h.
template <typename C>
__attribute__((always_inline)) inline void gru_gates_forward(int64_t H, const C* x, const C* y, const C* h_prev,
                                                             C* r_out, C* z_out, C* n_out, C* hn_out, C* hx_out,
                                                             C* h) {
#pragma GCC ivdep
  for (int64_t j = 0; j < H; ++j) {
    const C r = sigmoid_of(x[j] + y[j]);
    const C z = sigmoid_of(x[H + j] + y[H + j]);
    const C hn = y[2 * H + j];
    const C n = tanh_of(x[2 * H + j] + r * hn);
    r_out[j] = r;
    z_out[j] = z;
    n_out[j] = n;
    hn_out[j] = hn;
    if (hx_out != nullptr) hx_out[j] = h_prev[j];
    h[j] = n + z * (h_prev[j] - n);
  }
}

// Its backward for one row: from r, z, n, hn, h_prev and the gradient
// reaching h (dh, plus dh2 when not null), the input-side gate gradients
// dgi (3H), the hidden-side ones dgh (3H: d hg) and the direct part of
// dh_prev, dh * z (dh_direct may be dh: same index read, then written).
template <typename C>
__attribute__((always_inline)) inline void gru_gates_backward(int64_t H, const C* r_in, const C* z_in,
                                                              const C* n_in, const C* hn_in, const C* h_prev,
                                                              const C* dh, const C* dh2, C* dgi, C* dgh,
                                                              C* dh_direct) {
#pragma GCC ivdep
  for (int64_t j = 0; j < H; ++j) {
    const C r = r_in[j], z = z_in[j], n = n_in[j], hn = hn_in[j];
    const C dht = dh2 != nullptr ? dh[j] + dh2[j] : dh[j];
    const C dn = dht * (C(1) - z) * (C(1) - n * n);  // d(in + r * hn)
    const C dr = dn * hn * r * (C(1) - r);
    const C dz = dht * (h_prev[j] - n) * z * (C(1) - z);
    dgi[j] = dr;
    dgh[j] = dr;
    dgi[H + j] = dz;
    dgh[H + j] = dz;
    dgi[2 * H + j] = dn;
    dgh[2 * H + j] = dn * r;
    dh_direct[j] = dht * z;
  }
}

int64_t elem_size(DType t) { return t == DType::kFloat64 ? 8 : t == DType::kFloat32 ? 4 : 2; }

const void* at_offset(const void* p, DType t, int64_t elems) {
  return static_cast<const char*>(p) + elems * elem_size(t);
}
void* at_offset(void* p, DType t, int64_t elems) {
  return static_cast<char*>(p) + elems * elem_size(t);
}

// C (rows x n, row-major) = A (rows x k, row-major) @ B (k x n, row-major), beta 0.
void small_gemm(DType t, int64_t rows, int64_t k, int64_t n, const void* a, const void* b, void* c) {
  GemmDesc g;
  g.dtype = t;
  g.m = rows;
  g.k = k;
  g.n = n;
  g.a = {const_cast<void*>(a), k, 1, 0};
  g.b = {const_cast<void*>(b), n, 1, 0};
  g.c = {c, n, 1, 0};
  g.s = g.c;
  gemm(g);
}

// The time index of the k-th step in step order, and of the step before it.
struct StepOrder {
  int64_t steps;
  bool reverse;
  int64_t at(int64_t k) const { return reverse ? steps - 1 - k : k; }
};

template <typename C>
void lstm_forward_typed(const RnnLayerDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 4 * H;
  const StepOrder order{d.steps, d.reverse};
  for (int64_t k = 0; k < d.steps; ++k) {
    const int64_t s = order.at(k), p = k == 0 ? -1 : order.at(k - 1);
    const void* h_prev = p < 0 ? d.hx : at_offset(d.output, t, p * B * H);
    small_gemm(t, B, H, G, h_prev, d.w_hh_t, d.scratch);
    runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
      std::vector<C> pre(G), hg(G), c_prev(H), ws(5 * H), h(H);
      for (int64_t b = b0; b < b1; ++b) {
        nn::load_row(d.igates, t, (s * B + b) * G, G, pre.data());
        nn::load_row(d.scratch, t, b * G, G, hg.data());
        if (p < 0) {
          nn::load_row(d.cx, t, b * H, H, c_prev.data());
        } else {
          nn::load_row(d.workspace, t, (p * B + b) * 5 * H + 4 * H, H, c_prev.data());
        }
        // The workspace row is [i, f, g, o, c].
        lstm_gates_forward<C>(H, pre.data(), hg.data(), c_prev.data(), ws.data(), ws.data() + 4 * H, h.data());
        nn::store_row(ws.data(), 5 * H, d.workspace, t, (s * B + b) * 5 * H);
        nn::store_row(h.data(), H, d.output, t, (s * B + b) * H);
      }
    });
  }
  const int64_t last = order.at(d.steps - 1);
  std::vector<C> row(H);
  for (int64_t b = 0; b < B; ++b) {
    nn::load_row(d.output, t, (last * B + b) * H, H, row.data());
    nn::store_row(row.data(), H, d.hy, t, b * H);
    nn::load_row(d.workspace, t, (last * B + b) * 5 * H + 4 * H, H, row.data());
    nn::store_row(row.data(), H, d.cy, t, b * H);
  }
}

template <typename C>
void lstm_backward_typed(const RnnLayerBackwardDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 4 * H;
  const StepOrder order{d.steps, d.reverse};
  std::vector<C> dh(B * H, C(0)), dc(B * H, C(0));
  if (d.grad_hy != nullptr) nn::load_row(d.grad_hy, t, 0, B * H, dh.data());
  if (d.grad_cy != nullptr) nn::load_row(d.grad_cy, t, 0, B * H, dc.data());
  for (int64_t k = d.steps - 1; k >= 0; --k) {
    const int64_t s = order.at(k), p = k == 0 ? -1 : order.at(k - 1);
    runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
      std::vector<C> ws(5 * H), c_prev(H), go(H, C(0)), dg(G);
      for (int64_t b = b0; b < b1; ++b) {
        nn::load_row(d.workspace, t, (s * B + b) * 5 * H, 5 * H, ws.data());
        if (p < 0) {
          nn::load_row(d.cx, t, b * H, H, c_prev.data());
        } else {
          nn::load_row(d.workspace, t, (p * B + b) * 5 * H + 4 * H, H, c_prev.data());
        }
        if (d.grad_output != nullptr) nn::load_row(d.grad_output, t, (s * B + b) * H, H, go.data());
        C* dcr = dc.data() + b * H;  // go is zeros without grad_output
        lstm_gates_backward<C>(H, ws.data(), ws.data() + 4 * H, c_prev.data(), dh.data() + b * H, go.data(), dcr,
                               dg.data(), dcr);
        nn::store_row(dg.data(), G, d.dgates, t, (s * B + b) * G);
      }
    });
    // dh for the step before: d pre-activations @ w_hh (grad_hx as scratch).
    small_gemm(t, B, G, H, at_offset(d.dgates, t, s * B * G), d.w_hh, d.grad_hx);
    nn::load_row(d.grad_hx, t, 0, B * H, dh.data());
  }
  nn::store_row(dh.data(), B * H, d.grad_hx, t, 0);
  nn::store_row(dc.data(), B * H, d.grad_cx, t, 0);
}

template <typename C>
void gru_forward_typed(const RnnLayerDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 3 * H;
  const StepOrder order{d.steps, d.reverse};
  std::vector<C> bias(G, C(0));
  if (d.b_hh != nullptr) nn::load_row(d.b_hh, t, 0, G, bias.data());
  for (int64_t k = 0; k < d.steps; ++k) {
    const int64_t s = order.at(k), p = k == 0 ? -1 : order.at(k - 1);
    const void* h_prev = p < 0 ? d.hx : at_offset(d.output, t, p * B * H);
    small_gemm(t, B, H, G, h_prev, d.w_hh_t, d.scratch);
    runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
      std::vector<C> pre(G), hg(G), hp(H), ws(4 * H), h(H);
      for (int64_t b = b0; b < b1; ++b) {
        nn::load_row(d.igates, t, (s * B + b) * G, G, pre.data());
        nn::load_row(d.scratch, t, b * G, G, hg.data());
        nn::load_row(h_prev, t, b * H, H, hp.data());
        C* w = ws.data();  // [r, z, n, hn]
        for (int64_t j = 0; j < G; ++j) hg[j] += bias[j];
        gru_gates_forward<C>(H, pre.data(), hg.data(), hp.data(), w, w + H, w + 2 * H, w + 3 * H, nullptr,
                             h.data());
        nn::store_row(w, 4 * H, d.workspace, t, (s * B + b) * 4 * H);
        nn::store_row(h.data(), H, d.output, t, (s * B + b) * H);
      }
    });
  }
  const int64_t last = order.at(d.steps - 1);
  std::vector<C> row(H);
  for (int64_t b = 0; b < B; ++b) {
    nn::load_row(d.output, t, (last * B + b) * H, H, row.data());
    nn::store_row(row.data(), H, d.hy, t, b * H);
  }
}

template <typename C>
void gru_backward_typed(const RnnLayerBackwardDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 3 * H;
  const StepOrder order{d.steps, d.reverse};
  std::vector<C> dh(B * H, C(0)), from_gemm(B * H);
  if (d.grad_hy != nullptr) nn::load_row(d.grad_hy, t, 0, B * H, dh.data());
  for (int64_t k = d.steps - 1; k >= 0; --k) {
    const int64_t s = order.at(k), p = k == 0 ? -1 : order.at(k - 1);
    const void* h_prev = p < 0 ? d.hx : at_offset(d.output, t, p * B * H);
    runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
      std::vector<C> ws(4 * H), hp(H), go(H, C(0)), dgi(G), dgh(G);
      for (int64_t b = b0; b < b1; ++b) {
        nn::load_row(d.workspace, t, (s * B + b) * 4 * H, 4 * H, ws.data());
        nn::load_row(h_prev, t, b * H, H, hp.data());
        if (d.grad_output != nullptr) nn::load_row(d.grad_output, t, (s * B + b) * H, H, go.data());
        const C* w = ws.data();  // [r, z, n, hn]
        C* dhr = dh.data() + b * H;
        // dhr becomes the direct part of dh_prev; the GEMM adds the gates' share.
        gru_gates_backward<C>(H, w, w + H, w + 2 * H, w + 3 * H, hp.data(), dhr, go.data(), dgi.data(), dgh.data(),
                              dhr);
        nn::store_row(dgi.data(), G, d.dgates, t, (s * B + b) * G);
        nn::store_row(dgh.data(), G, d.dgates_h, t, (s * B + b) * G);
      }
    });
    small_gemm(t, B, G, H, at_offset(d.dgates_h, t, s * B * G), d.w_hh, d.grad_hx);
    nn::load_row(d.grad_hx, t, 0, B * H, from_gemm.data());
    for (int64_t e = 0; e < B * H; ++e) dh[e] += from_gemm[e];
  }
  nn::store_row(dh.data(), B * H, d.grad_hx, t, 0);
}

// Loads gate row b of a (B, n) tensor plus an optional (n) bias into dst.
template <typename C>
void load_gates(const void* gates, const void* bias, DType t, int64_t b, int64_t n, C* dst, C* scratch) {
  nn::load_row(gates, t, b * n, n, dst);
  if (bias == nullptr) return;
  nn::load_row(bias, t, 0, n, scratch);
  C* __restrict out = dst;
  const C* __restrict add = scratch;
  for (int64_t j = 0; j < n; ++j) out[j] += add[j];
}

template <typename C>
void lstm_cell_forward_typed(const RnnCellDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 4 * H;
  runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
    std::vector<C> x(G), y(G), tmp(G), cp(H), ws(G), h(H), c(H);
    for (int64_t b = b0; b < b1; ++b) {
      // (igates + b_ih) + (hgates + b_hh), as CUDA's lstm_cell_forward.
      load_gates(d.igates, d.b_ih, t, b, G, x.data(), tmp.data());
      load_gates(d.hgates, d.b_hh, t, b, G, y.data(), tmp.data());
      nn::load_row(d.state, t, b * H, H, cp.data());
      lstm_gates_forward<C>(H, x.data(), y.data(), cp.data(), ws.data(), c.data(), h.data());
      nn::store_row(ws.data(), G, d.workspace, t, b * G);
      nn::store_row(c.data(), H, d.cy, t, b * H);
      nn::store_row(h.data(), H, d.hy, t, b * H);
    }
  });
}

template <typename C>
void lstm_cell_backward_typed(const RnnCellBackwardDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 4 * H;
  runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
    std::vector<C> ws(G), cx(H), cy(H), ghy(H, C(0)), gcy(H, C(0)), out(G), gcx(H);
    for (int64_t b = b0; b < b1; ++b) {
      nn::load_row(d.workspace, t, b * G, G, ws.data());
      nn::load_row(d.cx, t, b * H, H, cx.data());
      nn::load_row(d.cy, t, b * H, H, cy.data());
      if (d.grad_hy != nullptr) nn::load_row(d.grad_hy, t, b * H, H, ghy.data());
      if (d.grad_cy != nullptr) nn::load_row(d.grad_cy, t, b * H, H, gcy.data());
      lstm_gates_backward<C>(H, ws.data(), cy.data(), cx.data(), ghy.data(), nullptr, gcy.data(), out.data(),
                             gcx.data());
      nn::store_row(out.data(), G, d.grad_gates, t, b * G);
      nn::store_row(gcx.data(), H, d.grad_state, t, b * H);
    }
  });
}

template <typename C>
void gru_cell_forward_typed(const RnnCellDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 3 * H;
  runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
    std::vector<C> x(G), y(G), tmp(G), hx(H), ws(5 * H), h(H);
    for (int64_t b = b0; b < b1; ++b) {
      load_gates(d.igates, d.b_ih, t, b, G, x.data(), tmp.data());
      load_gates(d.hgates, d.b_hh, t, b, G, y.data(), tmp.data());
      nn::load_row(d.state, t, b * H, H, hx.data());
      C* w = ws.data();  // [r, z, n, hx, hn]
      gru_gates_forward<C>(H, x.data(), y.data(), hx.data(), w, w + H, w + 2 * H, w + 4 * H, w + 3 * H, h.data());
      nn::store_row(ws.data(), 5 * H, d.workspace, t, b * 5 * H);
      nn::store_row(h.data(), H, d.hy, t, b * H);
    }
  });
}

template <typename C>
void gru_cell_backward_typed(const RnnCellBackwardDesc& d) {
  const DType t = d.dtype;
  const int64_t B = d.batch, H = d.hidden, G = 3 * H;
  runtime::parallel_for(0, B, 4, [&](int64_t b0, int64_t b1) {
    std::vector<C> ws(5 * H), ghy(H), gi(G), gh(G), ghx(H);
    for (int64_t b = b0; b < b1; ++b) {
      nn::load_row(d.workspace, t, b * 5 * H, 5 * H, ws.data());
      nn::load_row(d.grad_hy, t, b * H, H, ghy.data());
      const C* w = ws.data();  // [r, z, n, hx, hn]
      gru_gates_backward<C>(H, w, w + H, w + 2 * H, w + 4 * H, w + 3 * H, ghy.data(), nullptr, gi.data(), gh.data(),
                            ghx.data());
      nn::store_row(gi.data(), G, d.grad_gates, t, b * G);
      nn::store_row(gh.data(), G, d.grad_hidden_gates, t, b * G);
      nn::store_row(ghx.data(), H, d.grad_state, t, b * H);
    }
  });
}

template <class Desc>
void check(const Desc& d, const char* name) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument(std::string(name) + ": unsupported dtype");
}

}  // namespace
}  // namespace TORCH_TPU_ISA

// Each entry: the dtype check, nothing to do for empty sizes, then the
// kernel in its compute type.
#define TPU_RNN_ENTRY(NAME, DESC, LABEL, EMPTY, TYPED)                                 \
  void TORCH_TPU_ISA_ENTRY(NAME)(const DESC& d) {                                      \
    check(d, LABEL);                                                                   \
    if (EMPTY) return;                                                                 \
    nn::with_compute_type(d.dtype, [&](auto c) { TYPED<decltype(c)>(d); });            \
  }

#define TPU_CELL_EMPTY (d.batch == 0 || d.hidden == 0)
#define TPU_LAYER_EMPTY (d.steps == 0 || d.batch == 0 || d.hidden == 0)
TPU_RNN_ENTRY(lstm_cell_forward, RnnCellDesc, "_thnn_fused_lstm_cell", TPU_CELL_EMPTY, lstm_cell_forward_typed)
TPU_RNN_ENTRY(lstm_cell_backward, RnnCellBackwardDesc, "_thnn_fused_lstm_cell_backward_impl", TPU_CELL_EMPTY,
              lstm_cell_backward_typed)
TPU_RNN_ENTRY(gru_cell_forward, RnnCellDesc, "_thnn_fused_gru_cell", TPU_CELL_EMPTY, gru_cell_forward_typed)
TPU_RNN_ENTRY(gru_cell_backward, RnnCellBackwardDesc, "_thnn_fused_gru_cell_backward", TPU_CELL_EMPTY,
              gru_cell_backward_typed)
TPU_RNN_ENTRY(lstm_layer_forward, RnnLayerDesc, "lstm_layer_forward", TPU_LAYER_EMPTY, lstm_forward_typed)
TPU_RNN_ENTRY(lstm_layer_backward, RnnLayerBackwardDesc, "lstm_layer_backward", TPU_LAYER_EMPTY,
              lstm_backward_typed)
TPU_RNN_ENTRY(gru_layer_forward, RnnLayerDesc, "gru_layer_forward", TPU_LAYER_EMPTY, gru_forward_typed)
TPU_RNN_ENTRY(gru_layer_backward, RnnLayerBackwardDesc, "gru_layer_backward", TPU_LAYER_EMPTY, gru_backward_typed)
#undef TPU_RNN_ENTRY
#undef TPU_CELL_EMPTY
#undef TPU_LAYER_EMPTY

}  // namespace torch_tpu::kernels
