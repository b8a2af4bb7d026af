// The fused LSTM and GRU cells (direct route). ATen's RNN code calls them on
// CUDA and PrivateUse1 devices for nn.LSTMCell/nn.GRUCell (and for nn.LSTM/
// nn.GRU where rnn_layers.cpp leaves them to upstream's decomposition); only
// CUDA implements them. One launch each (kernels/nn/rnn.h): CUDA's gate
// arithmetic and workspace layouts, which the backwards read:
//   LSTM: gates = input_gates + hidden_gates (+ biases), chunked (i, f, g, o);
//         i, f, o = sigmoid, g = tanh; cy = f * cx + i * g; hy = o * tanh(cy);
//         workspace = [i, f, g, o] activated, (B, 4H).
//   GRU:  r = sigmoid(ir + hr), z = sigmoid(iz + hz), n = tanh(in + r * hn)
//         (hidden biases included in hr, hz, hn); hy = n + z * (hx - n);
//         workspace = [r, z, n, hx, hn], (B, 5H).
// The bias gradients are the gate gradients summed over the batch.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sum.h>

#include "aten/launch.h"
#include "generated/ops/_thnn_fused_gru_cell.h"
#include "generated/ops/_thnn_fused_gru_cell_backward.h"
#include "generated/ops/_thnn_fused_lstm_cell.h"
#include "generated/ops/_thnn_fused_lstm_cell_backward_impl.h"
#include "kernels/nn/rnn.h"

