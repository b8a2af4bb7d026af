// nn.LSTM and nn.GRU on tpu (lstm.input, gru.input). Upstream, both are
// CompositeImplicitAutograd: on a device without cuDNN they become, per time
// step, two small matmuls and a fused cell, and the backward two more
// matmuls per step plus an accumulation of each weight gradient. That is
// 6 small GEMMs and ~10 launches per step and layer.
//
// Here each layer and direction is one autograd node (as cuDNN's RNN is on
// CUDA): the input projection of all steps is one large matmul, the
// recurrence one launch (kernels/nn/rnn.h: per step a GEMM with w_hh and
// the gate arithmetic, on the device worker), and the backward one launch
// for the recurrence plus large matmuls for the input and weight gradients.
// The manifest registers these for AutogradPrivateUse1 and PrivateUse1
// (ops.yaml: replaces_decomposition). Configurations this path does not
// cover (LSTM projections, mixed dtypes or devices, empty sequences) run
// upstream's decomposition, at::native::lstm / gru, unchanged.
//
// Double backward is not supported, as with cuDNN's RNN on CUDA: backward
// with create_graph=True works, and differentiating its results again
// raises NotImplementedError.
#include <ATen/core/Tensor.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/dropout.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gru_native.h>
#include <ATen/ops/lstm_native.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/stack.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/autograd/custom_function.h>

#include "aten/launch.h"
#include "generated/ops/gru_input.h"
#include "generated/ops/lstm_input.h"
#include "kernels/nn/rnn.h"

