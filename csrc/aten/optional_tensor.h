// Optional tensor arguments (Tensor? in a schema) as the glue reads them.
#pragma once

#include <optional>

#include <ATen/core/Tensor.h>

namespace torch_tpu::aten {

// The tensor, or an undefined one: what ATen's own kernels test with
// .defined() (c10::value_or_else without a copy).
inline const at::Tensor& value_or_undefined(const std::optional<at::Tensor>& t) {
  static const at::Tensor undefined;
  return t.has_value() ? *t : undefined;
}

}  // namespace torch_tpu::aten