namespace torch_tpu::aten {
namespace {

void check_gates(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& state,
                 int64_t chunks, const char* name) {
  TORCH_CHECK(input_gates.dim() == 2 && input_gates.sizes() == hidden_gates.sizes(), name,
              ": input_gates and hidden_gates must be 2-D and of the same size, got ", input_gates.sizes(),
              " and ", hidden_gates.sizes());
  TORCH_CHECK(state.dim() == 2 && state.size(0) == input_gates.size(0) &&
                  state.size(1) * chunks == input_gates.size(1),
              name, ": expected a state of size (", input_gates.size(0), ", ", input_gates.size(1) / chunks,
              "), got ", state.sizes());
}

// A bias (contiguous) when given and defined, else undefined.
at::Tensor cell_bias(const std::optional<at::Tensor>& bias) {
  return bias.has_value() && bias->defined() ? bias->contiguous() : at::Tensor();
}

const void* cell_ptr(const at::Tensor& t) { return t.defined() ? t.const_data_ptr() : nullptr; }

// The descriptor of a cell forward: contiguous gates, state and biases (kept
// alive by the caller's tensors).
kernels::RnnCellDesc cell_desc(const at::Tensor& ig, const at::Tensor& hg, const at::Tensor& state,
                               const at::Tensor& b_ih, const at::Tensor& b_hh, const char* name) {
  kernels::RnnCellDesc d;
  d.dtype = device_dtype(ig.scalar_type(), name);
  d.batch = state.size(0);
  d.hidden = state.size(1);
  d.igates = ig.const_data_ptr();
  d.hgates = hg.const_data_ptr();
  d.b_ih = cell_ptr(b_ih);
  d.b_hh = cell_ptr(b_hh);
  d.state = state.const_data_ptr();
  return d;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> _thnn_fused_lstm_cell(const at::Tensor& input_gates,
                                                                     const at::Tensor& hidden_gates,
                                                                     const at::Tensor& cx,
                                                                     const std::optional<at::Tensor>& input_bias,
                                                                     const std::optional<at::Tensor>& hidden_bias) {
  check_gates(input_gates, hidden_gates, cx, 4, "_thnn_fused_lstm_cell");
  const at::Tensor ig = input_gates.contiguous(), hg = hidden_gates.contiguous(), c0 = cx.contiguous();
  const at::Tensor b_ih = cell_bias(input_bias), b_hh = cell_bias(hidden_bias);
  at::Tensor hy = at::empty(cx.sizes(), ig.options()), cy = at::empty(cx.sizes(), ig.options());
  at::Tensor workspace = at::empty(ig.sizes(), ig.options());
  kernels::RnnCellDesc d = cell_desc(ig, hg, c0, b_ih, b_hh, "_thnn_fused_lstm_cell");
  d.hy = hy.data_ptr();
  d.cy = cy.data_ptr();
  d.workspace = workspace.data_ptr();
  if (hy.numel() > 0) {
    launch(ig.device().index(), "_thnn_fused_lstm_cell", d.buffers(), [d] { kernels::lstm_cell_forward(d); });
  }
  return {hy, cy, workspace};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> _thnn_fused_lstm_cell_backward_impl(
    const std::optional<at::Tensor>& grad_hy, const std::optional<at::Tensor>& grad_cy, const at::Tensor& cx,
    const at::Tensor& cy, const at::Tensor& workspace, bool has_bias) {
  const at::Tensor ghy = cell_bias(grad_hy), gcy = cell_bias(grad_cy);
  if (!ghy.defined() && !gcy.defined()) return {at::Tensor(), at::Tensor(), at::Tensor()};
  const at::Tensor c0 = cx.contiguous(), c1 = cy.contiguous(), ws = workspace.contiguous();
  at::Tensor grad_gates = at::empty(ws.sizes(), ws.options()), grad_cx = at::empty(c0.sizes(), c0.options());
  kernels::RnnCellBackwardDesc d;
  d.dtype = device_dtype(ws.scalar_type(), "_thnn_fused_lstm_cell_backward_impl");
  d.batch = c0.size(0);
  d.hidden = c0.size(1);
  d.grad_hy = cell_ptr(ghy);
  d.grad_cy = cell_ptr(gcy);
  d.cx = c0.const_data_ptr();
  d.cy = c1.const_data_ptr();
  d.workspace = ws.const_data_ptr();
  d.grad_gates = grad_gates.data_ptr();
  d.grad_state = grad_cx.data_ptr();
  if (grad_cx.numel() > 0) {
    launch(ws.device().index(), "_thnn_fused_lstm_cell_backward_impl", d.buffers(),
           [d] { kernels::lstm_cell_backward(d); });
  }
  at::Tensor grad_bias = has_bias ? grad_gates.sum(0, /*keepdim=*/false) : at::Tensor();
  return {grad_gates, grad_cx, grad_bias};
}

std::tuple<at::Tensor, at::Tensor> _thnn_fused_gru_cell(const at::Tensor& input_gates,
                                                        const at::Tensor& hidden_gates, const at::Tensor& hx,
                                                        const std::optional<at::Tensor>& input_bias,
                                                        const std::optional<at::Tensor>& hidden_bias) {
  check_gates(input_gates, hidden_gates, hx, 3, "_thnn_fused_gru_cell");
  const at::Tensor ig = input_gates.contiguous(), hg = hidden_gates.contiguous(), h0 = hx.contiguous();
  const at::Tensor b_ih = cell_bias(input_bias), b_hh = cell_bias(hidden_bias);
  at::Tensor hy = at::empty(hx.sizes(), ig.options());
  at::Tensor workspace = at::empty({hx.size(0), 5 * hx.size(1)}, ig.options());
  kernels::RnnCellDesc d = cell_desc(ig, hg, h0, b_ih, b_hh, "_thnn_fused_gru_cell");
  d.hy = hy.data_ptr();
  d.workspace = workspace.data_ptr();
  if (hy.numel() > 0) {
    launch(ig.device().index(), "_thnn_fused_gru_cell", d.buffers(), [d] { kernels::gru_cell_forward(d); });
  }
  return {hy, workspace};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> _thnn_fused_gru_cell_backward(
    const at::Tensor& grad_hy, const at::Tensor& workspace, bool has_bias) {
  const at::Tensor ghy = grad_hy.contiguous(), ws = workspace.contiguous();
  const int64_t B = ws.size(0), H = ws.size(1) / 5;
  at::Tensor grad_input_gates = at::empty({B, 3 * H}, ws.options());
  at::Tensor grad_hidden_gates = at::empty({B, 3 * H}, ws.options());
  at::Tensor grad_hx = at::empty({B, H}, ws.options());
  kernels::RnnCellBackwardDesc d;
  d.dtype = device_dtype(ws.scalar_type(), "_thnn_fused_gru_cell_backward");
  d.batch = B;
  d.hidden = H;
  d.grad_hy = ghy.const_data_ptr();
  d.workspace = ws.const_data_ptr();
  d.grad_gates = grad_input_gates.data_ptr();
  d.grad_hidden_gates = grad_hidden_gates.data_ptr();
  d.grad_state = grad_hx.data_ptr();
  if (grad_hx.numel() > 0) {
    launch(ws.device().index(), "_thnn_fused_gru_cell_backward", d.buffers(),
           [d] { kernels::gru_cell_backward(d); });
  }
  at::Tensor grad_input_bias = has_bias ? grad_input_gates.sum(0, false) : at::Tensor();
  at::Tensor grad_hidden_bias = has_bias ? grad_hidden_gates.sum(0, false) : at::Tensor();
  return {grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias};
}

}  // namespace torch_tpu::aten
