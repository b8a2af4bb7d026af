// max.dim / min.dim (values and indices) as direct wrappers: ATen's
// structured kernel for them has a precomputed argument (the wrapped dim),
// which the generator does not drive yet, so these drive it by hand exactly
// as the generated stub-route code would: ATen's meta() checks (empty
// dims, complex input, out= dtypes) and sizes the outputs, ATen's impl()
// fills 0-dim inputs itself and otherwise calls max_stub/min_stub with the
// tensors' device, which reaches max_kernel/min_kernel
// (stub_kernels_reduce.cpp; attached here on first use, counted like the
// generated registrations).
#include <ATen/native/TensorCompare.h>
#include <ATen/ops/logsumexp_native.h>
#include <ATen/ops/max_native.h>
#include <ATen/ops/min_native.h>

#include "aten/op_registry.h"
#include "aten/stub_kernels.h"
#include "aten/structured_wrappers.h"
#include "generated/aten_ops.h"

namespace torch_tpu::aten {

namespace {

void attach_minmax_stubs() {
  static const bool attached = [] {
    set_stub_kernel<&max_kernel>(at::native::max_stub, "max_stub");
    set_stub_kernel<&min_kernel>(at::native::min_stub, "min_stub");
    return true;
  }();
  (void)attached;
}

template <class Impl>
std::tuple<at::Tensor, at::Tensor> functional(const at::Tensor& self, int64_t dim, bool keepdim) {
  attach_minmax_stubs();
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  structured::Functional<Impl, 2> op;
  const auto pre = op.meta(self, dim, keepdim);
  op.impl(self, pre.dim, keepdim, op.output(0), op.output(1));
  return std::make_tuple(std::move(op.outputs_[0]), std::move(op.outputs_[1]));
}

template <class Impl>
std::tuple<at::Tensor&, at::Tensor&> out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& values,
                                         at::Tensor& indices) {
  attach_minmax_stubs();
  const c10::OptionalDeviceGuard guard(at::device_of(self));
  structured::Out<Impl, 2> op(values, indices);
  const auto pre = op.meta(self, dim, keepdim);
  op.impl(self, pre.dim, keepdim, op.output(0), op.output(1));
  op.finish();
  return std::forward_as_tuple(values, indices);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> max_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return functional<at::native::structured_max_out>(self, dim, keepdim);
}

std::tuple<at::Tensor&, at::Tensor&> max_dim_max(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& max,
                                                 at::Tensor& max_values) {
  return out<at::native::structured_max_out>(self, dim, keepdim, max, max_values);
}

std::tuple<at::Tensor, at::Tensor> min_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return functional<at::native::structured_min_out>(self, dim, keepdim);
}

std::tuple<at::Tensor&, at::Tensor&> min_dim_min(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& min,
                                                 at::Tensor& min_indices) {
  return out<at::native::structured_min_out>(self, dim, keepdim, min, min_indices);
}

// logsumexp.out: ATen's composite computes into temporaries (amax, exp,
// sum, log: kernels) and finds an out on another device only when it writes
// the result. The out= contract wants that rejected before launch, as a
// device kernel would (CUDA's message); then the same composite runs.
at::Tensor& logsumexp_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  TORCH_CHECK(out.device() == self.device(), "Expected out tensor to have device ", self.device(),
              ", but got ", out.device(), " instead");
  return at::native::logsumexp_out(self, dim, keepdim, out);
}

}  // namespace torch_tpu::aten
