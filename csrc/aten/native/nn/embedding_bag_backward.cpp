// The backwards of embedding_bag (direct: CPU's are CPU-only loops), composed
// of tpu ops over the forward's auxiliary outputs (CUDA's conventions, see
// embedding_bag.cpp): offset2bag [indices], bag_size [bags], max_indices
// [bags, dim] with -1 for an empty bag.
//   sum/mean: weight row indices[i] gets grad[offset2bag[i]], divided by the
//     bag's size (mean), times per_sample_weights[i], divided by how often
//     the row is indexed (scale_grad_by_freq); padding_idx rows get nothing;
//   max: the row max_indices[b, d] gets grad[b, d].
// ATen's device-generic _embedding_bag_backward (checks, the sparse path)
// calls the dense one through the dispatcher.
#include <ATen/ops/ones_like.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

#include "generated/ops/_embedding_bag_dense_backward.h"
#include "generated/ops/_embedding_bag_per_sample_weights_backward.h"

namespace torch_tpu::aten {
namespace {

constexpr int64_t kBagSum = 0, kBagMean = 1, kBagMax = 2;

}  // namespace

at::Tensor _embedding_bag_dense_backward(const at::Tensor& grad, const at::Tensor& indices,
                                         const at::Tensor& offset2bag, const at::Tensor& bag_size,
                                         const at::Tensor& maximum_indices, int64_t num_weights,
                                         bool scale_grad_by_freq, int64_t mode,
                                         const std::optional<at::Tensor>& per_sample_weights, int64_t padding_idx) {
  at::Tensor result = at::zeros({num_weights, grad.size(1)}, grad.options());
  if (mode == kBagMax) {
    const at::Tensor valid = maximum_indices >= 0;
    const at::Tensor rows = at::where(valid, maximum_indices, 0);
    return result.scatter_add_(0, rows, at::where(valid, grad, at::zeros({}, grad.options())));
  }
  if (indices.numel() == 0) return result;
  at::Tensor rows = grad.index_select(0, offset2bag);
  if (mode == kBagMean) rows = rows.div(bag_size.index_select(0, offset2bag).unsqueeze(1));
  if (per_sample_weights.has_value() && per_sample_weights->defined()) {
    rows = rows.mul(per_sample_weights->unsqueeze(1));
  }
  if (scale_grad_by_freq) {
    const at::Tensor counts = at::zeros({num_weights}, grad.options()).index_add_(0, indices, at::ones_like(indices, grad.options()));
    rows = rows.div(counts.index_select(0, indices).unsqueeze(1));
  }
  if (padding_idx >= 0) rows = rows.masked_fill((indices == padding_idx).unsqueeze(1), 0);
  return result.index_add_(0, indices, rows);
}

// d loss / d per_sample_weights[i] = <grad[bag of i], weight[indices[i]]>
// (sum mode only, CPU's check); 0 for padding_idx.
at::Tensor _embedding_bag_per_sample_weights_backward(const at::Tensor& grad, const at::Tensor& weight,
                                                      const at::Tensor& indices, const at::Tensor& offsets,
                                                      const at::Tensor& offset2bag, int64_t mode,
                                                      int64_t padding_idx) {
  TORCH_CHECK(mode == kBagSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  const int64_t n = indices.size(0);
  if (n == 0) return at::zeros({0}, grad.options());
  // offset2bag may be empty (CPU's fast path leaves it so): each index's bag
  // is the last offset at or before it.
  const at::Tensor bags = offset2bag.numel() == n
      ? offset2bag
      : at::searchsorted(offsets, at::arange(n, offsets.options()), /*out_int32=*/false, /*right=*/true) - 1;
  at::Tensor out = grad.index_select(0, bags).mul(weight.index_select(0, indices)).sum(1);
  if (padding_idx >= 0) out.masked_fill_(indices == padding_idx, 0);
  return out;
}

}  // namespace torch_tpu::aten
