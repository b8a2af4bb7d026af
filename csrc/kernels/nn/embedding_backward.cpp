// embedding_dense_backward (embedding_backward.h): a counting sort of the
// indices by weight row (stable, so each row sums its gradients in index
// order), then rows split over the cores, each summed in a float buffer.
#include "kernels/nn/embedding_backward.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/half.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename T, typename Index>
void run(const EmbeddingBackwardDesc& d) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const Index* idx = static_cast<const Index*>(d.indices);
  const T* grad = static_cast<const T*>(d.grad);
  T* out = static_cast<T*>(d.grad_weight);
  const int64_t W = d.num_weights, D = d.dim;

  // Rows each index contributes to, grouped by weight row in index order.
  std::vector<int64_t> start(W + 1, 0), count(W, 0);
  for (int64_t i = 0; i < d.numel; ++i) {
    const int64_t k = static_cast<int64_t>(idx[i]);
    if (k >= 0 && k < W) ++count[k];
  }
  for (int64_t k = 0; k < W; ++k) start[k + 1] = start[k] + count[k];
  std::vector<int64_t> order(start[W]);
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t i = 0; i < d.numel; ++i) {
      const int64_t k = static_cast<int64_t>(idx[i]);
      if (k >= 0 && k < W) order[fill[k]++] = i;
    }
  }

  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(D, 1));
  runtime::parallel_for(0, W, grain, [&](int64_t k0, int64_t k1) {
    std::vector<Acc> acc(D);
    for (int64_t k = k0; k < k1; ++k) {
      T* row = out + k * D;
      if (k == d.padding_idx || count[k] == 0) {
        for (int64_t j = 0; j < D; ++j) row[j] = narrow_from<T>(Acc{0});
        continue;
      }
      std::fill(acc.begin(), acc.end(), Acc{0});
      const Acc scale = d.scale_grad_by_freq ? Acc{1} / static_cast<Acc>(count[k]) : Acc{1};
      for (int64_t p = start[k]; p < start[k + 1]; ++p) {
        const T* g = grad + order[p] * D;
        if (d.scale_grad_by_freq) {
          for (int64_t j = 0; j < D; ++j) acc[j] += widen_to<Acc>(g[j]) * scale;
        } else {
          for (int64_t j = 0; j < D; ++j) acc[j] += widen_to<Acc>(g[j]);
        }
      }
      for (int64_t j = 0; j < D; ++j) row[j] = narrow_from<T>(acc[j]);
    }
  });
}

template <typename T>
void run_index(const EmbeddingBackwardDesc& d) {
  if (d.index_dtype == DType::kInt64) return run<T, int64_t>(d);
  if (d.index_dtype == DType::kInt32) return run<T, int32_t>(d);
  throw std::invalid_argument("embedding_dense_backward: indices must be int32 or int64");
}

}  // namespace

void embedding_dense_backward(const EmbeddingBackwardDesc& d) {
  if (d.num_weights == 0 || d.dim == 0) return;
  switch (d.dtype) {
    case DType::kFloat32: return run_index<float>(d);
    case DType::kFloat64: return run_index<double>(d);
    case DType::kFloat16: return run_index<Half>(d);
    case DType::kBFloat16: return run_index<BFloat16>(d);
    default:
      throw std::invalid_argument(std::string("embedding_dense_backward: unsupported dtype ") +
                                  dtype_name(d.dtype));
  }
}

}  // namespace torch_tpu::kernels
