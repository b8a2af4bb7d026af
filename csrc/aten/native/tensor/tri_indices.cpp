// torch.triu_indices / tril_indices on tpu. The result depends only on the
// sizes and the offset, not on device data: ATen's CPU factory computes it
// (with its checks and dtype rules) and one host-to-device copy places it,
// as torch.tensor(..., device=) does. No synchronisation.
#include <ATen/ops/tril_indices.h>
#include <ATen/ops/triu_indices.h>

#include "generated/ops/tril_indices.h"
#include "generated/ops/triu_indices.h"

namespace torch_tpu::aten {
namespace {

at::Tensor tri_indices_on(const at::Tensor& host, std::optional<at::Device> device) {
  return host.to(device.value_or(at::Device(c10::DeviceType::PrivateUse1)));
}

}  // namespace

at::Tensor triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<at::ScalarType> dtype,
                        std::optional<at::Layout> layout, std::optional<at::Device> device,
                        std::optional<bool> pin_memory) {
  return tri_indices_on(at::triu_indices(row, col, offset, dtype, layout, at::kCPU, pin_memory), device);
}

at::Tensor tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<at::ScalarType> dtype,
                        std::optional<at::Layout> layout, std::optional<at::Device> device,
                        std::optional<bool> pin_memory) {
  return tri_indices_on(at::tril_indices(row, col, offset, dtype, layout, at::kCPU, pin_memory), device);
}

}  // namespace torch_tpu::aten
