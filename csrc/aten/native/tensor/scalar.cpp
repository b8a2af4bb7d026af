// Scalars in and out of device memory: item() (_local_scalar_dense, a host
// sync), fill_ and zero_ (kernels on the current stream).
#include <ATen/Dispatch_v2.h>
#include <ATen/core/Tensor.h>

#include <array>
#include <optional>
#include <cstring>

#include "aten/launch.h"
#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"
#include "aten/device/tpu_stream.h"
#include "generated/ops/_local_scalar_dense.h"
#include "generated/ops/fill__Scalar.h"
#include "generated/ops/fill__Tensor.h"
#include "generated/ops/zero_.h"
#include "kernels/copy/copy.h"

namespace torch_tpu::aten {

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "_local_scalar_dense: Empty tensor not supported");
  alignas(16) unsigned char bytes[16];
  telemetry::count_sync("item");
  TPU_CHECK(runtime::memcpy_and_sync(bytes, self.const_data_ptr(), self.element_size(),
                                     runtime::MemcpyKind::kDeviceToHost,
                                     native_stream(current_stream(self.device().index()))));
  // Like CPU: a bool is whatever byte is stored, read as "nonzero".
  if (self.scalar_type() == at::kBool) return at::Scalar(bytes[0] != 0);
  std::optional<at::Scalar> result;
  AT_DISPATCH_V2(
      self.scalar_type(), "_local_scalar_dense_tpu", AT_WRAP([&] {
        scalar_t value;
        std::memcpy(&value, bytes, sizeof(scalar_t));
        result.emplace(value);
      }),
      AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), at::kComplexHalf, at::kHalf, at::kBFloat16,
      AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES), AT_EXPAND(AT_FLOAT8_TYPES));
  return *result;
}

// No overlap check: CPU allows filling an expanded tensor (fill is idempotent).
at::Tensor& fill_scalar_(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  alignas(16) unsigned char bytes[16] = {};
  // Scalar::to<T> raises PyTorch's own overflow error ("value cannot be
  // converted to type uint8_t without overflow").
  if (self.scalar_type() == at::kComplexHalf) {
    // CPU's fill_kernel: checked as complex64, then rounded (70000 fills inf).
    const c10::complex<at::Half> v(value.to<c10::complex<float>>());
    std::memcpy(bytes, &v, sizeof(v));
  } else {
    AT_DISPATCH_V2(
        self.scalar_type(), "fill_tpu", AT_WRAP([&] {
          scalar_t v = value.to<scalar_t>();
          std::memcpy(bytes, &v, sizeof(scalar_t));
        }),
        AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), at::kHalf, at::kBool, at::kBFloat16,
        AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  }
  const size_t itemsize = self.element_size();
  bool all_zero = true;
  for (size_t i = 0; i < itemsize; ++i) all_zero = all_zero && bytes[i] == 0;
  if (all_zero && self.is_non_overlapping_and_dense()) {
    TPU_CHECK(runtime::memset_async(self.data_ptr(), 0, self.numel() * itemsize,
                                    native_stream(current_stream(self.device().index()))));
    return self;
  }
  kernels::TensorDesc d = describe(self, "fill_", Complex32::kTaken);  // moves bits
  std::array<unsigned char, 16> v;
  std::memcpy(v.data(), bytes, sizeof(bytes));
  std::vector<const void*> buffers{d.data};  // before d is moved
  launch(self.device().index(), "fill", std::move(buffers),
         [d = std::move(d), v] { kernels::fill(d, v.data()); });
  return self;
}

at::Tensor& fill_tensor_(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
  if (self.device() != value.device()) return fill_scalar_(self, value.item());
  // A value that aliases self must be read before self is overwritten.
  if (self.is_alias_of(value)) {
    self.copy_(value.clone());
  } else {
    self.copy_(value);
  }
  return self;
}

at::Tensor& zero_(at::Tensor& self) { return fill_scalar_(self, 0); }

}  // namespace torch_tpu::aten