namespace torch_tpu::aten {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The input projection of every step, (T*B, G*H), with `bias` added when defined.
at::Tensor project_inputs(const at::Tensor& x2d, const at::Tensor& w_ih, const at::Tensor& bias) {
  return bias.defined() ? at::addmm(bias, x2d, w_ih.t()) : at::mm(x2d, w_ih.t());
}

// h_prev of every step in time order, (T*B, H): hx where the recurrence
// starts (t = 0, or T-1 in reverse), the neighbouring step's output elsewhere.
at::Tensor previous_hidden(const at::Tensor& output, const at::Tensor& hx, bool reverse) {
  const int64_t T = output.size(0);
  at::Tensor h = reverse ? at::cat({output.slice(0, 1, T), hx.unsqueeze(0)}, 0)
                         : at::cat({hx.unsqueeze(0), output.slice(0, 0, T - 1)}, 0);
  return h.view({-1, hx.size(-1)});
}

const void* ptr_or_null(const at::Tensor& t) { return t.defined() ? t.const_data_ptr() : nullptr; }

// Under create_graph=True, the layer's gradients pass through this node: it
// connects them to what they were computed from, and its backward refuses
// (the layer backward's kernels are not differentiable).
struct RefuseDoubleBackward : public torch::autograd::Function<RefuseDoubleBackward> {
  static variable_list forward(AutogradContext* ctx, at::TensorList results, at::TensorList depends_on,
                               std::string module) {
    (void)depends_on;
    ctx->saved_data["module"] = module;
    variable_list out;
    for (const at::Tensor& r : results) out.push_back(r.clone());
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list) {
    TORCH_CHECK_NOT_IMPLEMENTED(false, ctx->saved_data["module"].toStringRef(),
                                " on tpu: double backward through the layer is not supported, as with "
                                "cuDNN's RNN on CUDA");
  }
};

// The backward's gradients, `grads` (undefined where not wanted); under
// create_graph=True routed through RefuseDoubleBackward.
variable_list finish_backward(variable_list grads, bool create_graph, const variable_list& incoming,
                              const variable_list& saved, const char* module) {
  if (!create_graph) return grads;
  const at::AutoGradMode record(true);  // the caller computed under NoGradGuard
  variable_list defined, depends_on;
  for (const at::Tensor& g : grads) {
    if (g.defined()) defined.push_back(g);
  }
  for (const variable_list* list : {&incoming, &saved}) {
    for (const at::Tensor& t : *list) {
      if (t.defined()) depends_on.push_back(t);
    }
  }
  // TensorList, not std::vector: autograd::Function tracks tensors in those only.
  const variable_list wrapped =
      RefuseDoubleBackward::apply(at::TensorList(defined), at::TensorList(depends_on), std::string(module));
  size_t k = 0;
  for (at::Tensor& g : grads) {
    if (g.defined()) g = wrapped[k++];
  }
  return grads;
}

// What both layers' forward descriptors hold: sizes (from output, (T, B,
// H)), direction, the projected inputs, w_hh transposed, the initial hidden
// state, the outputs and the scratch of the per-step GEMM.
kernels::RnnLayerDesc layer_desc(const at::Tensor& igates, const at::Tensor& w_hh_t, const at::Tensor& h0,
                                 at::Tensor& output, at::Tensor& hy, at::Tensor& ws, const at::Tensor& scratch,
                                 bool reverse, const char* name) {
  kernels::RnnLayerDesc d;
  d.dtype = device_dtype(output.scalar_type(), name);
  d.steps = output.size(0);
  d.batch = output.size(1);
  d.hidden = output.size(2);
  d.reverse = reverse;
  d.igates = igates.const_data_ptr();
  d.w_hh_t = w_hh_t.const_data_ptr();
  d.hx = h0.const_data_ptr();
  d.output = output.data_ptr();
  d.hy = hy.data_ptr();
  d.workspace = ws.data_ptr();
  d.scratch = scratch.data_ptr();
  return d;
}

// The same for the backwards: the forward's results, w_hh, hx, the incoming
// gradients (undefined: zero), the gate gradients and grad_hx.
kernels::RnnLayerBackwardDesc layer_backward_desc(const at::Tensor& output, const at::Tensor& ws,
                                                  const at::Tensor& w_hh, const at::Tensor& hx, const at::Tensor& go,
                                                  const at::Tensor& ghy, at::Tensor& dgates, at::Tensor& grad_hx,
                                                  bool reverse, const char* name) {
  kernels::RnnLayerBackwardDesc d;
  d.dtype = device_dtype(output.scalar_type(), name);
  d.steps = output.size(0);
  d.batch = output.size(1);
  d.hidden = output.size(2);
  d.reverse = reverse;
  d.w_hh = w_hh.const_data_ptr();  // contiguous: layer_path_covers checks it
  d.hx = hx.const_data_ptr();
  d.output = output.const_data_ptr();
  d.workspace = ws.const_data_ptr();
  d.grad_output = ptr_or_null(go);
  d.grad_hy = ptr_or_null(ghy);
  d.dgates = dgates.data_ptr();
  d.grad_hx = grad_hx.data_ptr();
  return d;
}

// One LSTM layer, one direction: x (T, B, I) -> output (T, B, H), hy, cy (B, H).
struct LstmLayer : public torch::autograd::Function<LstmLayer> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& hx,
                               const at::Tensor& cx, const at::Tensor& w_ih, const at::Tensor& w_hh,
                               const at::Tensor& b_ih, const at::Tensor& b_hh, bool has_bias, bool reverse) {
    const int64_t T = x.size(0), B = x.size(1), H = w_hh.size(1);
    const at::Tensor x2d = x.contiguous().view({T * B, x.size(2)});
    const at::Tensor igates = project_inputs(x2d, w_ih, has_bias ? b_ih + b_hh : at::Tensor());
    const at::Tensor h0 = hx.contiguous(), c0 = cx.contiguous(), w_hh_t = w_hh.t().contiguous();
    const auto opts = x.options();
    at::Tensor output = at::empty({T, B, H}, opts), ws = at::empty({T, B, 5 * H}, opts);
    at::Tensor hy = at::empty({B, H}, opts), cy = at::empty({B, H}, opts);
    const at::Tensor scratch = at::empty({B, 4 * H}, opts);
    kernels::RnnLayerDesc d = layer_desc(igates, w_hh_t, h0, output, hy, ws, scratch, reverse, "lstm");
    d.cx = c0.const_data_ptr();
    d.cy = cy.data_ptr();
    launch(x.device().index(), "lstm_layer_forward", d.buffers(), [d] { kernels::lstm_layer_forward(d); });
    ctx->save_for_backward({x2d, h0, c0, w_ih, w_hh, output, ws});
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["has_bias"] = has_bias;
    return {output, hy, cy};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const bool create_graph = at::GradMode::is_enabled();
    const auto saved = ctx->get_saved_variables();
    const at::NoGradGuard no_grad;
    const at::Tensor &x2d = saved[0], &hx = saved[1], &cx = saved[2], &w_ih = saved[3], &w_hh = saved[4],
                     &output = saved[5], &ws = saved[6];
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const bool has_bias = ctx->saved_data["has_bias"].toBool();
    const int64_t T = output.size(0), B = output.size(1), H = output.size(2);
    const at::Tensor go = grads[0].defined() ? grads[0].contiguous() : at::Tensor();
    const at::Tensor ghy = grads[1].defined() ? grads[1].contiguous() : at::Tensor();
    const at::Tensor gcy = grads[2].defined() ? grads[2].contiguous() : at::Tensor();
    const auto opts = output.options();
    at::Tensor dgates = at::empty({T, B, 4 * H}, opts);
    at::Tensor grad_hx = at::empty({B, H}, opts), grad_cx = at::empty({B, H}, opts);
    kernels::RnnLayerBackwardDesc d =
        layer_backward_desc(output, ws, w_hh, hx, go, ghy, dgates, grad_hx, reverse, "lstm");
    d.cx = cx.const_data_ptr();
    d.grad_cy = ptr_or_null(gcy);
    d.grad_cx = grad_cx.data_ptr();
    launch(output.device().index(), "lstm_layer_backward", d.buffers(), [d] { kernels::lstm_layer_backward(d); });
    const at::Tensor dg = dgates.view({T * B, 4 * H});
    variable_list out(9);
    if (ctx->needs_input_grad(0)) out[0] = at::mm(dg, w_ih).view({T, B, x2d.size(1)});
    out[1] = grad_hx;
    out[2] = grad_cx;
    if (ctx->needs_input_grad(3)) out[3] = at::mm(dg.t(), x2d);
    if (ctx->needs_input_grad(4)) out[4] = at::mm(dg.t(), previous_hidden(output, hx, reverse));
    if (has_bias) out[5] = out[6] = dg.sum(0);
    return finish_backward(std::move(out), create_graph, grads, saved, "nn.LSTM");
  }
};

