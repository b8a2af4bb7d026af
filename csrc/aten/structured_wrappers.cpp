#include "aten/structured_wrappers.h"

#include <ATen/ops/as_strided.h>
#include <ATen/ops/empty.h>

#include "generated/ops/empty_memory_format.h"
#include "generated/ops/empty_strided.h"

namespace torch_tpu::aten::structured {

at::Tensor create_out(at::IntArrayRef sizes, at::IntArrayRef strides,
                      const at::TensorOptions& options) {
  if (options.device().type() != c10::DeviceType::PrivateUse1) {
    return strides.empty() ? at::empty(sizes, options) : at::empty_strided(sizes, strides, options);
  }
  // Straight to the tpu factory, as CUDA's structured kernels call
  // at::detail::empty_cuda: the dispatcher round trip was ~5% of a small
  // op's host time.
  const std::optional<at::ScalarType> dtype = c10::optTypeMetaToScalarType(options.dtype_opt());
  return strides.empty() ? torch_tpu::aten::empty_memory_format(sizes, dtype, options.layout_opt(), options.device_opt(),
                                               options.pinned_memory_opt(), options.memory_format_opt())
                         : torch_tpu::aten::empty_strided(sizes, strides, dtype, options.layout_opt(), options.device_opt(),
                                         options.pinned_memory_opt());
}

void resize_out(const at::Tensor& out, at::IntArrayRef sizes, at::IntArrayRef strides,
                const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ",
              options.dtype(), ", but got ", out.dtype(), " instead");
  TORCH_CHECK(options.device() == out.device(), "Expected out tensor to have device ",
              options.device(), ", but got ", out.device(), " instead");
  // Restride only what had to be resized: a correctly shaped out= keeps its
  // own strides (the kernel writes through them).
  if (at::native::resize_output(out, sizes)) {
    if (!strides.empty()) {
      TORCH_INTERNAL_ASSERT(!options.memory_format_opt().has_value());
      out.as_strided_(sizes, strides);
    } else if (options.memory_format_opt().has_value()) {
      out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
    }
  }
}

void check_inplace(const at::Tensor& self, at::IntArrayRef sizes,
                   const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == self.dtype(), "Bad in-place call: input tensor dtype ",
              self.dtype(), " and output tensor dtype ", options.dtype(), " should match");
  TORCH_CHECK(options.device() == self.device(), "Bad in-place call: input tensor device ",
              self.device(), " and output tensor device ", options.device(), " should match");
  TORCH_CHECK(sizes == self.sizes(), "Bad in-place call: input tensor size ", self.sizes(),
              " and output tensor size ", sizes, " should match");
}

}  // namespace torch_tpu::aten::structured
