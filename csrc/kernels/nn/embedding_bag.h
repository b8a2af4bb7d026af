// Embedding bags (embedding_bag.cpp): bag b of the 1-D `indices` is
// [offsets[b], offsets[b + 1]), the last bag ending at the end of indices
// (with include_last_offset too, as on CPU). Rows equal to padding_idx
// are left out of every bag. out[b] is their sum (each row scaled by
// per_sample_weights[i] when given), mean (0 for an empty bag) or
// elementwise max (0 for an empty bag; max_indices[b, d] = the row that
// gave it, the first on ties, -1 for an empty bag). offset2bag[i] = i's bag,
// bag_size[b] = rows in bag b (0 past the last bag): the conventions CUDA and
// FakeTensor's meta use for devices other than CPU. Sums in float (double for
// float64), rounded once. Runtime headers only.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

enum class BagMode : int8_t { kSum = 0, kMean = 1, kMax = 2 };

struct EmbeddingBagDesc {
  DType dtype = DType::kFloat32;        // weight, per_sample_weights, out
  DType index_dtype = DType::kInt64;    // indices, offsets, offset2bag, bag_size, max_indices
  int64_t rows = 0, dim = 0;            // weight [rows, dim]
  int64_t num_indices = 0, num_offsets = 0, num_bags = 0;
  BagMode mode = BagMode::kSum;
  int64_t padding_idx = -1;             // < 0: none
  const void* weight = nullptr;
  const void* indices = nullptr;
  const void* offsets = nullptr;
  const void* per_sample_weights = nullptr;  // or null
  void* out = nullptr;
  void* offset2bag = nullptr;
  void* bag_size = nullptr;
  void* max_indices = nullptr;          // [num_bags, dim] for max, else null

  // The device memory it reads and writes (the launch names it: strict mode).
  std::vector<const void*> buffers() const { return {weight, indices, offsets, per_sample_weights, out, offset2bag, bag_size, max_indices}; }
};

// Checks offsets (first 0, non-decreasing, within indices) and indices
// (within weight's rows), reporting like the other index kernels.
void embedding_bag(const EmbeddingBagDesc& d);

// embedding_renorm_: every distinct row k of `indices` whose p-norm exceeds
// max_norm is scaled by max_norm / (norm + 1e-7), in place, as ATen's CPU
// kernel does. weight [rows, dim] contiguous, float dtypes.
void embedding_renorm(DType t, void* weight, int64_t rows, int64_t dim, const void* indices, DType index_dtype,
                      int64_t num_indices, double max_norm, double norm_type);

}  // namespace torch_tpu::kernels
