// The recurrences of one LSTM or GRU layer (one direction), run as one
// launch each: every time step is a GEMM of the hidden state with the
// recurrent weights followed by the cell's gate arithmetic, both on the
// device worker, with no host round trip between steps (what cuDNN's RNN
// does on CUDA). The input projection of all steps (one large GEMM) and the
// weight gradients (large GEMMs over all steps) are ordinary tpu matmuls the
// launcher (csrc/aten/native/nn/rnn_layers.cpp) issues around these.
//
// Layouts: time-major, contiguous, one dtype for every tensor (float16,
// bfloat16, float32, float64); gate arithmetic in float (double for float64),
// rounded once per stored value. T steps, batch B, hidden H. "Step order" is
// t = 0..T-1, or T-1..0 for the reverse direction; h_prev of the first step
// is hx (c_prev: cx), later ones the previous step's h (c).
//
// LSTM, gates (i, f, g, o) of ATen's order:
//   pre = igates[t] + h_prev @ w_hh^T     (igates carry both biases)
//   i, f, o = sigmoid, g = tanh;  c = f * c_prev + i * g;  h = o * tanh(c)
//   workspace[t] = [i, f, g, o, c]  (B, 5H)
// GRU, gates (r, z, n):
//   hg = h_prev @ w_hh^T + b_hh;  r = sigmoid(ir + hr), z = sigmoid(iz + hz),
//   n = tanh(in + r * hn);  h = n + z * (h_prev - n)   (igates carry b_ih)
//   workspace[t] = [r, z, n, hn]  (B, 4H)
// Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct RnnLayerDesc {
  DType dtype = DType::kFloat32;
  int64_t steps = 0, batch = 0, hidden = 0;
  bool reverse = false;
  const void* igates = nullptr;   // (T, B, G*H): the input projection (+ biases, see above)
  const void* w_hh_t = nullptr;   // (H, G*H): w_hh transposed (row-major GEMM operand)
  const void* b_hh = nullptr;     // GRU: (3H) or null; LSTM: unused
  const void* hx = nullptr;       // (B, H)
  const void* cx = nullptr;       // LSTM: (B, H)
  void* output = nullptr;         // (T, B, H)
  void* hy = nullptr;             // (B, H)
  void* cy = nullptr;             // LSTM: (B, H)
  void* workspace = nullptr;      // (T, B, 5H) LSTM, (T, B, 4H) GRU
  void* scratch = nullptr;        // (B, G*H): the per-step hidden GEMM

  std::vector<const void*> buffers() const {
    return {igates, w_hh_t, b_hh, hx, cx, output, hy, cy, workspace, scratch};
  }
};

// Backward through time. grad_output (T, B, H), grad_hy and grad_cy (B, H)
// may each be null (zero). Fills the gate gradients of every step, from
// which the launcher forms the input and weight gradients with large GEMMs:
//   LSTM: dgates[t] = d pre-activation (i, f, g, o)          (T, B, 4H)
//   GRU:  dgates[t] = d(ir + hr, iz + hz, in)  (input side)  (T, B, 3H)
//         dgates_h[t] = (d r-pre, d z-pre, d(in) * r)  (hidden side, = d hg)
// and grad_hx (grad_cx) for the initial state.
struct RnnLayerBackwardDesc {
  DType dtype = DType::kFloat32;
  int64_t steps = 0, batch = 0, hidden = 0;
  bool reverse = false;
  const void* w_hh = nullptr;        // (G*H, H): row-major GEMM operand of dh = dpre @ w_hh
  const void* hx = nullptr;          // (B, H)
  const void* cx = nullptr;          // LSTM
  const void* output = nullptr;      // (T, B, H): the forward's h of every step
  const void* workspace = nullptr;   // the forward's
  const void* grad_output = nullptr;
  const void* grad_hy = nullptr;
  const void* grad_cy = nullptr;     // LSTM
  void* dgates = nullptr;
  void* dgates_h = nullptr;          // GRU
  void* grad_hx = nullptr;           // (B, H)
  void* grad_cx = nullptr;           // LSTM: (B, H)

  std::vector<const void*> buffers() const {
    return {w_hh, hx, cx, output, workspace, grad_output, grad_hy, grad_cy, dgates, dgates_h,
            grad_hx, grad_cx};
  }
};

// One step of nn.LSTMCell / nn.GRUCell: _thnn_fused_lstm_cell and
// _thnn_fused_gru_cell on the gates the caller's matmuls made, in CUDA's
// workspace layouts (the backwards read them):
//   LSTM: pre = igates + hgates (+ b_ih + b_hh); workspace = [i, f, g, o] (B, 4H)
//   GRU:  r, z from igates + hgates (+ biases), n = tanh(in + r * hn) with
//         hn = hgates' third chunk (+ its bias); workspace = [r, z, n, hx, hn] (B, 5H)
struct RnnCellDesc {
  DType dtype = DType::kFloat32;
  int64_t batch = 0, hidden = 0;
  const void* igates = nullptr;   // (B, G*H) contiguous
  const void* hgates = nullptr;   // (B, G*H) contiguous
  const void* b_ih = nullptr;     // (G*H) or null
  const void* b_hh = nullptr;     // (G*H) or null
  const void* state = nullptr;    // LSTM: cx, GRU: hx, (B, H)
  void* hy = nullptr;             // (B, H)
  void* cy = nullptr;             // LSTM: (B, H)
  void* workspace = nullptr;

  std::vector<const void*> buffers() const { return {igates, hgates, b_ih, b_hh, state, hy, cy, workspace}; }
};

// Their backwards: LSTM (grad_hy, grad_cy each may be null: zero) gives the
// gate gradients (B, 4H) and grad_cx; GRU gives the input-side and
// hidden-side gate gradients (B, 3H each) and grad_hx.
struct RnnCellBackwardDesc {
  DType dtype = DType::kFloat32;
  int64_t batch = 0, hidden = 0;
  const void* grad_hy = nullptr;
  const void* grad_cy = nullptr;      // LSTM
  const void* cx = nullptr;           // LSTM
  const void* cy = nullptr;           // LSTM
  const void* workspace = nullptr;
  void* grad_gates = nullptr;         // LSTM: (B, 4H); GRU: input side (B, 3H)
  void* grad_hidden_gates = nullptr;  // GRU: (B, 3H)
  void* grad_state = nullptr;         // LSTM: grad_cx, GRU: grad_hx, (B, H)

  std::vector<const void*> buffers() const {
    return {grad_hy, grad_cy, cx, cy, workspace, grad_gates, grad_hidden_gates, grad_state};
  }
};

void lstm_cell_forward(const RnnCellDesc& d);
void lstm_cell_backward(const RnnCellBackwardDesc& d);
void gru_cell_forward(const RnnCellDesc& d);
void gru_cell_backward(const RnnCellBackwardDesc& d);

void lstm_layer_forward(const RnnLayerDesc& d);
void lstm_layer_backward(const RnnLayerBackwardDesc& d);
void gru_layer_forward(const RnnLayerDesc& d);
void gru_layer_backward(const RnnLayerBackwardDesc& d);

}  // namespace torch_tpu::kernels
