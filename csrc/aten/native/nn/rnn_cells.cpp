// The fused LSTM and GRU cells (direct route). ATen's RNN code calls them on
// CUDA and PrivateUse1 devices, once per time step of nn.LSTM/nn.GRU (and
// by nn.LSTMCell/nn.GRUCell); only CUDA implements them. Here they are
// composed from tpu kernels: the same gate arithmetic as CUDA's
// lstm_cell_forward/gru_cell_forward, and the same workspace layouts, so the
// backwards (which read the workspace) follow CUDA's formulas:
//   LSTM: gates = input_gates + hidden_gates (+ biases), chunked (i, f, g, o);
//         i, f, o = sigmoid, g = tanh; cy = f * cx + i * g; hy = o * tanh(cy);
//         workspace = [i, f, g, o] activated, (B, 4H).
//   GRU:  r = sigmoid(ir + hr), z = sigmoid(iz + hz), n = tanh(in + r * hn)
//         (hidden biases included in hr, hz, hn); hy = n + z * (hx - n);
//         workspace = [r, z, n, hx, hn], (B, 5H).
// Several launches per cell; a fused cell kernel is the next step (issue
// "Kernels wave 3", performance).
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/zeros_like.h>

#include "generated/ops/_thnn_fused_gru_cell.h"
#include "generated/ops/_thnn_fused_gru_cell_backward.h"
#include "generated/ops/_thnn_fused_lstm_cell.h"
#include "generated/ops/_thnn_fused_lstm_cell_backward_impl.h"

namespace torch_tpu::aten {
namespace {

// input_gates + hidden_gates with the biases (broadcast over the batch) when given.
at::Tensor gate_sum(const at::Tensor& gates, const std::optional<at::Tensor>& bias) {
  return bias.has_value() && bias->defined() ? gates + *bias : gates;
}

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

// (1 - s) * s, the derivative of a sigmoid from its value.
at::Tensor sigmoid_slope(const at::Tensor& s) { return (1 - s) * s; }

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> _thnn_fused_lstm_cell(const at::Tensor& input_gates,
                                                                     const at::Tensor& hidden_gates,
                                                                     const at::Tensor& cx,
                                                                     const std::optional<at::Tensor>& input_bias,
                                                                     const std::optional<at::Tensor>& hidden_bias) {
  check_gates(input_gates, hidden_gates, cx, 4, "_thnn_fused_lstm_cell");
  const at::Tensor gates = gate_sum(gate_sum(input_gates, input_bias) + hidden_gates, hidden_bias);
  const std::vector<at::Tensor> g = gates.chunk(4, 1);
  const at::Tensor i = at::sigmoid(g[0]), f = at::sigmoid(g[1]), c = at::tanh(g[2]), o = at::sigmoid(g[3]);
  at::Tensor cy = f * cx + i * c;
  at::Tensor hy = o * at::tanh(cy);
  return {hy, cy, at::cat({i, f, c, o}, 1)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> _thnn_fused_lstm_cell_backward_impl(
    const std::optional<at::Tensor>& grad_hy, const std::optional<at::Tensor>& grad_cy, const at::Tensor& cx,
    const at::Tensor& cy, const at::Tensor& workspace, bool has_bias) {
  const bool has_ghy = grad_hy.has_value() && grad_hy->defined();
  const bool has_gcy = grad_cy.has_value() && grad_cy->defined();
  if (!has_ghy && !has_gcy) return {at::Tensor(), at::Tensor(), at::Tensor()};
  const std::vector<at::Tensor> w = workspace.chunk(4, 1);
  const at::Tensor &i = w[0], &f = w[1], &c = w[2], &o = w[3];
  const at::Tensor tanh_cy = at::tanh(cy);
  // d cy: through hy = o * tanh(cy), plus grad_cy.
  at::Tensor g_cy = has_ghy ? *grad_hy * o * (1 - tanh_cy * tanh_cy) : at::zeros_like(cy);
  if (has_gcy) g_cy = g_cy + *grad_cy;
  const at::Tensor g_o = has_ghy ? *grad_hy * tanh_cy * sigmoid_slope(o) : at::zeros_like(o);
  const at::Tensor g_i = g_cy * c * sigmoid_slope(i);
  const at::Tensor g_f = g_cy * cx * sigmoid_slope(f);
  const at::Tensor g_c = g_cy * i * (1 - c * c);
  at::Tensor grad_gates = at::cat({g_i, g_f, g_c, g_o}, 1);
  at::Tensor grad_cx = g_cy * f;
  at::Tensor grad_bias = has_bias ? grad_gates.sum(0, /*keepdim=*/false) : at::Tensor();
  return {grad_gates, grad_cx, grad_bias};
}

std::tuple<at::Tensor, at::Tensor> _thnn_fused_gru_cell(const at::Tensor& input_gates,
                                                        const at::Tensor& hidden_gates, const at::Tensor& hx,
                                                        const std::optional<at::Tensor>& input_bias,
                                                        const std::optional<at::Tensor>& hidden_bias) {
  check_gates(input_gates, hidden_gates, hx, 3, "_thnn_fused_gru_cell");
  const std::vector<at::Tensor> ig = gate_sum(input_gates, input_bias).chunk(3, 1);
  const std::vector<at::Tensor> hg = gate_sum(hidden_gates, hidden_bias).chunk(3, 1);
  const at::Tensor r = at::sigmoid(ig[0] + hg[0]);
  const at::Tensor z = at::sigmoid(ig[1] + hg[1]);
  const at::Tensor n = at::tanh(ig[2] + r * hg[2]);
  at::Tensor hy = n + z * (hx - n);
  return {hy, at::cat({r, z, n, hx, hg[2]}, 1)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> _thnn_fused_gru_cell_backward(
    const at::Tensor& grad_hy, const at::Tensor& workspace, bool has_bias) {
  const std::vector<at::Tensor> w = workspace.chunk(5, 1);
  const at::Tensor &r = w[0], &z = w[1], &n = w[2], &hx = w[3], &hn = w[4];
  const at::Tensor g_z = grad_hy * (hx - n) * sigmoid_slope(z);
  at::Tensor grad_hx = grad_hy * z;
  const at::Tensor g_in = grad_hy * (1 - z) * (1 - n * n);  // d(in + r * hn)
  const at::Tensor g_hn = g_in * r;
  const at::Tensor g_r = g_in * hn * sigmoid_slope(r);
  at::Tensor grad_input_gates = at::cat({g_r, g_z, g_in}, 1);
  at::Tensor grad_hidden_gates = at::cat({g_r, g_z, g_hn}, 1);
  at::Tensor grad_input_bias = has_bias ? grad_input_gates.sum(0, false) : at::Tensor();
  at::Tensor grad_hidden_bias = has_bias ? grad_hidden_gates.sum(0, false) : at::Tensor();
  return {grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias};
}

}  // namespace torch_tpu::aten
