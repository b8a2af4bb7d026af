// F.rrelu (rrelu_with_noise): in training, each non-positive element is
// scaled by a slope drawn uniformly from [lower, upper] (the tpu generator;
// `noise` keeps the slopes, 1 elsewhere, for the backward); in eval it is
// leaky_relu with the mean slope, as CPU's.
#include <ATen/ops/empty_like.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/where.h>

#include "generated/ops/rrelu_with_noise.h"
#include "generated/ops/rrelu_with_noise_.h"
#include "generated/ops/rrelu_with_noise_out.h"

namespace torch_tpu::aten {

at::Tensor& rrelu_with_noise_out(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                                 const at::Scalar& upper, bool training, std::optional<at::Generator> generator,
                                 at::Tensor& out) {
  TORCH_CHECK(self.sym_sizes() == noise.sym_sizes(), "noise tensor shape must match self tensor shape. Got self.shape = ",
              self.sym_sizes(), " noise.shape = ", noise.sym_sizes());
  TORCH_CHECK(self.is_floating_point(), "\"rrelu_with_noise_out_tpu\" not implemented for '",
              c10::toString(self.scalar_type()), "'");
  if (!training) {
    // CPU averages the bounds in double: (lower + upper) / 2.
    const double slope = (lower.toDouble() + upper.toDouble()) / 2;
    return at::leaky_relu_out(out, self, slope);
  }
  at::Tensor slopes = at::empty_like(self).uniform_(lower.toDouble(), upper.toDouble(), generator);
  noise.copy_(at::where(self <= 0, slopes, at::ones_like(slopes)));
  return at::mul_out(out, self, noise);
}

at::Tensor rrelu_with_noise(const at::Tensor& self, at::Tensor& noise, const at::Scalar& lower,
                            const at::Scalar& upper, bool training, std::optional<at::Generator> generator) {
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  return rrelu_with_noise_out(self, noise, lower, upper, training, std::move(generator), out);
}

at::Tensor& rrelu_with_noise_(at::Tensor& self, at::Tensor& noise, const at::Scalar& lower, const at::Scalar& upper,
                              bool training, std::optional<at::Generator> generator) {
  return rrelu_with_noise_out(self, noise, lower, upper, training, std::move(generator), self);
}

}  // namespace torch_tpu::aten
