// The p-norm distance stubs (stub_kernels.h, "stub" route): ATen's shared
// _cdist_forward and _pdist_forward check arguments and allocate outputs;
// these hand contiguous buffers to the device kernels
// (kernels/linalg/distance.h), copying out only where the result's layout
// differs. The generated wrappers set the device guard. Backwards:
// distance_backward.cpp.
#include <ATen/core/Tensor.h>
#include <ATen/native/Distance.h>
#include <ATen/ops/empty.h>

#include "aten/launch.h"
#include "generated/stub_kernels.h"
#include "kernels/linalg/distance.h"

namespace torch_tpu::aten {

void cdist_kernel(at::Tensor& result, const at::Tensor& x1, const at::Tensor& x2, const double p) {
  const kernels::DType t = device_dtype(x1.scalar_type(), "cdist");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::distance_supports(t), "\"cdist\" not implemented for '",
                              x1.scalar_type(), "' on tpu");
  TORCH_CHECK(x2.scalar_type() == x1.scalar_type(), "cdist: X1 and X2 must have one dtype, got ",
              x1.scalar_type(), " and ", x2.scalar_type());
  const at::Tensor a = x1.contiguous(), b = x2.contiguous();
  at::Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  const int64_t B = a.size(0), P = a.size(1), R = b.size(1), M = a.size(2);
  const void* ap = a.const_data_ptr();
  const void* bp = b.const_data_ptr();
  void* op = out.data_ptr();
  launch(result.device().index(), "cdist", {ap, bp, op}, [=] { kernels::cdist(t, ap, bp, op, B, P, R, M, p); });
  if (!out.is_same(result)) result.copy_(out);
}

void pdist_forward_kernel(at::Tensor& result, const at::Tensor& self, const double p) {
  const kernels::DType t = device_dtype(self.scalar_type(), "pdist");
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::distance_supports(t), "\"pdist\" not implemented for '",
                              self.scalar_type(), "' on tpu");
  const at::Tensor x = self.contiguous();
  const int64_t N = x.size(0), M = x.size(1);
  const void* xp = x.const_data_ptr();
  void* op = result.data_ptr();
  launch(result.device().index(), "pdist", {xp, op}, [=] { kernels::pdist(t, xp, op, N, M, p); });
}

}  // namespace torch_tpu::aten