// One GRU layer, one direction: x (T, B, I) -> output (T, B, H), hy (B, H).
struct GruLayer : public torch::autograd::Function<GruLayer> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& hx,
                               const at::Tensor& w_ih, const at::Tensor& w_hh, const at::Tensor& b_ih,
                               const at::Tensor& b_hh, bool has_bias, bool reverse) {
    const int64_t T = x.size(0), B = x.size(1), H = w_hh.size(1);
    const at::Tensor x2d = x.contiguous().view({T * B, x.size(2)});
    const at::Tensor igates = project_inputs(x2d, w_ih, has_bias ? b_ih : at::Tensor());
    const at::Tensor h0 = hx.contiguous(), w_hh_t = w_hh.t().contiguous();
    const at::Tensor bias_h = has_bias ? b_hh.contiguous() : at::Tensor();
    const auto opts = x.options();
    at::Tensor output = at::empty({T, B, H}, opts), ws = at::empty({T, B, 4 * H}, opts);
    at::Tensor hy = at::empty({B, H}, opts);
    const at::Tensor scratch = at::empty({B, 3 * H}, opts);
    kernels::RnnLayerDesc d = layer_desc(igates, w_hh_t, h0, output, hy, ws, scratch, reverse, "gru");
    d.b_hh = ptr_or_null(bias_h);
    launch(x.device().index(), "gru_layer_forward", d.buffers(), [d] { kernels::gru_layer_forward(d); });
    ctx->save_for_backward({x2d, h0, w_ih, w_hh, output, ws});
    ctx->saved_data["reverse"] = reverse;
    ctx->saved_data["has_bias"] = has_bias;
    return {output, hy};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const bool create_graph = at::GradMode::is_enabled();
    const auto saved = ctx->get_saved_variables();
    const at::NoGradGuard no_grad;
    const at::Tensor &x2d = saved[0], &hx = saved[1], &w_ih = saved[2], &w_hh = saved[3], &output = saved[4],
                     &ws = saved[5];
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const bool has_bias = ctx->saved_data["has_bias"].toBool();
    const int64_t T = output.size(0), B = output.size(1), H = output.size(2);
    const at::Tensor go = grads[0].defined() ? grads[0].contiguous() : at::Tensor();
    const at::Tensor ghy = grads[1].defined() ? grads[1].contiguous() : at::Tensor();
    const auto opts = output.options();
    at::Tensor dgates = at::empty({T, B, 3 * H}, opts), dgates_h = at::empty({T, B, 3 * H}, opts);
    at::Tensor grad_hx = at::empty({B, H}, opts);
    kernels::RnnLayerBackwardDesc d =
        layer_backward_desc(output, ws, w_hh, hx, go, ghy, dgates, grad_hx, reverse, "gru");
    d.dgates_h = dgates_h.data_ptr();
    launch(output.device().index(), "gru_layer_backward", d.buffers(), [d] { kernels::gru_layer_backward(d); });
    const at::Tensor dgi = dgates.view({T * B, 3 * H}), dgh = dgates_h.view({T * B, 3 * H});
    variable_list out(8);
    if (ctx->needs_input_grad(0)) out[0] = at::mm(dgi, w_ih).view({T, B, x2d.size(1)});
    out[1] = grad_hx;
    if (ctx->needs_input_grad(2)) out[2] = at::mm(dgi.t(), x2d);
    if (ctx->needs_input_grad(3)) out[3] = at::mm(dgh.t(), previous_hidden(output, hx, reverse));
    if (has_bias) {
      out[4] = dgi.sum(0);
      out[5] = dgh.sum(0);
    }
    return finish_backward(std::move(out), create_graph, grads, saved, "nn.GRU");
  }
};

