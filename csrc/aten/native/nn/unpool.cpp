// max_unpool2d / max_unpool3d (direct route: ATen's CPU implementations call
// their kernels with a hard-coded CPU device). Checks and their wording are
// CPU's (MaxUnpooling.cpp); the output is zeros with the input's elements
// scattered to their indices (kernels/nn/unpool.h), in the layout CPU
// allocates (2-d: the input's suggested memory format, 3-d: contiguous).
// Their backwards are composite (a gather by the same indices).
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/max_unpool2d.h"
#include "generated/ops/max_unpool3d.h"
#include "kernels/nn/unpool.h"

namespace torch_tpu::aten {
namespace {

void unp_check_non_empty(const at::Tensor& self, const char* fn_name) {
  for (int64_t i = 1; i < self.dim(); ++i) {
    TORCH_CHECK(self.size(i) > 0, fn_name, ": Expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes(), " with dimension ", i, " being empty.");
  }
}

at::Tensor unp_run(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size,
                   at::MemoryFormat format, const char* name) {
  const int dims = static_cast<int>(output_size.size());
  const bool batched = self.dim() == dims + 2;
  std::vector<int64_t> shape;
  if (batched) shape.push_back(self.size(0));
  shape.push_back(self.size(batched ? 1 : 0));
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  at::Tensor out = at::empty(shape, self.options().memory_format(format));
  kernels::UnpoolDesc d;
  d.dtype = device_dtype(self.scalar_type(), name);
  d.dims = dims;
  d.planes = (batched ? self.size(0) : 1) * self.size(batched ? 1 : 0);
  d.in_plane = d.planes == 0 ? 0 : self.numel() / d.planes;
  for (int i = 0; i < dims; ++i) d.out[3 - dims + i] = output_size[i];
  if (out.numel() == 0) return out;
  const at::Tensor x = self.contiguous(), idx = indices.contiguous();
  into_contiguous(out, [&](const at::Tensor& o) {
    launch_validating(self.device().index(), name, {x.const_data_ptr(), idx.const_data_ptr(), o.data_ptr()},
           [d, xp = x.const_data_ptr(), ip = idx.const_data_ptr<int64_t>(), op = o.data_ptr()] {
             kernels::max_unpool_forward(d, xp, ip, op);
           });
  });
  return out;
}

}  // namespace

at::Tensor max_unpool2d(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size) {
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(output_size.size() == 2, "There should be exactly two elements (height, width) in output_size, but got ",
              output_size.size(), " elements.");
  TORCH_CHECK(self.dim() == 3 || self.dim() == 4,
              "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ", self.dim(),
              " dimensions.");
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  unp_check_non_empty(self, "max_unpooling2d_forward_out_cpu()");
  const at::MemoryFormat format = self.dim() == 4 ? self.suggest_memory_format() : at::MemoryFormat::Contiguous;
  return unp_run(self, indices, output_size, format, "max_unpool2d");
}

at::Tensor max_unpool3d(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size,
                        at::IntArrayRef stride, at::IntArrayRef padding) {
  TORCH_CHECK(indices.scalar_type() == at::ScalarType::Long, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5,
              "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with ", self.dim(),
              " dimensions.");
  TORCH_CHECK(output_size.size() == 3,
              "There should be exactly three elements (depth, height, width) in output_size, but got ",
              output_size.size(), " elements.");
  TORCH_CHECK(stride.size() == 3, "There should be exactly three elements (depth, height, width) in stride, but got: ",
              stride.size(), " elements.");
  TORCH_CHECK(padding.size() == 3,
              "There should be exactly three elements (depth, height, width) in padding, but got: ", padding.size(),
              " elements.");
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  unp_check_non_empty(self, "max_unpooling3d_forward_out_cpu()");
  TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0, "strides should be greater than zero, but got stride: ",
              stride);
  return unp_run(self, indices, output_size, at::MemoryFormat::Contiguous, "max_unpool3d");
}

}  // namespace torch_tpu::aten
