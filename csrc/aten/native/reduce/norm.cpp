// torch.norm over dims (norm.out, norm.dtype_out): as upstream, ATen's meta()
// has checked the arguments and sized the result; the work is
// linalg_vector_norm into it, through the dispatcher (the tpu norm kernel).
#include <ATen/ops/linalg_vector_norm.h>

#include "generated/ops/norm_dtype_out.h"
#include "generated/ops/norm_out.h"

namespace torch_tpu::aten {
namespace {

void norm_into(const at::Tensor& self, at::OptionalScalarRef p, at::IntArrayRef dim, bool keepdim,
               std::optional<at::ScalarType> dtype, const at::Tensor& out) {
  const at::Scalar order = p.has_value() ? p.get() : at::Scalar(2.0);
  at::linalg_vector_norm_out(const_cast<at::Tensor&>(out), self, order, dim, keepdim, dtype);
}

}  // namespace

void norm_out(const at::Tensor& self, at::OptionalScalarRef p, at::IntArrayRef dim, bool keepdim,
              const at::Tensor& out) {
  norm_into(self, p, dim, keepdim, std::nullopt, out);
}

void norm_dtype_out(const at::Tensor& self, at::OptionalScalarRef p, at::IntArrayRef dim, bool keepdim,
                    at::ScalarType dtype, const at::Tensor& out) {
  norm_into(self, p, dim, keepdim, dtype, out);
}

}  // namespace torch_tpu::aten
