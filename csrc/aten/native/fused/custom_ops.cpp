// The custom operators of ops.yaml (torch.ops.tpu.*): each op's fake
// implementation (registered for Meta; it holds every argument check and
// gives the result's metadata) and its device kernel, which runs the same
// checks through the meta function before it launches anything (the
// generated registrations have checked devices and set the guard). Kernels:
// csrc/kernels/fused/. Registrations: csrc/generated/register_custom_ops.cpp.
//
// Meta functions use symbolic sizes (sym_size, empty_like), so torch.export
// can keep dimensions dynamic.
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include "aten/launch.h"
#include "generated/custom_ops.h"
#include "kernels/fused/fused.h"

namespace torch_tpu::aten::custom {
namespace {

bool present(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

void check_floating(const at::Tensor& t, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), "\"", op, "\" not implemented for '",
                              t.scalar_type(), "'");
}

void check_like(const at::Tensor& ref, const at::Tensor& t, const char* op, const char* ref_name,
                const char* name) {
  TORCH_CHECK(t.scalar_type() == ref.scalar_type(), op, ": expected ", name, " to have the dtype of ",
              ref_name, " (", ref.scalar_type(), "), got ", t.scalar_type());
  TORCH_CHECK(t.device() == ref.device(), op, ": expected ", name, " on ", ref.device(), ", got ",
              t.device());
}

// Leading dims flattened: [rows, n] of a tensor with last dimension n.
int64_t rows_of(const at::Tensor& t) { return t.dim() == 0 ? 1 : t.numel() / std::max<int64_t>(1, t.size(-1)); }

// The result of the fused kernels: contiguous, like the input.
at::Tensor contiguous_like(const at::Tensor& t) {
  return at::empty_like(t, at::MemoryFormat::Contiguous);
}

// Computes into `out`: directly when it is contiguous, else through a
// contiguous temporary (the kernels write rows of contiguous memory).
template <class F>
void into(at::Tensor& out, F&& run) {
  if (out.is_contiguous()) {
    run(out);
    return;
  }
  at::Tensor tmp = contiguous_like(out);
  run(tmp);
  out.copy_(tmp);
}

// ---- rms_norm ------------------------------------------------------------------

void check_rms_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight, double eps,
                    const char* op) {
  check_floating(input, op);
  TORCH_CHECK(input.dim() >= 1, op, ": expected an input with at least one dimension, got a 0-dim tensor");
  TORCH_CHECK(eps >= 0, op, ": expected eps >= 0, got ", eps);
  if (present(weight)) {
    check_like(input, *weight, op, "input", "weight");
    TORCH_CHECK(weight->dim() == 1, op, ": expected a 1-dimensional weight, got ", weight->dim(),
                " dimensions");
    TORCH_SYM_CHECK(weight->sym_size(0).sym_eq(input.sym_size(-1)), op,
                    ": expected weight of the size of input's last dimension (", input.sym_size(-1),
                    "), got ", weight->sym_size(0));
  }
}

kernels::RmsNormDesc rms_desc(const at::Tensor& x, const at::Tensor& w, double eps, const char* op) {
  kernels::RmsNormDesc d;
  d.x = x.const_data_ptr();
  d.weight = w.defined() ? w.const_data_ptr() : nullptr;
  d.dtype = device_dtype(x.scalar_type(), op);
  d.rows = rows_of(x);
  d.n = x.size(-1);
  d.eps = eps;
  return d;
}

// ---- rotary_embedding ----------------------------------------------------------

void check_rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, const char* op) {
  check_floating(x, op);
  check_like(x, cos, op, "x", "cos");
  check_like(x, sin, op, "x", "sin");
  TORCH_CHECK(x.dim() >= 1, op, ": expected x with at least one dimension, got a 0-dim tensor");
  TORCH_SYM_CHECK((x.sym_size(-1) % 2).sym_eq(0), op, ": expected an even last dimension, got ",
                  x.sym_size(-1));
  TORCH_CHECK(cos.sym_sizes() == sin.sym_sizes(), op, ": expected cos and sin of one shape, got ",
              cos.sym_sizes(), " and ", sin.sym_sizes());
  TORCH_CHECK(cos.dim() >= 1 && cos.dim() <= x.dim(), op, ": expected cos and sin with 1 to ", x.dim(),
              " dimensions (broadcast to x), got ", cos.dim());
  TORCH_SYM_CHECK(cos.sym_size(-1).sym_eq(x.sym_size(-1)), op,
                  ": expected cos and sin with x's last dimension (", x.sym_size(-1), "), got ",
                  cos.sym_size(-1));
  // infer_size raises PyTorch's broadcast error; a larger broadcast shape is ours.
  TORCH_CHECK(at::infer_size_symint(cos.sym_sizes(), x.sym_sizes()) == x.sym_sizes(), op,
              ": cos and sin of shape ", cos.sym_sizes(), " broadcast beyond x's shape ",
              x.sym_sizes());
}

