#include "aten/native/index/glue.h"

#include <ATen/Context.h>

namespace torch_tpu::aten {

kernels::TensorDesc describe_nd(const at::Tensor& t, const char* op, int64_t min_dim, Complex32 complex32) {
  kernels::TensorDesc d = describe(t, op, complex32);
  while (d.dim() < min_dim) {
    d.sizes.push_back(1);
    d.strides.push_back(1);
  }
  return d;
}

void check_same_tpu_device(const char* op, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs) {
  for (const at::Tensor* t : inputs) {
    if (!t->defined()) continue;
    TORCH_CHECK(t->device() == out.device(), "Expected all tensors to be on the same device, but found at least two "
                "devices, ", out.device(), " and ", t->device(), "! (when checking argument for ", op, ")");
  }
}

kernels::PutMode put_mode(bool accumulate) {
  if (accumulate) return kernels::PutMode::kAccumulate;
  return at::globalContext().deterministicAlgorithms() ? kernels::PutMode::kInOrder : kernels::PutMode::kParallel;
}

}  // namespace torch_tpu::aten