// Whether the layer path covers this call: outside torch.func transforms, a
// batched (T, B, I) input with
// T, B, H > 0, every tensor on the input's tpu device in its floating dtype,
// contiguous weights, and no LSTM projections (hidden states all of size H).
bool layer_path_covers(const at::Tensor& input, at::TensorList hx, at::TensorList params, int64_t per_layer,
                       int64_t layers, int64_t directions) {
  // Under torch.func transforms (their front-mode key is in the TLS include
  // set) a C++ autograd::Function raises; upstream's decomposition works
  // there. (functorch's TLS object itself stays allocated after a transform.)
  if (c10::impl::tls_is_dispatch_key_included(c10::DispatchKey::FuncTorchDynamicLayerFrontMode)) return false;
  if (input.dim() != 3 || input.size(0) == 0 || input.size(1) == 0) return false;
  if (!at::isFloatingType(input.scalar_type()) || !device_supports(input.scalar_type())) return false;
  if (static_cast<int64_t>(params.size()) != per_layer * layers * directions) return false;
  auto same = [&](const at::Tensor& t) {
    return t.defined() && t.device() == input.device() && t.scalar_type() == input.scalar_type();
  };
  for (const at::Tensor& t : hx) {
    if (!same(t) || t.dim() != 3 || t.size(0) != layers * directions) return false;
  }
  const int64_t H = hx[0].size(2);
  if (H == 0) return false;
  for (const at::Tensor& t : hx) {
    if (t.size(2) != H) return false;  // an LSTM with projections
  }
  for (const at::Tensor& p : params) {
    if (!same(p) || !p.is_contiguous()) return false;
  }
  for (int64_t k = 0; k < layers * directions; ++k) {
    if (params[k * per_layer + 1].dim() != 2 || params[k * per_layer + 1].size(1) != H) return false;
  }
  return true;
}

