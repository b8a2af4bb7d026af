// pow(Scalar base, Tensor exponent) and its out= form (route direct): what
// ATen's structured pow_Scalar_out does, which reaches no stub of its own:
// the result dtype is result_type(base, exponent) (or out's), a base of 1
// fills ones, any other base becomes a 0-dim tensor on the exponent's device
// and pow.Tensor_Tensor_out (the tpu stub kernel) computes.
#include <ATen/ATen.h>
#include <ATen/native/Resize.h>
#include <ATen/ScalarOps.h>

#include "generated/ops/pow_Scalar.h"
#include "generated/ops/pow_Scalar_out.h"

namespace torch_tpu::aten {

namespace {

at::Tensor& pow_scalar_into(const at::Scalar& base, const at::Tensor& exponent, at::Tensor& out) {
  if (base.equal(1.0)) {
    out.fill_(1);
  } else {
    at::pow_out(out, at::native::wrapped_scalar_tensor(base, exponent.device()), exponent);
  }
  return out;
}

}  // namespace

at::Tensor pow_scalar(const at::Scalar& self, const at::Tensor& exponent) {
  const at::ScalarType dtype = at::result_type(self, exponent);
  at::Tensor out = at::empty(exponent.sizes(), exponent.options().dtype(dtype));
  return pow_scalar_into(self, exponent, out);
}

at::Tensor& pow_scalar_out(const at::Scalar& self, const at::Tensor& exponent, at::Tensor& out) {
  at::native::resize_output(out, exponent.sizes());
  return pow_scalar_into(self, exponent, out);
}

}  // namespace torch_tpu::aten
