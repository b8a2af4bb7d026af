// nansum (direct route): ATen's nansum kernels are CPU's and CUDA's own. On
// tpu it is the sum of the input with its NaNs replaced by zeros (one
// elementwise select, then the sum reduction): the same values, one extra
// launch and temporary. Integer and bool inputs have no NaN and are summed
// as they are. Complex inputs are CUDA's (CPU refuses them): an element with
// a NaN part counts as zero, as CUDA's isnan of a complex number.
#include <ATen/core/Tensor.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <ATen/ops/scalar_tensor.h>

#include "generated/ops/nansum.h"
#include "generated/ops/nansum_out.h"

namespace torch_tpu::aten {
namespace {

at::Tensor without_nans(const at::Tensor& self) {
  if (!at::isFloatingType(self.scalar_type()) && !at::isComplexType(self.scalar_type())) return self;
  return at::where(at::isnan(self), at::scalar_tensor(0, self.options()), self);
}

}  // namespace

at::Tensor& nansum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                       std::optional<at::ScalarType> dtype, at::Tensor& out) {
  // A floating input reduces in the out= (or requested) dtype, which ATen's
  // nansum kernels implement for floating types only.
  const at::ScalarType compute = dtype.value_or(out.scalar_type());
  TORCH_CHECK_NOT_IMPLEMENTED(!at::isFloatingType(self.scalar_type()) || at::isFloatingType(compute) ||
                                  at::isComplexType(compute),
                              "\"nansum\" not implemented for '", compute, "' on tpu");
  return at::sum_out(out, without_nans(self), dim, keepdim, dtype);
}

at::Tensor nansum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  std::optional<at::ScalarType> dtype) {
  return at::sum(without_nans(self), dim, keepdim, dtype);
}

}  // namespace torch_tpu::aten
