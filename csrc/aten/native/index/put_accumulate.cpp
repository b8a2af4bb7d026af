// index_put_with_sort_stub: ATen's _index_put_impl_ hands accumulating puts
// (and deterministic-mode puts) on PrivateUse1 devices to this stub instead
// of index_put_stub, as it does for CUDA. We have no sort-based kernel: the
// accumulating index_put kernel already sums in iteration order on one core
// (deterministic). So this builds the same iterator ATen's make_info /
// make_index_put_iterator build (their helpers are not exported from
// libtorch: AdvancedIndex's constructor is internal, so its few lines are
// restated here) and runs index_put_kernel.
#include <ATen/ExpandUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/IndexingUtils.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/native/TensorAdvancedIndexingUtils.h>

#include <algorithm>
#include <type_traits>

#include "aten/device/op_registry.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {


namespace {

struct IndexInfo {
  at::Tensor src;                    // self restrided: stride 0 over the indexed dims
  std::vector<at::Tensor> indices;   // broadcast, reshaped to src's rank
  std::vector<int64_t> indexed_sizes;
  std::vector<int64_t> indexed_strides;  // bytes
};

IndexInfo make_index_info(at::Tensor self, const c10::List<std::optional<at::Tensor>>& orig) {
  at::native::checkIndexTensorTypes(orig, /*allow_int*/ true);
  std::vector<at::Tensor> indices = at::native::expandTensors(self, orig, /*ensure_same_device=*/true);
  try {
    indices = at::expand_outplace(indices);
  } catch (std::exception&) {
    TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                      at::native::shapes_as_str(indices));
  }
  while (indices.size() < static_cast<size_t>(self.dim())) indices.emplace_back();
  if (!at::native::hasContiguousSubspace(indices)) {
    std::tie(self, indices) = at::native::transposeToFront(self, indices);
  }
  for (auto& index : indices) {
    if (index.defined() && index.dtype() == at::kInt) index = index.to(at::kLong);
  }
  IndexInfo info;
  int64_t dims_before = 0, dims_after = 0, dims_indexed = 0;
  at::IntArrayRef replacement_shape;
  for (size_t dim = 0; dim < indices.size(); ++dim) {
    if (!indices[dim].defined()) {
      (dims_indexed == 0 ? dims_before : dims_after)++;
    } else {
      ++dims_indexed;
      replacement_shape = indices[dim].sizes();
      info.indexed_sizes.push_back(self.size(static_cast<int64_t>(dim)));
      info.indexed_strides.push_back(self.stride(static_cast<int64_t>(dim)) * self.element_size());
    }
  }
  if (std::find(info.indexed_sizes.begin(), info.indexed_sizes.end(), 0) != info.indexed_sizes.end() &&
      std::find(replacement_shape.begin(), replacement_shape.end(), 0) == replacement_shape.end()) {
    TORCH_CHECK_INDEX(false, "index is out of bounds for dimension with size 0");
  }
  // src: the indexed dims replaced by the index shape, with stride 0.
  std::vector<int64_t> shape = self.sizes().vec(), strides = self.strides().vec();
  const int64_t end = dims_before + dims_indexed;
  shape.erase(shape.begin() + dims_before, shape.begin() + end);
  strides.erase(strides.begin() + dims_before, strides.begin() + end);
  shape.insert(shape.begin() + dims_before, replacement_shape.begin(), replacement_shape.end());
  strides.insert(strides.begin() + dims_before, replacement_shape.size(), 0);
  info.src = self.as_strided(shape, strides);
  for (const auto& index : indices) {
    if (!index.defined()) continue;
    std::vector<int64_t> s(dims_before, 1);
    s.insert(s.end(), index.sizes().begin(), index.sizes().end());
    s.insert(s.end(), dims_after, 1);
    info.indices.push_back(index.reshape(s));
  }
  return info;
}

}  // namespace

void index_put_with_sort_kernel(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices,
                                const at::Tensor& value, bool accumulate, bool /*unsafe*/) {
  IndexInfo info = make_index_info(self, indices);
  TORCH_CHECK(at::is_expandable_to(value.sizes(), info.src.sizes()), "shape mismatch: value tensor of shape ",
              value.sizes(), " cannot be broadcast to indexing result of shape ", info.src.sizes());
  TORCH_CHECK(value.scalar_type() == info.src.scalar_type(),
              "Index put requires the source and destination dtypes match, got ", info.src.scalar_type(),
              " for the destination and ", value.scalar_type(), " for the source.");
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false);
  config.resize_outputs(false);
  config.check_all_same_dtype(false);
  config.add_output(info.src);
  config.add_const_input(value);
  for (const auto& index : info.indices) config.add_const_input(index);
  at::TensorIterator iter = config.build();
  index_put_kernel(iter, info.indexed_sizes, info.indexed_strides, accumulate);
}

}  // namespace torch_tpu::aten
