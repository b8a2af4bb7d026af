// Helpers the derivatives of ops.yaml's custom operators call (included by
// csrc/generated/register_custom_ops.cpp, where formulas also see
// torch_tpu::ops::*, the operators themselves). Written with aten ops on
// symbolic sizes, so torch.compile and torch.export can trace the backward.
#pragma once

#include <ATen/ExpandUtils.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/gelu_backward.h>

#include <array>
#include <tuple>

namespace torch_tpu::aten::formulas {

// cat(-x2, x1) for the halves x1, x2 of the last dimension.
inline at::Tensor rotate_half(const at::Tensor& x) {
  const c10::SymInt h = x.sym_size(-1) / 2;
  return at::cat({x.narrow_symint(-1, h, h).neg(), x.narrow_symint(-1, 0, h)}, -1);
}

// The transpose of rotate_half: cat(v2, -v1).
inline at::Tensor rotate_half_backward(const at::Tensor& v) {
  const c10::SymInt h = v.sym_size(-1) / 2;
  return at::cat({v.narrow_symint(-1, h, h), v.narrow_symint(-1, 0, h).neg()}, -1);
}

// d/dx and d/dbias of gelu(x + bias): gelu_backward at x + bias, summed over
// the broadcast rows for bias.
inline std::tuple<at::Tensor, at::Tensor> bias_gelu_backward(const at::Tensor& grad, const at::Tensor& x,
                                                            const at::Tensor& bias,
                                                            c10::string_view approximate,
                                                            std::array<bool, 2> mask) {
  const at::Tensor dz = at::gelu_backward(grad, at::add(x, bias), approximate);
  return {mask[0] ? dz : at::Tensor(), mask[1] ? at::sum_to(dz, bias.sym_sizes()) : at::Tensor()};
}

}  // namespace torch_tpu::aten::formulas
