// embedding_dense_backward on tpu (the weight gradient of nn.Embedding /
// F.embedding with sparse=False). CPU's implementation is CPU-only (it calls
// add_stub with kCPU row by row): a direct route with CPU's checks, over a
// deterministic device kernel (kernels/nn/embedding_backward.h).
#include <ATen/TensorUtils.h>
#include <ATen/ops/empty.h>

#include "aten/launch.h"
#include "aten/native/linalg/launch.h"
#include "generated/ops/embedding_dense_backward.h"
#include "kernels/nn/embedding_backward.h"

namespace torch_tpu::aten {

at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices,
                                    int64_t num_weights, int64_t padding_idx,
                                    bool scale_grad_by_freq) {
  auto indices_arg = at::TensorArg(indices, "indices", 2);
  at::checkScalarTypes("embedding_backward", indices_arg, {at::kLong, at::kInt});
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(grad_output.scalar_type()),
                              "\"embedding_dense_backward\" not implemented for '",
                              grad_output.scalar_type(), "' on tpu");
  const int64_t dim = grad_output.size(-1);
  at::Tensor grad_weight = at::empty({num_weights, dim}, grad_output.options());
  const at::Tensor idx = indices.contiguous();
  const int64_t numel = indices.numel();
  const at::Tensor grad = grad_output.contiguous().view({numel, dim});
  if (grad_weight.numel() == 0) return grad_weight;

  kernels::EmbeddingBackwardDesc d;
  d.dtype = device_dtype(grad.scalar_type(), "embedding_dense_backward");
  d.index_dtype = device_dtype(idx.scalar_type(), "embedding_dense_backward");
  d.grad = grad.const_data_ptr();
  d.indices = idx.const_data_ptr();
  d.grad_weight = grad_weight.data_ptr();
  d.numel = numel, d.dim = dim, d.num_weights = num_weights;
  d.padding_idx = padding_idx;
  d.scale_grad_by_freq = scale_grad_by_freq;
  launch(grad_weight.device().index(), "embedding_dense_backward",
         d.buffers(), [d] { kernels::embedding_dense_backward(d); });
  return grad_weight;
}

}  // namespace torch_tpu::aten
