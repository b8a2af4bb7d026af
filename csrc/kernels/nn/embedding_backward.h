// Gradient of an embedding lookup (embedding_dense_backward): rows of grad
// summed into the rows of grad_weight their indices name. Deterministic: each
// output row is summed by one core, in index order. Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

struct EmbeddingBackwardDesc {
  DType dtype = DType::kFloat32;      // grad and grad_weight (floating types)
  DType index_dtype = DType::kInt64;  // kInt32 or kInt64
  const void* grad = nullptr;         // numel x dim, contiguous
  const void* indices = nullptr;      // numel, contiguous
  void* grad_weight = nullptr;        // num_weights x dim, contiguous; fully written
  int64_t numel = 0, dim = 0, num_weights = 0;
  int64_t padding_idx = -1;           // rows with this index contribute nothing
  bool scale_grad_by_freq = false;    // divide by the index's frequency

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {grad, indices, grad_weight}; }
};

// Indices outside [0, num_weights) are skipped (as CPU's kernel skips them).
// Sums accumulate in float (double for float64) and round once.
void embedding_dense_backward(const EmbeddingBackwardDesc& d);

}  // namespace torch_tpu::kernels
