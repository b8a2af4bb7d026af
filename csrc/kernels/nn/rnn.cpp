// LSTM and GRU layer recurrences (rnn.h): per time step one GEMM
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

template <typename C>
inline C sigmoid_of(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return vmath::sigmoid_f(x);
  } else {
    return C(1) / (C(1) + std::exp(-x));
  }
}

template <typename C>
inline C tanh_of(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return vmath::tanh_f(x);
  } else {
    return std::tanh(x);
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
        C* __restrict w = ws.data();
        const C* __restrict x = pre.data();
        const C* __restrict y = hg.data();
        const C* __restrict cp = c_prev.data();
        C* __restrict hr = h.data();
        for (int64_t j = 0; j < H; ++j) {
          const C i = sigmoid_of<C>(x[j] + y[j]);
          const C f = sigmoid_of<C>(x[H + j] + y[H + j]);
          const C g = tanh_of<C>(x[2 * H + j] + y[2 * H + j]);
          const C o = sigmoid_of<C>(x[3 * H + j] + y[3 * H + j]);
          const C c = f * cp[j] + i * g;
          w[j] = i;
          w[H + j] = f;
          w[2 * H + j] = g;
          w[3 * H + j] = o;
          w[4 * H + j] = c;
          hr[j] = o * tanh_of<C>(c);
        }
        nn::store_row(w, 5 * H, d.workspace, t, (s * B + b) * 5 * H);
        nn::store_row(hr, H, d.output, t, (s * B + b) * H);
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
        const C* __restrict w = ws.data();
        const C* __restrict cp = c_prev.data();
        const C* __restrict gor = go.data();
        C* __restrict dhr = dh.data() + b * H;
        C* __restrict dcr = dc.data() + b * H;
        C* __restrict out = dg.data();
        for (int64_t j = 0; j < H; ++j) {
          const C i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j];
          const C tc = tanh_of<C>(w[4 * H + j]);
          const C dht = dhr[j] + gor[j];
          const C dct = dcr[j] + dht * o * (C(1) - tc * tc);
          out[j] = dct * g * i * (C(1) - i);
          out[H + j] = dct * cp[j] * f * (C(1) - f);
          out[2 * H + j] = dct * i * (C(1) - g * g);
          out[3 * H + j] = dht * tc * o * (C(1) - o);
          dcr[j] = dct * f;
        }
        nn::store_row(out, G, d.dgates, t, (s * B + b) * G);
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
        C* __restrict w = ws.data();
        const C* __restrict x = pre.data();
        const C* __restrict y = hg.data();
        const C* __restrict bh = bias.data();
        const C* __restrict hpr = hp.data();
        C* __restrict hr = h.data();
        for (int64_t j = 0; j < H; ++j) {
          const C r = sigmoid_of<C>(x[j] + (y[j] + bh[j]));
          const C z = sigmoid_of<C>(x[H + j] + (y[H + j] + bh[H + j]));
          const C hn = y[2 * H + j] + bh[2 * H + j];
          const C n = tanh_of<C>(x[2 * H + j] + r * hn);
          w[j] = r;
          w[H + j] = z;
          w[2 * H + j] = n;
          w[3 * H + j] = hn;
          hr[j] = n + z * (hpr[j] - n);
        }
        nn::store_row(w, 4 * H, d.workspace, t, (s * B + b) * 4 * H);
        nn::store_row(hr, H, d.output, t, (s * B + b) * H);
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
        const C* __restrict w = ws.data();
        const C* __restrict hpr = hp.data();
        const C* __restrict gor = go.data();
        C* __restrict dhr = dh.data() + b * H;
        C* __restrict oi = dgi.data();
        C* __restrict oh = dgh.data();
        for (int64_t j = 0; j < H; ++j) {
          const C r = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j];
          const C dht = dhr[j] + gor[j];
          const C dn = dht * (C(1) - z) * (C(1) - n * n);  // d(in + r * hn)
          const C dr = dn * hn * r * (C(1) - r);
          const C dz = dht * (hpr[j] - n) * z * (C(1) - z);
          oi[j] = oh[j] = dr;
          oi[H + j] = oh[H + j] = dz;
          oi[2 * H + j] = dn;
          oh[2 * H + j] = dn * r;
          dhr[j] = dht * z;  // the direct path; the GEMM adds the gates' share
        }
        nn::store_row(oi, G, d.dgates, t, (s * B + b) * G);
        nn::store_row(oh, G, d.dgates_h, t, (s * B + b) * G);
      }
    });
    small_gemm(t, B, G, H, at_offset(d.dgates_h, t, s * B * G), d.w_hh, d.grad_hx);
    nn::load_row(d.grad_hx, t, 0, B * H, from_gemm.data());
    for (int64_t e = 0; e < B * H; ++e) dh[e] += from_gemm[e];
  }
  nn::store_row(dh.data(), B * H, d.grad_hx, t, 0);
}

void check(const RnnLayerDesc& d, const char* name) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument(std::string(name) + ": unsupported dtype");
}
void check(const RnnLayerBackwardDesc& d, const char* name) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument(std::string(name) + ": unsupported dtype");
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(lstm_layer_forward)(const RnnLayerDesc& d) {
  check(d, "lstm_layer_forward");
  if (d.steps == 0 || d.batch == 0 || d.hidden == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { lstm_forward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(lstm_layer_backward)(const RnnLayerBackwardDesc& d) {
  check(d, "lstm_layer_backward");
  if (d.steps == 0 || d.batch == 0 || d.hidden == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { lstm_backward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(gru_layer_forward)(const RnnLayerDesc& d) {
  check(d, "gru_layer_forward");
  if (d.steps == 0 || d.batch == 0 || d.hidden == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { gru_forward_typed<decltype(c)>(d); });
}

void TORCH_TPU_ISA_ENTRY(gru_layer_backward)(const RnnLayerBackwardDesc& d) {
  check(d, "gru_layer_backward");
  if (d.steps == 0 || d.batch == 0 || d.hidden == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { gru_backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