// y = rotary(x) for contiguous x and y (y may be x).
void launch_rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, at::Tensor& y,
                   const char* op) {
  if (x.numel() == 0) return;
  const at::Tensor c = cos.contiguous(), s = sin.contiguous();
  const int64_t n = x.size(-1);
  // Which cos/sin row each row of x reads: cos's rows numbered, broadcast to x.
  std::vector<int64_t> table_shape(x.dim() - cos.dim(), 1), x_rows(x.sizes().begin(), x.sizes().end() - 1);
  table_shape.insert(table_shape.end(), c.sizes().begin(), c.sizes().end() - 1);
  const at::Tensor table = at::arange(rows_of(c), x.options().dtype(at::kLong))
                               .view(table_shape)
                               .expand(x_rows)
                               .contiguous();
  kernels::RotaryDesc d;
  d.x = x.const_data_ptr();
  d.cos = c.const_data_ptr();
  d.sin = s.const_data_ptr();
  d.table_row = table.const_data_ptr<int64_t>();
  d.y = y.data_ptr();
  d.dtype = device_dtype(x.scalar_type(), op);
  d.rows = rows_of(x);
  d.n = n;
  launch(x.device().index(), op, d.buffers(), [d] { kernels::rotary_embedding(d); });
}

// ---- bias_gelu -----------------------------------------------------------------

bool check_bias_gelu(const at::Tensor& x, const at::Tensor& bias, c10::string_view approximate,
                     const char* op) {
  check_floating(x, op);
  check_like(x, bias, op, "x", "bias");
  TORCH_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  TORCH_CHECK(x.dim() >= 1, op, ": expected x with at least one dimension, got a 0-dim tensor");
  TORCH_CHECK(bias.dim() == 1, op, ": expected a 1-dimensional bias, got ", bias.dim(), " dimensions");
  TORCH_SYM_CHECK(bias.sym_size(0).sym_eq(x.sym_size(-1)), op,
                  ": expected bias of the size of x's last dimension (", x.sym_size(-1), "), got ",
                  bias.sym_size(0));
  return approximate == "tanh";
}

void launch_bias_gelu(const at::Tensor& x, const at::Tensor& bias, bool tanh, at::Tensor& y, const char* op) {
  if (x.numel() == 0) return;
  const at::Tensor xc = x.contiguous(), b = bias.contiguous();
  kernels::BiasGeluDesc d;
  d.x = xc.const_data_ptr();
  d.bias = b.const_data_ptr();
  d.y = y.data_ptr();
  d.dtype = device_dtype(x.scalar_type(), op);
  d.rows = rows_of(xc);
  d.n = xc.size(-1);
  d.tanh = tanh;
  launch(x.device().index(), op, d.buffers(), [d] { kernels::bias_gelu(d); });
}

}  // namespace

// ---- rms_norm ------------------------------------------------------------------

at::Tensor rms_norm_meta(const at::Tensor& input, const std::optional<at::Tensor>& weight, double eps) {
  check_rms_norm(input, weight, eps, "tpu::rms_norm");
  return contiguous_like(input);
}

at::Tensor rms_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight, double eps) {
  at::Tensor out = rms_norm_meta(input, weight, eps);
  if (out.numel() == 0) return out;
  const at::Tensor x = input.contiguous();
  const at::Tensor w = present(weight) ? weight->contiguous() : at::Tensor();
  kernels::RmsNormDesc d = rms_desc(x, w, eps, "tpu::rms_norm");
  d.y = out.data_ptr();
  launch(input.device().index(), "tpu::rms_norm", d.buffers(), [d] { kernels::rms_norm_forward(d); });
  return out;
}

std::tuple<at::Tensor, at::Tensor> rms_norm_backward_meta(const at::Tensor& grad, const at::Tensor& input,
                                                          const std::optional<at::Tensor>& weight, double eps,
                                                          std::array<bool, 2> output_mask) {
  const char* op = "tpu::rms_norm_backward";
  check_rms_norm(input, weight, eps, op);
  check_like(input, grad, op, "input", "grad");
  TORCH_CHECK(grad.sym_sizes() == input.sym_sizes(), op, ": expected grad of input's shape ",
              input.sym_sizes(), ", got ", grad.sym_sizes());
  return {output_mask[0] ? contiguous_like(input) : at::Tensor(),
          output_mask[1] && present(weight) ? contiguous_like(*weight) : at::Tensor()};
}

