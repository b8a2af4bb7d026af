// Reserving Philox counter space on a tpu generator for a random kernel.
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/TensorBase.h>

#include <optional>

#include "kernels/random/random.h"

namespace torch_tpu::aten {

// The generator `gen` (or the default generator of t's device): its seed and
// current offset, after reserving kernels::kWordsPerElement words for each of
// `elements` elements (so the next call draws fresh numbers).
kernels::PhiloxState reserve_philox(const at::TensorBase& t, const std::optional<at::Generator>& gen,
                                    uint64_t elements);

}  // namespace torch_tpu::aten