// The layers in order, dropout between them, both directions concatenated
// on the feature dimension, as upstream's _rnn_impl. run(x, k, reverse)
// runs layer-direction k and returns {output, final states...}.
template <class Run>
std::pair<at::Tensor, std::vector<variable_list>> stack_layers(at::Tensor x, int64_t layers, int64_t directions,
                                                               double dropout, bool train, Run&& run) {
  std::vector<variable_list> finals;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<at::Tensor> outs;
    for (int64_t dir = 0; dir < directions; ++dir) {
      variable_list r = run(x, l * directions + dir, dir == 1);
      outs.push_back(r[0]);
      finals.push_back(std::move(r));
    }
    x = directions == 2 ? at::cat(outs, 2) : outs[0];
    if (dropout != 0 && train && l < layers - 1) x = at::dropout(x, dropout, train);
  }
  return {x, std::move(finals)};
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> lstm_input(const at::Tensor& input, at::TensorList hx,
                                                          at::TensorList params, bool has_biases,
                                                          int64_t num_layers, double dropout, bool train,
                                                          bool bidirectional, bool batch_first) {
  const int64_t per_layer = has_biases ? 4 : 2, directions = bidirectional ? 2 : 1;
  if (hx.size() != 2 || !layer_path_covers(input, hx, params, per_layer, num_layers, directions)) {
    return at::native::lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                            batch_first);
  }
  const c10::DeviceGuard guard(input.device());
  // Without biases the layers get an empty placeholder (autograd::Function
  // inputs must be defined tensors).
  const at::Tensor no_bias = has_biases ? at::Tensor() : at::empty({0}, input.options());
  auto [out, finals] = stack_layers(
      batch_first ? input.transpose(0, 1) : input, num_layers, directions, dropout, train,
      [&](const at::Tensor& x, int64_t k, bool reverse) {
        const at::TensorList p = params.slice(k * per_layer, per_layer);
        return LstmLayer::apply(x, hx[0][k], hx[1][k], p[0], p[1], has_biases ? p[2] : no_bias,
                                has_biases ? p[3] : no_bias, has_biases, reverse);
      });
  std::vector<at::Tensor> hy, cy;
  for (const variable_list& f : finals) {
    hy.push_back(f[1]);
    cy.push_back(f[2]);
  }
  return {batch_first ? out.transpose(0, 1) : out, at::stack(hy, 0), at::stack(cy, 0)};
}

std::tuple<at::Tensor, at::Tensor> gru_input(const at::Tensor& input, const at::Tensor& hx, at::TensorList params,
                                             bool has_biases, int64_t num_layers, double dropout, bool train,
                                             bool bidirectional, bool batch_first) {
  const int64_t per_layer = has_biases ? 4 : 2, directions = bidirectional ? 2 : 1;
  if (!layer_path_covers(input, {hx}, params, per_layer, num_layers, directions)) {
    return at::native::gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                           batch_first);
  }
  const c10::DeviceGuard guard(input.device());
  // Without biases the layers get an empty placeholder (autograd::Function
  // inputs must be defined tensors).
  const at::Tensor no_bias = has_biases ? at::Tensor() : at::empty({0}, input.options());
  auto [out, finals] = stack_layers(
      batch_first ? input.transpose(0, 1) : input, num_layers, directions, dropout, train,
      [&](const at::Tensor& x, int64_t k, bool reverse) {
        const at::TensorList p = params.slice(k * per_layer, per_layer);
        return GruLayer::apply(x, hx[k], p[0], p[1], has_biases ? p[2] : no_bias, has_biases ? p[3] : no_bias,
                               has_biases, reverse);
      });
  std::vector<at::Tensor> hy;
  for (const variable_list& f : finals) hy.push_back(f[1]);
  return {batch_first ? out.transpose(0, 1) : out, at::stack(hy, 0)};
}

}  // namespace torch_tpu::aten
