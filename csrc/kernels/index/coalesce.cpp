// coalesce_dims: turn a multi-operand layout into the fewest dimensions that
// still describe it, so the loops in copy/fill run long inner rows.
#include <stdexcept>
#include <string>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

void coalesce_dims(std::vector<TensorDesc*> descs) {
  if (descs.empty()) return;
  const std::vector<int64_t> sizes = descs[0]->sizes;
  const size_t nd = sizes.size();
  for (TensorDesc* d : descs) {
    if (d->sizes != sizes || d->strides.size() != nd) {
      throw std::invalid_argument("coalesce_dims: operands must have equal sizes and one stride per dim");
    }
  }

  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) {  // nothing to iterate: one empty dimension
    for (TensorDesc* d : descs) {
      d->sizes = {0};
      d->strides = {1};
    }
    return;
  }

  // Walk from the innermost dimension outwards, appending to (reversed)
  // output dims; dim i merges into the current output dim when, for every
  // operand, stepping dim i equals stepping the whole current dim.
  std::vector<int64_t> out_sizes;
  std::vector<std::vector<int64_t>> out_strides(descs.size());
  for (size_t i = nd; i-- > 0;) {
    if (sizes[i] == 1) continue;
    bool merge = !out_sizes.empty();
    for (size_t k = 0; merge && k < descs.size(); ++k) {
      merge = descs[k]->strides[i] == out_strides[k].back() * out_sizes.back();
    }
    if (merge) {
      out_sizes.back() *= sizes[i];  // keeps the inner dim's stride
    } else {
      out_sizes.push_back(sizes[i]);
      for (size_t k = 0; k < descs.size(); ++k) out_strides[k].push_back(descs[k]->strides[i]);
    }
  }
  if (out_sizes.empty()) {  // all dims had size 1 (or there were none)
    out_sizes.push_back(1);
    for (auto& s : out_strides) s.push_back(1);
  }

  for (size_t k = 0; k < descs.size(); ++k) {
    descs[k]->sizes.assign(out_sizes.rbegin(), out_sizes.rend());
    descs[k]->strides.assign(out_strides[k].rbegin(), out_strides[k].rend());
  }
}

}  // namespace torch_tpu::kernels
