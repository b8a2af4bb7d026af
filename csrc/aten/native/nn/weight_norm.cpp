// Weight normalization (torch.nn.utils.parametrizations.weight_norm):
// w = v * g / ||v||, the norm over every dimension but `dim`, which must be
// the first or the last (ATen's _weight_norm takes this fused entry point
// only then, and decomposes otherwise). Composed of tpu ops in the op math
// dtype (float for float16/bfloat16), as CPU's kernel accumulates, and the
// norms come out in it (CPU's and CUDA's choice). Not a hot path: one call
// per forward per parametrized weight.
#include <ATen/ATen.h>
#include <ATen/OpMathType.h>

#include "generated/ops/_weight_norm_interface.h"
#include "generated/ops/_weight_norm_interface_backward.h"

namespace torch_tpu::aten {
namespace {

void check_dim(const at::Tensor& v, int64_t dim) {
  TORCH_CHECK(dim == 0 || dim == v.dim() - 1, "fused kernels can only be computed for first or last dim");
}

// Every dimension of v but dim: the norm's reduction.
std::vector<int64_t> other_dims(const at::Tensor& v, int64_t dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) dims.push_back(d);
  return dims;
}

// v's shape with 1 everywhere but at dim: where g and the norms broadcast.
std::vector<int64_t> kept_shape(const at::Tensor& v, int64_t dim) {
  std::vector<int64_t> shape(v.dim(), 1);
  shape[dim] = v.size(dim);
  return shape;
}

at::ScalarType norm_dtype(const at::Tensor& g) {
  return at::toOpMathType(g.scalar_type());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> _weight_norm_interface(const at::Tensor& v, const at::Tensor& g, int64_t dim) {
  check_dim(v, dim);
  const auto acc = at::toOpMathType(v.scalar_type());
  const at::Tensor v_acc = v.to(acc);
  const at::Tensor norms = v_acc.square().sum(other_dims(v, dim), /*keepdim=*/true).sqrt_();
  const at::Tensor w = (v_acc * (g.to(acc).reshape(kept_shape(v, dim)) / norms)).to(v.scalar_type());
  return {w.contiguous(), norms.reshape(g.sizes()).to(norm_dtype(g)).contiguous()};
}

std::tuple<at::Tensor, at::Tensor> _weight_norm_interface_backward(const at::Tensor& grad_w,
                                                                   const at::Tensor& saved_v,
                                                                   const at::Tensor& saved_g,
                                                                   const at::Tensor& saved_norms, int64_t dim) {
  TORCH_CHECK(saved_v.is_contiguous(), "saved_v must be contiguous");
  TORCH_CHECK(saved_g.is_contiguous(), "saved_g must be contiguous");
  TORCH_CHECK(saved_norms.is_contiguous(), "saved_norms must be contiguous");
  check_dim(saved_v, dim);
  const auto acc = at::toOpMathType(saved_v.scalar_type());
  const auto shape = kept_shape(saved_v, dim);
  const at::Tensor v = saved_v.to(acc), gw = grad_w.to(acc);
  const at::Tensor norms = saved_norms.to(acc).reshape(shape), g = saved_g.to(acc).reshape(shape);
  // d(v g/|v|): grad_g = <grad_w, v>/|v|; grad_v = g/|v| (grad_w - v <grad_w, v>/|v|^2).
  const at::Tensor dot = (gw * v).sum(other_dims(saved_v, dim), /*keepdim=*/true);
  const at::Tensor grad_g = (dot / norms).reshape(saved_g.sizes());
  const at::Tensor grad_v = (g / norms) * (gw - v * (dot / (norms * norms)));
  return {grad_v.to(saved_v.scalar_type()).contiguous(), grad_g.to(saved_g.scalar_type()).contiguous()};
}

}  // namespace torch_tpu::aten