std::tuple<at::Tensor, at::Tensor> rms_norm_backward(const at::Tensor& grad, const at::Tensor& input,
                                                     const std::optional<at::Tensor>& weight, double eps,
                                                     std::array<bool, 2> output_mask) {
  auto [dx, dw] = rms_norm_backward_meta(grad, input, weight, eps, output_mask);
  if (!dx.defined() && !dw.defined()) return {dx, dw};
  const at::Tensor x = input.contiguous(), g = grad.contiguous();
  const at::Tensor w = present(weight) ? weight->contiguous() : at::Tensor();
  kernels::RmsNormBackwardDesc d;
  d.dy = g.const_data_ptr();
  d.x = x.const_data_ptr();
  d.weight = w.defined() ? w.const_data_ptr() : nullptr;
  d.dx = dx.defined() && dx.numel() ? dx.data_ptr() : nullptr;
  d.dweight = dw.defined() ? dw.data_ptr() : nullptr;
  d.dtype = device_dtype(x.scalar_type(), "tpu::rms_norm_backward");
  d.rows = rows_of(x);
  d.n = x.size(-1);
  d.eps = eps;
  if (d.n > 0 && (d.dx != nullptr || d.dweight != nullptr)) {
    launch(input.device().index(), "tpu::rms_norm_backward", d.buffers(),
           [d] { kernels::rms_norm_backward(d); });
  }
  return {dx, dw};
}

// ---- rotary_embedding ----------------------------------------------------------

at::Tensor rotary_embedding_meta(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  check_rotary(x, cos, sin, "tpu::rotary_embedding");
  return contiguous_like(x);
}

at::Tensor rotary_embedding(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  at::Tensor out = rotary_embedding_meta(x, cos, sin);
  launch_rotary(x.contiguous(), cos, sin, out, "tpu::rotary_embedding");
  return out;
}

at::Tensor& rotary_embedding__meta(at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  check_rotary(x, cos, sin, "tpu::rotary_embedding_");
  return x;
}

at::Tensor& rotary_embedding_(at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  rotary_embedding__meta(x, cos, sin);
  // Memory checks on real tensors only (they read concrete sizes; fake
  // tensors under torch.compile have symbolic ones).
  at::assert_no_internal_overlap(x);
  at::assert_no_overlap(x, cos);
  at::assert_no_overlap(x, sin);
  // Each row is read whole before it is written: a contiguous x rotates in place.
  into(x, [&](at::Tensor& y) { launch_rotary(x.is_contiguous() ? x : x.contiguous(), cos, sin, y,
                                             "tpu::rotary_embedding_"); });
  return x;
}

// ---- bias_gelu -----------------------------------------------------------------

at::Tensor bias_gelu_meta(const at::Tensor& x, const at::Tensor& bias, c10::string_view approximate) {
  check_bias_gelu(x, bias, approximate, "tpu::bias_gelu");
  return contiguous_like(x);
}

at::Tensor bias_gelu(const at::Tensor& x, const at::Tensor& bias, c10::string_view approximate) {
  const bool tanh = check_bias_gelu(x, bias, approximate, "tpu::bias_gelu");
  at::Tensor out = contiguous_like(x);
  launch_bias_gelu(x, bias, tanh, out, "tpu::bias_gelu");
  return out;
}

// out=: aten's rules (resize_output of a wrong-shaped out, the result's dtype
// and device, no overlap with the inputs but an exact alias of x).
at::Tensor& bias_gelu_out_meta(const at::Tensor& x, const at::Tensor& bias, c10::string_view approximate,
                               at::Tensor& out) {
  const char* op = "tpu::bias_gelu.out";
  check_bias_gelu(x, bias, approximate, op);
  TORCH_CHECK(out.device() == x.device(), "Expected out tensor to have device ", x.device(), ", but got ",
              out.device(), " instead");
  TORCH_CHECK(out.scalar_type() == x.scalar_type(), "Expected out tensor to have dtype ", x.scalar_type(),
              ", but got ", out.scalar_type(), " instead");
  at::native::resize_output_symint(out, x.sym_sizes());
  return out;
}

at::Tensor& bias_gelu_out(const at::Tensor& x, const at::Tensor& bias, c10::string_view approximate,
                          at::Tensor& out) {
  bias_gelu_out_meta(x, bias, approximate, out);
  at::assert_no_internal_overlap(out);  // on real tensors only, as for rotary_embedding_
  at::assert_no_partial_overlap(out, x);
  at::assert_no_overlap(out, bias);
  const bool tanh = approximate == "tanh";
  into(out, [&](at::Tensor& y) { launch_bias_gelu(x, bias, tanh, y, "tpu::bias_gelu.out"); });
  return out;
}

}  // namespace torch_tpu::aten::custom
